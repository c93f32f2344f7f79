// Chapter 11's facts for the tools, owned here beside its kernel: its candidate configurations, the
// kernel instance tools/measuring/shape_sweep.cu models, and traffic model. Read by
// tools/measuring/tune.cu, tools/measuring/shape_sweep.cu and tools/reporting/plot.py. Not included
// by the kernel (its code and source hash stay as they are); docs/tuning.md describes the format.
// `napkin` is the traffic model of tools/reporting/plot.py's roofline (read by
// tools/build/chapter_facts.py, checked against the kernel's constants below): rows {largest M (0:
// any), BM, BN}, the first row with M <= largest M applies; global traffic = e * (M * K * ceil(N /
// BN) + K * N * ceil(M / BM)) + C's bytes.
#pragma once

#include "11_mma_ldmatrix/kernel.cuh"

namespace ch11::facts {

inline constexpr int napkin[][3] = {{0, 128, 256}};
// The tile gemm() picks on sm_80 and sm_90, as chapter 10's.
static_assert(napkin[0][1] == configs::b128x256_k64_s3::BM &&
                  napkin[0][2] == configs::b128x256_k64_s3::BN,
              "napkin: the tile gemm() runs");

// The candidate configurations; tools/measuring/tune.cu times every candidate: f(name, gemm
// function).
template <class F>
void for_each_candidate(F&& f) {
    f("11_b128x256_k64_s3", ch11::gemm_cfg<configs::b128x256_k64_s3>);
    f("11_b128x256_k64_s4", ch11::gemm_cfg<configs::b128x256_k64_s4>);
    f("11_b256x128_k64_s3", ch11::gemm_cfg<configs::b256x128_k64_s3>);
    f("11_b256x128_k64_s4", ch11::gemm_cfg<configs::b256x128_k64_s4>);
    f("11_b128x256_k32_s4", ch11::gemm_cfg<configs::b128x256_k32_s4>);
    f("11_b128x128_k64_s3", ch11::gemm_cfg<configs::b128x128_k64_s3>);
}

// Named configurations of the kernel that tools/measuring/tune.cu does not time
// (tests/tools/test_facts.py checks that every name of the kernel's `configs` is here or a
// candidate).
inline constexpr const char* not_tuned[] = {"b128x256_k32_s3", "b128x128_k32_s2"};

// The configuration gemm() picks (choose_config) and the kernel instance it runs, for 16-byte
// copies or not (vec): fn(Cfg{}, kernel). tools/measuring/shape_sweep.cu models its tile and
// occupancy.
template <class Fn>
void chosen_kernel(bool vec, Fn&& fn) {
    choose_config(vec, [&](auto cfg) {
        using Cfg = decltype(cfg);
        if (vec)
            fn(cfg, mma_pipelined_kernel<Cfg, true, false>);
        else
            fn(cfg, mma_pipelined_kernel<Cfg, false, false>);
    });
}

}  // namespace ch11::facts

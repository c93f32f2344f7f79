// Chapter 09's facts for the tools, owned here beside its kernel: its candidate configurations and
// traffic model. Read by tools/measuring/tune.cu and tools/reporting/plot.py. Not included by the
// kernel (its code and source hash stay as they are); docs/tuning.md describes the format. `napkin`
// is the traffic model of tools/reporting/plot.py's roofline (read by tools/build/chapter_facts.py,
// checked against the kernel's constants below): rows {largest M (0: any), BM, BN}, the first row
// with M <= largest M applies; global traffic = e * (M * K * ceil(N / BN) + K * N * ceil(M / BM)) +
// C's bytes.
#pragma once

#include "09_wmma_smem/kernel.cuh"

namespace ch09::facts {

inline constexpr int napkin[][3] = {{0, 128, 128}};
static_assert(napkin[0][1] == configs::b128x128_k64_w4::BM &&
                  napkin[0][2] == configs::b128x128_k64_w4::BN,
              "napkin: the tile gemm() runs");

// The candidate configurations; tools/measuring/tune.cu times every candidate: f(name, gemm
// function).
template <class F>
void for_each_candidate(F&& f) {
    f("09_b128x128_k32", ch09::gemm_cfg<configs::b128x128_k32>);
    f("09_b128x256_k32", ch09::gemm_cfg<configs::b128x256_k32>);
    f("09_b256x128_k32", ch09::gemm_cfg<configs::b256x128_k32>);
    f("09_b128x128_k64", ch09::gemm_cfg<configs::b128x128_k64>);
    f("09_b128x128_k32_w4", ch09::gemm_cfg<configs::b128x128_k32_w4>);
    f("09_b128x128_k64_w4", ch09::gemm_cfg<configs::b128x128_k64_w4>);
}

}  // namespace ch09::facts

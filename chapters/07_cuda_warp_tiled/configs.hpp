// Chapter 07's facts for the tools, owned here beside its kernel: its candidate configurations and
// traffic model. Read by tools/measuring/tune.cu and tools/reporting/plot.py. Not included by the
// kernel (its code and source hash stay as they are); docs/tuning.md describes the format. `napkin`
// is the traffic model of tools/reporting/plot.py's roofline (read by tools/build/chapter_facts.py,
// checked against the kernel's constants below): rows {largest M (0: any), BM, BN}, the first row
// with M <= largest M applies; global traffic = e * (M * K * ceil(N / BN) + K * N * ceil(M / BM)) +
// C's bytes.
#pragma once

#include "07_cuda_warp_tiled/kernel.cuh"

namespace ch07::facts {

inline constexpr int napkin[][3] = {{0, 128, 128}};
static_assert(napkin[0][1] == configs::Default::BM && napkin[0][2] == configs::Default::BN,
              "napkin: the default configuration's tile");

// The candidate configurations; tools/measuring/tune.cu times every candidate: f(name, gemm
// function).
template <class F>
void for_each_candidate(F&& f) {
    f("07_c128x128x16", ch07::gemm_cfg<configs::c128x128x16>);
    f("07_c128x128x8", ch07::gemm_cfg<configs::c128x128x8>);
    f("07_c128x256x8", ch07::gemm_cfg<configs::c128x256x8>);
    f("07_c256x128x8", ch07::gemm_cfg<configs::c256x128x8>);
    f("07_c64x64x8", ch07::gemm_cfg<configs::c64x64x8>);
}

// Named configurations of the kernel that tools/measuring/tune.cu does not time
// (tests/tools/test_facts.py checks that every name of the kernel's `configs` is here or a
// candidate).
inline constexpr const char* not_tuned[] = {"Default"};

}  // namespace ch07::facts

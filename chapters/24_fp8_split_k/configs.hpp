// Chapter 24's facts for the tools, owned here beside its kernel: its candidate configurations and
// traffic model (e = 1: e4m3; C bf16). Read by tools/measuring/tune.cu (tune_hopper) and
// tools/reporting/plot.py. Not included by the kernel (its code and source hash stay as they are);
// docs/tuning.md describes the format. `napkin` is the traffic model of tools/reporting/plot.py's
// roofline (read by tools/build/chapter_facts.py, checked against the kernel's constants below):
// rows {largest M (0: any), BM, BN}, the first row with M <= largest M applies; global traffic = e
// * (M * K * ceil(N / BN) + K * N * ceil(M / BM)) + C's bytes, plus, when K is split into S slices,
// 2 * S * M * N * 4 bytes of fp32 partials (written, then read back by the reduction) -- not
// counted here: S comes from the SM count (choose_slices), which a results CSV does not record, so
// the napkin is the tiles' traffic alone (a lower bound), as chapter 16's.
#pragma once

#include "24_fp8_split_k/kernel.cuh"

namespace ch24::facts {

inline constexpr int napkin[][3] = {{1023, 128, 128}, {0, 256, 128}};
// gemm(): gemm_cfg<1, 8, true> below PAIRS_MIN_M rows, tiles of (128, 128), no clusters; from it
// (where the tiles fill the SMs) gemm_cfg<2, 8, true>, clusters of two along M sharing B.
static_assert(napkin[0][1] == BM && napkin[0][2] == BN, "napkin: the block's tile");
static_assert(napkin[1][1] == 2 * BM && napkin[1][2] == BN, "napkin: the pair's tile");
static_assert(napkin[0][0] == PAIRS_MIN_M - 1, "napkin: one block below PAIRS_MIN_M rows");

// The candidate configurations; tools/measuring/tune.cu times every candidate: f(name, gemm
// function); the chapter (slices by choose_slices), no split (chapter 23's gemm()), and fixed
// slice counts, for the cost's constants.
template <class F>
void for_each_candidate(F&& f) {
    f("24_fp8_split_k", ch24::gemm);
    f("24_fp8_split_k_slices1", ch24::gemm_cfg<1, 8, true, 1>);
    f("24_fp8_split_k_slices2", ch24::gemm_cfg<1, 8, true, 2>);
    f("24_fp8_split_k_slices4", ch24::gemm_cfg<1, 8, true, 4>);
    f("24_fp8_split_k_slices7", ch24::gemm_cfg<1, 8, true, 7>);
    f("24_fp8_split_k_slices8", ch24::gemm_cfg<1, 8, true, 8>);
}

}  // namespace ch24::facts

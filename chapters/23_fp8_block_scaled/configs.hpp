// Chapter 23's facts for the tools, owned here beside its kernel: its candidate configurations and
// traffic model (e = 1: e4m3; C bf16). Read by tools/measuring/tune.cu (tune_hopper) and
// tools/reporting/plot.py. Not included by the kernel (its code and source hash stay as they are);
// docs/tuning.md describes the format. `napkin` is the traffic model of tools/reporting/plot.py's
// roofline (read by tools/build/chapter_facts.py, checked against the kernel's constants below):
// rows {largest M (0: any), BM, BN}, the first row with M <= largest M applies; global traffic = e
// * (M * K * ceil(N / BN) + K * N * ceil(M / BM)) + C's bytes.
#pragma once

#include "23_fp8_block_scaled/kernel.cuh"

namespace ch23::facts {

inline constexpr int napkin[][3] = {{1023, 128, 128}, {0, 256, 128}};
// gemm(): gemm_cfg<1, 8, true> below PAIRS_MIN_M rows, tiles of (128, 128), no clusters; from it
// (where the tiles fill the SMs) gemm_cfg<2, 8, true>, clusters of two along M sharing B.
static_assert(napkin[0][1] == BM && napkin[0][2] == BN, "napkin: the block's tile");
static_assert(napkin[1][1] == 2 * BM && napkin[1][2] == BN, "napkin: the pair's tile");
static_assert(napkin[0][0] == PAIRS_MIN_M - 1, "napkin: one block below PAIRS_MIN_M rows");

// The candidate configurations; tools/measuring/tune.cu times every candidate: f(name, gemm
// function); with and without clusters, pairs without the overlap (chunks of one k-tile), all with
// the register epilogue, and C through TMA stores (the epilogue's STORE_TMA, chapter 22's).
template <class F>
void for_each_candidate(F&& f) {
    f("23_fp8_block_scaled_cluster1", ch23::gemm_cfg<1>);
    f("23_fp8_block_scaled_cluster2", ch23::gemm_cfg<2>);
    f("23_fp8_block_scaled_cluster2_chunk1", ch23::gemm_cfg<2, 1>);
    f("23_fp8_block_scaled_cluster1_tma_store", ch23::gemm_cfg<1, 8, true>);
    f("23_fp8_block_scaled_cluster2_tma_store", ch23::gemm_cfg<2, 8, true>);
}

}  // namespace ch23::facts

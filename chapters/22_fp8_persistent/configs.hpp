// Chapter 22's facts for the tools, owned here beside its kernel: its candidate configurations and
// traffic model (e = 1: e4m3; C bf16). Read by tools/measuring/tune.cu (tune_hopper) and
// tools/reporting/plot.py. Not included by the kernel (its code and source hash stay as they are);
// docs/tuning.md describes the format. `napkin` is the traffic model of tools/reporting/plot.py's
// roofline (read by tools/build/chapter_facts.py, checked against the kernel's constants below):
// rows {largest M (0: any), BM, BN}, the first row with M <= largest M applies; global traffic = e
// * (M * K * ceil(N / BN) + K * N * ceil(M / BM)) + C's bytes.
#pragma once

#include "22_fp8_persistent/kernel.cuh"

namespace ch22::facts {

inline constexpr int napkin[][3] = {{0, 256, 128}};
// gemm(): gemm_cfg<2>, tiles of (128, 128) in clusters of two along M sharing B.
static_assert(napkin[0][1] == 2 * BM && napkin[0][2] == BN, "napkin: the cluster's tile");

// The candidate configurations; tools/measuring/tune.cu times every candidate: f(name, gemm
// function); with and without clusters, pairs without the overlap (chunks of one k-tile), and C
// through TMA stores (the epilogue's STORE_TMA, issue 38; not yet the chapter's gemm()).
template <class F>
void for_each_candidate(F&& f) {
    f("22_fp8_persistent_cluster1", ch22::gemm_cfg<1>);
    f("22_fp8_persistent_cluster2", ch22::gemm_cfg<2>);
    f("22_fp8_persistent_cluster2_chunk1", ch22::gemm_cfg<2, 1>);
    f("22_fp8_persistent_cluster1_tma_store", ch22::gemm_cfg<1, 8, true>);
    f("22_fp8_persistent_cluster2_tma_store", ch22::gemm_cfg<2, 8, true>);
    f("22_fp8_persistent_cluster2_tma_store_lean", ch22::gemm_cfg<2, 8, true, 1>);  // EXPERIMENT
    f("22_fp8_persistent_cluster2_tma_store_lean2", ch22::gemm_cfg<2, 8, true, 2>);  // EXPERIMENT
    f("22_fp8_persistent_cluster2_tma_store_lean3", ch22::gemm_cfg<2, 8, true, 3>);  // EXPERIMENT
    f("22_fp8_persistent_cluster2_lean3", ch22::gemm_cfg<2, 8, false, 3>);  // EXPERIMENT
    f("22_fp8_persistent_cluster2_tma_store_lean4", ch22::gemm_cfg<2, 8, true, 4>);  // EXPERIMENT
}

}  // namespace ch22::facts

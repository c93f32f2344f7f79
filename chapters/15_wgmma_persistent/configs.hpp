// Chapter 15's facts for the tools, owned here beside its kernel: its candidate configurations (the
// README table's steps) and traffic model. Read by tools/measuring/tune.cu (tune_hopper) and
// tools/reporting/plot.py. Not included by the kernel (its code and source hash stay as they are);
// docs/tuning.md describes the format. `napkin` is the traffic model of tools/reporting/plot.py's
// roofline (read by tools/build/chapter_facts.py, checked against the kernel's constants below):
// rows {largest M (0: any), BM, BN}, the first row with M <= largest M applies; global traffic = e
// * (M * K * ceil(N / BN) + K * N * ceil(M / BM)) + C's bytes.
#pragma once

#include "15_wgmma_persistent/kernel.cuh"

namespace ch15::facts {

inline constexpr int napkin[][3] = {{0, 256, 256}};
// Tiles of 128 rows in clusters of two along M sharing B (multicast): B is read once per 256 rows.
static_assert(napkin[0][1] == configs::best::BM * configs::best::CLUSTER &&
                  napkin[0][2] == configs::best::BN,
              "napkin: the cluster's tile");

// The candidate configurations; tools/measuring/tune.cu times every candidate: f(name, gemm
// function).
template <class F>
void for_each_candidate(F&& f) {
    f("15_single", ch15::gemm_cfg<configs::single>);
    f("15_single_wait0", ch15::gemm_cfg<configs::single_wait0>);
    f("15_persistent", ch15::gemm_cfg<configs::persistent>);
    f("15_cluster2", ch15::gemm_cfg<configs::cluster2>);
    f("15_persistent_cluster2", ch15::gemm_cfg<configs::persistent_cluster2>);
    f("15_persistent_cluster2_tma_store", ch15::gemm_cfg<configs::best>);
}

}  // namespace ch15::facts

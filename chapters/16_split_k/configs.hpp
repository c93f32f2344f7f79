// Chapter 16's facts for the tools, owned here beside its kernel: its candidate configurations (the
// README table's steps) and traffic model. Read by tools/measuring/tune.cu (tune_hopper) and
// tools/reporting/plot.py. Not included by the kernel (its code and source hash stay as they are);
// docs/tuning.md describes the format. `napkin` is the traffic model of tools/reporting/plot.py's
// roofline (read by tools/build/chapter_facts.py, checked against the kernel's constants below):
// rows {largest M (0: any), BM, BN}, the first row with M <= largest M applies; global traffic = e
// * (M * K * ceil(N / BN) + K * N * ceil(M / BM)) + C's bytes, plus, when K is split into S slices,
// 2 * S * M * N * 4 bytes of fp32 partials (written, then read back by the reduction) -- not
// counted here: S comes from the SM count (choose_splits), which a results CSV does not record, so
// the napkin is the tiles' traffic alone (a lower bound).
#pragma once

#include "16_split_k/kernel.cuh"

namespace ch16::facts {

inline constexpr int napkin[][3] = {{128, 128, 256}, {0, 256, 256}};
// gemm(): rows128 (128, 256) for M <= 128, else cluster2, pairs of (128, 256) sharing B.
static_assert(napkin[0][1] == configs::rows128::BM && napkin[0][2] == configs::rows128::BN,
              "napkin: rows128's tile");
static_assert(napkin[1][1] == configs::cluster2::BM * configs::cluster2::CLUSTER &&
                  napkin[1][2] == configs::cluster2::BN,
              "napkin: cluster2's pair");

// The candidate configurations; tools/measuring/tune.cu times every candidate: f(name, gemm
// function).
template <class F>
void for_each_candidate(F&& f) {
    f("16_cluster2_whole", ch16::gemm_cfg<configs::cluster2, false>);
    f("16_cluster2_split", ch16::gemm_cfg<configs::cluster2>);
    f("16_rows128_split", ch16::gemm_cfg<configs::rows128>);
    f("16_n128_split", ch16::gemm_cfg<configs::n128>);
    f("16_n64_split", ch16::gemm_cfg<configs::n64>);
    f("16_n128_cluster2_split", ch16::gemm_cfg<pipeline::Config<2, 128>>);  // EXPERIMENT
    f("16_split_k", ch16::gemm);
}

}  // namespace ch16::facts

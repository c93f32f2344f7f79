// Chapter 17's facts for the tools, owned here beside its kernel: its candidate configurations (the
// parallel fix-up against the last piece's, to be timed) and traffic model. Read by
// tools/measuring/tune.cu (tune_hopper) and tools/reporting/plot.py. Not included by the kernel
// (its code and source hash stay as they are); docs/tuning.md describes the format. `napkin` is the
// traffic model of tools/reporting/plot.py's roofline (read by tools/build/chapter_facts.py,
// checked against the kernel's constants below): rows {largest M (0: any), BM, BN}, the first row
// with M <= largest M applies; global traffic = e
// * (M * K * ceil(N / BN) + K * N * ceil(M / BM)) + C's bytes, plus each tile cut into P pieces
// writes and reads back (P - 1) * BM * BN * 4 bytes of fp32 partials: not counted (P comes from the
// SM count, which a results CSV does not record), a lower bound.
#pragma once

#include "17_stream_k/kernel.cuh"

namespace ch17::facts {

inline constexpr int napkin[][3] = {{128, 128, 256}, {0, 256, 256}};
// gemm(): as chapter 16, rows128 for M <= 128, else cluster2.
static_assert(napkin[0][1] == configs::rows128::BM && napkin[0][2] == configs::rows128::BN,
              "napkin: rows128's tile");
static_assert(napkin[1][1] == configs::cluster2::BM * configs::cluster2::CLUSTER &&
                  napkin[1][2] == configs::cluster2::BN,
              "napkin: cluster2's pair");

// The candidate configurations; tools/measuring/tune.cu times every candidate: f(name, gemm
// function). Each fix-up by the last piece ("_last") beside the parallel one ("_parallel", the
// option of gemm_cfg), with the hybrid and equal depths, on gemm()'s two tiles; then gemm() itself.
// GEMM_TUNE_ONLY=17_ times them all, =_parallel the parallel ones alone.
template <class F>
void for_each_candidate(F&& f) {
    f("17_cluster2_hybrid_last", ch17::gemm_cfg<configs::cluster2, Split::hybrid>);
    f("17_cluster2_hybrid_parallel", ch17::gemm_cfg<configs::cluster2, Split::hybrid, true>);
    f("17_cluster2_equal_depth_parallel",
      ch17::gemm_cfg<configs::cluster2, Split::equal_depth, true>);
    f("17_cluster2_stream_k_parallel", ch17::gemm_cfg<configs::cluster2, Split::stream_k, true>);
    f("17_rows128_hybrid_last", ch17::gemm_cfg<configs::rows128, Split::hybrid>);
    f("17_rows128_hybrid_parallel", ch17::gemm_cfg<configs::rows128, Split::hybrid, true>);
    f("17_stream_k", ch17::gemm);
}

// Named configurations of the kernel that tools/measuring/tune.cu does not time
// (tests/tools/test_facts.py checks that every name of the kernel's `configs` is here or a
// candidate): chapter 19's dispatcher takes n128 and n64 too.
inline constexpr const char* not_tuned[] = {"n128", "n64"};

}  // namespace ch17::facts

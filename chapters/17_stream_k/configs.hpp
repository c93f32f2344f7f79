// Chapter 17's facts for the tools, owned here beside its kernel: its traffic model. Read by
// tools/reporting/plot.py. Not included by the kernel (its code and source hash stay as they are);
// docs/tuning.md describes the format. `napkin` is the traffic model of tools/reporting/plot.py's
// roofline (read by tools/build/chapter_facts.py, checked against the kernel's constants below):
// rows {largest M (0: any), BM, BN}, the first row with M <= largest M applies; global traffic = e
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

// Named configurations of the kernel that tools/measuring/tune.cu does not time
// (tests/tools/test_facts.py checks that every name of the kernel's `configs` is here or a
// candidate): gemm() takes rows128 or cluster2 by M; chapter 19's dispatcher all four.
inline constexpr const char* not_tuned[] = {"cluster2", "rows128", "n128", "n64"};

}  // namespace ch17::facts

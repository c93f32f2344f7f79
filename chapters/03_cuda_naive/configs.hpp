// Chapter 03's facts for the tools, owned here beside its kernel: its traffic model. Read by
// tools/reporting/plot.py. Not included by the kernel (its code and source hash stay as they are);
// docs/tuning.md describes the format. `napkin` is the traffic model of tools/reporting/plot.py's
// roofline (read by tools/build/chapter_facts.py, checked against the kernel's constants below):
// rows {largest M (0: any), BM, BN}, the first row with M <= largest M applies; global traffic = e
// * (M * K * ceil(N / BN) + K * N * ceil(M / BM)) + C's bytes.
#pragma once

#include "03_cuda_naive/kernel.cuh"

namespace ch03::facts {

inline constexpr int napkin[][3] = {{0, 1, 1}};
// One thread per element of C, reading a row of A and a column of B from global memory: a
// 1 x 1 tile, 2 * e * M * N * K bytes.

}  // namespace ch03::facts

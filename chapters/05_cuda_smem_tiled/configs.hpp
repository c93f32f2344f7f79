// Chapter 05's facts for the tools, owned here beside its kernel: its traffic model. Read by
// tools/reporting/plot.py. Not included by the kernel (its code and source hash stay as they are);
// docs/tuning.md describes the format. `napkin` is the traffic model of tools/reporting/plot.py's
// roofline (read by tools/build/chapter_facts.py, checked against the kernel's constants below):
// rows {largest M (0: any), BM, BN}, the first row with M <= largest M applies; global traffic = e
// * (M * K * ceil(N / BN) + K * N * ceil(M / BM)) + C's bytes.
#pragma once

#include "05_cuda_smem_tiled/kernel.cuh"

namespace ch05::facts {

inline constexpr int napkin[][3] = {{0, 32, 32}};
static_assert(napkin[0][1] == BM && napkin[0][2] == BN, "napkin: the kernel's tile");

}  // namespace ch05::facts

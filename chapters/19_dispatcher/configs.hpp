// Chapter 19's facts for the tools, owned here beside its kernel: its traffic model. Read by
// tools/reporting/plot.py. Not included by the kernel (its code and source hash stay as they are);
// docs/tuning.md describes the format. `napkin` is the traffic model of tools/reporting/plot.py's
// roofline (read by tools/build/chapter_facts.py, checked against the kernel's constants below):
// rows {largest M (0: any), BM, BN}, the first row with M <= largest M applies; global traffic = e
// * (M * K * ceil(N / BN) + K * N * ceil(M / BM)) + C's bytes.
#pragma once

#include "19_dispatcher/kernel.cuh"

namespace ch19::facts {

inline constexpr int napkin[][3] = {{128, 128, 256}, {0, 256, 256}};
// The dispatcher's choice per shape is not modelled: chapter 16's default tiles (rows128 for
// M <= 128, else cluster2's pair). A narrower tile it picks reads A more often.
static_assert(napkin[0][1] == ch16::configs::rows128::BM &&
                  napkin[1][1] == ch16::configs::cluster2::BM * ch16::configs::cluster2::CLUSTER,
              "napkin: chapter 16's tiles");

}  // namespace ch19::facts

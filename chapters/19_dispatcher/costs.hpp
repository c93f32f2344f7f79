// The dispatcher's measured constants (chapter 19), in units of one (128, 256) k-tile on one SM.
// KTILE: a k-tile's time against a (128, 256) one, whole tiles at 4096^3 on the H200 (% of cuBLAS
// from tune_hopper, chapter 16_every_shape's table, commit 76f7a36): cluster2 98.5%, (128, 128)
// 79.0%, (128, 64) 50.9%; each tile's share of the area times 98.5 / its %. The others are
// estimates from that chapter's README and two points of issue 28's first H200 run (below); none
// is fitted by a program yet.
#pragma once

namespace ch19::costs {
// cluster2, rows128, n128, n64
constexpr double KTILE[4] = {1.0, 1.0, 0.5 * 98.5 / 79.0, 0.25 * 98.5 / 50.9};
inline double ktile(int i) {
    return KTILE[i];
}
constexpr double SPLIT_FIXED = 4.0;  // a second launch (~3 us) in k-tile times (~0.8 us each)
// A (128, 256) partial read back by the last piece of its tile, alone on its SM: at 128 x 8192 x
// 8192 the in-kernel fix-up (4 pieces) took 11 us more than chapter 16's reduction kernel (H200,
// commit d3b723c: 0.066 against 0.055 ms): 3 partials read, 4 written, about 6 k-tile times
// (0.76 us each) per partial read.
constexpr double PIECE = 6.0;
// Stream-K's fixed price (counters, fences, the ranges' uneven ends), set so that the model's ratio
// of chapter 17's hybrid to chapter 16's split at 128 x 8192 x 8192 (rows128) is about the measured
// 1.2 (same run).
constexpr double SK_FIXED = 8.0;
constexpr double PARTIAL_PER_MB = 0.4;  // k-tile times per MB of partials written and read
constexpr double SCATTERED = 1.5;       // ranges at scattered depths: L2 sharing lost (ncu)
// One k-tile of chapter 18's (64, 64) tiles, two blocks on an SM (small_m_price): fitted by
// tools/measuring/fit_small_m.py to an H200 sweep of 60 shapes at commit cdbb248, M in {72, 96,
// 128, 160, 192, 256} times ten (N, K) of LLM layers (plots/h200/few_rows/fit.txt): median 0.38;
// with the rule's one-wave limit (small_m), 0.34 to 0.38 send 52 or 53 of the 60 to the faster
// chapter (0.30: 49; 0.46: 39).
constexpr double SMALL_M_KTILE = 0.36;
}  // namespace ch19::costs

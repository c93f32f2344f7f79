// The dispatcher's measured constants (chapter 19), in units of one (128, 256) k-tile on one SM.
// KTILE: a k-tile's time against a (128, 256) one, whole tiles at 4096^3 on the H200 (% of cuBLAS
// from tune_hopper, chapter 16_every_shape's table, commit 76f7a36): cluster2 98.5%, (128, 128)
// 79.0%, (128, 64) 50.9%; each tile's share of the area times 98.5 / its %. The others are
// estimates from that chapter's README (not yet fitted: tools/fit_costs.py is the command that
// will refit them from a tune_hopper CSV).
#pragma once

namespace ch19::costs {
// cluster2, rows128, n128, n64
constexpr double KTILE[4] = {1.0, 1.0, 0.5 * 98.5 / 79.0, 0.25 * 98.5 / 50.9};
inline double ktile(int i) {
    return KTILE[i];
}
constexpr double SPLIT_FIXED = 4.0;     // a second launch (~3 us) in k-tile times (~0.8 us each)
constexpr double SK_FIXED = 2.0;        // a partial written and added in the kernel
constexpr double PARTIAL_PER_MB = 0.4;  // k-tile times per MB of partials written and read
constexpr double SCATTERED = 1.5;       // ranges at scattered depths: L2 sharing lost (ncu)
}  // namespace ch19::costs

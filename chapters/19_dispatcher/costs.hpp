// The dispatcher's measured constants (chapter 19), in units of one (128, 256) k-tile on one SM.
// Fitted by tools/measuring/plan_regret.py (fit: a coordinate search for the least geomean regret,
// then the least log-time misfit) to every plan of the cost model timed on 20 shapes on the H200
// (plots/h200/plan_regret/: tools/measuring/regret_shapes.txt, the 12 lowest and wave-quantized
// shapes, and the 8 suite shapes the first fit on those 12 would send to another plan): geomean
// regret of the chosen plan against the fastest 5.5% with the constants before, 1.5% with the fit,
// 2.0% with each shape held out of the fit in turn. Two of the fit's values were then set back
// (KTILE rows128 1.682 -> 1.19, n128 0.7414 -> 0.70): the fit's sent five more suite shapes to
// plans measured slower there (plots/h200/plan_regret/verify.txt); with these the 20 shapes' regret
// is 2.3%. Before: KTILE from chapter 16_every_shape's table at 4096^3 ({1.0, 1.0, 0.623, 0.484}),
// SPLIT_FIXED 4, PIECE 6, SK_FIXED 8, PARTIAL_PER_MB 0.4, SCATTERED 1.5, SMALL_M_KTILE 0.36:
// estimates from single shapes (chapter 19's README has their history).
#pragma once

namespace ch19::costs {
// A k-tile's time, cluster2 = 1: cluster2, rows128, n128, n64. rows128 (128 x 256, no pairs) costs
// more than its area says (1.19: the first fit's, on 12 shapes): no B shared with a partner.
constexpr double KTILE[4] = {1.0, 1.19, 0.70, 0.5753};
inline double ktile(int i) {
    return KTILE[i];
}
constexpr double SPLIT_FIXED = 11.31;  // a second launch and its reduction's fixed part
// A (128, 256) partial read back by the last piece of its tile, alone on its SM (stream-K).
constexpr double PIECE = 7.135;
// Stream-K's fixed price (counters, fences, the ranges' uneven ends).
constexpr double SK_FIXED = 19.03;
constexpr double PARTIAL_PER_MB = 0.3364;  // k-tile times per MB of partials written and read
constexpr double SCATTERED = 1.261;        // ranges at scattered depths: L2 sharing lost (ncu)
// One k-tile of chapter 18's (64, 64) tiles, two blocks on an SM (small_m_price): fitted by
// tools/measuring/fit_small_m.py to an H200 sweep of 60 shapes at commit cdbb248, M in {72, 96,
// 128, 160, 192, 256} times ten (N, K) of LLM layers (plots/h200/few_rows/), priced with the
// constants above: median 0.41, quartiles 0.38 and 0.49. With it each of the 17 measured shapes of
// test.cu goes to the chapter that won it (0.42 sends 96 x 4096 x 4096 and 256 x 2112 x 7168 to the
// plan), and the suite's shapes go to chapter 18 where they went before (0.37 sends one more).
constexpr double SMALL_M_KTILE = 0.41;
}  // namespace ch19::costs

// Chapter 18's host side alone (suite cpu: no GPU needed): its configurations' stages and blocks
// per SM, the slices of a tile's k-tiles (every k-tile in exactly one unit, no slice empty), and
// the split chosen for the README's shapes on the H200's 132 SMs.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <vector>

#include "18_small_m/kernel.cuh"

TEST_CASE("the configurations: stages, blocks per SM, shared memory") {
    // 64 KB of B in flight per SM: one block for M <= 32, two for the 64-row tile.
    CHECK(ch18::configs::m8::STAGES == 10);
    CHECK(ch18::configs::m8::PER_SM == 1);
    CHECK(ch18::configs::m16::STAGES == 9);
    CHECK(ch18::configs::m16::PER_SM == 1);
    CHECK(ch18::configs::m32::STAGES == 8);
    CHECK(ch18::configs::m32::PER_SM == 1);
    CHECK(ch18::configs::m64::STAGES == 6);
    CHECK(ch18::configs::m64::PER_SM == 2);
}

TEST_CASE("SplitK: every k-tile of every tile in exactly one unit, no slice empty") {
    for (int KT : {1, 2, 3, 7, 64, 65, 224, 1000, (1 << 25) - 1})
        for (int splits = 1; splits <= std::min(KT, 64); ++splits) {
            CAPTURE(KT);
            CAPTURE(splits);
            const ch18::SplitK split{5, KT, splits};
            REQUIRE(split.k_begin(0) == 0);
            REQUIRE(split.k_begin(splits) == KT);
            for (int s = 0; s < splits; ++s) {
                const int depth = split.k_begin(s + 1) - split.k_begin(s);
                CHECK(depth >= KT / splits);  // evenly cut, none empty
                CHECK(depth <= (KT + splits - 1) / splits);
            }
            std::vector<int> seen(5, 0);  // units per tile: one per slice
            for (int u = 0; u < split.units(); ++u) {
                REQUIRE(split.tile(u) < 5);
                CHECK(split.slice(u) == u / 5);
                ++seen[split.tile(u)];
            }
            for (int t = 0; t < 5; ++t) CHECK(seen[t] == splits);
        }
}

// The README's table: the decode shapes on the H200's 132 SMs (tiles of 64 columns; M <= 32 one
// block per SM, the 64-row tile two).
TEST_CASE("the README's worked examples") {
    struct Row {
        int M, N, K, per_sm, splits;
    };
    for (const Row& r :
         {Row{1, 4096, 4096, 1, 2}, Row{8, 4096, 4096, 1, 2}, Row{32, 4096, 4096, 1, 2},
          Row{8, 6144, 4096, 1, 1}, Row{32, 14336, 4096, 1, 1}, Row{8, 4096, 14336, 1, 2},
          Row{1, 8192, 8192, 1, 1}, Row{64, 4096, 4096, 2, 4}, Row{64, 4096, 14336, 2, 4},
          Row{64, 8192, 8192, 2, 2}, Row{64, 3584, 18944, 2, 4}, Row{128, 4096, 4096, 2, 2},
          Row{4096, 4096, 4096, 2, 1}}) {
        CAPTURE(r.M);
        CAPTURE(r.N);
        CAPTURE(r.K);
        const int mt = r.M <= 8 ? 8 : r.M <= 16 ? 16 : r.M <= 32 ? 32 : 64;
        const long long tiles = 1LL * ((r.M + mt - 1) / mt) * ((r.N + 63) / 64);
        CHECK(ch18::choose_splits(tiles, (r.K + 63) / 64, 132 * r.per_sm) == r.splits);
    }
}

TEST_CASE("choose_splits: within its bounds for every size") {
    for (long long tiles : {1LL, 2LL, 31LL, 64LL, 132LL, 224LL, 264LL, 1000LL, 100000LL})
        for (int KT : {1, 3, 4, 8, 9, 64, 224, 4096, 1 << 20})
            for (int workers : {16, 78, 132, 264}) {
                CAPTURE(tiles);
                CAPTURE(KT);
                CAPTURE(workers);
                const int s = ch18::choose_splits(tiles, KT, workers);
                CHECK(s >= 1);
                if (s > 1) {
                    CHECK(KT / s >= ch18::MIN_SLICE);  // slices deep enough
                    CHECK(tiles * s <= workers);       // never more units than workers
                }
                if (tiles >= workers) CHECK(s == 1);  // a wave of whole tiles: no split
            }
}

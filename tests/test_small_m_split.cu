// Chapter 18's host side alone (suite cpu: no GPU needed): the tile width for M, the split of a
// tile's k-tiles over blocks (every k-tile in exactly one split, none empty), and the split chosen
// for the README's shapes on the H200's 132 SMs.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <vector>

#include "18_small_m/kernel.cuh"

TEST_CASE("tile_rows: the narrowest wgmma width that holds M") {
    for (int M = 1; M <= 200; ++M) {
        CAPTURE(M);
        const int mt = ch18::tile_rows(M);
        CHECK((mt == 8 || mt == 16 || mt == 32 || mt == 64));
        if (M <= 64) {
            CHECK(mt >= M);
            CHECK((mt == 8 || mt / 2 < M));  // the next narrower one would not hold it
        } else {
            CHECK(mt == 64);
        }
    }
}

TEST_CASE("split_begin: every k-tile in exactly one split, none empty") {
    for (int KT : {1, 2, 3, 7, 64, 65, 224, 1000, (1 << 25) - 1})
        for (int splits = 1; splits <= std::min(KT, ch18::MAX_SPLITS); ++splits) {
            CAPTURE(KT);
            CAPTURE(splits);
            REQUIRE(ch18::split_begin(KT, splits, 0) == 0);
            REQUIRE(ch18::split_begin(KT, splits, splits) == KT);
            for (int s = 0; s < splits; ++s) {
                const int kb = ch18::split_begin(KT, splits, s);
                const int ke = ch18::split_begin(KT, splits, s + 1);
                CHECK(kb < ke);                                 // not empty
                CHECK(ke - kb <= (KT + splits - 1) / splits);  // evenly cut
            }
        }
}

TEST_CASE("choose_splits: within its bounds for every size") {
    for (long long tiles : {1LL, 2LL, 31LL, 64LL, 132LL, 224LL, 264LL, 1000LL, 100000LL})
        for (int KT : {1, 3, 4, 8, 9, 64, 224, 4096, 1 << 20})
            for (int mt : {8, 16, 32, 64})
                for (int sms : {16, 78, 132}) {
                    CAPTURE(tiles);
                    CAPTURE(KT);
                    CAPTURE(mt);
                    CAPTURE(sms);
                    const int s = ch18::choose_splits(tiles, KT, mt, sms);
                    CHECK(s >= 1);
                    CHECK(s <= std::min(KT, ch18::MAX_SPLITS));
                    if (s > 1) CHECK(KT / s >= ch18::MIN_KTILES);
                    // A grid already two blocks deep on every SM is never split.
                    if (tiles >= 2LL * sms) CHECK(s == 1);
                }
}

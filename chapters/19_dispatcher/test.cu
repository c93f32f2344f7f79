// Chapter 19's tests. On the GPU (gpu_19_dispatcher; SKIP without one): its gemm() against the
// double-precision reference on the shapes of tests/cases.hpp, of its TMA paths and of the splits
// (tests/split_checks.cuh), and the plans it may pick that chapters 16 and 17's tests do not run.
// On the host alone (TEST_SUITE "host", run as host_19_dispatcher on any machine): the README's
// map of shapes to kernels and tiles, and which shapes go to chapter 18.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <string>

#include "gpu_checks.cuh"
#include "kernel.cuh"
#include "split_checks.cuh"

TEST_CASE("19_dispatcher") {
    gemm_tests::check_chapter(ch19::gemm, true);
}

using gemm_tests::check_chapter;
using gemm_tests::check_split_paths;

// Chapter 19 runs chapters 16 and 17's kernels, tested in their own test.cu; these are the plans it
// may pick that no test above runs: whole narrow tiles, and the hybrid on (128, 64) tiles.
TEST_SUITE("19_dispatcher") {
    TEST_CASE("19_dispatcher, the chapter's gemm on the split shapes") {
        check_split_paths(ch19::gemm);
    }
    TEST_CASE("19_dispatcher, whole n128 and n64 tiles, hybrid n64") {
        using K = ch19::Kernel;
        namespace c = ch16::configs;
        check_chapter(ch19::gemm_plan<K::whole, c::n128>, true);
        check_chapter(ch19::gemm_plan<K::whole, c::n64>, true);
        check_split_paths(ch19::gemm_plan<K::hybrid, c::n64>);
    }
}

TEST_SUITE("host") {
    // The map of chapter 19's README: which kernel and tile each category of shape gets on
    // 132 SMs.
    TEST_CASE("19_dispatcher: the README's map") {
        using K = ch19::Kernel;
        using T = ch19::Tile;
        struct Expect {
            int M, N, K;
            ch19::Kernel kernel;
            ch19::Tile tile;
        };
        const Expect table[] = {
            {1, 8192, 8192, K::split_k, T::rows128},       // decode: 32 tiles, 4 slices
            {64, 8192, 8192, K::split_k, T::rows128},      // (gemm() sends it to chapter 18)
            {128, 8192, 8192, K::split_k, T::rows128},     // few rows
            {128, 4096, 4096, K::split_k, T::n128},        // 32 narrow tiles, 4 slices
            {64, 3584, 3584, K::split_k, T::n128},         //
            {512, 4096, 4096, K::whole, T::n128},          // 128 narrow tiles: one wave
            {512, 10240, 8192, K::hybrid, T::cluster2},    // 2.4 waves of narrow ones
            {256, 8192, 8192, K::split_k, T::cluster2},    // 32 cluster tiles, deep K
            {512, 4096, 14336, K::split_k, T::cluster2},   // (plots/h200/plan_regret/)
            {200, 2112, 7168, K::split_k, T::cluster2},    //
            {1024, 1024, 32768, K::split_k, T::cluster2},  // deep K, 16 tiles
            {64, 64, 262144, K::split_k, T::n64},          // one tile, 132 slices
            {8192, 16, 8192, K::split_k, T::n64},          // few columns
            {2048, 512, 8192, K::split_k, T::cluster2},    //
            {1024, 1024, 1024, K::whole, T::n64},          // a small square: 128 narrow tiles
            {2048, 4608, 3584, K::hybrid, T::cluster2},    // 2.2 waves: the last by stream-K
            {4096, 4096, 4096, K::whole, T::cluster2},     // squares: chapter 15's tile, whole
            {8192, 8192, 8192, K::whole, T::cluster2},     //
            {100, 8192, 512, K::whole, T::n64},            // shallow K: nothing to split
            {8192, 16, 64, K::whole, T::n64},              //
        };
        const char* kernels[] = {"whole", "split_k", "stream_k", "hybrid"};
        const char* tiles[] = {"cluster2", "rows128", "n128", "n64"};
        for (const Expect& e : table) {
            const ch19::Plan p = ch19::choose(e.M, e.N, e.K, 132);
            MESSAGE(e.M << " x " << e.N << " x " << e.K << ": " << kernels[int(p.kernel)] << " / "
                        << tiles[int(p.tile)]);
            CAPTURE(e.M);
            CAPTURE(e.N);
            CAPTURE(e.K);
            CHECK(std::string(kernels[int(p.kernel)]) == kernels[int(e.kernel)]);
            CHECK(std::string(tiles[int(p.tile)]) == tiles[int(e.tile)]);
        }
    }

    // Which shapes chapter 19's gemm() hands to chapter 18 before the cost model: decode
    // batches (M <= 64) with enough columns; the one-tile deep-K shape stays with the cost
    // model; past 256 rows, always the cost model.
    TEST_CASE("19_dispatcher: decode batches go to chapter 18") {
        for (int M : {1, 8, 33, 64}) {
            CAPTURE(M);
            CHECK(ch19::small_m(M, 4096, 4096, 132));
            CHECK(ch19::small_m(M, 1024, 4096, 132));
            CHECK_FALSE(ch19::small_m(M, 1023, 4096, 132));
            CHECK_FALSE(ch19::small_m(M, 64, 262144, 132));  // one tile: the cost model's
        }
        for (int M : {257, 512, 4096}) {  // past 256 rows: always the cost model
            CAPTURE(M);
            CHECK_FALSE(ch19::small_m(M, 4608, 3584, 132));
            CHECK_FALSE(ch19::small_m(M, 2112, 7168, 132));
        }
    }

    // Few rows (65 to 256) by cost: chapter 18's price (small_m_price, costs::SMALL_M_KTILE)
    // against the cheapest plan's, where chapter 18's blocks make one wave. Each shape's measured %
    // of cuBLAS (chapter 18 / chapter 19 before this rule, H200, commit cdbb248, chapter 19's
    // README) and the chapter that won by 5 points or more; the model must send each to the
    // winner. (The 7 of the 60 measured shapes it gets wrong are in the README.)
    TEST_CASE("19_dispatcher: few rows go to chapter 18 where it is cheaper") {
        struct Measured {
            int M, N, K;
            bool ch18_won;
        };
        const Measured table[] = {
            {128, 4608, 3584, true},    // 79.5 / 61.6: the suite's lowest shape
            {192, 4608, 3584, true},    // 84.2 / 69.7
            {96, 4096, 4096, true},     // 85.8 / 77.2
            {256, 4096, 4096, true},    // 81.9 / 70.6
            {128, 6144, 4096, true},    // 84.7 / 68.3
            {160, 3584, 3584, true},    // 67.3 / 56.1
            {128, 2112, 7168, true},    // 88.8 / 78.9
            {256, 2112, 7168, true},    // 76.7 / 60.5
            {256, 6144, 4096, false},   // 63.1 / 79.0
            {72, 10240, 8192, false},   // 52.7 / 88.9
            {256, 8192, 8192, false},   // 60.5 / 82.5
            {96, 12288, 12288, false},  // 56.6 / 88.0
            {128, 14336, 4096, false},  // 76.1 / 91.7
            {192, 4096, 14336, false},  // 67.0 / 90.9
            // Priced below the plan, but two waves of chapter 18's blocks (480 tiles, 264 resident)
            {160, 10240, 8192, false},  // 53.2 / 71.1
            {192, 10240, 8192, false},  // 72.5 / 78.1
            // Five waves (1184 tiles); the suite: chapter 18 71.1, the plan 78.8 (commits 7d64173
            // and 010feb4, plots/h200/suite/19_dispatcher, history)
            {128, 37888, 3584, false},
        };
        for (const Measured& e : table) {
            CAPTURE(e.M);
            CAPTURE(e.N);
            CAPTURE(e.K);
            MESSAGE(e.M << " x " << e.N << " x " << e.K << ": chapter 18 "
                        << ch19::small_m_price(e.M, e.N, e.K, 132).cost() << ", the plan "
                        << ch19::plan_cost(ch19::choose(e.M, e.N, e.K, 132), e.M, e.N, e.K, 132));
            CHECK(ch19::small_m(e.M, e.N, e.K, 132) == e.ch18_won);
        }
    }
}

int main(int argc, char** argv) {
    return gemm_tests::chapter_test_main(argc, argv, true);
}

// Chapter 16's tests. On the GPU (gpu_16_split_k; SKIP without one): its gemm() against the
// double-precision reference on the shapes of tests/cases.hpp and of its TMA paths, and each named
// configuration on the shapes that take every path of the split (tests/split_checks.cuh). On the
// host alone (TEST_SUITE "host", run as host_16_split_k on any machine): every split hands every
// k-tile of every tile to exactly one unit, the split is the one the README says for its worked
// examples, and the README's partial-cost block is of the kernel's constants.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gpu_checks.cuh"
#include "kernel.cuh"
#include "split_checks.cuh"

TEST_CASE("16_split_k") {
    gemm_tests::check_chapter(ch16::gemm, true);
}

using gemm_tests::check_chapter;
using gemm_tests::check_split_paths;

TEST_SUITE("16_split_k") {
    TEST_CASE("16_split_k, the chapter's gemm on the split shapes") {
        check_split_paths(ch16::gemm);
    }
    TEST_CASE("16_split_k, cluster2 without the split (chapter 15's schedule)") {
        check_chapter(ch16::gemm_cfg<ch16::configs::cluster2, false>, true);
    }
    TEST_CASE("16_split_k, cluster2") {
        auto fn = ch16::gemm_cfg<ch16::configs::cluster2>;
        check_chapter(fn, true);
        check_split_paths(fn);
    }
    TEST_CASE("16_split_k, n128") {
        auto fn = ch16::gemm_cfg<ch16::configs::n128>;
        check_chapter(fn, true);
        check_split_paths(fn);
    }
    TEST_CASE("16_split_k, n64") {
        auto fn = ch16::gemm_cfg<ch16::configs::n64>;
        check_chapter(fn, true);
        check_split_paths(fn);
    }
}

TEST_SUITE("host") {
    // Walks every unit of a split-K schedule as chapter 16's kernel does (worker w: units w, w +
    // workers, ...) and checks the decomposition; K in elements, for "the slices add up to K".
    void check_split(int tiles, int K, int workers) {
        const int KT = (K + ch16::BK - 1) / ch16::BK;
        const ch16::SplitK s{tiles, KT, ch16::choose_splits(tiles, KT, workers)};
        CAPTURE(tiles);
        CAPTURE(K);
        CAPTURE(workers);
        CAPTURE(s.splits);
        REQUIRE(s.splits >= 1);
        CHECK(s.splits <= KT);
        if (s.splits > 1) {  // a split fills at most one wave, each slice MIN_SLICE deep at least
            CHECK(s.units() <= workers);
            CHECK(KT / s.splits >= ch16::MIN_SLICE);
        }
        CHECK(s.k_begin(0) == 0);
        CHECK(s.k_begin(s.splits) == KT);
        std::vector<std::vector<int>> covered(tiles, std::vector<int>(KT, 0));
        std::vector<long long> k_elems(tiles, 0);
        const int clusters = std::min(s.units(), workers);
        for (int w = 0; w < clusters; ++w)
            for (int u = w; u < s.units(); u += clusters) {
                const int t = s.tile(u), kb = s.k_begin(s.slice(u)), ke = s.k_begin(s.slice(u) + 1);
                REQUIRE(t < tiles);
                REQUIRE(kb < ke);  // no slice is empty: the kernel releases the last stage it used
                CHECK(ke - kb <= KT / s.splits + 1);  // nearly equal depths
                for (int k = kb; k < ke; ++k) ++covered[t][k];
                k_elems[t] += std::min<long long>(1LL * ke * ch16::BK, K) - 1LL * kb * ch16::BK;
            }
        for (int t = 0; t < tiles; ++t) {
            CAPTURE(t);
            CHECK(k_elems[t] == K);
            for (int k = 0; k < KT; ++k) CHECK(covered[t][k] == 1);
        }
    }

    TEST_CASE("16_split_k: every split covers every k-tile once") {
        for (int workers : {1, 2, 7, 66, 132})
            for (int tiles : {1, 2, 3, 16, 31, 32, 65, 66, 132, 200})
                for (int K : {1, 64, 100, 1000, 8192, 32768}) check_split(tiles, K, workers);
    }

    // The README's worked examples: (tiles, KT, workers) -> slices, each line of its table.
    TEST_CASE("16_split_k: the README's worked examples") {
        struct Example {
            std::string shape;
            int tiles, KT, workers, splits;
        };
        const Example table[] = {
            {"128 x 8192 x 8192, rows128", 32, 128, 132, 4},
            {"1024 x 1024 x 32768, cluster2", 16, 512, 66, 4},
            {"64 x 64 x 262144, rows128", 1, 4096, 132, 132},
            {"1024 x 1024 x 1024, cluster2", 16, 16, 66, 2},
            {"4096 x 4096 x 4096, cluster2", 256, 64, 66, 1},
            {"512 x 4096 x 512, cluster2", 32, 8, 66, 1},
        };
        for (const Example& e : table) {
            CAPTURE(e.shape);
            const int splits = ch16::choose_splits(e.tiles, e.KT, e.workers);
            MESSAGE(e.shape << ": " << e.tiles << " tiles, " << e.KT << " k-tiles, " << e.workers
                            << " workers -> " << splits << " slices");
            CHECK(splits == e.splits);
        }
    }

    // The README's partial-cost arithmetic is generated (tools/reporting/text_numbers.py, block
    // `partial BM BN BK CLUSTER MIN_SLICE`) from arguments that must be the kernel's own constants.
    TEST_CASE("16_split_k: the README's partial arithmetic is of the kernel's constants") {
        std::ifstream f(std::string(GEMM_SOURCE_ROOT) + "/chapters/16_split_k/README.md");
        REQUIRE(f.good());
        std::string line, args, text;
        const std::string begin = "<!-- numbers:begin partial ";
        while (std::getline(f, line))
            if (line.rfind(begin, 0) == 0) {
                args = line.substr(begin.size());
                std::getline(f, text);  // the generated sentence
            }
        REQUIRE_MESSAGE(!args.empty(), "chapters/16_split_k/README.md has no partial block");
        std::istringstream in(args);
        int BM = 0, BN = 0, BK = 0, cluster = 0, min_slice = 0;
        in >> BM >> BN >> BK >> cluster >> min_slice;
        CHECK(BM == ch16::configs::rows128::BM);
        CHECK(BN == ch16::configs::rows128::BN);
        CHECK(BK == ch16::BK);
        CHECK(cluster == ch16::configs::cluster2::CLUSTER);
        CHECK(min_slice == ch16::MIN_SLICE);
        // The arithmetic itself: a (BM, BN) fp32 partial written and read back, against a k-tile of
        // fp16 A and B; the block states it to a tenth.
        const double k_tiles = 2.0 * BM * BN * 4 / ((BM * BK + BK * BN) * 2.0);
        char said[32];
        std::snprintf(said, sizeof said, "about %.1f k-tiles", k_tiles);
        CAPTURE(text);
        CHECK(text.find(said) != std::string::npos);
    }
}

int main(int argc, char** argv) {
    return gemm_tests::chapter_test_main(argc, argv, true);
}

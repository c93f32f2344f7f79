// The schedules of chapters 16 (split-K) and 17 (stream-K) and the dispatcher of chapter 19, on
// the host alone (suite cpu: no GPU needed). Every schedule must hand every k-tile of every tile to
// exactly one unit; the split must be the one each chapter's README says for its worked examples.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "16_split_k/kernel.cuh"
#include "17_stream_k/kernel.cuh"
#include "19_dispatcher/kernel.cuh"

namespace {

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

using ch17::Split;

std::string name(Split s) {
    return s == Split::data_parallel ? "data_parallel"
           : s == Split::stream_k    ? "stream_k"
           : s == Split::equal_depth ? "equal_depth"
                                     : "hybrid";
}

// Walks every worker's units as chapter 17's kernel does and checks the decomposition: every
// k-tile of every tile computed once, at most two partials per worker in distinct slots, and the
// fix-up's [first_worker, last_worker] of each split tile exactly the workers with a piece of it,
// never more than max_pieces.
void check_stream_k(int tiles, int K, int max_workers, Split split) {
    const int KT = (K + ch17::BK - 1) / ch17::BK;
    const ch17::Schedule s = ch17::make_schedule(tiles, KT, max_workers, split);
    CAPTURE(tiles);
    CAPTURE(K);
    CAPTURE(max_workers);
    CAPTURE(name(split));
    REQUIRE(s.workers >= 1);
    REQUIRE(s.workers <= max_workers);
    REQUIRE(s.sk_workers <= s.workers);
    CHECK(s.sk_begin(0) == 0);
    CHECK(s.sk_begin(s.sk_workers) == s.sk_iters());
    if (s.sk_iters() > 0)  // no empty range
        for (int w = 0; w < s.sk_workers; ++w) CHECK(s.sk_begin(w + 1) > s.sk_begin(w));
    std::vector<std::vector<int>> covered(tiles, std::vector<int>(KT, 0));
    std::vector<long long> k_elems(tiles, 0);
    std::vector<std::vector<int>> pieces(tiles);  // the workers with a partial of tile t
    for (int w = 0; w < s.workers; ++w) {
        ch17::WorkerUnits units(s, w);
        ch17::Unit u;
        int partials = 0, last_index = -1;
        while (units.next(s, u)) {
            REQUIRE(u.tile >= 0);
            REQUIRE(u.tile < tiles);
            REQUIRE(u.kb < u.ke);
            REQUIRE(u.ke <= KT);
            for (int k = u.kb; k < u.ke; ++k) ++covered[u.tile][k];
            k_elems[u.tile] +=
                std::min<long long>(1LL * u.ke * ch17::BK, K) - 1LL * u.kb * ch17::BK;
            if (u.kb > 0 || u.ke < KT) {
                REQUIRE(u.tile >= s.dp_tiles);  // whole tiles are never split
                const int index = s.partial_index(w, u.tile);
                CHECK(index > last_index);  // two partials of one worker: distinct slots
                last_index = index;
                ++partials;
                pieces[u.tile].push_back(w);
            }
        }
        CHECK(partials <= 2);
    }
    int most = 1;
    for (int t = 0; t < tiles; ++t) {
        CAPTURE(t);
        CHECK(k_elems[t] == K);
        for (int k = 0; k < KT; ++k) CHECK(covered[t][k] == 1);
        if (t < s.dp_tiles) {
            CHECK(pieces[t].empty());
            continue;
        }
        const int lo = s.first_worker(t), hi = s.last_worker(t);
        std::vector<int> expect;
        if (lo != hi)
            for (int w = lo; w <= hi; ++w) expect.push_back(w);
        CHECK(pieces[t] == expect);
        most = std::max(most, hi - lo + 1);
    }
    CHECK(ch17::max_pieces(s) >= most);  // the fix-up's choice never underestimates
    // More than FEW_PIECES only with fewer stream-K tiles than workers: reduce_partials' grid.
    if (ch17::max_pieces(s) > ch17::FEW_PIECES) CHECK(tiles - s.dp_tiles <= s.sk_workers);
}

}  // namespace

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

TEST_CASE("17_stream_k: every schedule covers every k-tile once, the fix-up finds every piece") {
    for (Split split : {Split::data_parallel, Split::stream_k, Split::equal_depth, Split::hybrid})
        for (int workers : {1, 2, 7, 66, 132})
            for (int tiles : {1, 2, 3, 9, 16, 17, 32, 68, 132, 200, 544})
                for (int K : {1, 64, 100, 1000, 8192, 32768})
                    check_stream_k(tiles, K, workers, split);
}

// The README's worked examples: (tiles, KT, workers, split) -> stream-K workers, whole tiles,
// k-tiles per range, the most pieces per tile and who adds them; each a line of its table.
TEST_CASE("17_stream_k: the README's worked examples") {
    struct Example {
        std::string shape;
        int tiles, KT, workers;
        Split split;
        int sk_workers, dp_tiles, range, pieces;
        bool in_kernel;
    };
    const Example table[] = {
        {"128 x 8192 x 8192, rows128", 32, 128, 132, Split::hybrid, 128, 0, 32, 4, true},
        {"128 x 8192 x 8192, rows128, scattered", 32, 128, 132, Split::stream_k, 132, 0, 31, 6,
         false},
        {"1024 x 1024 x 32768, cluster2", 16, 512, 66, Split::hybrid, 64, 0, 128, 4, true},
        {"64 x 64 x 262144, n64", 1, 4096, 132, Split::hybrid, 132, 0, 31, 132, false},
        {"4096 x 4096 x 4096, cluster2", 256, 64, 66, Split::hybrid, 66, 132, 120, 2, true},
        {"2304 x 2048 x 1024, cluster2", 72, 16, 66, Split::hybrid, 66, 0, 17, 2, true},
    };
    for (const Example& e : table) {
        CAPTURE(e.shape);
        const ch17::Schedule s = ch17::make_schedule(e.tiles, e.KT, e.workers, e.split);
        const int range = s.sk_iters() / s.sk_workers, pieces = ch17::max_pieces(s);
        MESSAGE(e.shape << ": " << s.sk_workers << " stream-K workers, " << s.dp_tiles
                        << " whole tiles, " << range << " k-tiles per range, at most " << pieces
                        << " pieces per tile, "
                        << std::string(pieces <= ch17::FEW_PIECES ? "added in the kernel"
                                                                  : "reduce_partials"));
        CHECK(s.sk_workers == e.sk_workers);
        CHECK(s.dp_tiles == e.dp_tiles);
        CHECK(range == e.range);
        CHECK(pieces == e.pieces);
        CHECK((pieces <= ch17::FEW_PIECES) == e.in_kernel);
    }
}

// The map of chapter 19's README: which kernel and tile each category of shape gets on 132 SMs.
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
        {512, 10240, 8192, K::whole, T::n128},         // 320 narrow tiles: 2.4 waves
        {256, 8192, 8192, K::hybrid, T::cluster2},     // 32 cluster tiles, deep K
        {512, 4096, 14336, K::hybrid, T::cluster2},    //
        {200, 2112, 7168, K::hybrid, T::cluster2},     //
        {1024, 1024, 32768, K::split_k, T::cluster2},  // deep K, 16 tiles
        {64, 64, 262144, K::split_k, T::n64},          // one tile, 132 slices
        {8192, 16, 8192, K::split_k, T::n64},          // few columns
        {2048, 512, 8192, K::split_k, T::cluster2},    //
        {1024, 1024, 1024, K::whole, T::n64},          // a small square: 128 narrow tiles
        {2048, 4608, 3584, K::whole, T::cluster2},     // 2.2 waves
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

// Which shapes chapter 19's gemm() hands to chapter 18 before the cost model: decode batches
// (M <= 64) with enough columns; the one-tile deep-K shape stays with the cost model.
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

// Few rows (65 to 256) by cost: chapter 18's price (small_m_price, costs::SMALL_M_KTILE) against the
// cheapest plan's. Each shape's measured % of cuBLAS (chapter 18 / chapter 19 before this rule, H200,
// commit cdbb248, chapter 19's README) and the chapter that won by 5 points or more; the model must
// send each to the winner. (9 of the 60 measured shapes it gets wrong are in the README.)
TEST_CASE("19_dispatcher: few rows go to chapter 18 where it is cheaper") {
    struct Measured {
        int M, N, K;
        bool ch18_won;
    };
    const Measured table[] = {
        {128, 4608, 3584, true},     // 79.5 / 61.6: the suite's lowest shape
        {192, 4608, 3584, true},     // 84.2 / 69.7
        {96, 4096, 4096, true},      // 85.8 / 77.2
        {256, 4096, 4096, true},     // 81.9 / 70.6
        {128, 6144, 4096, true},     // 84.7 / 68.3
        {160, 3584, 3584, true},     // 67.3 / 56.1
        {128, 2112, 7168, true},     // 88.8 / 78.9
        {256, 2112, 7168, true},     // 76.7 / 60.5
        {256, 6144, 4096, false},    // 63.1 / 79.0
        {72, 10240, 8192, false},    // 52.7 / 88.9
        {256, 8192, 8192, false},    // 60.5 / 82.5
        {96, 12288, 12288, false},   // 56.6 / 88.0
        {128, 14336, 4096, false},   // 76.1 / 91.7
        {192, 4096, 14336, false},   // 67.0 / 90.9
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

// The figure of chapter 17's README, drawn by WorkerUnits itself: one line per tile, one column
// per k-tile, the worker that computes it; a tile is whole (data-parallel), one worker's range, or
// split between several (its pieces added by the last to finish).
std::string schedule_figure(int tiles, int KT, int workers, ch17::Split split) {
    const ch17::Schedule s = ch17::make_schedule(tiles, KT, workers, split);
    std::vector<std::string> grid(tiles, std::string(KT, '.'));
    for (int w = 0; w < s.workers; ++w) {
        ch17::WorkerUnits units(s, w);
        ch17::Unit u;
        while (units.next(s, u))
            for (int k = u.kb; k < u.ke; ++k)
                grid[u.tile][k] = "0123456789abcdefghijklmnopqrstuvwxyz"[w % 36];
    }
    std::ostringstream out;
    for (int t = 0; t < tiles; ++t) {
        out << "tile " << t << " | ";
        for (int k = 0; k < KT; ++k) out << grid[t][k] << (k + 1 < KT ? " " : "");
        const bool split_tile = t >= s.dp_tiles && s.first_worker(t) != s.last_worker(t);
        out << (t < s.dp_tiles ? "   whole" : split_tile ? "   split" : "   one range") << "\n";
    }
    return out.str();
}

// The README's code block after the line `<!-- figure: NAME -->`.
std::string readme_figure(const std::string& name) {
    std::ifstream f(std::string(GEMM_SOURCE_ROOT) + "/chapters/17_stream_k/README.md");
    REQUIRE_MESSAGE(f.good(), "cannot read chapters/17_stream_k/README.md");
    std::string line, block;
    bool found = false, inside = false;
    while (std::getline(f, line)) {
        if (line == "<!-- figure: " + name + " -->")
            found = true;
        else if (found && line.rfind("    ", 0) == 0)
            inside = true, block += line.substr(4) + "\n";
        else if (inside)
            break;
    }
    return block;
}

TEST_CASE("17_stream_k: the README's figures are the schedule's") {
    using S = ch17::Split;
    const struct {
        std::string name;
        int tiles, KT, workers;
        S split;
    } figures[] = {{"stream_k 5 tiles, 8 k-tiles, 4 workers", 5, 8, 4, S::stream_k},
                   {"equal_depth 3 tiles, 24 k-tiles, 7 workers", 3, 24, 7, S::equal_depth},
                   {"hybrid 8 tiles, 12 k-tiles, 3 workers", 8, 12, 3, S::hybrid}};
    for (const auto& f : figures) {
        const std::string drawn = schedule_figure(f.tiles, f.KT, f.workers, f.split);
        MESSAGE(f.name << "\n" << drawn);
        CAPTURE(f.name);
        CHECK(readme_figure(f.name) == drawn);
    }
}

// Chapter 16's schedules and dispatcher, on the host alone (suite cpu: no GPU needed). The
// schedule must hand every k-tile of every tile to exactly one unit, leave at most two partials per
// worker in distinct slots, and the fix-up (reduce_partials) must find, for each split tile,
// exactly the workers that hold its pieces; the dispatcher must send each category of shape where
// the README's table says.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "16_every_shape/kernel.cuh"

namespace {

using ch16::Split;
using ch16::TileKind;

std::string name(Split s) {
    return s == Split::data_parallel ? "data_parallel"
           : s == Split::stream_k    ? "stream_k"
                                     : "hybrid";
}
std::string name(TileKind t) {
    return t == TileKind::rows64             ? "rows64"
           : t == TileKind::rows128          ? "rows128"
           : t == TileKind::rows256_cluster2 ? "rows256_cluster2"
           : t == TileKind::n128             ? "n128"
                                             : "n64";
}

// Walks every worker's units as the kernel does and checks the decomposition. K: the depth in
// elements (KT = ceil(K / BK) k-tiles), for the "sum of k-ranges == K" check.
void check_schedule(int tiles_m, int tiles_n, int K, int max_workers, Split split) {
    const int KT = (K + ch16::BK - 1) / ch16::BK;
    const ch16::Schedule s = ch16::make_schedule(tiles_m, tiles_n, KT, max_workers, split);
    CAPTURE(tiles_m);
    CAPTURE(tiles_n);
    CAPTURE(K);
    CAPTURE(max_workers);
    CAPTURE(name(split));
    REQUIRE(s.workers >= 1);
    REQUIRE(s.workers <= max_workers);
    REQUIRE(s.sk_workers <= s.workers);
    CHECK(s.sk_begin(0) == 0);
    CHECK(s.sk_begin(s.sk_workers) == s.sk_iters());
    if (s.sk_iters() > 0)  // no empty range: an owner's peers all computed something
        for (int w = 0; w < s.sk_workers; ++w) CHECK(s.sk_begin(w + 1) > s.sk_begin(w));

    const int T = s.tiles();
    std::vector<std::vector<int>> covered(T, std::vector<int>(KT, 0));  // units per k-tile
    std::vector<long long> k_elems(T, 0);                               // elements of K per tile
    // Which worker left a partial of which tile, and in which of its two slots.
    std::vector<std::vector<int>> pieces(T);  // the workers with a partial of tile t
    for (int w = 0; w < s.workers; ++w) {
        ch16::WorkerUnits units(s, w);
        ch16::Unit u;
        int partials = 0, last_index = -1;
        while (units.next(s, u)) {
            REQUIRE(u.tile >= 0);
            REQUIRE(u.tile < T);
            REQUIRE(u.kb < u.ke);
            REQUIRE(u.ke <= KT);
            for (int k = u.kb; k < u.ke; ++k) ++covered[u.tile][k];
            k_elems[u.tile] +=
                std::min<long long>(1LL * u.ke * ch16::BK, K) - 1LL * u.kb * ch16::BK;
            if (u.kb > 0 || u.ke < KT) {        // a piece of a tile: the fix-up adds it
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
    for (int t = 0; t < T; ++t) {
        CAPTURE(t);
        CHECK(k_elems[t] == K);  // the k-ranges of every tile add up to K
        for (int k = 0; k < KT; ++k) CHECK(covered[t][k] == 1);
        if (t < s.dp_tiles) {
            CHECK(pieces[t].empty());
            continue;
        }
        // reduce_partials adds workers worker_of(first k-tile) .. worker_of(last k-tile) of the
        // tile, unless they are one worker (who stored the tile whole): exactly those with pieces.
        const int first = (t - s.dp_tiles) * KT;
        const int lo = s.worker_of(first), hi = s.worker_of(first + KT - 1);
        CHECK(s.sk_begin(lo) <= first);
        CHECK(s.sk_begin(lo + 1) > first);
        // The owner's fix-up (last_worker) and reduce_partials (worker_of) end at the same worker.
        CHECK(s.last_worker(t, lo) == hi);
        std::vector<int> expect;
        if (lo != hi)
            for (int w = lo; w <= hi; ++w) expect.push_back(w);
        CHECK(pieces[t] == expect);
    }
}

}  // namespace

TEST_CASE("every schedule covers every k-tile once, and the fix-up finds every partial") {
    for (Split split : {Split::data_parallel, Split::stream_k, Split::hybrid})
        for (int workers : {1, 2, 7, 66, 132})
            for (int tm : {1, 2, 3, 9, 17})
                for (int tn : {1, 4, 32})
                    for (int K : {1, 64, 100, 1000, 8192, 32768})
                        check_schedule(tm, tn, K, workers, split);
}

TEST_CASE("the shapes of the README: few tiles, deep K, squares") {
    check_schedule(1, 32, 8192, 132, Split::stream_k);  // 128 x 8192 x 8192, 128-row tiles
    check_schedule(2, 32, 14336, 66, Split::stream_k);  // 512 x 8192 x 14336, clusters
    check_schedule(4, 4, 32768, 66, Split::stream_k);   // 1024 x 1024 x 32768, clusters
    check_schedule(16, 16, 4096, 66, Split::hybrid);    // 4096 square: 3.9 waves
    check_schedule(32, 32, 8192, 66, Split::hybrid);    // 8192 square: 15.5 waves
}

TEST_CASE("the dispatcher: which tile and split each category of shape gets on 132 SMs") {
    struct Expect {
        int M, N, K;
        TileKind tile;
        Split split;
    };
    const Expect table[] = {
        // few rows (decode, small batches): 64-row tiles stream B, stream-K across the SMs
        {1, 8192, 8192, TileKind::rows64, Split::stream_k},
        {64, 8192, 8192, TileKind::rows64, Split::stream_k},
        {65, 8192, 8192, TileKind::rows128, Split::stream_k},
        {128, 8192, 8192, TileKind::rows128, Split::stream_k},
        {128, 4096, 4096, TileKind::n128, Split::stream_k},  // 16 wide tiles: 32 narrow ones
        // a few hundred rows: cluster tiles split at equal depths, or 128 x 128 tiles
        {512, 4096, 4096, TileKind::rows256_cluster2, Split::stream_k},  // 32 tiles, 2 per tile
        {512, 4096, 14336, TileKind::rows256_cluster2, Split::stream_k},
        {256, 8192, 8192, TileKind::rows256_cluster2, Split::stream_k},
        {512, 10240, 8192, TileKind::rows256_cluster2, Split::hybrid},  // 80 tiles, 66 workers
        {2048, 4608, 3584, TileKind::rows256_cluster2, Split::hybrid},  // 2.2 waves
        // 64 cluster tiles for 66 workers: one wave, nearly full
        {512, 8192, 14336, TileKind::rows256_cluster2, Split::data_parallel},
        // deep K, few tiles
        {1024, 1024, 32768, TileKind::rows256_cluster2, Split::stream_k},
        {64, 64, 262144, TileKind::n64, Split::stream_k},  // one narrow tile, 132 pieces
        // few columns: 64-wide tiles compute 4x fewer columns past N than 256-wide ones
        {8192, 16, 8192, TileKind::n64, Split::stream_k},
        // small squares: 128 tiles of (128, 64) instead of 16 cluster tiles (cuBLAS: 128 x 64)
        {1024, 1024, 1024, TileKind::n64, Split::data_parallel},
        // squares and large products: chapter 15's cluster tiles, whole (hybrid's tail loses
        // more in L2 than it saves in idle SMs)
        {2048, 2048, 2048, TileKind::rows256_cluster2, Split::data_parallel},     // 64 tiles, 66
        {4096, 4096, 4096, TileKind::rows256_cluster2, Split::data_parallel},     // 3.88 waves
        {8192, 8192, 8192, TileKind::rows256_cluster2, Split::data_parallel},     // 15.5 waves
        {2048, 4096, 14336, TileKind::rows256_cluster2, Split::data_parallel},    // 1.94 waves
        {256 * 66, 256, 4096, TileKind::rows256_cluster2, Split::data_parallel},  // whole waves
        // shallow K: nothing to split
        {8192, 16, 64, TileKind::n64, Split::data_parallel},
        {16, 8192, 64, TileKind::n64, Split::data_parallel},
        {100, 8192, 512, TileKind::n64, Split::data_parallel},  // 8 k-tiles: too shallow
    };
    for (const Expect& e : table) {
        CAPTURE(e.M);
        CAPTURE(e.N);
        CAPTURE(e.K);
        const ch16::Plan p = ch16::choose(e.M, e.N, e.K, 132);
        CHECK(name(p.tile) == name(e.tile));
        CHECK(name(p.split) == name(e.split));
        // and the schedule the plan leads to is whole
        const int rows = ch16::tile_rows(p.tile), cols = ch16::tile_cols(p.tile);
        const int workers = p.tile == TileKind::rows256_cluster2 ? 66 : 132;
        if (e.M < 100000)
            check_schedule((e.M + rows - 1) / rows, (e.N + cols - 1) / cols, e.K, workers, p.split);
    }
}

TEST_CASE("fewer tiles than workers: a whole number of workers per tile, at equal depths") {
    // 64 x 64 x 262144: one tile of 4096 k-tiles, every worker on it (the fix-up adds all 132
    // partials on every SM at once).
    const ch16::Schedule deep = ch16::make_schedule(1, 1, 4096, 132, Split::stream_k);
    CHECK(deep.sk_workers == 132);
    check_schedule(1, 1, 4096 * ch16::BK, 132, Split::stream_k);
    // 16 tiles for 132 workers: 128, 8 per tile, each range inside one tile at the same depth in
    // every tile (128 x 4096 x 4096 with (128, 256) tiles; 1024^2 x 32768 with cluster tiles: 64).
    const ch16::Schedule few = ch16::make_schedule(1, 16, 64, 132, Split::stream_k);
    CHECK(few.sk_workers == 128);
    for (int w = 0; w < few.sk_workers; ++w) CHECK(few.sk_begin(w) == w * 8);
    CHECK(ch16::make_schedule(4, 4, 512, 66, Split::stream_k).sk_workers == 64);
    // 70 tiles for 132 workers: one per tile would idle 62; the ranges stay uneven.
    CHECK(ch16::make_schedule(7, 10, 64, 132, Split::stream_k).sk_workers == 132);
}

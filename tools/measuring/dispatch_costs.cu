// Chapter 19's prices for shapes read from stdin (one MxNxK per line), on `sms` SMs (default 132):
// the plan choose() gives and its cost, chapter 18's price (small_m_price: its critical path in
// k-tiles, a split's price, the cost, its blocks' waves) and where gemm() sends the shape (small_m:
// 1 for chapter 18). Host code alone: no GPU needed. tools/measuring/fit_small_m.py reads it.
//   build/tools/dispatch_costs [SMS] < shapes.txt
//   build/tools/dispatch_costs --all [SMS] < shapes.txt
// --all: every plan (kernel x tile) of every shape, with the components of plan_cost, so that
//   cost = KTILE[tile] * (path + SCATTERED * scattered) + SPLIT_FIXED * split_fixed
//          + PARTIAL_PER_MB * partial_mb + SK_FIXED * sk_fixed + PIECE * piece_partials
// (the constants of costs.hpp; the first line, a comment, gives their values). Each row's sum is
// checked against plan_cost itself (exit 3 if the model changed and this split of it did not).
// The rows that choose() prices come first, in its order (it keeps the first of equal costs);
// candidate 0: a tile it does not try at this M, a split of 1 (the same as whole) or too many
// stream-K iterations. tools/measuring/plan_regret.py reads it.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "19_dispatcher/kernel.cuh"

namespace {

const char* kernel_names[] = {"whole", "split_k", "stream_k", "hybrid"};
const char* tile_names[] = {"cluster2", "rows128", "n128", "n64"};

// plan_cost's terms for one plan (chapters/19_dispatcher/kernel.cuh), each the factor of one
// constant; ok false where plan_cost returns 1e30 (no plan).
struct Terms {
    bool ok = true;
    const char* note = "";
    int splits = 0;
    long long waves = 0;
    double whole_waves = 0, range = 0;
    int equal = 0, pieces = 0;
    double path = 0, scattered = 0, split_fixed = 0, partial_mb = 0, sk_fixed = 0,
           piece_partials = 0;
    double cost(ch19::Tile t) const {
        namespace c = ch19::costs;
        return c::ktile(int(t)) * (path + c::SCATTERED * scattered) + c::SPLIT_FIXED * split_fixed +
               c::PARTIAL_PER_MB * partial_mb + c::SK_FIXED * sk_fixed + c::PIECE * piece_partials;
    }
};

Terms terms_of(ch19::Plan p, int M, int N, int K, int sms) {
    using ch19::Kernel;
    Terms t;
    const int workers = ch19::workers_of(p.tile, sms);
    const long long tiles = ch19::tiles_of(p.tile, M, N);
    const int KT = (K + ch16::BK - 1) / ch16::BK;
    if (p.kernel == Kernel::whole) {
        t.waves = (tiles + workers - 1) / workers;
        t.path = double(t.waves * KT);
        return t;
    }
    if (p.kernel == Kernel::split_k) {
        t.splits = ch16::choose_splits(tiles, KT, workers);
        if (t.splits == 1) return t.ok = false, t.note = "split_of_1", t;
        t.path = double((KT + t.splits - 1) / t.splits);
        t.split_fixed = 1;
        t.partial_mb = 8.0 * t.splits * M * N / 1e6;
        return t;
    }
    if (tiles * KT >= (1LL << 31)) return t.ok = false, t.note = "iterations_past_int", t;
    const ch17::Schedule sch = ch17::make_schedule(
        static_cast<int>(tiles), KT, workers,
        p.kernel == Kernel::hybrid ? ch17::Split::hybrid : ch17::Split::stream_k);
    t.waves = (sch.dp_tiles + workers - 1) / workers;
    t.whole_waves = double(t.waves) * KT;
    t.range = sch.sk_iters() > 0 ? double(sch.sk_iters()) / sch.sk_workers + 1 : 0.0;
    t.pieces = ch17::max_pieces(sch);
    const long long sk_tiles = sch.tiles - sch.dp_tiles;
    t.equal = sk_tiles > 0 && sk_tiles <= sch.sk_workers && sch.sk_workers % sk_tiles == 0;
    t.path = t.whole_waves + (t.equal ? t.range : 0.0);
    t.scattered = t.equal ? 0.0 : t.range;
    t.sk_fixed = 1;
    if (sch.sk_iters() > 0) {
        if (t.pieces > ch17::FEW_PIECES)
            t.split_fixed = 1;
        else
            t.piece_partials = double(ch19::tile_rows(
                                   p.tile == ch19::Tile::cluster2 ? ch19::Tile::rows128 : p.tile)) *
                               ch19::tile_cols(p.tile) / (128.0 * 256.0) * (t.pieces - 1);
    }
    return t;
}

// The --all table; false (after a message) where a row's terms do not sum to plan_cost.
bool print_all(int sms) {
    namespace c = ch19::costs;
    std::printf(
        "# constants: KTILE=%.9g,%.9g,%.9g,%.9g SPLIT_FIXED=%.9g PARTIAL_PER_MB=%.9g "
        "SK_FIXED=%.9g PIECE=%.9g SCATTERED=%.9g; sms=%d\n",
        c::KTILE[0], c::KTILE[1], c::KTILE[2], c::KTILE[3], c::SPLIT_FIXED, c::PARTIAL_PER_MB,
        c::SK_FIXED, c::PIECE, c::SCATTERED, sms);
    std::printf(
        "shape,plan,candidate,chosen,small_m,cost,splits,waves,whole_waves,range,equal,"
        "pieces,path,scattered,split_fixed,partial_mb,sk_fixed,piece_partials,note\n");
    using ch19::Kernel;
    using ch19::Tile;
    const Kernel order[] = {Kernel::whole, Kernel::split_k, Kernel::hybrid, Kernel::stream_k};
    int M, N, K;
    while (std::scanf(" %dx%dx%d", &M, &N, &K) == 3) {
        const ch19::Plan chosen = ch19::choose(M, N, K, sms);
        const int small_m = ch19::small_m(M, N, K, sms) ? 1 : 0;
        // choose()'s tiles in its order, then the one it leaves out at this M.
        const Tile first = M <= 128 ? Tile::rows128 : Tile::cluster2;
        const Tile tiles[] = {first, Tile::n128, Tile::n64,
                              M <= 128 ? Tile::cluster2 : Tile::rows128};
        for (int i = 0; i < 4; ++i)
            for (Kernel k : order) {
                const ch19::Plan p{k, tiles[i]};
                const Terms t = terms_of(p, M, N, K, sms);
                const double cost = ch19::plan_cost(p, M, N, K, sms);
                const bool none = cost >= 1e30;
                if (none != !t.ok || (!none && std::fabs(t.cost(p.tile) - cost) > 1e-9 * cost)) {
                    std::fprintf(stderr,
                                 "dispatch_costs --all: %dx%dx%d %s/%s: the terms give %.9g, "
                                 "plan_cost %.9g: plan_cost changed, update terms_of\n",
                                 M, N, K, kernel_names[int(k)], tile_names[int(tiles[i])],
                                 t.ok ? t.cost(p.tile) : 1e30, cost);
                    return false;
                }
                const bool is_chosen = chosen.kernel == k && chosen.tile == tiles[i];
                std::printf("%dx%dx%d,%s/%s,%d,%d,%d,", M, N, K, kernel_names[int(k)],
                            tile_names[int(tiles[i])], i < 3 && t.ok ? 1 : 0, is_chosen ? 1 : 0,
                            small_m);
                if (none)
                    std::printf("inf,%d,,,,,,,,,,,,%s\n", t.splits,
                                i < 3 ? t.note : "tile_not_tried");
                else
                    std::printf("%.9g,%d,%lld,%.9g,%.9g,%d,%d,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%s\n",
                                cost, t.splits, t.waves, t.whole_waves, t.range, t.equal, t.pieces,
                                t.path, t.scattered, t.split_fixed, t.partial_mb, t.sk_fixed,
                                t.piece_partials, i < 3 ? "" : "tile_not_tried");
            }
    }
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    const bool all = argc > 1 && std::strcmp(argv[1], "--all") == 0;
    const int first = all ? 2 : 1;
    const int sms = argc > first ? std::atoi(argv[first]) : 132;
    if (argc > first + 1 || sms <= 0) {
        std::fprintf(stderr, "usage: dispatch_costs [--all] [SMS] < shapes (MxNxK per line)\n");
        return 2;
    }
    if (all) return print_all(sms) ? 0 : 3;
    std::printf(
        "shape,plan,plan_cost,small_m_path,small_m_split,small_m_cost,small_m_waves,small_m\n");
    int M, N, K;
    while (std::scanf(" %dx%dx%d", &M, &N, &K) == 3) {
        const ch19::Plan p = ch19::choose(M, N, K, sms);
        const ch19::SmallMPrice s = ch19::small_m_price(M, N, K, sms);
        std::printf("%dx%dx%d,%s/%s,%.3f,%.0f,%.3f,%.3f,%lld,%d\n", M, N, K,
                    kernel_names[int(p.kernel)], tile_names[int(p.tile)],
                    ch19::plan_cost(p, M, N, K, sms), s.path, s.split, s.cost(), s.waves,
                    ch19::small_m(M, N, K, sms) ? 1 : 0);
    }
    return 0;
}

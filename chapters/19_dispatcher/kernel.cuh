// Chapter 19: a dispatcher. New vs chapters 16, 17 and 18: no new kernel. For each shape (M, N, K)
// and SM count, a cost model in units of one (128, 256) k-tile on one SM prices every candidate --
// the tile (cluster2, rows128, n128, n64) times the schedule (whole tiles: chapter 16 without a
// split; split-K: chapter 16; stream-K, or its hybrid: chapter 17) -- and the cheapest runs. The
// constants are in costs.hpp, each with the measurement it comes from.
// Napkin math: 1024^3 is 16 cluster tiles of 16 k-tiles (cost 16, a quarter of the GPU busy), or
// 128 tiles of (128, 64) in one wave at 0.48 per k-tile (cost 7.7): the narrow tiles win.
// Preconditions: as chapters 16 and 17 (compute capability 9.0).
// Builds on: 17_stream_k
// Read whole: costs.hpp
//
// The one chapter that includes other chapters' kernels (docs/reading-order.md says why): it
// composes them through their namespaces ch16::, ch17:: and ch18::, and adds nothing to their code.
#pragma once

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>

#include "16_split_k/kernel.cuh"
#include "17_stream_k/kernel.cuh"
#include "18_small_m/kernel.cuh"
#include "19_dispatcher/costs.hpp"  // the measured constants

namespace ch19 {

// ch16 without a split, ch16, ch17 with every tile stream-K, ch17 hybrid (equal depths below a
// wave).
enum class Kernel { whole, split_k, stream_k, hybrid };
enum class Tile { cluster2, rows128, n128, n64 };
struct Plan {
    Kernel kernel;
    Tile tile;
};

inline int tile_rows(Tile t) {
    return t == Tile::cluster2 ? 256 : 128;
}
inline int tile_cols(Tile t) {
    return t == Tile::n128 ? 128 : t == Tile::n64 ? 64 : 256;
}
inline int workers_of(Tile t, int sms) {
    return t == Tile::cluster2 ? sms / 2 : sms;
}
inline long long tiles_of(Tile t, int M, int N) {
    return static_cast<long long>((M + tile_rows(t) - 1) / tile_rows(t)) *
           ((N + tile_cols(t) - 1) / tile_cols(t));
}

// The cost of one plan, in (128, 256) k-tile times on one SM: the critical path (the most
// k-tiles any worker computes) times the tile's cost per k-tile, plus what the split adds.
inline double plan_cost(Plan p, int M, int N, int K, int sms) {
    const int workers = workers_of(p.tile, sms);
    const long long tiles = tiles_of(p.tile, M, N);
    const int KT = (K + ch16::BK - 1) / ch16::BK;
    const double unit = costs::ktile(p.tile == Tile::cluster2  ? 0
                                     : p.tile == Tile::rows128 ? 1
                                     : p.tile == Tile::n128    ? 2
                                                               : 3);
    // BEGIN SOLUTION: the critical path of whole tiles (waves) and of split-K (one wave of slices)
    if (p.kernel == Kernel::whole) return double((tiles + workers - 1) / workers * KT) * unit;
    if (p.kernel == Kernel::split_k) {
        const int s = ch16::choose_splits(tiles, KT, workers);
        if (s == 1) return 1e30;  // the same as whole: not a candidate of its own
        const double depth = double((KT + s - 1) / s);
        // Each slice's partial, written and read again (M * N fp32), in k-tile times.
        return depth * unit + costs::SPLIT_FIXED + costs::PARTIAL_PER_MB * 8.0 * s * M * N / 1e6;
    }
    // END SOLUTION
    if (tiles * KT >= (1LL << 31)) return 1e30;  // stream-K counts iterations in int
    const ch17::Schedule sch = ch17::make_schedule(
        static_cast<int>(tiles), KT, workers,
        p.kernel == Kernel::hybrid ? ch17::Split::hybrid : ch17::Split::stream_k);
    const double whole_waves = double((sch.dp_tiles + workers - 1) / workers) * KT;
    const double range = sch.sk_iters() > 0 ? double(sch.sk_iters()) / sch.sk_workers + 1 : 0.0;
    const int pieces = ch17::max_pieces(sch);
    // Ranges at scattered depths lose L2 sharing (costs::SCATTERED); equal depths do not.
    const long long sk_tiles = sch.tiles - sch.dp_tiles;
    const bool equal = sk_tiles > 0 && sk_tiles <= sch.sk_workers && sch.sk_workers % sk_tiles == 0;
    // The fix-up: in the kernel, the last piece reads the others' partials alone, at one SM's L2
    // bandwidth (PIECE per (128, 256) partial); else a second launch.
    const double partial = double(tile_rows(p.tile == Tile::cluster2 ? Tile::rows128 : p.tile)) *
                           tile_cols(p.tile) / (128.0 * 256.0);
    const double fixup =
        pieces > ch17::FEW_PIECES ? costs::SPLIT_FIXED : costs::PIECE * partial * (pieces - 1);
    return (whole_waves + range * (equal ? 1.0 : costs::SCATTERED)) * unit + costs::SK_FIXED +
           (sch.sk_iters() > 0 ? fixup : 0.0);
}

// Decode batches go to chapter 18 (A and B swapped), by a rule rather than a cost: at M <= 64 it
// measured faster than chapter 16 on every decode shape (geomean 97.5 % of cuBLAS against 75.9 %,
// 15 shapes, H200, chapters/18_small_m/README.md). N >= 1024 keeps one-tile deep-K shapes
// (64 x 64 x 262144) with the cost model, where chapter 18's split was not measured.
inline bool decode(int M, int N) {
    return M <= 64 && N >= 1024;
}
// The cheapest plan; on a tie, the earlier candidate (whole tiles first, the wider tile first).
inline Plan choose(int M, int N, int K, int sms) {
    const Tile tiles[] = {M <= 128 ? Tile::rows128 : Tile::cluster2, Tile::n128, Tile::n64};
    const Kernel kernels[] = {Kernel::whole, Kernel::split_k, Kernel::hybrid, Kernel::stream_k};
    Plan best{Kernel::whole, tiles[0]};
    double best_cost = plan_cost(best, M, N, K, sms);
    for (Tile t : tiles)
        for (Kernel k : kernels) {
            const Plan p{k, t};
            const double c = plan_cost(p, M, N, K, sms);
            if (c < best_cost) best = p, best_cost = c;
        }
    return best;
}

using launch::sm_count;  // common/device/launch_resources.cuh, through chapters 16-18

// Chapter 18's schedule for 64 < M <= 256 priced like the plans above: tiles of 64 rows and 64
// columns (configs::m64), PER_SM blocks on each SM, its own split. The critical path in its
// k-tiles, each SMALL_M_KTILE (costs.hpp), plus what a split adds (as chapter 16's).
struct SmallMPrice {
    double path, split;
    long long waves;  // rounds of its blocks: 1 when every unit is resident at once
    double cost() const { return path * costs::SMALL_M_KTILE + split; }
};
inline SmallMPrice small_m_price(int M, int N, int K, int sms) {
    using Cfg = ch18::configs::m64;
    const long long tiles =
        static_cast<long long>((M + Cfg::BM - 1) / Cfg::BM) * ((N + Cfg::BN - 1) / Cfg::BN);
    const int KT = (K + ch18::BK - 1) / ch18::BK, workers = sms * Cfg::PER_SM;
    const int s = std::min(ch18::choose_splits(tiles, KT, workers), KT);
    const long long waves = (tiles * s + workers - 1) / workers;
    const double depth = (KT + s - 1) / s;
    return {double(waves) * depth,
            s > 1 ? costs::SPLIT_FIXED + costs::PARTIAL_PER_MB * 8.0 * s * M * N / 1e6 : 0.0,
            waves};
}

// Which shapes gemm() sends to chapter 18: the decode batches, and few rows (65 to 256) where
// chapter 18's blocks make one wave and its price is below the cheapest plan's. Past one wave it
// lost to the plan on every shape of the H200 sweep but one (a tie) and on the suite's
// 128 x 37888 x 3584, five waves: chapter 19's README.
inline bool small_m(int M, int N, int K, int sms) {
    if (decode(M, N)) return true;
    if (M <= 64 || M > 256) return false;
    const SmallMPrice s = small_m_price(M, N, K, sms);
    return s.waves == 1 && s.cost() < plan_cost(choose(M, N, K, sms), M, N, K, sms);
}

// One plan, run: the kernels and tiles of chapters 16 and 17 (the steps of the README's table).
template <Kernel KERNEL, class Cfg>
inline void gemm_plan(int M, int N, int K, float alpha, const __half* A, int lda, const __half* B,
                      int ldb, float beta, float* C, int ldc, cudaStream_t stream = 0) {
    // BEGIN SOLUTION: chapter 16 without or with its split, or chapter 17's stream-K or hybrid
    if constexpr (KERNEL == Kernel::whole)
        ch16::gemm_cfg<Cfg, false>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, stream);
    else if constexpr (KERNEL == Kernel::split_k)
        ch16::gemm_cfg<Cfg, true>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, stream);
    else
        ch17::gemm_cfg<ch17::Config<Cfg::CLUSTER, Cfg::BN>,
                       KERNEL == Kernel::hybrid ? ch17::Split::hybrid : ch17::Split::stream_k>(
            M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, stream);
    // END SOLUTION
}

template <Kernel KERNEL>
inline void run_tile(Tile tile, int M, int N, int K, float alpha, const __half* A, int lda,
                     const __half* B, int ldb, float beta, float* C, int ldc, cudaStream_t stream) {
    namespace c = ch16::configs;
    switch (tile) {
        case Tile::cluster2:
            return gemm_plan<KERNEL, c::cluster2>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc,
                                                  stream);
        case Tile::rows128:
            return gemm_plan<KERNEL, c::rows128>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc,
                                                 stream);
        case Tile::n128:
            return gemm_plan<KERNEL, c::n128>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, stream);
        case Tile::n64:
            return gemm_plan<KERNEL, c::n64>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, stream);
    }
}

// GEMM_PLAN=kernel/tile (say split_k/n64) runs that plan on every shape instead of choosing: the
// README's table and the cost model's measurements come from it. A bad value: exit 2.
inline bool forced_plan(Plan& p) {
    static const char* names_k[] = {"whole", "split_k", "stream_k", "hybrid"};
    static const char* names_t[] = {"cluster2", "rows128", "n128", "n64"};
    static const std::pair<bool, Plan> forced = [] {
        const char* env = std::getenv("GEMM_PLAN");
        if (!env || !*env) return std::make_pair(false, Plan{});
        const std::string v(env);
        for (int k = 0; k < 4; ++k)
            for (int t = 0; t < 4; ++t)
                if (v == std::string(names_k[k]) + "/" + names_t[t])
                    return std::make_pair(true, Plan{Kernel(k), Tile(t)});
        std::fprintf(stderr,
                     "GEMM_PLAN=%s: expected KERNEL/TILE, KERNEL one of whole, split_k, "
                     "stream_k, hybrid and TILE one of cluster2, rows128, n128, n64\n",
                     env);
        std::exit(2);
    }();
    if (forced.first) p = forced.second;
    return forced.first;
}

inline void gemm(int M, int N, int K, float alpha, const __half* A, int lda, const __half* B,
                 int ldb, float beta, float* C, int ldc, cudaStream_t stream = 0) {
    if (M == 0 || N == 0 || K == 0)  // nothing to price: chapter 16 returns or scales C
        return ch16::gemm(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, stream);
    Plan p{};
    const bool forced = forced_plan(p);
    if (!forced && small_m(M, N, K, sm_count()))
        return ch18::gemm(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, stream);
    if (!forced) p = choose(M, N, K, sm_count());
    switch (p.kernel) {
        case Kernel::whole:
            return run_tile<Kernel::whole>(p.tile, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc,
                                           stream);
        case Kernel::split_k:
            return run_tile<Kernel::split_k>(p.tile, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc,
                                             stream);
        case Kernel::stream_k:
            return run_tile<Kernel::stream_k>(p.tile, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc,
                                              stream);
        case Kernel::hybrid:
            return run_tile<Kernel::hybrid>(p.tile, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc,
                                            stream);
    }
}

}  // namespace ch19

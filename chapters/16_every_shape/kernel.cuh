// Chapter 16: every shape at cuBLAS speed: stream-K for outputs of few tiles, 64-row tiles for few
// rows. New vs chapter 15: a worker (a cluster) no longer owns whole tiles only. The k-iterations
// of the last tiles (all of them when there are fewer tiles than SMs) are divided evenly over the
// workers; a worker that ends a tile's k-range part-way leaves its fp32 partial sums in a workspace
// and raises a flag, and the worker holding the tile's first k-tile adds them before the one
// epilogue (alpha, beta applied once). 64-row tiles (one consumer warpgroup) serve M <= 64; gemm()
// picks. Napkin math: 128x8192x8192 has 32 tiles of 128x256 for 132 SMs; stream-K gives each SM 31
// of the 4096 k-iterations, for 128 KB of partials per SM written and read once (17 MB, against 128
// MB of B), and a fix-up of ~3 partials (~3 us of L2 reads) at the end of each tile's owner.
// Preconditions: compute capability 9.0 (sm_90a); unaligned operands are padded first.
#pragma once

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <utility>

#include "cuda_check.cuh"
#include "device/aligned_operands.cuh"  // padded copies of unaligned A, B; K == 0
#include "device/sm90.cuh"              // the PTX wrappers, make_map
#include "device/wgmma_epilogue.cuh"    // store_tile, store_tile_tma

namespace ch16 {

using namespace sm90;

constexpr int BN = 256, BK = 64;  // block tile columns and depth (64 halves = 128 bytes)
constexpr int STAGES = 4;         // k-tiles in flight
constexpr int WG = 128;           // threads per warpgroup
constexpr int WGMMA_M = 64, WGMMA_K = 16;
constexpr int B_BOX = 64;  // columns of B per TMA box: 64 halves = 128 bytes
constexpr int B_STAGE = BK * BN;
constexpr int ACC = WGMMA_ACC;  // fp32 accumulators per consumer thread

// CONSUMERS warpgroups of 64 rows make the block tile BM = 64 * CONSUMERS high; CLUSTER blocks,
// stacked along M, share one B tile by TMA multicast (chapter 15).
template <int CONSUMERS_, int CLUSTER_>
struct Config {
    static constexpr int CONSUMERS = CONSUMERS_, CLUSTER = CLUSTER_, GROUP_M = 8;
    static constexpr int BM = WGMMA_M * CONSUMERS, THREADS = WG * (1 + CONSUMERS);
    static constexpr int A_STAGE = BM * BK;  // halves
    static constexpr int STAGE_BYTES = (A_STAGE + B_STAGE) * int(sizeof(__half));
    static constexpr int C_BOX = 32, C_CHUNK_BYTES = 2 * 64 * C_BOX * int(sizeof(float));
    static constexpr int SMEM_BYTES = STAGES * STAGE_BYTES + CONSUMERS * C_CHUNK_BYTES + 1024;
    static constexpr int PRODUCER_REGS = 40, CONSUMER_REGS = 232;
    static constexpr int B_PART = BN / B_BOX / CLUSTER;  // B boxes each block copies
    static_assert(CONSUMERS == 1 || CONSUMERS == 2,
                  "one or two consumer warpgroups: three take 512 threads, too few registers each");
    static_assert(CLUSTER >= 1 && (BN / B_BOX) % CLUSTER == 0,
                  "the cluster's blocks split B's boxes evenly");
    static_assert(SMEM_BYTES <= 227 * 1024, "a block's shared memory on compute capability 9.0");
};
namespace configs {
using rows64 = Config<1, 1>;            // (64, 256) tiles: few rows (M <= 64)
using rows128 = Config<2, 1>;           // (128, 256) tiles, no cluster: M <= 128
using rows256_cluster2 = Config<2, 2>;  // chapter 15's tile: pairs of (128, 256) sharing B
}  // namespace configs

// ---- the schedule: which k-tiles of which tiles each worker computes ----------------------------
// Pure integer arithmetic, the same on the host (tests/test_schedule.cu checks it) and the device.
// Tiles [0, dp_tiles) are whole units dealt round-robin (data-parallel, as chapter 15). The
// k-iterations of tiles [dp_tiles, tiles) form one sequence, cut into sk_workers contiguous,
// nearly equal ranges (stream-K): a range may start or end inside a tile.
struct Unit {
    int tile, kb, ke;  // k-tiles [kb, ke) of tile `tile`
};
struct Schedule {
    int tiles_m = 0, tiles_n = 0;  // (cluster) tiles down and across C
    int KT = 0;                    // k-tiles per tile
    int workers = 0;               // clusters in the grid
    int dp_tiles = 0;              // whole tiles first, round-robin
    int sk_workers = 1;            // workers [0, sk_workers) share the stream-K iterations
    int group_m = 8;               // tile rows walked together (L2 reuse)

    __host__ __device__ int tiles() const { return tiles_m * tiles_n; }
    // Fewer than 2^31 (make_schedule sees to it): int arithmetic, no 64-bit division, which is a
    // function call on the GPU and would spill the accumulators around it.
    __host__ __device__ int sk_iters() const { return (tiles() - dp_tiles) * KT; }
    // The first stream-K iteration of worker w, floor(sk_iters * w / sk_workers) (every worker
    // past sk_workers: none left).
    __host__ __device__ int sk_begin(int w) const {
        int first = 0;
        // BEGIN SOLUTION: worker w's share of the sk_iters iterations, evenly cut, in int
        const int q = sk_iters() / sk_workers, r = sk_iters() % sk_workers;
        w = w < sk_workers ? w : sk_workers;
        first = q * w + r * w / sk_workers;  // r * w < sk_workers^2: no overflow
        // END SOLUTION
        return first;
    }
    // Tile t's first row and column of cluster tiles, in grouped order (group_m tile rows at a
    // time, column by column), so that the tiles in flight together share A and B in L2.
    __host__ __device__ void origin(int t, int& tm, int& tn) const {
        const int group = t / (group_m * tiles_n), in_group = t % (group_m * tiles_n);
        const int rows = tiles_m - group * group_m < group_m ? tiles_m - group * group_m : group_m;
        tm = group * group_m + in_group % rows;
        tn = in_group / rows;
    }
};

// The units of one worker, in the order it computes them: its data-parallel tiles, then its
// stream-K range. Only a worker's first stream-K unit can start inside a tile (kb > 0): every
// worker leaves at most one partial.
struct WorkerUnits {
    int t, it, end;  // the next data-parallel tile; the stream-K iterations [it, end) left
    __host__ __device__ WorkerUnits(const Schedule& s, int w)
        : t(w), it(s.sk_begin(w)), end(s.sk_begin(w + 1)) {}
    __host__ __device__ bool next(const Schedule& s, Unit& u) {
        bool more = false;
        // BEGIN SOLUTION: whole tiles round-robin, then the stream-K range cut at tile boundaries
        if (t < s.dp_tiles) {
            u = {t, 0, s.KT};
            t += s.workers;
            return true;
        }
        if (it >= end) return false;
        u.tile = s.dp_tiles + it / s.KT;
        u.kb = it % s.KT;
        u.ke = end - it < s.KT - u.kb ? u.kb + (end - it) : s.KT;
        it += u.ke - u.kb;
        more = true;
        // END SOLUTION
        return more;
    }
};

// The owner of unit u (u.kb == 0, u.ke < KT, a stream-K unit of worker w) adds the partials of
// workers w + 1 .. last_peer: those whose ranges start inside the tile. (No range is empty:
// make_schedule keeps sk_workers <= the iterations.)
__host__ __device__ inline int last_peer(const Schedule& s, int w, const Unit& u) {
    const int tile_end = (u.tile - s.dp_tiles + 1) * s.KT;
    int j = w;
    while (j + 1 < s.sk_workers && s.sk_begin(j + 1) < tile_end) ++j;
    return j;
}

// ---- flags between blocks: a release store and an acquire load at GPU scope ---------------------
__device__ inline void flag_release(unsigned* flag, unsigned value) {
    asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(flag), "r"(value) : "memory");
}
__device__ inline unsigned flag_acquire(const unsigned* flag) {
    unsigned v;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(flag) : "memory");
    return v;
}

// STREAM_K false: whole tiles only, the fix-up compiled out, so that a data-parallel plan runs
// chapter 15's loop and nothing more (the registers and the code of its fastest kernel).
template <class Cfg, bool STREAM_K>
static __global__ void __cluster_dims__(Cfg::CLUSTER, 1, 1) __launch_bounds__(Cfg::THREADS, 1)
    stream_k_kernel(const __grid_constant__ CUtensorMap map_a,
                    const __grid_constant__ CUtensorMap map_b,
                    const __grid_constant__ CUtensorMap map_c, const Schedule sched, int M, int N,
                    float alpha, float beta, float* C, int ldc, bool vec_c, bool tma_c,
                    float4* partials, unsigned* flags, unsigned epoch) {
    constexpr int CLUSTER = Cfg::CLUSTER, CONSUMERS = Cfg::CONSUMERS, BM = Cfg::BM;
    constexpr int A_STAGE = Cfg::A_STAGE;
    extern __shared__ unsigned char smem_raw[];
    unsigned char* smem = reinterpret_cast<unsigned char*>(
        (reinterpret_cast<std::uintptr_t>(smem_raw) + 1023) & ~std::uintptr_t(1023));
    __half* As = reinterpret_cast<__half*>(smem);  // (STAGES, BM, BK), swizzled
    __half* Bs = As + STAGES * A_STAGE;            // (STAGES, BN / 64, BK, 64), swizzled
    __shared__ uint64_t full[STAGES];   // stage s holds its k-tile: A and all of B have landed
    __shared__ uint64_t empty[STAGES];  // every consumer of the cluster is done with stage s

    const int wg = threadIdx.x / WG, tid = threadIdx.x % WG;
    const unsigned rank = CLUSTER > 1 ? cluster_rank() : 0;
    const int worker = blockIdx.x / CLUSTER;

    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; ++s) {
            mbar_init(&full[s], 1);
            mbar_init(&empty[s], CONSUMERS * 4 * CLUSTER);  // every consumer warp of the cluster
        }
        fence_barrier_init();  // the copy engine and the cluster's other block see them
    }
    // The barriers of every block of the cluster exist before anyone copies into or arrives on
    // them.
    if constexpr (CLUSTER > 1)
        cluster_sync();
    else
        __syncthreads();

    if (wg == 0) {
        if constexpr (CONSUMERS > 1) setmaxnreg_dec<Cfg::PRODUCER_REGS>();
        if (tid == 0) {
            // The producer walks the consumers' units; `it` counts k-tiles across them, and with it
            // the stages and their phases.
            WorkerUnits units(sched, worker);
            Unit u;
            int it = 0;
            while (units.next(sched, u)) {
                int tm, tn;
                sched.origin(u.tile, tm, tn);
                const int m0 = (tm * CLUSTER + int(rank)) * BM, n0 = tn * BN;
                for (int kt = u.kb; kt < u.ke; ++kt, ++it) {
                    const int s = it % STAGES;
                    if (it >= STAGES) mbar_wait(&empty[s], (it / STAGES - 1) & 1);
                    mbar_arrive_expect_tx(&full[s], Cfg::STAGE_BYTES);
                    tma_load(As + s * A_STAGE, &map_a, kt * BK, m0, &full[s]);
#pragma unroll
                    for (int p = 0; p < Cfg::B_PART; ++p) {
                        const int j = int(rank) * Cfg::B_PART + p;
                        __half* dst = Bs + s * B_STAGE + j * BK * B_BOX;
                        if constexpr (CLUSTER > 1)
                            tma_load_multicast(dst, &map_b, n0 + j * B_BOX, kt * BK, &full[s],
                                               uint16_t((1u << CLUSTER) - 1));
                        else
                            tma_load(dst, &map_b, n0 + j * B_BOX, kt * BK, &full[s]);
                    }
                }
            }
        }
        __syncwarp();  // lane 0 rejoins its warp before the cluster barrier at the end
    } else {
        if constexpr (CONSUMERS > 1) setmaxnreg_inc<Cfg::CONSUMER_REGS>();
        const int row0 = (wg - 1) * WGMMA_M;
        const int warp = tid / 32, lane = tid % 32;
        auto release =
            [&](int s) {  // stage s is free once every consumer warp of the cluster says so
                if (lane != 0) return;
                if constexpr (CLUSTER > 1) {
#pragma unroll
                    for (int c = 0; c < CLUSTER; ++c) mbar_arrive_cluster(&empty[s], c);
                } else {
                    mbar_arrive(&empty[s]);
                }
            };
        // This warpgroup's partial slot and flag, and those of worker j's block of the same rank:
        // (ACC / 4, WG) float4s, thread-major, so that each of the 32 stores is one coalesced line.
        auto slot = [&](int j) {
            return (static_cast<std::size_t>(j) * CLUSTER + rank) * CONSUMERS + (wg - 1);
        };
        WorkerUnits units(sched, worker);
        Unit u;
        int it = 0;
        while (units.next(sched, u)) {
            float d[ACC];
#pragma unroll
            for (int i = 0; i < ACC; ++i) d[i] = 0.0f;
            // Counted from 0, not from u.kb: ptxas then sees the loop's first wgmma and stops
            // serializing them (warning C7515).
            for (int kt = 0; kt < u.ke - u.kb; ++kt, ++it) {
                const int s = it % STAGES;
                mbar_wait(&full[s], (it / STAGES) & 1);
                const __half* a = As + s * A_STAGE + row0 * BK;  // (64, BK) K-major
                const __half* b = Bs + s * B_STAGE;              // (BN / 64, BK, 64) MN-major
                wgmma_fence();
#pragma unroll
                for (int kk = 0; kk < BK / WGMMA_K; ++kk)
                    wgmma_m64n256k16(d, smem_desc(a + kk * WGMMA_K, 16, 1024),
                                     smem_desc(b + kk * WGMMA_K * B_BOX, BK * 128, 1024));
                wgmma_commit();
                wgmma_wait<1>();  // the previous k-tile's wgmmas are done: release its stage
                if (kt > 0) release((it + STAGES - 1) % STAGES);
            }
            wgmma_wait<0>();
            release((it + STAGES - 1) % STAGES);  // the unit's last stage

            int tm, tn;
            sched.origin(u.tile, tm, tn);
            const int m0 = (tm * CLUSTER + int(rank)) * BM, n0 = tn * BN;
            // BEGIN SOLUTION: mid-tile units leave partials, the owner adds them
            // This thread's rows, r and r + 8, hold part of C: rows past M are never stored, so
            // their partials are neither written nor read (at M = 1, 4 threads of 128 move data).
            const bool live = m0 + row0 + 16 * warp + lane / 4 < M;
            // Not the tile's first k-tile: hand the partial sums to the owner.
            if (STREAM_K && u.kb > 0) {
                float4* p = partials + slot(worker) * (ACC / 4) * WG + tid;
                if (live)
#pragma unroll
                    for (int i = 0; i < ACC / 4; ++i)
                        __stcg(p + i * WG,
                               make_float4(d[4 * i], d[4 * i + 1], d[4 * i + 2], d[4 * i + 3]));
                // Every thread's partial is written before the flag says so: the barrier orders
                // them before thread 0's release store, which makes them visible at GPU scope.
                named_sync(wg, WG);
                if (tid == 0) flag_release(flags + slot(worker), epoch);
                continue;
            }
            // The owner of a split tile: add the later workers' partials.
            if (STREAM_K && u.ke < sched.KT) {
                const int last = last_peer(sched, worker, u);
#pragma unroll 1
                for (int j = worker + 1; j <= last; ++j) {
                    if (tid == 0)
                        while (flag_acquire(flags + slot(j)) != epoch) {
                        }
                    // The acquire by thread 0, then the barrier: every thread reads after the flag.
                    named_sync(wg, WG);
                    const float4* p = partials + slot(j) * (ACC / 4) * WG + tid;
                    if (!live) continue;
#pragma unroll
                    for (int i = 0; i < ACC / 4; ++i) {
                        const float4 v = __ldcg(p + i * WG);  // from L2: never a stale L1 line
                        d[4 * i] += v.x, d[4 * i + 1] += v.y, d[4 * i + 2] += v.z,
                            d[4 * i + 3] += v.w;
                    }
                }
            }
            // END SOLUTION
            // The one epilogue of the tile, as chapter 15: alpha and beta applied once, to the sum.
            if (tma_c) {
                float* Cs = reinterpret_cast<float*>(smem + STAGES * Cfg::STAGE_BYTES +
                                                     (wg - 1) * Cfg::C_CHUNK_BYTES);
                store_tile_tma<Cfg>(d, Cs, &map_c, m0 + row0, n0, alpha, wg, tid);
                continue;
            }
            // Two inlined copies, whole tile and edge tile: one call with the test inside made
            // ptxas spill a few bytes here (ptxas -v), with the partials' loads above.
            const int r = m0 + row0 + 16 * warp + lane / 4;
            if (m0 + BM <= M && n0 + BN <= N && vec_c)
                store_tile(d, C, ldc, M, N, r, n0, lane, alpha, beta, true);
            else
                store_tile(d, C, ldc, M, N, r, n0, lane, alpha, beta, false);
        }
        if (tid == 0) tma_store_wait<0, false>();  // C is written before exit
    }
    // No block may leave while another block of its cluster can still arrive on its barriers.
    if constexpr (CLUSTER > 1) cluster_sync();
}

// ---- host side: the schedules and the dispatcher (pure functions), then the launch --------------

// How the tiles are dealt. data_parallel: whole tiles round-robin (chapter 15). stream_k: every
// tile's k-iterations divided evenly over the workers. hybrid: whole tiles for all but the last
// one or two waves, whose iterations are divided evenly (the tail that would leave SMs idle).
enum class Split { data_parallel, stream_k, hybrid };

constexpr int MIN_SK_ITERS = 8;  // k-tiles per stream-K range at least: a partial costs ~2 k-tiles
constexpr int PARTIAL_KTILES = 2;  // an owner adds its peers' partials in turn, ~2 k-tiles each

// A stream-K range's time in k-tiles with w workers: its share of the iterations, then, at the
// tile's owner, one partial after another from the tile's other workers.
inline long long sk_time(int sk_iters, int sk_tiles, int w) {
    const int per_tile = (w + sk_tiles - 1) / sk_tiles;  // workers that share one tile
    return (sk_iters + w - 1) / w + static_cast<long long>(PARTIAL_KTILES) * (per_tile - 1);
}

inline Schedule make_schedule(int tiles_m, int tiles_n, int KT, int max_workers, Split split,
                              int group_m = 8) {
    Schedule s;
    s.tiles_m = tiles_m, s.tiles_n = tiles_n, s.KT = KT, s.group_m = group_m;
    const int T = s.tiles();
    const int full_waves = T / max_workers;
    if (split == Split::hybrid && (full_waves == 0 || T % max_workers == 0))
        split = full_waves == 0 ? Split::stream_k : Split::data_parallel;
    // The stream-K iterations are counted in int on the device: past that, whole tiles only.
    if (static_cast<long long>(T) * KT >= (1LL << 31)) split = Split::data_parallel;
    s.dp_tiles = split == Split::data_parallel ? T
                 : split == Split::stream_k    ? 0
                                               : (full_waves - 1) * max_workers;
    const int sk_iters = s.sk_iters();
    // Enough workers to share the iterations, none with fewer than MIN_SK_ITERS.
    s.sk_workers = std::max(1, std::min(max_workers, sk_iters / MIN_SK_ITERS));
    // Deep K on few tiles: past ~sqrt(KT / PARTIAL_KTILES) workers per tile, the owner's serial
    // fix-up grows faster than the share shrinks (64 x 64 x 262144: 132 workers, 131 partials in
    // a row). Fewer workers only where the model saves a quarter: a memory-bound few-rows shape
    // wants every SM streaming B.
    if (sk_iters > 0) {
        // The best count is a whole number k of workers per tile (the fix-up steps at each), near
        // k = sqrt(iterations per tile / PARTIAL_KTILES): two candidates, no search per call.
        const int sk_tiles = T - s.dp_tiles;
        const int k = int(std::sqrt(double(s.KT) / PARTIAL_KTILES));
        int best = s.sk_workers;
        for (int c : {k, k + 1}) {
            const int w = std::min(std::max(c, 1) * sk_tiles, s.sk_workers);
            if (sk_time(sk_iters, sk_tiles, w) < sk_time(sk_iters, sk_tiles, best)) best = w;
        }
        if (4 * sk_time(sk_iters, sk_tiles, best) < 3 * sk_time(sk_iters, sk_tiles, s.sk_workers))
            s.sk_workers = best;
    }
    s.workers = std::max(std::min(s.dp_tiles, max_workers), sk_iters > 0 ? s.sk_workers : 0);
    return s;
}

// The dispatcher: which tile and which split for a shape, given the SM count. Pure, so that a CPU
// test (tests/test_schedule.cu) can pin every branch; the README's table draws it. The tile comes
// from M alone. The split from a cost in k-tile times: whole tiles take ceil(tiles / workers)
// waves of KT; stream-K takes the even share, tiles * KT / workers, plus a fix-up (writing,
// waiting for and reading partials: FIXUP_KTILES, to be tuned on the H200). With 256-row cluster
// tiles each stream-K k-tile counts SK_KTILE_COST times: stream-K ranges run side by side in
// different tiles at different depths and lose the grouped order's sharing of A and B in L2.
// Measured on the H200 with cost 1: 4096^3 as hybrid 93.7% of cuBLAS against chapter 15's whole
// tiles 99.0%, 2048 x 4096 x 14336 79.7% against 99.2%, 512 x 6144 x 4096 75.5% against 85.2%,
// while 256 x 8192 x 8192 (32 tiles for 66 workers) gained (87.5% against 65.2%). Few-rows tiles
// stream B once in any order: cost 1 (their stream-K and hybrid runs beat whole tiles).
enum class TileKind { rows64, rows128, rows256_cluster2 };
struct Plan {
    TileKind tile;
    Split split;
};
constexpr int FIXUP_KTILES = 4;
constexpr double SK_KTILE_COST = 1.5;

inline int tile_rows(TileKind t) {
    return t == TileKind::rows64 ? 64 : t == TileKind::rows128 ? 128 : 256;
}
inline Plan choose(int M, int N, int K, int sms) {
    const TileKind tile = M <= 64    ? TileKind::rows64
                          : M <= 128 ? TileKind::rows128
                                     : TileKind::rows256_cluster2;
    const int workers = tile == TileKind::rows256_cluster2 ? sms / 2 : sms;
    const long long tiles =
        static_cast<long long>((M + tile_rows(tile) - 1) / tile_rows(tile)) * ((N + BN - 1) / BN);
    const long long KT = (K + BK - 1) / BK;
    const long long dp_cost = (tiles + workers - 1) / workers * KT;
    // Stream-K (hybrid: after the whole waves it keeps, as make_schedule) at its cost per k-tile.
    const long long kept = tiles >= workers ? tiles / workers - 1 : 0;  // whole waves kept
    const long long sk_share =
        std::max<long long>((tiles - kept * workers) * KT / workers, MIN_SK_ITERS);
    const double per_ktile = tile == TileKind::rows256_cluster2 ? SK_KTILE_COST : 1.0;
    const double sk_cost = double(kept * KT) + per_ktile * double(sk_share) + FIXUP_KTILES;
    if (tiles % workers == 0 || sk_cost >= double(dp_cost)) return {tile, Split::data_parallel};
    return {tile, tiles < workers ? Split::stream_k : Split::hybrid};
}

// The workspace of the stream-K partials and their flags: one slot per consumer warpgroup of the
// grid, one workspace per (device, stream), allocated on first use and grown, never freed (never
// an allocation in a timed call). Flags hold the number of the call that raised them (epoch), so
// they need no reset between calls. Stream safety: calls on one stream run one after the other,
// and calls on different streams have different workspaces, so no two running kernels share one;
// the mutex covers calls from several host threads.
struct Workspace {
    float4* partials = nullptr;
    unsigned* flags = nullptr;
    std::size_t slots = 0;
    unsigned epoch = 0;
};
inline Workspace workspace_for(std::size_t slots, cudaStream_t stream) {
    static std::mutex mutex;
    static std::map<std::pair<int, cudaStream_t>, Workspace> all;
    int dev = 0;
    GEMM_CUDA_CHECK(cudaGetDevice(&dev));
    const std::lock_guard<std::mutex> lock(mutex);
    Workspace& w = all[{dev, stream}];
    if (slots > w.slots) {
        // The old buffers may still be in use by this stream's previous kernel: free them after it.
        if (w.partials) GEMM_CUDA_CHECK(cudaFreeAsync(w.partials, stream));
        if (w.flags) GEMM_CUDA_CHECK(cudaFreeAsync(w.flags, stream));
        GEMM_CUDA_CHECK(
            cudaMallocAsync(&w.partials, slots * (ACC / 4) * WG * sizeof(float4), stream));
        GEMM_CUDA_CHECK(cudaMallocAsync(&w.flags, slots * sizeof(unsigned), stream));
        GEMM_CUDA_CHECK(cudaMemsetAsync(w.flags, 0, slots * sizeof(unsigned), stream));
        w.slots = slots;
        w.epoch = 0;
    }
    if (++w.epoch == 0) ++w.epoch;  // 0 is the flags' initial value: never a call's number
    return w;
}

// make_map, remembered: a benchmark or a model calls again and again with the same matrices, and
// encoding a tensor map costs host time that a small product cannot hide. A few entries, replaced
// in turn; a map depends only on its arguments, so a hit is always right. One cache per host
// thread: no locking.
template <class T>
inline CUtensorMap cached_map(const T* p, int rows, int cols, int ld, int box_rows, int box_cols) {
    struct Entry {
        const T* p;
        int rows, cols, ld, box_rows, box_cols;
        CUtensorMap map;
    };
    thread_local Entry cache[8] = {};
    thread_local int next = 0;
    for (const Entry& e : cache)
        if (e.p == p && e.rows == rows && e.cols == cols && e.ld == ld && e.box_rows == box_rows &&
            e.box_cols == box_cols)
            return e.map;
    Entry& e = cache[next];
    next = (next + 1) % 8;
    e = {p, rows, cols, ld, box_rows, box_cols, make_map(p, rows, cols, ld, box_rows, box_cols)};
    return e.map;
}

template <class Cfg>
inline void gemm_cfg(int M, int N, int K, float alpha, const __half* A, int lda, const __half* B,
                     int ldb, float beta, float* C, int ldc, Split split, cudaStream_t stream) {
    if (M == 0 || N == 0) return;                            // nothing to write
    if (K == 0) return scale_c(M, N, beta, C, ldc, stream);  // no product: C = beta * C
    auto kernel_sk = stream_k_kernel<Cfg, true>;
    auto kernel_dp = stream_k_kernel<Cfg, false>;  // whole tiles only: chapter 15's kernel
    // Looked up once: the shared-memory opt-in, and how many clusters fit on the GPU at once (the
    // stream-K owners wait for other workers: the whole grid must be resident).
    static const int resident_clusters = [&] {
        for (auto k : {kernel_sk, kernel_dp})
            GEMM_CUDA_CHECK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                 Cfg::SMEM_BYTES));
        cudaLaunchConfig_t cfg = {};
        cfg.gridDim = dim3(Cfg::CLUSTER * 1024);
        cfg.blockDim = dim3(Cfg::THREADS);
        cfg.dynamicSmemBytes = Cfg::SMEM_BYTES;
        cudaLaunchAttribute attr;
        attr.id = cudaLaunchAttributeClusterDimension;
        attr.val.clusterDim.x = Cfg::CLUSTER, attr.val.clusterDim.y = 1, attr.val.clusterDim.z = 1;
        cfg.attrs = &attr;
        cfg.numAttrs = 1;
        int n = 0;
        GEMM_CUDA_CHECK(cudaOccupancyMaxActiveClusters(&n, kernel_sk, &cfg));
        return n;
    }();
    const Schedule sched =
        make_schedule((M + Cfg::CLUSTER * Cfg::BM - 1) / (Cfg::CLUSTER * Cfg::BM),
                      (N + BN - 1) / BN, (K + BK - 1) / BK, resident_clusters, split, Cfg::GROUP_M);
    // A and B themselves, or padded copies where a row does not start on 16 bytes.
    const AlignedOperands ops(A, lda, B, ldb, M, N, K, stream);
    const CUtensorMap map_a = cached_map(ops.a.p, M, K, ops.a.ld, Cfg::BM, BK);
    const CUtensorMap map_b = cached_map(ops.b.p, K, N, ops.b.ld, BK, B_BOX);
    const bool vec_c = ldc % 2 == 0 && reinterpret_cast<std::uintptr_t>(C) % 8 == 0;
    // TMA stores overwrite C (beta == 0 only); N % 4 == 0 as chapter 15 found on the H200.
    const bool tma_c =
        beta == 0.0f && ldc % 4 == 0 && N % 4 == 0 && reinterpret_cast<std::uintptr_t>(C) % 16 == 0;
    const CUtensorMap map_c = tma_c ? cached_map(C, M, N, ldc, 64, Cfg::C_BOX) : map_a;
    const Workspace ws =
        sched.sk_iters() > 0
            ? workspace_for(std::size_t(sched.workers) * Cfg::CLUSTER * Cfg::CONSUMERS, stream)
            : Workspace{};
    const auto kernel = sched.sk_iters() > 0 ? kernel_sk : kernel_dp;
    kernel<<<sched.workers * Cfg::CLUSTER, Cfg::THREADS, Cfg::SMEM_BYTES, stream>>>(
        map_a, map_b, map_c, sched, M, N, alpha, beta, C, ldc, vec_c, tma_c, ws.partials, ws.flags,
        ws.epoch);
    GEMM_CUDA_CHECK_LAUNCH();
}

// The named configurations of the README's table: one tile and one split each.
template <class Cfg, Split SPLIT>
inline void gemm_named(int M, int N, int K, float alpha, const __half* A, int lda, const __half* B,
                       int ldb, float beta, float* C, int ldc, cudaStream_t stream = 0) {
    gemm_cfg<Cfg>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, SPLIT, stream);
}

inline int sm_count() {
    static const int sms = [] {
        int dev = 0, n = 0;
        GEMM_CUDA_CHECK(cudaGetDevice(&dev));
        GEMM_CUDA_CHECK(cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev));
        return n;
    }();
    return sms;
}

inline void gemm(int M, int N, int K, float alpha, const __half* A, int lda, const __half* B,
                 int ldb, float beta, float* C, int ldc, cudaStream_t stream = 0) {
    const Plan plan = choose(M, N, K, sm_count());
    switch (plan.tile) {
        case TileKind::rows64:
            gemm_cfg<configs::rows64>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, plan.split,
                                      stream);
            break;
        case TileKind::rows128:
            gemm_cfg<configs::rows128>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, plan.split,
                                       stream);
            break;
        case TileKind::rows256_cluster2:
            gemm_cfg<configs::rows256_cluster2>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc,
                                                plan.split, stream);
            break;
    }
}

}  // namespace ch16

// Chapter 16: every shape at cuBLAS speed: stream-K for outputs of few tiles, smaller tiles for few
// rows or columns. New vs chapter 15: a worker (a cluster) no longer owns whole tiles only. The
// k-iterations of the last tiles (all of them when there are fewer tiles than SMs) are divided
// evenly over the workers; a unit that covers only part of a tile's k-range leaves its fp32 partial
// sums in a workspace. With few pieces per tile, the tile's owner adds them in the kernel; with
// many, a second kernel (reduce_partials) adds them on every SM at once; either way before the
// one epilogue (alpha, beta applied once). Tiles 64 or 128 rows high and 64, 128 or 256 columns
// wide; gemm() picks. Napkin math: 128x8192x8192 has 32 tiles of
// 128x256 for 132 SMs; stream-K gives each SM 31 of the 4096 k-iterations, for 128 KB of partials
// per SM written and read once through L2 (17 MB, against 128 MB of B).
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

constexpr int BK = 64;     // block tile depth (64 halves = 128 bytes)
constexpr int STAGES = 4;  // k-tiles in flight
constexpr int WG = 128;    // threads per warpgroup
constexpr int WGMMA_M = 64, WGMMA_K = 16;
constexpr int B_BOX = 64;  // columns of B per TMA box: 64 halves = 128 bytes

// CONSUMERS warpgroups of 64 rows make the block tile BM = 64 * CONSUMERS high; BN columns wide
// (wgmma's N: 256, 128 or 64); CLUSTER blocks, stacked along M, share one B tile by TMA multicast
// (chapter 15).
template <int CONSUMERS_, int CLUSTER_, int BN_ = 256>
struct Config {
    static constexpr int CONSUMERS = CONSUMERS_, CLUSTER = CLUSTER_, BN = BN_, GROUP_M = 8;
    static constexpr int BM = WGMMA_M * CONSUMERS, THREADS = WG * (1 + CONSUMERS);
    static constexpr int ACC = BN / 2;  // fp32 accumulators per consumer thread: (64, BN) / 128
    static constexpr int A_STAGE = BM * BK, B_STAGE = BK * BN;  // halves
    static constexpr int STAGE_BYTES = (A_STAGE + B_STAGE) * int(sizeof(__half));
    static constexpr int C_BOX = 32, C_CHUNK_BYTES = 2 * 64 * C_BOX * int(sizeof(float));
    static constexpr int SMEM_BYTES = STAGES * STAGE_BYTES + CONSUMERS * C_CHUNK_BYTES + 1024;
    static constexpr int PRODUCER_REGS = 40, CONSUMER_REGS = 232;
    static constexpr int B_PART = BN / B_BOX / CLUSTER;  // B boxes each block copies
    static_assert(CONSUMERS == 1 || CONSUMERS == 2,
                  "one or two consumer warpgroups: three take 512 threads, too few registers each");
    static_assert(BN == 256 || BN == 128 || BN == 64, "wgmma m64nBNk16: 256, 128 or 64 columns");
    static_assert(CLUSTER >= 1 && (BN / B_BOX) % CLUSTER == 0,
                  "the cluster's blocks split B's boxes evenly");
    static_assert(SMEM_BYTES <= 227 * 1024, "a block's shared memory on compute capability 9.0");
};
namespace configs {
using rows64 = Config<1, 1>;            // (64, 256) tiles: few rows (M <= 64)
using rows128 = Config<2, 1>;           // (128, 256) tiles, no cluster: M <= 128
using rows256_cluster2 = Config<2, 2>;  // chapter 15's tile: pairs of (128, 256) sharing B
using n128 = Config<2, 1, 128>;         // (128, 128) tiles: 4x the tiles of a cluster tile
using n64 = Config<2, 1, 64>;           // (128, 64) tiles: few columns, or small squares
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
    // The stream-K worker whose range holds iteration i (0 <= i < sk_iters): the inverse of
    // sk_begin, from an estimate corrected by at most a step or two.
    __host__ __device__ int worker_of(int i) const {
        int w = static_cast<int>(static_cast<long long>(i) * sk_workers / sk_iters());
        while (w > 0 && sk_begin(w) > i) --w;
        while (w + 1 < sk_workers && sk_begin(w + 1) <= i) ++w;
        return w;
    }
    // The last worker whose range holds part of stream-K tile t, walking up from w, a worker that
    // holds part of it: int arithmetic only (the owner calls it beside its accumulators, for at
    // most FEW_PIECES pieces; reduce_partials, with many, takes worker_of of the tile's last
    // iteration, the same worker: tests/test_schedule.cu).
    __host__ __device__ int last_worker(int t, int w) const {
        const int end = (t - dp_tiles + 1) * KT;  // the tile's iterations end here
        while (w + 1 < sk_workers && sk_begin(w + 1) < end) ++w;
        return w;
    }
    // Where worker w keeps its partial of stream-K tile t: 0 if t is the tile its range starts in,
    // else 1 (the tile it ends in). A range holds at most these two partial units: every tile in
    // between is whole.
    __host__ __device__ int partial_index(int w, int t) const {
        return t == dp_tiles + sk_begin(w) / KT ? 0 : 1;
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
// stream-K range. Only the first and the last unit of a range can cover part of a tile: a worker
// leaves at most two partials.
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

// The workspace slot of worker w's partial of tile t, for block `rank` of its cluster and consumer
// warpgroup c: two per (worker, rank, consumer), which one from partial_index.
template <class Cfg>
__host__ __device__ inline std::size_t partial_slot(const Schedule& s, int w, int t, int rank,
                                                    int c) {
    return ((2 * static_cast<std::size_t>(w) + s.partial_index(w, t)) * Cfg::CLUSTER + rank) *
               Cfg::CONSUMERS +
           c;
}

// Flags between blocks (the owner's fix-up): a release store and an acquire load at GPU scope.
__device__ inline void flag_release(unsigned* flag, unsigned value) {
    asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(flag), "r"(value) : "memory");
}
__device__ inline unsigned flag_acquire(const unsigned* flag) {
    unsigned v;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(flag) : "memory");
    return v;
}

// STREAM_K false: whole tiles only, the partial stores compiled out, so that a data-parallel plan
// runs chapter 15's loop and nothing more (the registers and the code of its fastest kernel).
template <class Cfg, bool STREAM_K>
static __global__ void __cluster_dims__(Cfg::CLUSTER, 1, 1) __launch_bounds__(Cfg::THREADS, 1)
    stream_k_kernel(const __grid_constant__ CUtensorMap map_a,
                    const __grid_constant__ CUtensorMap map_b,
                    const __grid_constant__ CUtensorMap map_c, const Schedule sched, int M, int N,
                    float alpha, float beta, float* C, int ldc, bool vec_c, bool tma_c,
                    float4* partials, bool owner_fixup, unsigned* flags, unsigned epoch) {
    constexpr int CLUSTER = Cfg::CLUSTER, CONSUMERS = Cfg::CONSUMERS, BM = Cfg::BM, BN = Cfg::BN;
    constexpr int A_STAGE = Cfg::A_STAGE, B_STAGE = Cfg::B_STAGE, ACC = Cfg::ACC;
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
                    wgmma_m64k16(d, smem_desc(a + kk * WGMMA_K, 16, 1024),
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
            // BEGIN SOLUTION: a unit with part of its tile's k-range leaves its partial sums
            // Rows past M and columns past N are neither written nor read (reduce_partials tests
            // the same): at M = 1, 4 threads of 128 move data.
            const bool live = m0 + row0 + 16 * warp + lane / 4 < M;
            if (STREAM_K && (u.kb > 0 || (u.ke < sched.KT && !owner_fixup))) {
                // This warpgroup's slot: (ACC / 4, WG) float4s, thread-major, so that each of the
                // stores is one coalesced line.
                const std::size_t slot = partial_slot<Cfg>(sched, worker, u.tile, rank, wg - 1);
                float4* p = partials + slot * (ACC / 4) * WG + tid;
                if (live)
#pragma unroll
                    for (int i = 0; i < ACC / 4; ++i)
                        if (n0 + 8 * i < N)
                            __stcg(p + i * WG,
                                   make_float4(d[4 * i], d[4 * i + 1], d[4 * i + 2], d[4 * i + 3]));
                if (owner_fixup) {
                    // Every thread's partial is written before the flag says so: the barrier
                    // orders them before thread 0's release store (GPU scope).
                    named_sync(wg, WG);
                    if (tid == 0) flag_release(flags + slot, epoch);
                }
                continue;
            }
            // Few pieces per tile: the tile's owner (its first k-tile) adds the later workers'
            // partials itself, each as soon as its flag is up, overlapping the others' work.
            if (STREAM_K && u.ke < sched.KT) {
                const int last = sched.last_worker(u.tile, worker);
#pragma unroll 1
                for (int j = worker + 1; j <= last; ++j) {
                    const std::size_t slot = partial_slot<Cfg>(sched, j, u.tile, rank, wg - 1);
                    if (tid == 0)
                        while (flag_acquire(flags + slot) != epoch) {
                        }
                    // The acquire by thread 0, then the barrier: every thread reads after the flag.
                    named_sync(wg, WG);
                    const float4* p = partials + slot * (ACC / 4) * WG + tid;
                    if (!live) continue;
#pragma unroll
                    for (int i = 0; i < ACC / 4; ++i) {
                        if (n0 + 8 * i >= N) continue;
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

// ---- the fix-up: a second kernel adds the partials of every split tile -------------------------
// One block row per split tile: with no more stream-K tiles than workers, block x takes tile
// dp_tiles + x (unsplit ones return at once); with more, every range is at least a tile long, so a
// tile holds at most one boundary between ranges, and block x takes the tile where worker x's
// range ends, if it ends inside one. Blocks along y cut the tile's float4 positions f = i * WG +
// tid (the writer's float4 i and thread tid; only the first live_tids threads when M < 64), X per
// block; along z, the cluster rank and consumer warpgroup. The Y = 256 / X threads of a position
// share the tile's workers (w_lo + y, + Y, ...), shared memory adds their sums, and thread y = 0
// runs the one epilogue: alpha * sum + beta * C. Few blocks, because each costs the GPU a few
// nanoseconds to schedule even when it has nothing to do (a grid of every tile's positions, first
// tried, took 400 us at 4096^2 on the H200).
template <class Cfg>
static __global__ void __launch_bounds__(256)
    reduce_partials(const Schedule sched, bool tile_per_block, int live_tids,
                    const float4* partials, int M, int N, float alpha, float beta, float* C,
                    int ldc) {
    constexpr int ACC = Cfg::ACC;
    int t = sched.dp_tiles + static_cast<int>(blockIdx.x);
    if (!tile_per_block) {
        const int end = sched.sk_begin(static_cast<int>(blockIdx.x) + 1);
        if (end % sched.KT == 0) return;  // the range ends on a tile's edge: nothing split there
        t = sched.dp_tiles + end / sched.KT;
    }
    const int first = (t - sched.dp_tiles) * sched.KT;
    // worker_of, not last_worker's walk: a deep tile has 132 pieces, and walking up to the last
    // delayed every thread's loads (64 x 64 x 262144: 86% -> 58% of cuBLAS on the H200).
    const int w_lo = sched.worker_of(first), w_hi = sched.worker_of(first + sched.KT - 1);
    if (w_lo == w_hi) return;  // whole in one worker's range: that worker stored it
    const int X = static_cast<int>(blockDim.x), Y = static_cast<int>(blockDim.y);
    const int rank = static_cast<int>(blockIdx.z) / Cfg::CONSUMERS;
    const int c = static_cast<int>(blockIdx.z) % Cfg::CONSUMERS;
    const int pos = static_cast<int>(blockIdx.y) * X + static_cast<int>(threadIdx.x);
    const int i = pos / live_tids, tid = pos % live_tids;  // the writer's float4 and thread
    int tm, tn;
    sched.origin(t, tm, tn);
    // The writer's rows r and r + 8 and columns col, col + 1 (store_tile's layout).
    const int r =
        (tm * Cfg::CLUSTER + rank) * Cfg::BM + c * WGMMA_M + 16 * (tid / 32) + (tid % 32) / 4;
    const int col0 = tn * Cfg::BN + 8 * i, col = col0 + 2 * (tid % 4);
    const bool live = i < ACC / 4 && r < M && col0 < N;  // what the writer stored
    float4 sum = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (live) {
        const int f = i * WG + tid;
#pragma unroll 4
        for (int w = w_lo + static_cast<int>(threadIdx.y); w <= w_hi; w += Y) {
            const float4 v =
                __ldcg(partials + partial_slot<Cfg>(sched, w, t, rank, c) * (ACC / 4) * WG + f);
            sum.x += v.x, sum.y += v.y, sum.z += v.z, sum.w += v.w;
        }
    }
    __shared__ float4 part[256];
    part[threadIdx.y * X + threadIdx.x] = sum;
    __syncthreads();
    if (threadIdx.y != 0 || !live) return;
    for (int y = 1; y < Y; ++y) {
        const float4 v = part[y * X + threadIdx.x];
        sum.x += v.x, sum.y += v.y, sum.z += v.z, sum.w += v.w;
    }
    const float v[4] = {sum.x, sum.y, sum.z, sum.w};  // (r, col), (r, col + 1), (r + 8, ...)
    for (int h = 0; h < 2; ++h)
        for (int e = 0; e < 2; ++e) {
            const int row = r + 8 * h, cc = col + e;
            if (row >= M || cc >= N) continue;
            float* p = C + static_cast<long long>(row) * ldc + cc;
            *p = beta == 0.0f ? alpha * v[2 * h + e] : alpha * v[2 * h + e] + beta * *p;
        }
}

// ---- host side: the schedules and the dispatcher (pure functions), then the launch --------------

// How the tiles are dealt. data_parallel: whole tiles round-robin (chapter 15). stream_k: every
// tile's k-iterations divided evenly over the workers. hybrid: whole tiles for all but the last
// one or two waves, whose iterations are divided evenly (the tail that would leave SMs idle).
enum class Split { data_parallel, stream_k, hybrid };

constexpr int MIN_SK_ITERS = 8;  // k-tiles per stream-K range at least: a partial costs ~2 k-tiles
constexpr int FEW_PIECES = 4;    // pieces per tile at most that its owner adds in the kernel

// Fewer tiles than workers: a whole number of workers per tile when that idles at most a fifth of
// them, else the count unchanged (make_schedule, and the dispatcher's cost of stream-K).
inline int equal_depth_workers(long long sk_tiles, int sk_workers) {
    if (sk_tiles > sk_workers) return sk_workers;
    const int aligned = static_cast<int>(sk_workers / sk_tiles * sk_tiles);
    return 5 * aligned >= 4 * sk_workers ? aligned : sk_workers;
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
    // Fewer tiles than workers: a whole number of workers per tile, when that idles at most a
    // fifth of them. Every range then lies inside one tile, at the same depth in every tile
    // (split-K inside stream-K): the tiles computed side by side read the same k-slices of A and B,
    // which L2 then serves once, and each worker leaves one partial, not two. (1024 x 1024 x 32768
    // with ranges at scattered depths read 383 MB from DRAM, cuBLAS 134 MB: ncu on the H200.)
    if (sk_iters > 0) s.sk_workers = equal_depth_workers(T - s.dp_tiles, s.sk_workers);
    s.workers = std::max(std::min(s.dp_tiles, max_workers), sk_iters > 0 ? s.sk_workers : 0);
    return s;
}

// The dispatcher: which tile and which split for a shape, given the SM count. Pure, so that a CPU
// test (tests/test_schedule.cu) can pin every branch; the README's table draws it. Each candidate
// tile gets a cost in units of one (128, 256) k-tile on one SM: whole tiles take ceil(tiles /
// workers) waves of KT k-tiles; stream-K takes the even share, tiles * KT / workers (8 at least),
// plus the partial written and added again (FIXUP_KTILES). A narrower tile's k-tile costs its share
// of the area times an efficiency loss (KTILE_COST: more bytes loaded per multiply-add). With
// 256-row cluster tiles each stream-K k-tile counts SK_KTILE_COST times: ranges in different tiles
// at different depths lose the grouped order's sharing of A and B in L2 (measured on the H200 with
// cost 1: 4096^3 as hybrid 93.7% of cuBLAS against chapter 15's whole tiles 99.0%). The cheapest
// candidate wins; on a tie the wider tile.
enum class TileKind { rows64, rows128, rows256_cluster2, n128, n64 };
struct Plan {
    TileKind tile;
    Split split;
};
constexpr int FIXUP_KTILES = 8;
constexpr double SK_KTILE_COST = 1.5;

inline int tile_rows(TileKind t) {
    return t == TileKind::rows64 ? 64 : t == TileKind::rows256_cluster2 ? 256 : 128;
}
inline int tile_cols(TileKind t) {
    return t == TileKind::n128 ? 128 : t == TileKind::n64 ? 64 : 256;
}
// A k-tile's time on one SM against a (128, 256) one: the share of the area, times the loss of a
// smaller tile, measured at 4096^3 on the H200 with whole tiles (tune_hopper, % of cuBLAS):
// (128, 256) 98.5%, (128, 128) 79.0% (x 1.25: more bytes loaded per multiply-add), (128, 64)
// 50.9% (x 1.9), (64, 256) with one consumer warpgroup 64.1% (x 1.5: none to overlap its waits).
inline double ktile_cost(TileKind t) {
    switch (t) {
        case TileKind::rows64:
            return 0.5 * 1.5;
        case TileKind::n128:
            return 0.5 * 1.3;
        case TileKind::n64:
            return 0.25 * 1.9;
        default:
            return 1.0;
    }
}
// Workers (blocks, or clusters of two) and tiles of one tile kind.
inline int workers_of(TileKind tile, int sms) {
    return tile == TileKind::rows256_cluster2 ? sms / 2 : sms;
}
inline long long tiles_of(TileKind tile, int M, int N) {
    return static_cast<long long>((M + tile_rows(tile) - 1) / tile_rows(tile)) *
           ((N + tile_cols(tile) - 1) / tile_cols(tile));
}
// The cost of one tile and split for a shape (M, N, K) on `sms` SMs, in (128, 256) k-tile times.
inline double plan_cost(TileKind tile, Split split, int M, int N, int K, int sms) {
    const int workers = workers_of(tile, sms);
    const long long tiles = tiles_of(tile, M, N);
    const long long KT = (K + BK - 1) / BK;
    const double unit = ktile_cost(tile);
    if (split == Split::data_parallel) return double((tiles + workers - 1) / workers * KT) * unit;
    // Stream-K (hybrid: after the whole waves it keeps, as make_schedule) at its cost per k-tile.
    const long long kept = tiles >= workers ? tiles / workers - 1 : 0;  // whole waves kept
    const long long sk_share =
        std::max<long long>((tiles - kept * workers) * KT / workers, MIN_SK_ITERS);
    // Ranges at equal depths (make_schedule: a whole number of workers per tile) lose no L2;
    // scattered ones do, except where B is streamed once anyway (64-row tiles).
    const int sk_workers = static_cast<int>(
        std::max<long long>(1, std::min<long long>(workers, tiles * KT / MIN_SK_ITERS)));
    const bool aligned = tiles <= sk_workers && equal_depth_workers(tiles, sk_workers) % tiles == 0;
    const double per_ktile = !aligned && tile != TileKind::rows64 ? SK_KTILE_COST : 1.0;
    return (double(kept * KT) + per_ktile * double(sk_share) + FIXUP_KTILES) * unit;
}
inline Plan choose(int M, int N, int K, int sms) {
    // The candidates: M <= 64 streams B with 64-row tiles (bandwidth-bound) unless a narrow tile
    // splits deep K better; up to 128 rows, tiles of 128 rows; past that, chapter 15's cluster tile
    // or the narrower ones.
    const TileKind few_rows[] = {TileKind::rows64, TileKind::n128, TileKind::n64};
    const TileKind some_rows[] = {TileKind::rows128, TileKind::n128, TileKind::n64};
    const TileKind many_rows[] = {TileKind::rows256_cluster2, TileKind::n128, TileKind::n64};
    const TileKind* first = M <= 64 ? few_rows : M <= 128 ? some_rows : many_rows;
    const int count = 3;
    Plan best{first[0], Split::data_parallel};
    double best_cost = 0.0;
    for (int c = 0; c < count; ++c) {
        const TileKind tile = first[c];
        const int workers = workers_of(tile, sms);
        const long long tiles = tiles_of(tile, M, N);
        // Whole waves need no split; else stream-K below a wave, the hybrid past one (not for
        // the narrow tiles, whose tails are short: measured on the H200, whole tiles won).
        const bool narrow = tile == TileKind::n128 || tile == TileKind::n64;
        const Split split = tiles % workers == 0 ? Split::data_parallel
                            : tiles < workers    ? Split::stream_k
                            : narrow             ? Split::data_parallel
                                                 : Split::hybrid;
        const double dp = plan_cost(tile, Split::data_parallel, M, N, K, sms);
        const double sk = plan_cost(tile, split, M, N, K, sms);
        const Plan p{tile, sk < dp ? split : Split::data_parallel};
        const double cost = std::min(sk, dp);
        if (c == 0 || cost < best_cost) best = p, best_cost = cost;
    }
    return best;
}

// The workspace of the stream-K partials and their flags: two slots per consumer warpgroup of the
// grid, one workspace per (device, stream), allocated on first use and grown, never freed (never
// an allocation in a timed call). Flags hold the number of the call that raised them (epoch), so
// they need no reset between calls. Stream safety: calls on one stream run one after the other (the
// reduction kernel included), and calls on different streams have different workspaces, so no two
// running kernels share one; the mutex covers calls from several host threads.
struct Workspace {
    float4* partials = nullptr;
    unsigned* flags = nullptr;
    std::size_t slots = 0, slot_bytes = 0;  // flags: one per slot
    unsigned epoch = 0;
};
inline Workspace workspace_for(std::size_t slots, std::size_t slot_bytes, cudaStream_t stream) {
    static std::mutex mutex;
    static std::map<std::pair<int, cudaStream_t>, Workspace> all;
    int dev = 0;
    GEMM_CUDA_CHECK(cudaGetDevice(&dev));
    const std::lock_guard<std::mutex> lock(mutex);
    Workspace& w = all[{dev, stream}];
    if (slots > w.slots || slot_bytes > w.slot_bytes) {
        // Grown to both maxima (tiles of every width share it). The old buffers may still be in
        // use by this stream's previous kernel: free them after it.
        slots = std::max(slots, w.slots), slot_bytes = std::max(slot_bytes, w.slot_bytes);
        if (w.partials) GEMM_CUDA_CHECK(cudaFreeAsync(w.partials, stream));
        if (w.flags) GEMM_CUDA_CHECK(cudaFreeAsync(w.flags, stream));
        GEMM_CUDA_CHECK(cudaMallocAsync(&w.partials, slots * slot_bytes, stream));
        GEMM_CUDA_CHECK(cudaMallocAsync(&w.flags, slots * sizeof(unsigned), stream));
        GEMM_CUDA_CHECK(cudaMemsetAsync(w.flags, 0, slots * sizeof(unsigned), stream));
        w.slots = slots, w.slot_bytes = slot_bytes;
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
    // persistent grid: one worker per resident cluster).
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
    const Schedule sched = make_schedule(
        (M + Cfg::CLUSTER * Cfg::BM - 1) / (Cfg::CLUSTER * Cfg::BM), (N + Cfg::BN - 1) / Cfg::BN,
        (K + BK - 1) / BK, resident_clusters, split, Cfg::GROUP_M);
    // A and B themselves, or padded copies where a row does not start on 16 bytes.
    const AlignedOperands ops(A, lda, B, ldb, M, N, K, stream);
    const CUtensorMap map_a = cached_map(ops.a.p, M, K, ops.a.ld, Cfg::BM, BK);
    const CUtensorMap map_b = cached_map(ops.b.p, K, N, ops.b.ld, BK, B_BOX);
    const bool vec_c = ldc % 2 == 0 && reinterpret_cast<std::uintptr_t>(C) % 8 == 0;
    // TMA stores overwrite C (beta == 0 only); N % 4 == 0 as chapter 15 found on the H200.
    const bool tma_c =
        beta == 0.0f && ldc % 4 == 0 && N % 4 == 0 && reinterpret_cast<std::uintptr_t>(C) % 16 == 0;
    const CUtensorMap map_c = tma_c ? cached_map(C, M, N, ldc, 64, Cfg::C_BOX) : map_a;
    // The fix-up: with at most FEW_PIECES pieces per tile, each tile's owner adds them in the
    // kernel (flags, waits that overlap the other workers' ranges); with more, a second kernel adds
    // them on every SM (one owner adding 131 partials in turn took 66 us at 64 x 64 x 262144).
    const int shortest =
        sched.sk_iters() > 0 ? std::max(1, sched.sk_iters() / sched.sk_workers) : 1;
    const int pieces = std::min(sched.sk_workers, sched.KT / shortest + 2);
    const bool owner_fixup = pieces <= FEW_PIECES;
    const Workspace ws =
        sched.sk_iters() > 0
            ? workspace_for(std::size_t(2) * sched.workers * Cfg::CLUSTER * Cfg::CONSUMERS,
                            (Cfg::ACC / 4) * WG * sizeof(float4), stream)
            : Workspace{};
    const auto kernel = sched.sk_iters() > 0 ? kernel_sk : kernel_dp;
    kernel<<<sched.workers * Cfg::CLUSTER, Cfg::THREADS, Cfg::SMEM_BYTES, stream>>>(
        map_a, map_b, map_c, sched, M, N, alpha, beta, C, ldc, vec_c, tma_c, ws.partials,
        owner_fixup, ws.flags, ws.epoch);
    GEMM_CUDA_CHECK_LAUNCH();
    if (sched.sk_iters() == 0 || owner_fixup) return;
    // The split tiles' fix-up, after the kernel on the same stream: every partial is written.
    const int sk_tiles = sched.tiles() - sched.dp_tiles;
    if (sched.sk_workers == 1 && sk_tiles == 1) return;  // one range, one tile: stored whole
    const bool tile_per_block = sk_tiles <= sched.sk_workers;
    float4* const partials = ws.partials;
    // Threads per position: enough to share a deep tile's many pieces (132 at 64 x 64 x 262144).
    const int Y = pieces >= 64 ? 8 : pieces >= 32 ? 4 : pieces >= 16 ? 2 : 1;
    // Rows past M hold nothing: at M = 1 only the first warp's threads wrote.
    const int live_tids = M < WGMMA_M ? 32 * ((M + 15) / 16) : WG;
    const int positions = Cfg::ACC / 4 * live_tids;
    const dim3 block(256 / Y, Y);
    const dim3 grid(tile_per_block ? sk_tiles : sched.sk_workers - 1,
                    (positions + block.x - 1) / block.x, Cfg::CLUSTER * Cfg::CONSUMERS);
    if (grid.x == 0) return;
    reduce_partials<Cfg><<<grid, block, 0, stream>>>(sched, tile_per_block, live_tids, partials, M,
                                                     N, alpha, beta, C, ldc);
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
    auto run = [&](auto cfg) {
        gemm_cfg<decltype(cfg)>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, plan.split, stream);
    };
    switch (plan.tile) {
        case TileKind::rows64:
            return run(configs::rows64{});
        case TileKind::rows128:
            return run(configs::rows128{});
        case TileKind::rows256_cluster2:
            return run(configs::rows256_cluster2{});
        case TileKind::n128:
            return run(configs::n128{});
        case TileKind::n64:
            return run(configs::n64{});
    }
}

}  // namespace ch16

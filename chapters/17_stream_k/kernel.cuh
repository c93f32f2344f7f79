// Chapter 17: stream-K. New vs chapter 16: instead of cutting K into equal slices of every tile,
// the k-iterations of all tiles (of the last waves: the hybrid) are laid end to end and cut into
// one nearly equal range per worker, so every SM gets the same work whatever the tile count. A
// range may start or end inside a tile: such a piece leaves its fp32 partial in a workspace, and
// the last piece of a tile to finish (an atomic count; nobody waits) adds the others and runs the
// one epilogue; with many pieces per tile, a second kernel (reduce_partials) adds them instead.
// Napkin math: 1024 x 1024 x 32768 (16 cluster tiles, 66 workers): split-K's 4 slices keep 64
// busy; stream-K at equal depths also 64, each 128 k-tiles of one tile; 4 partials of 128 KB per
// tile. At 4096^3 (256 tiles, 3.9 waves) the hybrid spreads the last 1.9 waves' 122 tiles evenly.
// Preconditions: as chapter 15 (compute capability 9.0; unaligned operands are padded first).
#pragma once

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "cuda_check.cuh"
#include "device/ch15_persistent.cuh"  // chapter 15's pipeline: Config, TileOrder, barriers, maps
#include "device/ch16_split_k.cuh"     // SplitK, choose_splits, reduce_splits
#include "device/launch_resources.cuh"
#include "device/sm90.cuh"
#include "device/wgmma_epilogue.cuh"

namespace ch17 {

using namespace sm90;
using namespace pipeline;  // Config, BK, STAGES, WG, WGMMA_M, WGMMA_K, B_BOX (chapter 15)
using namespace split_k;   // SplitK, MIN_SLICE, choose_splits, reduce_splits (chapter 16)
using namespace launch;    // workspace_for: a scratch buffer per stream (common/device)

namespace configs {           // the steps of the README's table
using cluster2 = Config<2>;   // chapter 15's tile: pairs of (128, 256) sharing B
using rows128 = Config<1>;    // (128, 256), no cluster: M <= 128 leaves half a pair empty
using n128 = Config<1, 128>;  // (128, 128): twice the tiles of rows128
using n64 = Config<1, 64>;    // (128, 64): four times
}  // namespace configs

// The schedule: which k-tiles of which tiles each worker computes. Tiles [0, dp_tiles) are whole
// units dealt round-robin (as chapter 15); the k-iterations of the others, laid end to end, are
// cut into sk_workers nearly equal ranges (stream-K). Integer arithmetic in int (no 64-bit division
// on the GPU), the same on the host and the device (the host tests in test.cu check it).
struct Unit {
    int tile, kb, ke;  // k-tiles [kb, ke) of tile `tile`
};
struct Schedule {
    int tiles = 0, KT = 0;  // (cluster) tiles of C, k-tiles per tile
    int workers = 0;        // clusters in the grid
    int dp_tiles = 0;       // whole tiles first, round-robin
    int sk_workers = 1;     // workers [0, sk_workers) share the stream-K iterations

    __host__ __device__ int sk_iters() const { return (tiles - dp_tiles) * KT; }  // < 2^31
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
    // The stream-K worker whose range holds iteration i: the inverse of sk_begin, from an estimate
    // corrected by at most a step or two.
    __host__ __device__ int worker_of(int i) const {
        int w = static_cast<int>(static_cast<long long>(i) * sk_workers / sk_iters());
        while (w > 0 && sk_begin(w) > i) --w;
        while (w + 1 < sk_workers && sk_begin(w + 1) <= i) ++w;
        return w;
    }
    // The workers holding pieces of stream-K tile t: [first_worker, last_worker].
    __host__ __device__ int first_worker(int t) const { return worker_of((t - dp_tiles) * KT); }
    __host__ __device__ int last_worker(int t) const {
        return worker_of((t - dp_tiles + 1) * KT - 1);
    }
    // Where worker w keeps its partial of stream-K tile t: 0 in the tile its range starts in, 1 in
    // the one it ends in (a range holds at most these two partial units; the tiles between: whole).
    __host__ __device__ int partial_index(int w, int t) const {
        return t == dp_tiles + sk_begin(w) / KT ? 0 : 1;
    }
};

// The units of one worker, in the order it computes them: its data-parallel tiles, then its
// stream-K range cut at tile boundaries.
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

// How the tiles are dealt. data_parallel: whole tiles round-robin (chapter 15). stream_k: every
// tile's k-iterations divided evenly over the workers. equal_depth: stream-K with a whole number
// of workers per tile, when there are fewer tiles than workers. hybrid: whole tiles for all but
// the last one or two waves, whose iterations are divided evenly (equal depth when few).
enum class Split { data_parallel, stream_k, equal_depth, hybrid };

inline Schedule make_schedule(int tiles, int KT, int max_workers, Split split) {
    Schedule s;
    s.tiles = tiles, s.KT = KT;
    const int full_waves = tiles / max_workers;
    if (split == Split::hybrid && (full_waves == 0 || tiles % max_workers == 0))
        split = full_waves == 0 ? Split::equal_depth : Split::data_parallel;
    // The stream-K iterations are counted in int on the device: past that, whole tiles only.
    if (static_cast<long long>(tiles) * KT >= (1LL << 31)) split = Split::data_parallel;
    s.dp_tiles = split == Split::data_parallel ? tiles
                 : split == Split::hybrid      ? (full_waves - 1) * max_workers
                                               : 0;
    const int sk_tiles = tiles - s.dp_tiles;
    // Enough workers to share the iterations, none with fewer than chapter 16's MIN_SLICE.
    s.sk_workers = std::max(1, std::min(max_workers, s.sk_iters() / MIN_SLICE));
    // Equal depths: with fewer tiles than workers, a whole number of workers per tile, when that
    // idles at most a fifth of them. Every range then lies inside one tile, at the same depth in
    // every tile: the tiles computed side by side read the same k-slices of A and B from L2.
    if (split != Split::stream_k && sk_tiles > 0 && sk_tiles <= s.sk_workers) {
        const int aligned = s.sk_workers / sk_tiles * sk_tiles;
        if (5 * aligned >= 4 * s.sk_workers) s.sk_workers = aligned;
    }
    s.workers = std::max(std::min(s.dp_tiles, max_workers), sk_tiles > 0 ? s.sk_workers : 0);
    return s;
}

// The most pieces a stream-K tile can have, without walking the tiles: ranges are at least q =
// sk_iters / sk_workers long, so a tile's KT - 1 gaps hold at most (KT - 2) / q + 1 boundaries,
// "+ 2" pieces (the host tests in test.cu: never fewer than the schedule's own count).
inline int max_pieces(const Schedule& s) {
    if (s.sk_iters() == 0 || s.KT == 1) return 1;
    const int q = s.sk_iters() / s.sk_workers;
    // Equal ranges that tile every tile exactly (equal depths): KT / q pieces, no more.
    if (s.sk_iters() % s.sk_workers == 0 && s.KT % q == 0) return s.KT / q;
    return std::min(s.sk_workers, (s.KT - 2) / q + 2);
}
constexpr int FEW_PIECES = 4;  // pieces per tile at most that the kernel adds itself

// Worker w's partial of tile t, block `rank` of its cluster: a (BM, BN) fp32 tile, thread-major
// (partial_at below).
template <class Cfg>
__host__ __device__ inline std::size_t partial_slot(const Schedule& s, int w, int t, int rank) {
    return ((2 * static_cast<std::size_t>(w) + s.partial_index(w, t)) * Cfg::CLUSTER + rank) *
           Cfg::BM * Cfg::BN;
}

// A partial in the thread-major layout: float4 j of thread tid of consumer warpgroup g lies at
// float4 (g * ACC / 4 + j) * WG + tid of its slot, so one warp's access is one 512-byte line
// (a row-major tile read in 8-byte pairs took eight 32-byte pieces). Only this kernel and
// reduce_partials read it; it never holds C's layout.
template <int ACC, class T>
__device__ inline auto partial_at(T* P, int g, int j, int tid) {
    using F4 = std::conditional_t<std::is_const_v<T>, const float4, float4>;
    return reinterpret_cast<F4*>(P) + (g * (ACC / 4) + j) * WG + tid;
}
template <int ACC>
__device__ inline void store_partial(const float (&d)[ACC], float* P, int g, int tid) {
#pragma unroll
    for (int j = 0; j < ACC / 4; ++j)  // to L2 (st.global.cg): another SM reads it
        __stcg(partial_at<ACC>(P, g, j, tid), make_float4(d[4 * j], d[4 * j + 1], d[4 * j + 2],
                                                          d[4 * j + 3]));
}
template <int ACC>
__device__ inline void add_partial(float (&d)[ACC], const float* P, int g, int tid) {
#pragma unroll
    for (int j = 0; j < ACC / 4; ++j) {
        // From L2 (ld.global.cg): another SM wrote it, never a stale line of this SM's L1.
        const float4 v = __ldcg(partial_at<ACC>(P, g, j, tid));
        d[4 * j] += v.x, d[4 * j + 1] += v.y, d[4 * j + 2] += v.z, d[4 * j + 3] += v.w;
    }
}

// The piece count of a tile: one thread adds 1 (release: the warpgroup's partial, ordered
// before it by the named barrier, is visible first; acquire: the others' partials are read
// after it) and learns whether its piece was the last.
__device__ inline unsigned count_piece(unsigned* count) {
    unsigned old;
    asm volatile("atom.acq_rel.gpu.global.add.u32 %0, [%1], 1;"
                 : "=r"(old)
                 : "l"(count)
                 : "memory");
    return old;
}

template <class Cfg>
static __global__ void __cluster_dims__(Cfg::CLUSTER, 1, 1) __launch_bounds__(Cfg::THREADS, 1)
    stream_k_kernel(const __grid_constant__ CUtensorMap map_a,
                    const __grid_constant__ CUtensorMap map_b,
                    const __grid_constant__ CUtensorMap map_c, const Schedule sched, int M, int N,
                    float alpha, float beta, float* C, int ldc, bool vec_c, bool tma_c,
                    float* partials, bool fixup_in_kernel, unsigned* counters) {
    constexpr int CLUSTER = Cfg::CLUSTER, CONSUMERS = Cfg::CONSUMERS, BM = Cfg::BM, BN = Cfg::BN;
    constexpr int A_STAGE = Cfg::A_STAGE, B_STAGE = Cfg::B_STAGE, ACC = Cfg::ACC;
    extern __shared__ unsigned char smem_raw[];
    unsigned char* smem = swizzle_aligned(smem_raw);
    __half* As = reinterpret_cast<__half*>(smem);  // (STAGES, BM, BK), swizzled
    __half* Bs = As + STAGES * A_STAGE;            // (STAGES, BN / 64, BK, 64), swizzled
    __shared__ uint64_t full[STAGES];   // stage s holds its tile: A and all of B have landed
    __shared__ uint64_t empty[STAGES];  // every consumer of the cluster is done with stage s

    const int wg = threadIdx.x / WG, tid = threadIdx.x % WG;
    const unsigned rank = CLUSTER > 1 ? cluster_rank() : 0;  // this block's place in its cluster
    const TileOrder<Cfg> order = TileOrder<Cfg>::of(M, N);
    const int worker = blockIdx.x / CLUSTER;

    init_barriers<STAGES, CLUSTER>(full, empty, CONSUMERS * 4 * CLUSTER);  // every consumer warp

    if (wg == 0) {
        setmaxnreg_dec<Cfg::PRODUCER_REGS>();
        if (tid == 0) {
            // The producer walks the same units as the consumers; its k-tile count `it` runs on
            // across units, and with it the stages and their phases.
            WorkerUnits units(sched, worker);
            Unit u;
            int it = 0;
            while (units.next(sched, u)) {
                int m0, n0;
                order.origin(u.tile, rank, m0, n0);
                for (int kt = u.kb; kt < u.ke; ++kt, ++it) {
                    const int s = it % STAGES;
                    if (it >= STAGES) mbar_wait(&empty[s], (it / STAGES - 1) & 1);
                    load_stage<Cfg>(&map_a, &map_b, As, Bs, full, s, kt, m0, n0, rank);
                }
            }
        }
        __syncwarp();  // lane 0 rejoins its warp before the cluster barrier at the end
    } else {
        setmaxnreg_inc<Cfg::CONSUMER_REGS>();
        const int row0 = (wg - 1) * WGMMA_M;  // this warpgroup's first row in the block tile
        const int warp = tid / 32, lane = tid % 32;
        // Stage s is free again once every consumer warp of the cluster says so.
        auto release_stage = [&](int s) { release<CLUSTER>(&empty[s], lane); };
        __shared__ bool last[CONSUMERS];  // this warpgroup finished its tile's last piece
        WorkerUnits units(sched, worker);
        Unit u;
        int it = 0;
        while (units.next(sched, u)) {
            int m0, n0;
            order.origin(u.tile, rank, m0, n0);
            const int depth = u.ke - u.kb;
            float d[ACC];  // (64, BN) of C: this warpgroup's rows, in wgmma's register layout
#pragma unroll
            for (int i = 0; i < ACC; ++i) d[i] = 0.0f;
            // Counted from 0, not from the unit's first k-tile: ptxas then sees the loop's first
            // wgmma and does not serialize them (warning C7515).
            for (int kt = 0; kt < depth; ++kt, ++it) {
                const int s = it % STAGES;
                mbar_wait(&full[s], (it / STAGES) & 1);          // k-tile kt has landed in stage s
                const __half* a = As + s * A_STAGE + row0 * BK;  // (64, BK) K-major
                const __half* b = Bs + s * B_STAGE;              // (BN / 64, BK, 64) MN-major
                wgmma_fence();  // the accumulators were written by ordinary instructions before
#pragma unroll
                for (int kk = 0; kk < BK / WGMMA_K; ++kk)
                    wgmma_m64k16(d, smem_desc(a + kk * WGMMA_K, 16, 1024),
                                 smem_desc(b + kk * WGMMA_K * B_BOX, BK * 128, 1024));
                wgmma_commit();
                // One k-tile of wgmmas stays in flight: once the previous k-tile's are done, its
                // stage is released while this one's run.
                wgmma_wait<1>();
                if (kt > 0) release_stage((it + STAGES - 1) % STAGES);
            }
            wgmma_wait<0>();
            // The unit's last stage (a unit is never empty).
            release_stage((it + STAGES - 1) % STAGES);
            const int r = m0 + row0 + 16 * warp + lane / 4;  // this thread's first row of C
            const bool whole = m0 + BM <= M && n0 + BN <= N;
            // BEGIN SOLUTION: a piece leaves its partial, the last adds them; whole tiles to C
            if (u.kb > 0 || u.ke < sched.KT) {
                const int lo = sched.first_worker(u.tile), hi = sched.last_worker(u.tile);
                store_partial(d, partials + partial_slot<Cfg>(sched, worker, u.tile, rank), wg - 1,
                              tid);
                if (!fixup_in_kernel) continue;  // reduce_partials adds them after the kernel
                named_sync(wg, WG);  // the warpgroup's partial is written before its count goes up
                if (tid == 0) {
                    unsigned* count = counters +
                                      ((u.tile - sched.dp_tiles) * CLUSTER + rank) * CONSUMERS +
                                      (wg - 1);
                    last[wg - 1] = count_piece(count) == unsigned(hi - lo);
                    if (last[wg - 1]) *count = 0;  // every piece counted: ready for the next call
                }
                named_sync(wg, WG);           // the warpgroup learns whether it was last
                if (!last[wg - 1]) continue;  // not the last: nobody waits for anybody
#pragma unroll 1
                for (int w = lo; w <= hi; ++w)
                    if (w != worker)
                        add_partial(d, partials + partial_slot<Cfg>(sched, w, u.tile, rank), wg - 1,
                                    tid);
            }
            // Epilogue, as in chapter 15; meanwhile the producer is already loading the next tile.
            if (tma_c) {
                float* Cs = reinterpret_cast<float*>(smem + STAGES * Cfg::STAGE_BYTES +
                                                     (wg - 1) * Cfg::C_CHUNK_BYTES);
                store_tile_tma<Cfg>(d, Cs, &map_c, m0 + row0, n0, alpha, wg, tid);
                continue;
            }
            store_tile(d, C, ldc, M, N, r, n0, lane, alpha, beta, whole && vec_c);
            // END SOLUTION
        }
        if (Cfg::STORE_TMA && tid == 0) tma_store_wait<0, false>();  // C is written before exit
    }
    // No block may leave while another block of its cluster can still arrive on its barriers.
    if constexpr (CLUSTER > 1) cluster_sync();
}

// The fix-up with more than FEW_PIECES pieces per tile, in a second kernel. Block x takes
// stream-K tile dp_tiles + x, blocks along y cut its (BM, BN) float4 positions, X per block,
// blocks along z the cluster rank. The Y = 256 / X threads of a position share the tile's pieces
// (w_lo + y, + Y, ...), shared memory adds their sums, and thread y = 0 runs the one epilogue.
template <class Cfg>
static __global__ void __launch_bounds__(256)
    reduce_partials(const Schedule sched, const float* partials, int M, int N, float alpha,
                    float beta, float* C, int ldc) {
    constexpr int BM = Cfg::BM, BN = Cfg::BN;
    const int t = sched.dp_tiles + static_cast<int>(blockIdx.x), rank = blockIdx.z;
    const int w_lo = sched.first_worker(t), w_hi = sched.last_worker(t);
    if (w_lo == w_hi) return;  // whole in one worker's range: that worker stored it
    const int X = static_cast<int>(blockDim.x), Y = static_cast<int>(blockDim.y);
    const int f = static_cast<int>(blockIdx.y) * X + static_cast<int>(threadIdx.x);  // float4
    int m0, n0;
    TileOrder<Cfg>::of(M, N).origin(t, rank, m0, n0);
    // float4 f of the thread-major layout (partial_at): consumer g's thread `tid`, its float4 j,
    // rows row and row + 8 of C, columns col and col + 1 (store_tile's register layout).
    const int g = f / (Cfg::ACC / 4 * WG), j = f / WG % (Cfg::ACC / 4), tid = f % WG;
    const int row = m0 + 64 * g + 16 * (tid / 32) + tid % 32 / 4;
    const int col = n0 + 8 * j + 2 * (tid % 4);
    const bool live = f < BM * BN / 4 && row < M && col < N;
    float4 sum = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (live)
#pragma unroll 4
        for (int w = w_lo + static_cast<int>(threadIdx.y); w <= w_hi; w += Y) {
            const float4 v = __ldcg(reinterpret_cast<const float4*>(
                partials + partial_slot<Cfg>(sched, w, t, rank) + 4 * f));
            sum.x += v.x, sum.y += v.y, sum.z += v.z, sum.w += v.w;
        }
    __shared__ float4 part[256];
    part[threadIdx.y * X + threadIdx.x] = sum;
    __syncthreads();  // every thread's share of the pieces is in shared memory
    if (threadIdx.y != 0 || !live) return;
    for (int y = 1; y < Y; ++y) {
        const float4 v = part[y * X + threadIdx.x];
        sum.x += v.x, sum.y += v.y, sum.z += v.z, sum.w += v.w;
    }
    const float v[4] = {sum.x, sum.y, sum.z, sum.w};
    for (int h = 0; h < 2; ++h) {  // rows row and row + 8: a pair of columns each
        const int r = row + 8 * h;
        if (r >= M) continue;
        float* p = C + static_cast<long long>(r) * ldc + col;
        float a = alpha * v[2 * h], b = alpha * v[2 * h + 1];
        if (col + 1 < N && reinterpret_cast<std::uintptr_t>(p) % 8 == 0) {  // one 8-byte access
            if (beta != 0.0f) {
                const float2 old = *reinterpret_cast<const float2*>(p);
                a += beta * old.x, b += beta * old.y;
            }
            *reinterpret_cast<float2*>(p) = make_float2(a, b);
            continue;
        }
        p[0] = beta == 0.0f ? a : a + beta * p[0];
        if (col + 1 < N) p[1] = beta == 0.0f ? b : b + beta * p[1];
    }
}

// SPLIT: how the tiles are dealt (the steps of the README's table).
template <class Cfg, Split SPLIT = Split::hybrid>
inline void gemm_cfg(int M, int N, int K, float alpha, const __half* A, int lda, const __half* B,
                     int ldb, float beta, float* C, int ldc, cudaStream_t stream = 0) {
    if (M == 0 || N == 0) return;                            // nothing to write
    if (K == 0) return scale_c(M, N, beta, C, ldc, stream);  // no product: C = beta * C
    auto kernel = stream_k_kernel<Cfg>;
    // Looked up once: the shared-memory opt-in, and how many clusters fit on the GPU at once.
    static const int resident =
        resident_clusters(kernel, Cfg::CLUSTER, Cfg::THREADS, Cfg::SMEM_BYTES);
    const TensorMaps<Cfg> maps(A, lda, B, ldb, beta, C, ldc, M, N, K, stream);
    const int tiles = tile_count<Cfg>(M, N);
    const int KT = (K + BK - 1) / BK;
    const Schedule sched = make_schedule(tiles, KT, resident, SPLIT);
    const int sk_tiles = sched.tiles - sched.dp_tiles;
    // The fix-up: up to FEW_PIECES pieces, the last of a tile to finish adds them in the kernel;
    // more, a second kernel on every SM (one worker adding 131: 66 us at 64 x 64 x 262144, H200).
    const bool fixup_in_kernel = max_pieces(sched) <= FEW_PIECES;
    // Two (BM, BN) partials per worker and cluster rank; a count per consumer of a stream-K tile.
    const std::size_t slots = std::size_t(2 * Cfg::CLUSTER) * Cfg::BM * Cfg::BN * sizeof(float);
    float* partials = sk_tiles > 0 ? workspace_for<float>(sched.workers * slots, stream) : nullptr;
    const std::size_t counts = std::size_t(sk_tiles) * Cfg::CLUSTER * Cfg::CONSUMERS;
    unsigned* counters =
        sk_tiles > 0 ? workspace_for<unsigned>(counts * sizeof(unsigned), stream) : nullptr;
    kernel<<<sched.workers * Cfg::CLUSTER, Cfg::THREADS, Cfg::SMEM_BYTES, stream>>>(
        maps.a, maps.b, maps.c, sched, M, N, alpha, beta, C, ldc, maps.vec_c, maps.tma_c, partials,
        fixup_in_kernel, counters);
    GEMM_CUDA_CHECK_LAUNCH();
    if (sk_tiles == 0 || fixup_in_kernel) return;  // C written by the kernel's epilogues
    // Every partial is written: the reduction runs after the kernel, on the same stream.
    // Threads per position: enough to share a deep tile's many pieces (132 at 64 x 64 x 262144).
    const int pieces = max_pieces(sched);
    const int Y = pieces >= 64 ? 8 : pieces >= 32 ? 4 : pieces >= 16 ? 2 : 1;
    const dim3 block(256 / Y, Y);
    const dim3 grid(sk_tiles, (Cfg::BM * Cfg::BN / 4 + block.x - 1) / block.x, Cfg::CLUSTER);
    reduce_partials<Cfg><<<grid, block, 0, stream>>>(sched, partials, M, N, alpha, beta, C, ldc);
    GEMM_CUDA_CHECK_LAUNCH();
}

// Few rows (M <= 128): 128-row tiles alone; a cluster pair would compute a second block of rows
// that lie wholly past M.
inline void gemm(int M, int N, int K, float alpha, const __half* A, int lda, const __half* B,
                 int ldb, float beta, float* C, int ldc, cudaStream_t stream = 0) {
    if (M <= 128)
        return gemm_cfg<configs::rows128>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, stream);
    gemm_cfg<configs::cluster2>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, stream);
}

}  // namespace ch17

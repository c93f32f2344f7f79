// Chapter 18: small M (decode batches) with A and B swapped, split over K.
// New vs chapter 15: C^T = B^T A^T. wgmma's 64 rows are 64 columns of C (B's slice, MN-major, the
// transpose-A bit) and wgmma's N is M itself, 8 to 64 wide: no 64-row tile computing 63 empty rows
// for one token. A tile is then (MT rows, 64 columns) of C and there are few of them (N / 64), so
// `splits` blocks share each tile's k-tiles; each leaves an fp32 partial and the last to arrive
// adds them in order (deterministic) and writes C: no second kernel, no block waits for another.
// Napkin math: M <= 64 makes 2 M flops per byte of B (H200 ridge ~200): memory-bound; 8 x 4096 x
// 4096 moves 32 MB of B, 7.6 us at 4.2 TB/s (the copy bandwidth). Two blocks per SM, 96 KB of
// stages each, keep ~190 KB of B per SM in flight against ~30 KB that latency x bandwidth asks.
// Preconditions: compute capability 9.0 (sm_90a); unaligned operands are padded first.
// Builds on: 15_wgmma_persistent
#pragma once

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <utility>

#include "cuda_check.cuh"
#include "device/aligned_operands.cuh"  // padded copies of unaligned A, B; K == 0
#include "device/sm90.cuh"              // mbarriers, TMA, smem_desc, make_map
#include "device/small_m.cuh"           // wgmma_swapped: m64n{8,16,32,64}k16, A transposed

namespace ch18 {

using namespace sm90;

constexpr int BK = 64;                     // block tile depth: 64 halves, one 128-byte swizzle row
constexpr int BN = 64;                     // columns of C per block: wgmma's M, one TMA box of B
constexpr int WG = 128;                    // threads per warpgroup
constexpr int WGMMA_K = 16;                // one wgmma: (64 of N, 16) x (16, MT of M)
constexpr int STAGE_BUDGET = 96 * 1024;    // bytes of stages per block: two blocks per SM
static_assert(BN * int(sizeof(__half)) == 128, "a k-row of B's tile is one 128-byte swizzle row");

// MT: rows of C per block, wgmma's N (8, 16, 32 or 64). A producer warpgroup (one thread copies)
// and one consumer warpgroup; its accumulators are few (MT / 2), so no setmaxnreg.
template <int MT_>
struct Config {
    static constexpr int MT = MT_, THREADS = 2 * WG;
    static constexpr int ACC = MT / 2;                          // fp32 per thread: (64, MT) / 128
    static constexpr int A_STAGE = MT * BK, B_STAGE = BK * BN;  // halves
    static constexpr int STAGE_BYTES = (A_STAGE + B_STAGE) * int(sizeof(__half));
    static constexpr int STAGES = std::min(12, STAGE_BUDGET / STAGE_BYTES);  // 10, 9, 8 or 6
    static constexpr int SMEM_BYTES = STAGES * STAGE_BYTES + 1024;  // + the 1024-byte alignment
    static_assert(MT == 8 || MT == 16 || MT == 32 || MT == 64, "wgmma_swapped's widths");
    static_assert(A_STAGE * int(sizeof(__half)) % 1024 == 0,
                  "every stage's tiles start on 1024 bytes, where the swizzle pattern starts");
    static_assert(2 * (SMEM_BYTES + 1024) <= 228 * 1024, "two blocks per SM (1 KB reserved each)");
};

// Split s of `splits` takes k-tiles [split_begin(s), split_begin(s + 1)) of its tile: evenly cut,
// none empty when splits <= KT. KT * splits < 2^31 (KT < 2^25, splits <= MAX_SPLITS): int only.
__host__ __device__ inline int split_begin(int KT, int splits, int s) { return KT * s / splits; }

// C (M, N) from this warpgroup's (64 of N, MT of M) tile of C^T. Thread (warp, lane) holds C^T rows
// 16 * warp + lane / 4 and + 8 and, for every 8 columns j, columns 8j + 2 * (lane % 4) and + 1
// (chapter 12's layout): d[4j + 2h + e] is C(m0 + 8j + 2 * (lane % 4) + e, n0 + 16 * warp + lane /
// 4 + 8h). A warp's store covers 8 consecutive columns of 4 rows: 32-byte pieces, which is why C is
// small enough not to matter here (M x N floats against N x K halves of B).
template <int ACC>
__device__ inline void store_tile_transposed(const float (&d)[ACC], float* C, int ldc, int M,
                                             int N, int m0, int n0, int warp, int lane,
                                             float alpha, float beta) {
#pragma unroll
    for (int j = 0; j < ACC / 4; ++j)
#pragma unroll
        for (int e = 0; e < 2; ++e) {
            // BEGIN SOLUTION: the element (h, e) of column group j, stored transposed
            const int m = m0 + 8 * j + 2 * (lane % 4) + e;
            if (m >= M) continue;
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const int n = n0 + 16 * warp + lane / 4 + 8 * h;
                if (n >= N) continue;
                float* p = C + static_cast<long long>(m) * ldc + n;
                const float v = alpha * d[4 * j + 2 * h + e];
                *p = beta == 0.0f ? v : v + beta * *p;
            }
            // END SOLUTION
        }
}

// One block per (tile, split): blockIdx.x the tile (rows fastest: the tiles of one column strip
// run together and share B in L2 when M > MT), blockIdx.y the split. partials: (tiles, splits,
// ACC / 4, WG) float4s; arrived: one counter per tile, 0 between calls.
template <class Cfg>
static __global__ void __launch_bounds__(Cfg::THREADS, 2)
    small_m_kernel(const __grid_constant__ CUtensorMap map_a,
                   const __grid_constant__ CUtensorMap map_b, int M, int N, int KT, int tiles_m,
                   float alpha, float beta, float* C, int ldc, float4* partials,
                   unsigned* arrived) {
    constexpr int MT = Cfg::MT, STAGES = Cfg::STAGES, ACC = Cfg::ACC;
    extern __shared__ unsigned char smem_raw[];
    // 128-byte swizzled tiles start on a 1024-byte boundary (the pattern repeats every 8 rows).
    unsigned char* smem = reinterpret_cast<unsigned char*>(
        (reinterpret_cast<std::uintptr_t>(smem_raw) + 1023) & ~std::uintptr_t(1023));
    __half* As = reinterpret_cast<__half*>(smem);  // (STAGES, MT, BK), swizzled: K-major
    __half* Bs = As + STAGES * Cfg::A_STAGE;       // (STAGES, BK, BN), swizzled: MN-major
    __shared__ uint64_t full[STAGES];   // stage s holds its k-tile: A and B have landed
    __shared__ uint64_t empty[STAGES];  // the consumer's 4 warps are done with stage s
    __shared__ int last;                // this block is the last of its tile's splits

    const int wg = threadIdx.x / WG, tid = threadIdx.x % WG;
    const int tile = static_cast<int>(blockIdx.x), split = static_cast<int>(blockIdx.y);
    const int splits = static_cast<int>(gridDim.y);
    const int m0 = (tile % tiles_m) * MT, n0 = (tile / tiles_m) * BN;
    const int kb = split_begin(KT, splits, split), ke = split_begin(KT, splits, split + 1);

    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; ++s) {
            mbar_init(&full[s], 1);   // the producer's arrive (+ the TMA bytes)
            mbar_init(&empty[s], 4);  // every consumer warp
        }
        fence_barrier_init();  // the copy engine sees them initialised
    }
    __syncthreads();  // the barriers exist before anyone copies into or waits on them

    if (wg == 0) {
        if (tid == 0) {
            for (int kt = kb; kt < ke; ++kt) {
                const int it = kt - kb, s = it % STAGES;
                if (it >= STAGES) mbar_wait(&empty[s], (it / STAGES - 1) & 1);
                mbar_arrive_expect_tx(&full[s], Cfg::STAGE_BYTES);  // both boxes, whole
                tma_load(As + s * Cfg::A_STAGE, &map_a, kt * BK, m0, &full[s]);  // (MT, BK) of A
                tma_load(Bs + s * Cfg::B_STAGE, &map_b, n0, kt * BK, &full[s]);  // (BK, BN) of B
            }
        }
        return;  // the copies in flight land all the same; nobody waits on the producer
    }
    const int warp = tid / 32, lane = tid % 32;
    float d[ACC];  // (64 of N, MT of M) of C^T, in wgmma's register layout
#pragma unroll
    for (int i = 0; i < ACC; ++i) d[i] = 0.0f;
    for (int it = 0; it < ke - kb; ++it) {
        const int s = it % STAGES;
        mbar_wait(&full[s], (it / STAGES) & 1);         // k-tile kb + it has landed in stage s
        const __half* a = As + s * Cfg::A_STAGE;  // (MT, BK) K-major: wgmma's B
        const __half* b = Bs + s * Cfg::B_STAGE;  // (BK, BN) MN-major: wgmma's A, transposed
        wgmma_fence();  // the accumulators were written by ordinary instructions before
#pragma unroll
        for (int kk = 0; kk < BK / WGMMA_K; ++kk)
            wgmma_swapped(d, smem_desc(b + kk * WGMMA_K * BN, BK * 128, 1024),
                          smem_desc(a + kk * WGMMA_K, 16, 1024));
        wgmma_commit();
        wgmma_wait<1>();  // the previous k-tile's wgmmas are done: release its stage
        if (it > 0 && lane == 0) mbar_arrive(&empty[(it + STAGES - 1) % STAGES]);
    }
    wgmma_wait<0>();  // the last stage is not released: nobody loads into it any more

    if (splits > 1) {
        // BEGIN SOLUTION: leave this split's partial; the last split of the tile adds them all
        // Thread-major float4s: each store of the warpgroup is one coalesced 2 KB line.
        float4* mine = partials + (static_cast<std::size_t>(tile) * splits + split) * (ACC / 4) * WG;
#pragma unroll
        for (int i = 0; i < ACC / 4; ++i)
            __stcg(mine + i * WG + tid,
                   make_float4(d[4 * i], d[4 * i + 1], d[4 * i + 2], d[4 * i + 3]));
        __threadfence();    // this thread's partial is visible GPU-wide before it is counted
        named_sync(1, WG);  // every thread of the warpgroup has stored and fenced
        if (tid == 0) {
            last = atomicAdd(arrived + tile, 1u) == unsigned(splits - 1);
            __threadfence();  // the others' partials, counted before ours, are read after this
            if (last) arrived[tile] = 0;  // the next call on this stream starts from 0
        }
        named_sync(1, WG);  // `last` is written
        if (!last) return;
        // The sum in split order, whichever split arrived last: the same bits every call.
#pragma unroll
        for (int i = 0; i < ACC / 4; ++i) {
            float4 sum = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            for (int s = 0; s < splits; ++s) {
                const float4 v =
                    s == split ? make_float4(d[4 * i], d[4 * i + 1], d[4 * i + 2], d[4 * i + 3])
                               : __ldcg(partials + (static_cast<std::size_t>(tile) * splits + s) *
                                                       (ACC / 4) * WG +
                                        i * WG + tid);  // from L2: never a stale L1 line
                sum.x += v.x, sum.y += v.y, sum.z += v.z, sum.w += v.w;
            }
            d[4 * i] = sum.x, d[4 * i + 1] = sum.y, d[4 * i + 2] = sum.z, d[4 * i + 3] = sum.w;
        }
        // END SOLUTION
    }
    store_tile_transposed(d, C, ldc, M, N, m0, n0, warp, lane, alpha, beta);
}

// ---- host side: the split (a pure function), the workspace, the launch --------------------------

constexpr int MAX_SPLITS = 32;  // so that KT * splits stays in int (split_begin)
constexpr int MIN_KTILES = 4;   // k-tiles per split at least: a partial costs about one

// wgmma's N for M rows: the narrowest width that holds them, 64 past that (several tile rows).
inline int tile_rows(int M) { return M <= 8 ? 8 : M <= 16 ? 16 : M <= 32 ? 32 : 64; }

// How many blocks share each tile's k-tiles, for `tiles` tiles of `mt` rows, KT k-tiles deep, on
// `sms` SMs. Decode is memory-bound, so the cost, in k-tile times of the whole GPU streaming B at
// its fair share per SM, is the larger of the DRAM time (all the k-tiles over all the SMs) and
// the busiest SM's time: its blocks (dealt round-robin) times each one's k-tiles, over SM_SHARES,
// how many fair shares one SM can pull alone. A split adds its partial (64 x mt floats: mt / 32 of
// a k-tile of B, written and read) and SPLIT_KTILES for the count and the last block's reads. The
// cheapest wins; a tie goes to fewer splits (fewer partials, less L2).
constexpr double SM_SHARES = 2.0;
constexpr double SPLIT_KTILES = 1.0;
inline int choose_splits(long long tiles, int KT, int mt, int sms) {
    int best = 1;
    double best_cost = 0.0;
    const double dram = double(tiles) * KT / sms;
    for (int s = 1; s <= std::min(MAX_SPLITS, KT); ++s) {
        if (s > 1 && KT / s < MIN_KTILES) break;
        const long long per_sm = (tiles * s + sms - 1) / sms;  // blocks on the busiest SM
        const double depth = double((KT + s - 1) / s) + (s > 1 ? mt / 32.0 + SPLIT_KTILES : 0.0);
        const double cost = std::max(dram, double(per_sm) * depth / SM_SHARES);
        if (s == 1 || cost < best_cost) best = s, best_cost = cost;
    }
    return best;
}

// The partials and the counters of the split tiles: one workspace per (device, stream), grown,
// never freed (never an allocation in a call that ran before with as many tiles). Counters are
// zeroed once; the last split of a tile puts its counter back to 0. Calls on one stream run one
// after the other; calls on two streams have two workspaces; the mutex covers host threads.
struct Workspace {
    float4* partials = nullptr;
    unsigned* arrived = nullptr;
    std::size_t partial_bytes = 0, counters = 0;
};
inline Workspace workspace_for(std::size_t partial_bytes, std::size_t counters,
                               cudaStream_t stream) {
    static std::mutex mutex;
    static std::map<std::pair<int, cudaStream_t>, Workspace> all;
    int dev = 0;
    GEMM_CUDA_CHECK(cudaGetDevice(&dev));
    const std::lock_guard<std::mutex> lock(mutex);
    Workspace& w = all[{dev, stream}];
    if (partial_bytes > w.partial_bytes) {
        // The old buffer may still be read by this stream's previous kernel: freed after it.
        if (w.partials) GEMM_CUDA_CHECK(cudaFreeAsync(w.partials, stream));
        GEMM_CUDA_CHECK(cudaMallocAsync(&w.partials, partial_bytes, stream));
        w.partial_bytes = partial_bytes;
    }
    if (counters > w.counters) {
        if (w.arrived) GEMM_CUDA_CHECK(cudaFreeAsync(w.arrived, stream));
        GEMM_CUDA_CHECK(cudaMallocAsync(&w.arrived, counters * sizeof(unsigned), stream));
        GEMM_CUDA_CHECK(cudaMemsetAsync(w.arrived, 0, counters * sizeof(unsigned), stream));
        w.counters = counters;
    }
    return w;
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

// One configuration, `splits` blocks per tile (0: choose_splits).
template <class Cfg>
inline void gemm_cfg(int M, int N, int K, float alpha, const __half* A, int lda, const __half* B,
                     int ldb, float beta, float* C, int ldc, int splits, cudaStream_t stream) {
    if (M == 0 || N == 0) return;                            // nothing to write
    if (K == 0) return scale_c(M, N, beta, C, ldc, stream);  // no product: C = beta * C
    auto kernel = small_m_kernel<Cfg>;
    static const bool ready = [&] {  // the shared-memory opt-in, once
        GEMM_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             Cfg::SMEM_BYTES));
        return true;
    }();
    (void)ready;
    const int tiles_m = (M + Cfg::MT - 1) / Cfg::MT, tiles_n = (N + BN - 1) / BN;
    const int tiles = tiles_m * tiles_n;  // M * N < 2^31 (the harness's int indexing)
    const int KT = (K + BK - 1) / BK;
    if (splits <= 0) splits = choose_splits(tiles, KT, Cfg::MT, sm_count());
    splits = std::max(1, std::min({splits, KT, MAX_SPLITS}));
    // A and B themselves, or padded copies where a row does not start on 16 bytes.
    const AlignedOperands ops(A, lda, B, ldb, M, N, K, stream);
    const CUtensorMap map_a = make_map(ops.a.p, M, K, ops.a.ld, Cfg::MT, BK);
    const CUtensorMap map_b = make_map(ops.b.p, K, N, ops.b.ld, BK, BN);
    const Workspace ws =
        splits > 1 ? workspace_for(std::size_t(tiles) * splits * Cfg::ACC * WG * sizeof(float),
                                   std::size_t(tiles), stream)
                   : Workspace{};
    kernel<<<dim3(tiles, splits), Cfg::THREADS, Cfg::SMEM_BYTES, stream>>>(
        map_a, map_b, M, N, KT, tiles_m, alpha, beta, C, ldc, ws.partials, ws.arrived);
    GEMM_CUDA_CHECK_LAUNCH();
}

// The named configurations of the README's table: a tile width and a split, fixed.
template <int MT, int SPLITS>
inline void gemm_named(int M, int N, int K, float alpha, const __half* A, int lda, const __half* B,
                       int ldb, float beta, float* C, int ldc, cudaStream_t stream = 0) {
    gemm_cfg<Config<MT>>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, SPLITS, stream);
}

inline void gemm(int M, int N, int K, float alpha, const __half* A, int lda, const __half* B,
                 int ldb, float beta, float* C, int ldc, cudaStream_t stream = 0) {
    auto run = [&](auto cfg) {
        gemm_cfg<decltype(cfg)>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, 0, stream);
    };
    switch (tile_rows(M)) {
        case 8:
            return run(Config<8>{});
        case 16:
            return run(Config<16>{});
        case 32:
            return run(Config<32>{});
        default:
            return run(Config<64>{});
    }
}

}  // namespace ch18

// Chapter 18: small M (decode batches): A and B swapped, so that M is wgmma's N. New vs chapter 16:
// C^T = B^T A^T. wgmma's 64 rows are 64 columns of C (B's (BK, 64) box, MN-major: the transpose-A
// bit) and its N is M itself, 8 to 64 wide, so one token no longer fills a 64-row tile with 63
// empty rows. A tile is (MT rows, 64 columns) of C and there are few of them, so chapter 16's
// split cuts K; with 8-row tiles the last slice of a tile (a counter per tile) adds the slices in
// the kernel, with wider ones chapter 16's reduce_splits does (measured, README).
// Napkin math: M <= 64 makes M flops per byte of B against the H200's ridge of ~200: memory-bound.
// 8 x 4096 x 4096 moves 33.6 MB of B: 8.0 us at 4.2 TB/s, the copy bandwidth. Each SM keeps 64 KB
// of B in flight (one block of 8-10 stages, or two of 6 for MT = 64).
// Preconditions: as chapter 15 (compute capability 9.0; unaligned operands are padded first).
// Builds on: 16_split_k
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
#include "device/aligned_operands.cuh"
#include "device/ch15_persistent.cuh"  // chapter 15's pipeline: Config, TileOrder, barriers, maps
#include "device/ch18_small_m.cuh"     // wgmma_swapped: m64n{8,16,32,64}k16 with A transposed
#include "device/sm90.cuh"

namespace ch18 {

using namespace sm90;
using namespace pipeline;  // Config, BK, STAGES, WG, WGMMA_M, WGMMA_K, B_BOX (chapter 15)

constexpr int STAGE_BUDGET = 96 * 1024;  // bytes of stages per block: two blocks per SM

// MT: rows of C per tile, wgmma's N (8, 16, 32 or 64); BN = 64 columns, wgmma's M, one TMA box
// of B. One producer warpgroup and one consumer: its accumulators are few (MT / 2), so no
// setmaxnreg. GROUP_M: tile rows walked together (chapter 15's TileOrder).
template <int MT_, int GROUP_M_ = 8>
struct Config {
    static constexpr int MT = MT_, BN = WGMMA_M, CLUSTER = 1, BM = MT, GROUP_M = GROUP_M_;
    static constexpr int B_PART = 1;  // one (BK, 64) box of B per stage (load_stage)
    static constexpr int THREADS = 2 * WG;
    static constexpr int ACC = MT / 2;  // fp32 accumulators per consumer thread: (64, MT) / 128
    static constexpr int A_STAGE = MT * BK, B_STAGE = BK * BN;  // halves
    static constexpr int STAGE_BYTES = (A_STAGE + B_STAGE) * int(sizeof(__half));
    static constexpr int STAGES = std::min(12, STAGE_BUDGET / STAGE_BYTES);  // k-tiles in flight
    // Blocks per SM that split-K counts on: enough to keep 64 KB of B in flight per SM, what
    // 4.2 TB/s over 132 SMs asks for ~2 us of memory latency (one block for MT <= 32, two for 64).
    static constexpr int PER_SM = STAGES * B_STAGE * int(sizeof(__half)) >= 64 * 1024 ? 1 : 2;
    static constexpr int SMEM_BYTES = STAGES * STAGE_BYTES + 1024;
    static_assert(MT == 8 || MT == 16 || MT == 32 || MT == 64, "wgmma_swapped's widths");
    static_assert(A_STAGE * int(sizeof(__half)) % 1024 == 0,
                  "every stage starts on 1024 bytes, where the swizzle pattern starts");
    static_assert(STAGES >= 4 && 2 * (SMEM_BYTES + 1024) <= 228 * 1024,
                  "two blocks per SM (1 KB reserved each), four stages at least");
};
namespace configs {      // the steps of the README's table
using m8 = Config<8>;    // M <= 8: one token to a batch of 8, m64n8k16
using m16 = Config<16>;  // m64n16k16
using m32 = Config<32>;  // m64n32k16
using m64 = Config<64>;  // m64n64k16; past 64 rows, several tile rows
}  // namespace configs

// The split: K's KT k-tiles cut into `splits` slices of nearly equal depth (the first KT % splits
// one k-tile deeper). Unit u is slice u / tiles of tile u % tiles: the units in flight together
// are one slice of neighbouring tiles, which read the same k-slices of A and B from L2. Pure
// integer arithmetic (int: no 64-bit division on the GPU), the same on the host and the device
// (the host tests in test.cu check it).
struct SplitK {
    int tiles, KT, splits;
    __host__ __device__ int units() const { return tiles * splits; }
    __host__ __device__ int tile(int u) const { return u % tiles; }
    __host__ __device__ int slice(int u) const { return u / tiles; }
    // The first k-tile of slice s (s == splits: KT).
    __host__ __device__ int k_begin(int s) const {
        int first = 0;
        // BEGIN SOLUTION: an even cut, the remainder spread over the first slices
        const int q = KT / splits, r = KT % splits;
        first = q * s + (s < r ? s : r);
        // END SOLUTION
        return first;
    }
};

// How many slices: none while the tiles fill the workers; else enough to fill them, each slice
// at least MIN_SLICE k-tiles deep (at MT = 64, a (64, 64) partial written and read again moves the
// bytes of 2 k-tiles of loads).
constexpr int MIN_SLICE = 8;
inline int choose_splits(long long tiles, int KT, int workers) {
    if (tiles >= workers) return 1;
    const long long by_workers = workers / tiles, by_depth = KT / MIN_SLICE;
    return static_cast<int>(std::max<long long>(1, std::min(by_workers, by_depth)));
}

// The accumulators of one (64 of N, MT of M) tile of C^T and their places in C: f(i, m, n) for
// each d[i] inside C. Thread (warp, lane) holds C^T rows 16 * warp + lane / 4 and + 8 and, for
// every 8 columns j, columns 8j + 2 * (lane % 4) and + 1 (chapter 12's layout): d[4j + 2h + e] is
// C(m0 + 8j + 2 * (lane % 4) + e, n0 + 16 * warp + lane / 4 + 8h).
template <int ACC, class F>
__device__ inline void for_each_transposed(int M, int N, int m0, int n0, int warp, int lane, F f) {
#pragma unroll
    for (int j = 0; j < ACC / 4; ++j)
#pragma unroll
        for (int h = 0; h < 2; ++h)
#pragma unroll
            for (int e = 0; e < 2; ++e) {
                // BEGIN SOLUTION: where accumulator (j, h, e) lies in C, transposed
                const int m = m0 + 8 * j + 2 * (lane % 4) + e;
                const int n = n0 + 16 * warp + lane / 4 + 8 * h;
                if (m < M && n < N) f(4 * j + 2 * h + e, m, n);
                // END SOLUTION
            }
}
// C = alpha * d + beta * C, C not read when beta == 0. A warp's store covers 8 consecutive columns
// of 4 rows, 32-byte pieces: C (M x N floats) is small next to B (N x K halves).
template <int ACC>
__device__ inline void store_tile_transposed(const float (&d)[ACC], float* C, int ldc, int M, int N,
                                             int m0, int n0, int warp, int lane, float alpha,
                                             float beta) {
    for_each_transposed<ACC>(M, N, m0, n0, warp, lane, [&](int i, int m, int n) {
        float* p = C + static_cast<long long>(m) * ldc + n;
        *p = beta == 0.0f ? alpha * d[i] : alpha * d[i] + beta * *p;
    });
}

// arrived: one counter per tile, 0 between calls, or nullptr: reduce_splits adds the slices.
template <class Cfg>
static __global__ void __launch_bounds__(Cfg::THREADS, 2)
    small_m_kernel(const __grid_constant__ CUtensorMap map_a,
                   const __grid_constant__ CUtensorMap map_b, const SplitK split, int M, int N,
                   float alpha, float beta, float* C, int ldc, float* partials, int ldp,
                   unsigned* arrived) {
    constexpr int STAGES = Cfg::STAGES;
    constexpr int A_STAGE = Cfg::A_STAGE, B_STAGE = Cfg::B_STAGE, ACC = Cfg::ACC;
    extern __shared__ unsigned char smem_raw[];
    unsigned char* smem = swizzle_aligned(smem_raw);
    __half* As = reinterpret_cast<__half*>(smem);  // (STAGES, MT, BK), swizzled: K-major
    __half* Bs = As + STAGES * A_STAGE;            // (STAGES, BN / 64, BK, 64), swizzled: MN-major
    __shared__ uint64_t full[STAGES];   // stage s holds its tile: A and all of B have landed
    __shared__ uint64_t empty[STAGES];  // the consumer's 4 warps are done with stage s
    __shared__ int last;                // this block holds the last slice of its tile to finish

    const int wg = threadIdx.x / WG, tid = threadIdx.x % WG;
    const TileOrder<Cfg> order = TileOrder<Cfg>::of(M, N);
    const int first = blockIdx.x;  // this block's first unit
    const int step = gridDim.x;    // then every step-th

    init_barriers<STAGES, 1>(full, empty, 4);  // every consumer warp

    if (wg == 0) {
        if (tid == 0) {
            // The producer walks the same units as the consumers; its k-tile count `it` runs on
            // across units, and with it the stages and their phases.
            int it = 0;
            for (int u = first; u < split.units(); u += step) {
                int m0, n0;
                order.origin(split.tile(u), 0, m0, n0);
                const int kb = split.k_begin(split.slice(u)),
                          ke = split.k_begin(split.slice(u) + 1);
                for (int kt = kb; kt < ke; ++kt, ++it) {
                    const int s = it % STAGES;
                    if (it >= STAGES) mbar_wait(&empty[s], (it / STAGES - 1) & 1);
                    load_stage<Cfg>(&map_a, &map_b, As, Bs, full, s, kt, m0, n0,
                                    0);  // (MT, BK) of A, (BK, 64) of B
                }
            }
        }
        __syncwarp();  // lane 0 rejoins its warp
    } else {
        const int warp = tid / 32, lane = tid % 32;
        // Stage s is free again once every consumer warp says so.
        auto release_stage = [&](int s) { release<1>(&empty[s], lane); };
        int it = 0;
        for (int u = first; u < split.units(); u += step) {
            int m0, n0;
            order.origin(split.tile(u), 0, m0, n0);
            const int slice = split.slice(u),
                      depth = split.k_begin(slice + 1) - split.k_begin(slice);
            float d[ACC];  // (64 of N, MT of M) of C^T, in wgmma's register layout
#pragma unroll
            for (int i = 0; i < ACC; ++i) d[i] = 0.0f;
            // Counted from 0, not from the slice's first k-tile: ptxas then sees the loop's first
            // wgmma and does not serialize them (warning C7515).
            for (int kt = 0; kt < depth; ++kt, ++it) {
                const int s = it % STAGES;
                mbar_wait(&full[s], (it / STAGES) & 1);  // k-tile kt has landed in stage s
                const __half* a = As + s * A_STAGE;      // (MT, BK) K-major: wgmma's B
                const __half* b = Bs + s * B_STAGE;      // (BK, 64) MN-major: wgmma's A, transposed
                wgmma_fence();  // the accumulators were written by ordinary instructions before
#pragma unroll
                for (int kk = 0; kk < BK / WGMMA_K; ++kk)
                    wgmma_swapped(d, smem_desc(b + kk * WGMMA_K * B_BOX, BK * 128, 1024),
                                  smem_desc(a + kk * WGMMA_K, 16, 1024));
                wgmma_commit();
                // One k-tile of wgmmas stays in flight: once the previous k-tile's are done, its
                // stage is released while this one's run.
                wgmma_wait<1>();
                if (kt > 0) release_stage((it + STAGES - 1) % STAGES);
            }
            wgmma_wait<0>();
            release_stage((it + STAGES - 1) %
                          STAGES);   // the unit's last stage (a slice is never empty)
            if (split.splits > 1) {  // (splits, M, ldp) fp32: slice-major, then C's layout
                float* P = partials + static_cast<std::size_t>(slice) * M * ldp;
                store_tile_transposed(d, P, ldp, M, N, m0, n0, warp, lane, 1.0f, 0.0f);
                if (!arrived) continue;  // reduce_splits adds the slices after this kernel
                // BEGIN SOLUTION: count this slice in; the tile's last slice adds them all
                __threadfence();    // this thread's partial is visible GPU-wide before it counts
                named_sync(1, WG);  // every thread of the warpgroup has stored and fenced
                if (tid == 0) {
                    const int t = split.tile(u);
                    last = atomicAdd(arrived + t, 1u) == unsigned(split.splits - 1);
                    if (last) arrived[t] = 0;  // the next call on this stream starts from 0
                    __threadfence();  // the others' partials, counted before this, read after
                }
                named_sync(1, WG);  // `last` is written
                if (!last) continue;
                // The slices in order, as reduce_splits adds them (the same bits whichever slice
                // finished last); each thread its own ACC elements, all loads of a slice in flight
                // at once (ld.global.cg: from L2, never a stale L1 line).
                float sum[ACC] = {};
                for (int sl = 0; sl < split.splits; ++sl)
                    for_each_transposed<ACC>(M, N, m0, n0, warp, lane, [&](int i, int m, int n) {
                        sum[i] +=
                            sl == slice
                                ? d[i]
                                : __ldcg(partials + static_cast<std::size_t>(sl * M + m) * ldp + n);
                    });
#pragma unroll
                for (int i = 0; i < ACC; ++i) d[i] = sum[i];
                // END SOLUTION
            }
            // The epilogue, C^T stored transposed; meanwhile the producer loads the next unit.
            store_tile_transposed(d, C, ldc, M, N, m0, n0, warp, lane, alpha, beta);
        }
    }
}

// The reduction: C = alpha * (the sum of the slices' partials) + beta * C, C not read when beta
// == 0. One thread per 4 columns of a row: (M, ldp / 4) float4s of each slice, read once from L2
// (ld.global.cg: written by the other kernel, never cached in this SM's L1).
static __global__ void __launch_bounds__(256)
    reduce_splits(const float* partials, int ldp, int splits, int M, int N, float alpha, float beta,
                  float* C, int ldc) {
    const int quads = ldp / 4, q = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    if (q >= M * quads) return;  // M * ldp < 2^31: a split product fits in one wave of tiles
    const int row = q / quads, col = 4 * (q % quads);
    const std::size_t slice = static_cast<std::size_t>(M) * ldp;  // floats per slice
    const float* p = partials + static_cast<std::size_t>(row) * ldp + col;
    float4 sum = __ldcg(reinterpret_cast<const float4*>(p));
    for (int s = 1; s < splits; ++s) {
        const float4 v = __ldcg(reinterpret_cast<const float4*>(p + s * slice));
        sum.x += v.x, sum.y += v.y, sum.z += v.z, sum.w += v.w;
    }
    const float v[4] = {sum.x, sum.y, sum.z, sum.w};
    float* c = C + static_cast<long long>(row) * ldc + col;
    for (int e = 0; e < 4 && col + e < N; ++e)
        c[e] = beta == 0.0f ? alpha * v[e] : alpha * v[e] + beta * c[e];
}

// The partials' workspace and the counters, one of each per (device, stream), allocated on first
// use and grown, never freed (no allocation in a timed call), zeroed when allocated: a counter
// starts at 0 and the last slice of its tile puts it back. Calls on one stream run one after the
// other (the reduction included); calls on two streams use two workspaces; the mutex covers
// several host threads.
template <class T>
inline T* workspace_for(std::size_t bytes, cudaStream_t stream) {
    static std::mutex mutex;
    static std::map<std::pair<int, cudaStream_t>, std::pair<T*, std::size_t>> all;
    int dev = 0;
    GEMM_CUDA_CHECK(cudaGetDevice(&dev));
    const std::lock_guard<std::mutex> lock(mutex);
    std::pair<T*, std::size_t>& w = all[{dev, stream}];
    if (bytes > w.second) {
        // The old buffer may still be in use by this stream's previous kernel: freed after it.
        if (w.first) GEMM_CUDA_CHECK(cudaFreeAsync(w.first, stream));
        GEMM_CUDA_CHECK(cudaMallocAsync(&w.first, bytes, stream));
        GEMM_CUDA_CHECK(cudaMemsetAsync(w.first, 0, bytes, stream));
        w.second = bytes;
    }
    return w.first;
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

// SPLITS: 0 chooses (choose_splits), else that many slices. IN_KERNEL: the tile's last slice adds
// the slices in this kernel; else chapter 16's second kernel, reduce_splits, does. Measured on the
// H200 (README): in the kernel wins with 8-row tiles (5-7% at 1 and 8 x 4096^2, where a launch is
// a large share of 18 us) and loses with wider ones (2x at 64 x 4096^2), hence the default.
template <class Cfg, int SPLITS = 0, bool IN_KERNEL = Cfg::MT == 8>
inline void gemm_cfg(int M, int N, int K, float alpha, const __half* A, int lda, const __half* B,
                     int ldb, float beta, float* C, int ldc, cudaStream_t stream = 0) {
    if (M == 0 || N == 0) return;                            // nothing to write
    if (K == 0) return scale_c(M, N, beta, C, ldc, stream);  // no product: C = beta * C
    auto kernel = small_m_kernel<Cfg>;
    // Looked up once: the shared-memory opt-in, and how many blocks fit on the GPU at once.
    static const int resident = [&] {
        GEMM_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             Cfg::SMEM_BYTES));
        int n = 0;
        GEMM_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kernel, Cfg::THREADS,
                                                                      Cfg::SMEM_BYTES));
        return n * sm_count();
    }();
    // A and B themselves, or padded copies where a row does not start on 16 bytes.
    const AlignedOperands ops(A, lda, B, ldb, M, N, K, stream);
    const CUtensorMap map_a = make_map(ops.a.p, M, K, ops.a.ld, Cfg::BM, BK);
    const CUtensorMap map_b = make_map(ops.b.p, K, N, ops.b.ld, BK, B_BOX);
    const int tiles = ((M + Cfg::BM - 1) / Cfg::BM) * ((N + Cfg::BN - 1) / Cfg::BN);
    const int KT = (K + BK - 1) / BK;
    const int splits = SPLITS > 0 ? SPLITS : choose_splits(tiles, KT, sm_count() * Cfg::PER_SM);
    const SplitK split{tiles, KT, std::min(splits, KT)};
    // The partials: (splits, M, ldp) floats, rows padded to 16 bytes for the reduction's float4s.
    const int ldp = (N + 3) / 4 * 4;
    float* partials =
        split.splits > 1
            ? workspace_for<float>(std::size_t(split.splits) * M * ldp * sizeof(float), stream)
            : nullptr;
    unsigned* arrived = split.splits > 1 && IN_KERNEL
                            ? workspace_for<unsigned>(std::size_t(tiles) * sizeof(unsigned), stream)
                            : nullptr;
    const int blocks = std::min(split.units(), resident);
    kernel<<<blocks, Cfg::THREADS, Cfg::SMEM_BYTES, stream>>>(map_a, map_b, split, M, N, alpha,
                                                              beta, C, ldc, partials, ldp, arrived);
    GEMM_CUDA_CHECK_LAUNCH();
    if (split.splits == 1 || IN_KERNEL) return;  // C written by the kernel
    // Every slice is written: the reduction runs after the kernel, on the same stream.
    const int quads = M * (ldp / 4);
    reduce_splits<<<(quads + 255) / 256, 256, 0, stream>>>(partials, ldp, split.splits, M, N, alpha,
                                                           beta, C, ldc);
    GEMM_CUDA_CHECK_LAUNCH();
}

// The narrowest wgmma N that holds M rows; past 64, several tile rows of 64.
inline void gemm(int M, int N, int K, float alpha, const __half* A, int lda, const __half* B,
                 int ldb, float beta, float* C, int ldc, cudaStream_t stream = 0) {
    auto run = [&](auto cfg) {
        gemm_cfg<decltype(cfg)>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, stream);
    };
    if (M <= 8) return run(configs::m8{});
    if (M <= 16) return run(configs::m16{});
    if (M <= 32) return run(configs::m32{});
    run(configs::m64{});
}

}  // namespace ch18

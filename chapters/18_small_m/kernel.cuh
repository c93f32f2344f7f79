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

#include "cuda_check.cuh"
#include "device/ch15_persistent.cuh"  // chapter 15's pipeline: Config, TileOrder, barriers, maps
#include "device/ch16_split_k.cuh"     // SplitK, choose_splits, reduce_splits
#include "device/ch18_small_m.cuh"     // wgmma_swapped: m64n{8,16,32,64}k16 with A transposed
#include "device/launch_resources.cuh"
#include "device/sm90.cuh"

namespace ch18 {

using namespace sm90;
using namespace pipeline;  // Config, BK, STAGES, WG, WGMMA_M, WGMMA_K, B_BOX (chapter 15)
using namespace split_k;   // SplitK, MIN_SLICE, choose_splits, reduce_splits (chapter 16)
using namespace launch;    // workspace_for: a scratch buffer per stream (common/device)

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
    static constexpr bool STORE_TMA = false;  // C from registers, transposed (TensorMaps: no map_c)
    static constexpr int C_BOX = 32;
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

// EXPERIMENT (issue 39, item 2): B read in place by the producer warpgroup's threads, for a B whose
// rows do not start on 16 bytes (TMA cannot describe it: every global stride a multiple of 16).
// The 16 bytes at byte `off` (even, 0..14) of the 32 bytes lo, hi: whole words picked by off / 4,
// then a funnel shift by the 2 bytes left over.
__device__ inline uint4 realign16(uint4 lo, uint4 hi, int off) {
    const uint32_t w[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
    const int q = off >> 2;
    const unsigned shift = (off & 3) * 8;
    uint32_t v[5];
#pragma unroll
    for (int j = 0; j < 5; ++j) v[j] = q == 0 ? w[j] : q == 1 ? w[j + 1] : q == 2 ? w[j + 2] : w[j + 3];
    return make_uint4(__funnelshift_r(v[0], v[1], shift), __funnelshift_r(v[1], v[2], shift),
                      __funnelshift_r(v[2], v[3], shift), __funnelshift_r(v[3], v[4], shift));
}
// k-tile (k0, n0)'s (BK, 64) box of B into dst as TMA's 128-byte swizzle lays it out: 512 chunks of
// 8 halves, thread t of the warpgroup those numbered t, t + 128, t + 256, t + 384 (a warp: four
// k-rows). A chunk inside B's extent comes from the two aligned 16-byte blocks around it; one at
// an edge (past N, past K, at B's first or last bytes) element by element, zeros outside B.
__device__ inline void load_b_box(__half* dst, const __half* B, int ldb, int K, int N, int k0,
                                  int n0, int tid) {
    const long long extent = (static_cast<long long>(K - 1) * ldb + N) * 2;  // B's bytes
    const unsigned char* base = reinterpret_cast<const unsigned char*>(B);
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        const int c = tid + WG * i, r = c / 8, q = c % 8;
        const int k = k0 + r, n = n0 + 8 * q;
        uint4 v = make_uint4(0, 0, 0, 0);
        if (k < K && n < N) {
            const long long at = (static_cast<long long>(k) * ldb + n) * 2;  // bytes from B
            const int off = int(reinterpret_cast<std::uintptr_t>(base + at) & 15);
            if (n + 8 <= N && at - off >= 0 && at - off + 32 <= extent) {
                const uint4* p = reinterpret_cast<const uint4*>(base + at - off);
                v = realign16(__ldg(p), __ldg(p + 1), off);
            } else {
                __align__(16) __half h[8];
#pragma unroll
                for (int e = 0; e < 8; ++e)
                    h[e] = n + e < N ? B[static_cast<long long>(k) * ldb + n + e] : __half(0.0f);
                v = *reinterpret_cast<const uint4*>(h);
            }
        }
        *reinterpret_cast<uint4*>(reinterpret_cast<unsigned char*>(dst) + r * 128 +
                                  ((q ^ (r % 8)) * 16)) = v;
    }
}
// Asks L2 for k-tile (k0, n0)'s box of B ahead of its loads: the two 128-byte lines a row may
// touch, one thread each.
__device__ inline void prefetch_b_box(const __half* B, int ldb, int K, int N, int k0, int n0,
                                      int tid) {
    const int k = k0 + tid / 2, n = tid % 2 ? min(n0 + 63, N - 1) : n0;
    if (k < K && n < N)
        asm volatile("prefetch.global.L2 [%0];" ::"l"(B + static_cast<long long>(k) * ldb + n));
}

// arrived: one counter per tile, 0 between calls, or nullptr: reduce_splits adds the slices.
// B_LOADS (EXPERIMENT): B read in place by the producer warpgroup (B, ldb, K), not by TMA.
template <class Cfg, bool B_LOADS = false>
static __global__ void __launch_bounds__(Cfg::THREADS, 2)
    small_m_kernel(const __grid_constant__ CUtensorMap map_a,
                   const __grid_constant__ CUtensorMap map_b, const SplitK split, int M, int N,
                   float alpha, float beta, float* C, int ldc, float* partials, int ldp,
                   unsigned* arrived, const __half* B = nullptr, int ldb = 0, int K = 0) {
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

    if constexpr (B_LOADS) {  // full: thread 0's arrive with A's bytes, and each producer warp's
        if (threadIdx.x == 0) {
            for (int s = 0; s < STAGES; ++s) {
                mbar_init(&full[s], 1 + 4);
                mbar_init(&empty[s], 4);
            }
            fence_barrier_init();
        }
        __syncthreads();
    } else {
        init_barriers<STAGES, 1>(full, empty, 4);  // every consumer warp
    }

    if (B_LOADS && wg == 0) {
        // Every producer thread walks the units; thread 0 copies A by TMA, all 128 load B.
        constexpr int AHEAD = STAGES;  // k-tiles between a box's L2 prefetch and its loads
        int it = 0;
        for (int u = first; u < split.units(); u += step) {
            int m0, n0;
            order.origin(split.tile(u), 0, m0, n0);
            const int kb = split.k_begin(split.slice(u)), ke = split.k_begin(split.slice(u) + 1);
            for (int kt = kb; kt < kb + AHEAD && kt < ke; ++kt)
                prefetch_b_box(B, ldb, K, N, kt * BK, n0, tid);
            for (int kt = kb; kt < ke; ++kt, ++it) {
                const int s = it % STAGES;
                if (kt + AHEAD < ke) prefetch_b_box(B, ldb, K, N, (kt + AHEAD) * BK, n0, tid);
                if (it >= STAGES) mbar_wait(&empty[s], (it / STAGES - 1) & 1);
                if (tid == 0) {
                    mbar_arrive_expect_tx(&full[s], A_STAGE * int(sizeof(__half)));
                    tma_load(As + s * A_STAGE, &map_a, kt * BK, m0, &full[s]);
                }
                load_b_box(Bs + s * B_STAGE, B, ldb, K, N, kt * BK, n0, tid);
                fence_proxy_async();  // this thread's stores, before wgmma (the async proxy) reads
                __syncwarp();
                if (tid % 32 == 0) mbar_arrive(&full[s]);
            }
        }
    } else if (wg == 0) {
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
                    load_stage<Cfg>(&map_a, &map_b, As, Bs, full, s, kt, m0, n0, 0);
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
            // Counted from 0, not from the unit's first k-tile: ptxas then sees the loop's first
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
            // The unit's last stage (a unit is never empty).
            release_stage((it + STAGES - 1) % STAGES);
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

// SPLITS: 0 chooses (choose_splits), else that many slices. IN_KERNEL: the tile's last slice adds
// the slices in this kernel; else chapter 16's second kernel, reduce_splits, does. Measured on the
// H200 (README): in the kernel wins with 8-row tiles (5-7% at 1 and 8 x 4096^2, where a launch is
// a large share of 18 us) and loses with wider ones (2x at 64 x 4096^2), hence the default.
// B_MODE (EXPERIMENT): 0 a B with rows off 16 bytes is copied first (AlignedOperands); 1 such a B
// is read in place by the producer's threads; 2 every B is.
template <class Cfg, int SPLITS = 0, bool IN_KERNEL = Cfg::MT == 8, int B_MODE = 0>
inline void gemm_cfg(int M, int N, int K, float alpha, const __half* A, int lda, const __half* B,
                     int ldb, float beta, float* C, int ldc, cudaStream_t stream = 0) {
    if (M == 0 || N == 0) return;                            // nothing to write
    if (K == 0) return scale_c(M, N, beta, C, ldc, stream);  // no product: C = beta * C
    const bool b_loads = B_MODE == 2 || (B_MODE == 1 && !rows_aligned16(B, ldb));
    auto kernel = b_loads ? small_m_kernel<Cfg, true> : small_m_kernel<Cfg, false>;
    // Looked up once: the shared-memory opt-in, and how many blocks fit on the GPU at once.
    static const int resident = resident_blocks(small_m_kernel<Cfg, false>, Cfg::THREADS, Cfg::SMEM_BYTES);
    static const int resident_loads =
        B_MODE ? resident_blocks(small_m_kernel<Cfg, true>, Cfg::THREADS, Cfg::SMEM_BYTES) : 0;
    // With B read in place only A may be copied and has a tensor map (N = 0: B is not looked at).
    const AlignedOperands ops(A, lda, B, ldb, M, b_loads ? 0 : N, K, stream);
    const CUtensorMap map_a = make_map(ops.a.p, M, K, ops.a.ld, Cfg::BM, BK);
    const CUtensorMap map_b = b_loads ? map_a : make_map(ops.b.p, K, N, ops.b.ld, BK, B_BOX);
    const int tiles = tile_count<Cfg>(M, N);
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
    const int blocks = std::min(split.units(), b_loads ? resident_loads : resident);
    kernel<<<blocks, Cfg::THREADS, Cfg::SMEM_BYTES, stream>>>(
        map_a, map_b, split, M, N, alpha, beta, C, ldc, partials, ldp, arrived, B, ldb, K);
    GEMM_CUDA_CHECK_LAUNCH();
    if (split.splits == 1 || IN_KERNEL) return;  // C written by the kernel
    // Every partial is written: the reduction runs after the kernel, on the same stream.
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

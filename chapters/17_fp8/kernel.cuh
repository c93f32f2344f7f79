// Chapter 17: FP8. e4m3 operands through the warp-specialized pipeline, at twice the fp16 rate.
// Contract: C (M x N, bf16) = alpha * (sa A) (sb B)^T + beta * C. A is M x K, B is N x K: both
// K-major, the only layout FP8 wgmma reads, and a linear layer's weight layout. sa, sb: one float
// each (configs::per_tensor), or one per 1 x 128 block of A and 128 x 128 block of B (per_block).
// New vs chapter 12's pipeline: one byte per element, so BK = 128 is the 128-byte swizzle row and
// one wgmma m64nNk32 covers 32 of K; B is copied N x K like A; the scales: per tensor in the
// epilogue, per block in the main loop, each k-tile's partial product scaled as it joins fp32
// accumulators, which also "promotes" the tensor cores' ~14-bit sums every PROMOTE k-tiles.
// Napkin math (per_tensor, 4096^3): 137 GFLOP at ~1.3-1.9 PFLOP/s is 70-100 us; L2 -> SM bytes
// 2 M N K (1/BM + 1/BN) = 0.8 GB, the same as chapter 12's halves at half the bytes per element.
// Preconditions: compute capability 9.0 (sm_90a). TMA needs 16-byte aligned A, B and lda, ldb
// multiples of 16: otherwise the operand is first copied into an aligned, padded scratch buffer.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "cuda_check.cuh"
#include "device/sm90.cuh"      // mbarriers, TMA, descriptors, setmaxnreg (chapter 12)
#include "device/sm90_fp8.cuh"  // the e4m3 wgmma shapes (this chapter)
#include "device/wgmma_epilogue.cuh"  // store_tile: C = alpha * d + beta * C, here in bf16

namespace ch17 {

using namespace sm90;

constexpr int BM = 128, BK = 128;  // BK bytes of e4m3 = one 128-byte swizzle row
constexpr int CONSUMERS = 2, WG = 128, THREADS = WG * (1 + CONSUMERS);
constexpr int WGMMA_M = 64, WGMMA_K = 32;
constexpr int GROUP_M = 8;        // block rows walked together, for L2 reuse
constexpr int SCALE_BLOCK = 128;  // the per-block scales' granularity along K, M and N
constexpr int A_STAGE = BM * BK;  // bytes of A per stage: (BM, BK)
static_assert(BK == SCALE_BLOCK, "a k-tile is one block of scales: it is scaled as a whole");

// BN: block tile width (256: one m64n256 wgmma per 32 of K; 128: m64n128). BLOCK_SCALES: 1 x 128
// and 128 x 128 scales, applied per k-tile in the main loop (else one per tensor, in the
// epilogue). PROMOTE: k-tiles accumulated by the tensor cores into a second register set before
// it is added to the fp32 accumulators (0: never; the wgmmas accumulate into them directly).
// PERSISTENT: one block per SM walks the tiles (chapter 15), so the producer loads the next tile
// while the consumers store this one. CLUSTER: blocks stacked along M sharing B, each copying
// 1 / CLUSTER of it with TMA multicast (chapter 15). IN_FLIGHT 1: without promotion, one k-tile
// of wgmmas stays in flight (wait_group 1, chapter 15); with PROMOTE == 1, each k-tile's partial
// sums are promoted while the next k-tile's wgmmas run, in a second register set (0: neither).
template <int BN_, bool BLOCK_SCALES_, int PROMOTE_, bool PERSISTENT_ = false, int CLUSTER_ = 1,
          int IN_FLIGHT_ = 0>
struct Config {
    static constexpr int BN = BN_, PROMOTE = PROMOTE_, CLUSTER = CLUSTER_, IN_FLIGHT = IN_FLIGHT_;
    static constexpr bool BLOCK_SCALES = BLOCK_SCALES_, TWO_LEVEL = PROMOTE_ > 0;
    static constexpr bool PERSISTENT = PERSISTENT_;
    static constexpr int ACC = BN / 2;  // fp32 accumulators per consumer thread: (64, BN) / 128
    static constexpr int B_STAGE = BN * BK;      // bytes of B per stage: (BN, BK)
    static constexpr int B_PART = BN / CLUSTER;  // rows of B each block of a cluster copies
    static constexpr int STAGE_BYTES = A_STAGE + B_STAGE;
    static constexpr int STAGES = BN == 256 ? 4 : 6;                // 192 KB either way
    static constexpr int SMEM_BYTES = STAGES * STAGE_BYTES + 1024;  // + slack for 1024 alignment
    static_assert(BN == 128 || BN == 256, "the two wgmma widths this chapter wraps");
    static_assert(!BLOCK_SCALES || PROMOTE == 1,
                  "block scales change every k-tile: each k-tile's product is scaled on its own");
    static_assert(!TWO_LEVEL || BN == 128,
                  "two sets of (64, 256) accumulators would take 256 registers a thread (max 232)");
    static_assert(CLUSTER == 1 || CLUSTER == 2, "one block, or a pair sharing B");
    static_assert(IN_FLIGHT == 0 || IN_FLIGHT == 1, "all done, or one k-tile left running");
    static_assert(IN_FLIGHT == 0 || PROMOTE <= 1,
                  "in flight, a k-tile's partial sums are promoted as soon as the next one runs");
};
namespace configs {                             // the steps of the README's table
using per_tensor = Config<256, false, 0>;       // 1: scales in the epilogue (the chapter)
using per_block = Config<128, true, 1>;         // 2: 1x128 / 128x128 scales in the main loop
using per_tensor_n128 = Config<128, false, 0>;  // 3: the 128-wide tile, never promoted ...
using promote1 = Config<128, false, 1>;         //    ... promoted every k-tile (128 of K)
using promote4 = Config<128, false, 4>;         //    ... every 4 k-tiles (512 of K)
// Chapter 15's schedule on FP8 (tuning candidates, measured against the steps above):
using per_tensor_wait1 = Config<256, false, 0, false, 1, 1>;      // one k-tile of wgmmas in flight
using per_tensor_persistent = Config<256, false, 0, true, 1, 1>;  // + persistent
using per_tensor_persistent_cluster2 = Config<256, false, 0, true, 2, 1>;  // + B multicast
// Each k-tile's promotion runs beside the next k-tile's wgmmas (two sets of partial sums).
using per_block_overlap = Config<128, true, 1, false, 1, 1>;
using per_block_persistent = Config<128, true, 1, true, 1, 0>;  // per_block, persistent
}  // namespace configs

inline bool rows_aligned16(const void* p, int ld) {  // ld in bytes: one byte per element
    return reinterpret_cast<std::uintptr_t>(p) % 16 == 0 && ld % 16 == 0;
}

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define CH17_SM90A 1
#endif

template <int ACC>
__device__ inline void wgmma_e4m3(float (&d)[ACC], uint64_t desc_a, uint64_t desc_b, int scale_d) {
    if constexpr (ACC == 128)
        wgmma_m64n256k32_e4m3(d, desc_a, desc_b, scale_d);
    else
        wgmma_m64n128k32_e4m3(d, desc_a, desc_b, scale_d);
}

// ---- the kernel ---------------------------------------------------------------------------------

// The grouped order (GROUP_M cluster rows at a time, column by column, for L2 reuse): the first
// row and column of C that block `rank` of its cluster computes in cluster tile t.
template <class Cfg>
__device__ inline void tile_origin(int t, int tiles_m, int tiles_n, unsigned rank, int& m0,
                                   int& n0) {
    const int group = t / (GROUP_M * tiles_n), in_group = t % (GROUP_M * tiles_n);
    const int group_rows = min(tiles_m - group * GROUP_M, GROUP_M);
    m0 = ((group * GROUP_M + in_group % group_rows) * Cfg::CLUSTER + int(rank)) * BM;
    n0 = (in_group / group_rows) * Cfg::BN;
}

template <class Cfg>
static __global__ void __launch_bounds__(THREADS, 1)
    fp8_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
               int M, int N, int K, float alpha, const float* scale_a, const float* scale_b,
               float beta, __nv_bfloat16* C, int ldc, bool vec_c) {
#ifdef CH17_SM90A
    constexpr int BN = Cfg::BN, ACC = Cfg::ACC, STAGES = Cfg::STAGES, CLUSTER = Cfg::CLUSTER;
    extern __shared__ unsigned char smem_raw[];
    // 128-byte swizzled tiles start on a 1024-byte boundary (the pattern repeats every 8 rows).
    unsigned char* smem = reinterpret_cast<unsigned char*>(
        (reinterpret_cast<std::uintptr_t>(smem_raw) + 1023) & ~std::uintptr_t(1023));
    unsigned char* As = smem;                   // (STAGES, BM, BK) e4m3, swizzled
    unsigned char* Bs = As + STAGES * A_STAGE;  // (STAGES, BN, BK) e4m3, swizzled
    __shared__ uint64_t full[STAGES];   // stage s holds its tile: A and all of B have landed
    __shared__ uint64_t empty[STAGES];  // every consumer of the cluster is done with stage s

    const int wg = threadIdx.x / WG, tid = threadIdx.x % WG;  // warpgroup 0 produces, 1.. consume
    const unsigned rank = CLUSTER > 1 ? cluster_rank() : 0;   // this block's place in its cluster
    const int tiles_m = (M + CLUSTER * BM - 1) / (CLUSTER * BM), tiles_n = (N + BN - 1) / BN;
    const int tiles = tiles_m * tiles_n;                             // cluster tiles
    const int first = blockIdx.x / CLUSTER;                          // this cluster's first tile
    const int step = Cfg::PERSISTENT ? gridDim.x / CLUSTER : tiles;  // then every step-th
    const int KT = (K + BK - 1) / BK;                                // k-tiles

    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; ++s) {
            mbar_init(&full[s], 1);  // the producer's arrive (+ the TMA bytes)
            mbar_init(&empty[s], CONSUMERS * 4 * CLUSTER);  // every consumer warp of the cluster
        }
        fence_barrier_init();  // the copy engine and the cluster's other block see them
    }
    // The barriers (of every block of the cluster) exist before anyone copies into or waits on
    // them.
    if constexpr (CLUSTER > 1)
        cluster_sync();
    else
        __syncthreads();

    if (wg == 0) {
        setmaxnreg_dec<40>();  // the producer needs few registers: give them to the consumers
        if (tid == 0) {
            // The k-tile count `it` runs on across tiles, and with it the stages and phases.
            int it = 0;
            for (int t = first; t < tiles; t += step) {
                int m0, n0;
                tile_origin<Cfg>(t, tiles_m, tiles_n, rank, m0, n0);
                for (int kt = 0; kt < KT; ++kt, ++it) {
                    const int s = it % STAGES;
                    // The stage's previous tile (it - STAGES) must have been consumed (by the
                    // whole cluster: this block's B rows land in its partner's stage too).
                    if (it >= STAGES) mbar_wait(&empty[s], (it / STAGES - 1) & 1);
                    mbar_arrive_expect_tx(&full[s], Cfg::STAGE_BYTES);  // whole boxes: zeros count
                    tma_load(As + s * A_STAGE, &map_a, kt * BK, m0, &full[s]);  // (BM, BK) of A
                    // (BN / CLUSTER, BK) of B: this block's share, multicast to the cluster.
                    unsigned char* b = Bs + s * Cfg::B_STAGE + int(rank) * Cfg::B_PART * BK;
                    const int nb = n0 + int(rank) * Cfg::B_PART;
                    if constexpr (CLUSTER > 1)
                        tma_load_multicast(b, &map_b, kt * BK, nb, &full[s],
                                           uint16_t((1u << CLUSTER) - 1));
                    else
                        tma_load(b, &map_b, kt * BK, nb, &full[s]);
                }
            }
        }
        __syncwarp();  // lane 0 rejoins its warp before the cluster barrier at the end
    } else {
        setmaxnreg_inc<232>();
        const int row0 = (wg - 1) * WGMMA_M;  // this warpgroup's first row in the block tile
        const int warp = tid / 32, lane = tid % 32;
        const int ld_sb = (KT + 3) / 4 * 4;  // scale_b's row: K-blocks, padded to 4
        // Stage s may be refilled once every consumer warp of the cluster is done with it.
        auto release = [&](int s) {
            if (lane != 0) return;
            if constexpr (CLUSTER > 1) {
#pragma unroll
                for (int c = 0; c < CLUSTER; ++c) mbar_arrive_cluster(&empty[s], c);
            } else {
                mbar_arrive(&empty[s]);
            }
        };
        int it = 0;
        for (int t = first; t < tiles; t += step) {
            int m0, n0;
            tile_origin<Cfg>(t, tiles_m, tiles_n, rank, m0, n0);
            const int r = m0 + row0 + 16 * warp + lane / 4;  // this thread's rows: r and r + 8
            float acc[ACC];  // (64, BN) of C in fp32: this warpgroup's rows, in wgmma's layout
#pragma unroll
            for (int i = 0; i < ACC; ++i) acc[i] = 0.0f;

            if constexpr (Cfg::IN_FLIGHT == 0) {
                float part[Cfg::TWO_LEVEL ? ACC : 1];  // the tensor cores' sums between promotions
                (void)part;  // (unused when the wgmmas accumulate into acc)
                for (int kt = 0; kt < KT; ++kt, ++it) {
                    const int s = it % STAGES;
                    // Block scales of this k-tile, loaded before the wait: the loads overlap it.
                    float sa0 = 1.0f, sa1 = 1.0f, sb = 1.0f;
                    if constexpr (Cfg::BLOCK_SCALES) {
                        sa0 = r < M ? __ldg(scale_a + static_cast<long long>(kt) * M + r) : 0.0f;
                        sa1 = r + 8 < M ? __ldg(scale_a + static_cast<long long>(kt) * M + r + 8)
                                        : 0.0f;
                        sb = __ldg(scale_b + (n0 / SCALE_BLOCK) * ld_sb + kt);
                    }
                    mbar_wait(&full[s], (it / STAGES) & 1);  // tile kt has landed in stage s
                    const unsigned char* a = As + s * A_STAGE + row0 * BK;  // (64, BK) K-major
                    const unsigned char* b = Bs + s * Cfg::B_STAGE;         // (BN, BK) K-major
                    wgmma_fence();  // the accumulators were written by ordinary instructions before
                    // BEGIN SOLUTION: four wgmmas over the stage's 128-deep tile, into acc or part
#pragma unroll
                    for (int kk = 0; kk < BK / WGMMA_K; ++kk) {
                        // A and B alike: rows of 128 bytes, 8-row groups 1024 bytes apart (SBO); a
                        // 32-deep step is 32 bytes further along the (swizzled) row.
                        const uint64_t da = smem_desc(a + kk * WGMMA_K, 16, 1024);
                        const uint64_t db = smem_desc(b + kk * WGMMA_K, 16, 1024);
                        // The first step after a promotion starts afresh.
                        if constexpr (Cfg::TWO_LEVEL)
                            wgmma_e4m3<ACC>(part, da, db, kk > 0 || kt % Cfg::PROMOTE != 0);
                        else
                            wgmma_e4m3<ACC>(acc, da, db, 1);
                    }
                    // END SOLUTION
                    wgmma_commit();
                    wgmma_wait<0>();  // this tile's wgmmas are done with stage s: refill it
                    release(s);
                    if constexpr (Cfg::TWO_LEVEL) {
                        if ((kt + 1) % Cfg::PROMOTE == 0 || kt + 1 == KT) {
                            // Promotion: the partial sums join the fp32 accumulators (with their
                            // scales, multiplied once per row: one FMA per accumulator).
                            const float s0 = sa0 * sb, s1 = sa1 * sb;
#pragma unroll
                            for (int i = 0; i < ACC; ++i) {
                                fence_operand(part[i]);  // read only after the wait above
                                acc[i] = fmaf(part[i], i % 4 < 2 ? s0 : s1, acc[i]);
                            }
                        }
                    }
                }
            } else if constexpr (!Cfg::TWO_LEVEL) {
                // One k-tile of wgmmas stays in flight (chapter 15): once the previous k-tile's
                // are done, its stage is released while this one's run.
                for (int kt = 0; kt < KT; ++kt, ++it) {
                    const int s = it % STAGES;
                    mbar_wait(&full[s], (it / STAGES) & 1);  // tile kt has landed in stage s
                    const unsigned char* a = As + s * A_STAGE + row0 * BK;  // (64, BK) K-major
                    const unsigned char* b = Bs + s * Cfg::B_STAGE;         // (BN, BK) K-major
                    wgmma_fence();  // the accumulators were written by ordinary instructions before

                    // BEGIN SOLUTION: the stage's four wgmmas, into acc
#pragma unroll
                    for (int kk = 0; kk < BK / WGMMA_K; ++kk)
                        wgmma_e4m3<ACC>(acc, smem_desc(a + kk * WGMMA_K, 16, 1024),
                                        smem_desc(b + kk * WGMMA_K, 16, 1024), 1);
                    // END SOLUTION
                    wgmma_commit();
                    wgmma_wait<1>();  // k-tile kt - 1's wgmmas are done reading their stage
                    if (kt > 0) release((it + STAGES - 1) % STAGES);
                }
                wgmma_wait<0>();
                release((it + STAGES - 1) % STAGES);  // the tile's last stage (K > 0: KT >= 1)
            } else {
                // Promoted every k-tile, beside the next k-tile's wgmmas: those write one set of
                // partial sums while the other, the previous k-tile's, is scaled into acc. The
                // k-loop is unrolled by two so that both sets stay in registers.
                float part0[ACC], part1[ACC];
                float p0 = 1.0f, p1 = 1.0f;  // the in-flight k-tile's scales, rows r and r + 8
                auto promote = [&](float(&prev)[ACC], float q0, float q1) {
#pragma unroll
                    for (int i = 0; i < ACC; ++i) {
                        fence_operand(prev[i]);  // read only after the wait that finished them
                        acc[i] = fmaf(prev[i], i % 4 < 2 ? q0 : q1, acc[i]);
                    }
                };
                auto ktile = [&](int kt, float(&cur)[ACC], float(&prev)[ACC]) {
                    const int s = it % STAGES;
                    // This k-tile's scales (sa * sb, once per row), loaded before the wait.
                    float c0 = 1.0f, c1 = 1.0f;
                    if constexpr (Cfg::BLOCK_SCALES) {
                        const float sb = __ldg(scale_b + (n0 / SCALE_BLOCK) * ld_sb + kt);
                        c0 =
                            r < M ? sb * __ldg(scale_a + static_cast<long long>(kt) * M + r) : 0.0f;
                        c1 = r + 8 < M
                                 ? sb * __ldg(scale_a + static_cast<long long>(kt) * M + r + 8)
                                 : 0.0f;
                    }
                    mbar_wait(&full[s], (it / STAGES) & 1);  // tile kt has landed in stage s
                    const unsigned char* a = As + s * A_STAGE + row0 * BK;  // (64, BK) K-major
                    const unsigned char* b = Bs + s * Cfg::B_STAGE;         // (BN, BK) K-major
                    wgmma_fence();  // cur was read by ordinary instructions (its last promotion)
                    // BEGIN SOLUTION: the stage's four wgmmas into cur, the first overwriting it
#pragma unroll
                    for (int kk = 0; kk < BK / WGMMA_K; ++kk)  // the first step starts afresh
                        wgmma_e4m3<ACC>(cur, smem_desc(a + kk * WGMMA_K, 16, 1024),
                                        smem_desc(b + kk * WGMMA_K, 16, 1024), kk > 0);
                    // END SOLUTION
                    wgmma_commit();
                    // k-tile kt - 1's partial sums, finished by the previous wait, are promoted
                    // while this k-tile's wgmmas run (ptxas serializes the wgmmas if this waits
                    // for one group in flight instead: C7514).
                    if (kt > 0) promote(prev, p0, p1);
                    wgmma_wait<0>();  // this k-tile's wgmmas are done reading stage s
                    release(s);
                    p0 = c0, p1 = c1;
                    ++it;
                };
                for (int kt = 0; kt < KT; kt += 2) {
                    ktile(kt, part0, part1);
                    if (kt + 1 < KT) ktile(kt + 1, part1, part0);
                }
                if (KT % 2 == 1)
                    promote(part0, p0, p1);
                else
                    promote(part1, p0, p1);
            }
#pragma unroll
            for (int i = 0; i < ACC; ++i) fence_operand(acc[i]);  // the last wgmmas have finished

            // Epilogue: per-tensor scales here, once per element (per-block ones are in acc
            // already). Persistent, the producer meanwhile loads the next tile.
            const float scale = Cfg::BLOCK_SCALES ? alpha : alpha * __ldg(scale_a) * __ldg(scale_b);
            store_tile(acc, C, ldc, M, N, r, n0, lane, scale, beta,
                                 m0 + BM <= M && n0 + BN <= N && vec_c);
        }
    }
    // No block may leave while its cluster's other block can still arrive on its barriers or
    // multicast into its shared memory.
    if constexpr (CLUSTER > 1) cluster_sync();
#else
    (void)map_a, (void)map_b, (void)M, (void)N, (void)K, (void)alpha, (void)scale_a, (void)scale_b,
        (void)beta, (void)C, (void)ldc, (void)vec_c;
#endif
}

// ---- the general-shape layer: K == 0 and operands TMA cannot read -------------------------------

// C = beta * C (K == 0: there is no product, and a tensor map cannot have an empty dimension).
static __global__ void scale_kernel(int M, int N, float beta, __nv_bfloat16* C, int ldc) {
    const long long i = blockIdx.x * 256LL + threadIdx.x;
    if (i >= static_cast<long long>(M) * N) return;
    __nv_bfloat16* p = C + (i / N) * ldc + i % N;
    *p = __float2bfloat16(beta == 0.0f ? 0.0f : beta * __bfloat162float(*p));
}

// Copies a (rows, cols) matrix of bytes into a buffer with leading dimension ld_dst (a multiple of
// 16), zeros in the padding.
static __global__ void pad_kernel(const unsigned char* src, int ld_src, unsigned char* dst,
                                  int ld_dst, int rows, int cols) {
    const long long i = blockIdx.x * 256LL + threadIdx.x;
    if (i >= static_cast<long long>(rows) * ld_dst) return;
    const long long r = i / ld_dst, c = i % ld_dst;
    dst[i] = c < cols ? src[r * ld_src + c] : 0;
}

// An operand TMA can read: itself when aligned, else a padded copy in a scratch buffer that is
// kept (and grown) between calls.
struct Operand {
    const unsigned char* p;
    int ld;
};
inline Operand tma_ready(const __nv_fp8_e4m3* A, int rows, int cols, int ld, int which,
                         cudaStream_t stream) {
    const unsigned char* p = reinterpret_cast<const unsigned char*>(A);
    if (rows_aligned16(p, ld)) return {p, ld};
    static unsigned char* scratch[2] = {nullptr, nullptr};
    static size_t capacity[2] = {0, 0};
    const int ld_pad = (cols + 15) / 16 * 16;
    const size_t count = size_t(rows) * ld_pad;
    if (count > capacity[which]) {
        if (scratch[which]) GEMM_CUDA_CHECK(cudaFree(scratch[which]));
        GEMM_CUDA_CHECK(cudaMalloc(&scratch[which], count));
        capacity[which] = count;
    }
    pad_kernel<<<unsigned((count + 255) / 256), 256, 0, stream>>>(p, ld, scratch[which], ld_pad,
                                                                  rows, cols);
    GEMM_CUDA_CHECK_LAUNCH();
    return {scratch[which], ld_pad};
}

// ---- host side ----------------------------------------------------------------------------------

template <class Cfg>
void gemm_cfg(int M, int N, int K, float alpha, const __nv_fp8_e4m3* A, int lda,
              const __nv_fp8_e4m3* B, int ldb, const float* scale_a, const float* scale_b,
              float beta, __nv_bfloat16* C, int ldc, cudaStream_t stream = 0) {
    if (M == 0 || N == 0) return;  // nothing to write
    if (K == 0) {
        const long long count = static_cast<long long>(M) * N;
        scale_kernel<<<unsigned((count + 255) / 256), 256, 0, stream>>>(M, N, beta, C, ldc);
        GEMM_CUDA_CHECK_LAUNCH();
        return;
    }
    auto kernel = fp8_kernel<Cfg>;
    // Looked up once: the shared-memory opt-in (more than 48 KB must be asked for) and, for the
    // persistent configurations, how many clusters (of one or two blocks) fit on the GPU at once.
    static const int resident_clusters = [&] {
        GEMM_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             Cfg::SMEM_BYTES));
        if (!Cfg::PERSISTENT) return 0;
        if (Cfg::CLUSTER == 1) {  // blocks per SM times SMs
            int device = 0, sms = 0, per_sm = 0;
            GEMM_CUDA_CHECK(cudaGetDevice(&device));
            GEMM_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
            GEMM_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, THREADS,
                                                                          Cfg::SMEM_BYTES));
            return per_sm * sms;
        }
        cudaLaunchConfig_t cfg = {};
        cfg.gridDim = dim3(Cfg::CLUSTER * 1024);
        cfg.blockDim = dim3(THREADS);
        cfg.dynamicSmemBytes = Cfg::SMEM_BYTES;
        cudaLaunchAttribute attr;
        attr.id = cudaLaunchAttributeClusterDimension;
        attr.val.clusterDim.x = Cfg::CLUSTER, attr.val.clusterDim.y = 1, attr.val.clusterDim.z = 1;
        cfg.attrs = &attr;
        cfg.numAttrs = 1;
        int n = 0;
        GEMM_CUDA_CHECK(cudaOccupancyMaxActiveClusters(&n, kernel, &cfg));
        return n;
    }();
    const Operand a = tma_ready(A, M, K, lda, 0, stream);
    const Operand b = tma_ready(B, N, K, ldb, 1, stream);
    const CUtensorMap map_a = make_map(a.p, M, K, a.ld, BM, BK);  // boxes (128, 128) of A
    // Boxes (BN / CLUSTER, 128) of B: in a cluster, each block copies its share of B's rows.
    const CUtensorMap map_b = make_map(b.p, N, K, b.ld, Cfg::B_PART, BK);
    const bool vec_c = ldc % 2 == 0 && reinterpret_cast<std::uintptr_t>(C) % 4 == 0;
    const int tiles =
        ((M + Cfg::CLUSTER * BM - 1) / (Cfg::CLUSTER * BM)) * ((N + Cfg::BN - 1) / Cfg::BN);
    const int clusters = Cfg::PERSISTENT ? std::min(tiles, std::max(resident_clusters, 1)) : tiles;
    if constexpr (Cfg::CLUSTER == 1) {
        kernel<<<clusters, THREADS, Cfg::SMEM_BYTES, stream>>>(
            map_a, map_b, M, N, K, alpha, scale_a, scale_b, beta, C, ldc, vec_c);
    } else {  // a cluster launch: the kernel has no __cluster_dims__, so the launch names it
        cudaLaunchConfig_t cfg = {};
        cfg.gridDim = dim3(clusters * Cfg::CLUSTER);
        cfg.blockDim = dim3(THREADS);
        cfg.dynamicSmemBytes = Cfg::SMEM_BYTES;
        cfg.stream = stream;
        cudaLaunchAttribute attr;
        attr.id = cudaLaunchAttributeClusterDimension;
        attr.val.clusterDim.x = Cfg::CLUSTER, attr.val.clusterDim.y = 1, attr.val.clusterDim.z = 1;
        cfg.attrs = &attr;
        cfg.numAttrs = 1;
        GEMM_CUDA_CHECK(cudaLaunchKernelEx(&cfg, kernel, map_a, map_b, M, N, K, alpha, scale_a,
                                           scale_b, beta, C, ldc, vec_c));
    }
    GEMM_CUDA_CHECK_LAUNCH();
}

// The chapter: per-tensor scales (step 1 of the README). gemm_blocks: per-block scales (step 2).
inline void gemm(int M, int N, int K, float alpha, const __nv_fp8_e4m3* A, int lda,
                 const __nv_fp8_e4m3* B, int ldb, const float* scale_a, const float* scale_b,
                 float beta, __nv_bfloat16* C, int ldc, cudaStream_t stream = 0) {
    gemm_cfg<configs::per_tensor>(M, N, K, alpha, A, lda, B, ldb, scale_a, scale_b, beta, C, ldc,
                                  stream);
}
inline void gemm_blocks(int M, int N, int K, float alpha, const __nv_fp8_e4m3* A, int lda,
                        const __nv_fp8_e4m3* B, int ldb, const float* scale_a, const float* scale_b,
                        float beta, __nv_bfloat16* C, int ldc, cudaStream_t stream = 0) {
    gemm_cfg<configs::per_block>(M, N, K, alpha, A, lda, B, ldb, scale_a, scale_b, beta, C, ldc,
                                 stream);
}

}  // namespace ch17

// Chapter 12: Hopper's own tensor-core path: TMA copies, mbarrier pipelines, wgmma from shared memory.
// New vs chapter 11: one thread asks the Tensor Memory Accelerator for a whole (BM, BK) or (BK, 64)
// tile (`cp.async.bulk.tensor`, 128-byte swizzle, zeros outside the matrix); "full" and "empty"
// mbarriers per stage replace __syncthreads; a producer warpgroup only copies, two consumer
// warpgroups only compute, with `wgmma.mma_async` m64n256k16 reading A and B straight from shared
// memory (no ldmatrix, no fragments in registers but the accumulators); `setmaxnreg` moves registers
// from the producer to the consumers. Block tile 128x256x64, 4 stages (192 KB).
// Napkin math: same 128x256 tile as chapter 10, so the same 1.6 GB of L2 -> SM traffic at 4096^3;
// what changes is who works: 5 copy instructions per k-tile, no ldmatrix, 4 wgmma per warpgroup.
// Preconditions: compute capability 9.0 (sm_90a). TMA needs 16-byte aligned A and B and lda, ldb
// multiples of 8: otherwise the operand is first copied into an aligned, padded scratch buffer.
#pragma once

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "cuda_check.cuh"
#include "device/sm90.cuh"  // the PTX wrappers and tensor maps this chapter teaches (README)

namespace ch12 {

using namespace sm90;

constexpr int BM = 128, BN = 256, BK = 64;  // block tile; BK halves = 128 bytes = one swizzle row
constexpr int STAGES = 4;                   // tiles in flight
constexpr int CONSUMERS = 2;                // warpgroups that compute, 64 rows of the tile each
constexpr int WG = 128;                     // threads per warpgroup
constexpr int THREADS = WG * (1 + CONSUMERS);
constexpr int WGMMA_M = 64, WGMMA_K = 16;  // one wgmma: (64, 16) x (16, BN)
constexpr int B_BOX = 64;                  // columns of B per TMA box: 64 halves = 128 bytes
constexpr int GROUP_M = 8;                 // block rows walked together, for L2 reuse
constexpr int A_STAGE = BM * BK, B_STAGE = BK * BN;  // halves per stage
constexpr int STAGE_BYTES = (A_STAGE + B_STAGE) * int(sizeof(__half));
constexpr int SMEM_BYTES = STAGES * STAGE_BYTES + 1024;  // + slack to align the tiles to 1024 bytes
constexpr int ACC = BN / 2;  // fp32 accumulators per consumer thread: (64, BN) / 128 threads
static_assert(BM == CONSUMERS * WGMMA_M, "each consumer warpgroup owns 64 rows of the tile");
static_assert(BK * int(sizeof(__half)) == 128, "a K-row of A is one 128-byte swizzle row");
static_assert(BN % B_BOX == 0 && BK % WGMMA_K == 0, "whole boxes and whole wgmma steps");

inline bool aligned16(const void* p) {
    return reinterpret_cast<std::uintptr_t>(p) % 16 == 0;
}

// The kernel body is sm_90a code: it exists in that compilation pass alone (see sm90.cuh).
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define CH12_SM90A 1
#endif

// The epilogue: C = alpha * d + beta * C, C not read when beta == 0. Thread t of a warpgroup holds
// rows r and r + 8 (r = 16 * warp + lane / 4 of its 64) and, for every 8 columns j, the pair of
// columns 8j + 2 * (lane % 4) and + 1: d[4j], d[4j+1] on row r, d[4j+2], d[4j+3] on row r + 8.
// fast: the whole (64, BN) tile lies inside C and pairs of floats are 8-byte aligned.
__device__ inline void store_tile(const float (&d)[ACC], float* C, int ldc, int M, int N, int r,
                                  int n0, int lane, float alpha, float beta, bool fast) {
    // BEGIN SOLUTION: write the accumulators to C with alpha, beta and bounds checks
#pragma unroll
    for (int j = 0; j < BN / 8; ++j) {
        const int c = n0 + 8 * j + 2 * (lane % 4);
#pragma unroll
        for (int h = 0; h < 2; ++h) {  // rows r and r + 8
            const int row = r + 8 * h;
            float v0 = alpha * d[4 * j + 2 * h], v1 = alpha * d[4 * j + 2 * h + 1];
            float* p = C + static_cast<long long>(row) * ldc + c;
            if (fast) {  // (row, c) and (row, c + 1) inside C, 8-byte aligned
                if (beta != 0.0f) {
                    const float2 old = *reinterpret_cast<const float2*>(p);
                    v0 += beta * old.x, v1 += beta * old.y;
                }
                *reinterpret_cast<float2*>(p) = make_float2(v0, v1);
                continue;
            }
            if (row >= M) continue;
            if (c < N) p[0] = beta == 0.0f ? v0 : v0 + beta * p[0];
            if (c + 1 < N) p[1] = beta == 0.0f ? v1 : v1 + beta * p[1];
        }
    }
    // END SOLUTION
}

// ---- the kernel ---------------------------------------------------------------------------------

static __global__ void __launch_bounds__(THREADS, 1)
    wgmma_tma_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                     int M, int N, int K, float alpha, float beta, float* C, int ldc, bool vec_c) {
#ifdef CH12_SM90A
    extern __shared__ unsigned char smem_raw[];
    // 128-byte swizzled tiles must start on a 1024-byte boundary (the swizzle pattern repeats every
    // 8 rows of 128 bytes, and TMA and wgmma compute it from address bits).
    unsigned char* smem = reinterpret_cast<unsigned char*>(
        (reinterpret_cast<std::uintptr_t>(smem_raw) + 1023) & ~std::uintptr_t(1023));
    __half* As = reinterpret_cast<__half*>(smem);  // (STAGES, BM, BK), swizzled
    __half* Bs = As + STAGES * A_STAGE;            // (STAGES, BN / 64, BK, 64), swizzled
    __shared__ uint64_t full[STAGES];   // stage s holds tile kt: its copies have landed
    __shared__ uint64_t empty[STAGES];  // stage s may be overwritten: the consumers are done with it

    const int wg = threadIdx.x / WG, tid = threadIdx.x % WG;  // warpgroup 0 produces, 1.. consume
    const int tiles_m = (M + BM - 1) / BM, tiles_n = (N + BN - 1) / BN;
    const int group = blockIdx.x / (GROUP_M * tiles_n);
    const int in_group = blockIdx.x % (GROUP_M * tiles_n);
    const int group_rows = min(tiles_m - group * GROUP_M, GROUP_M);
    const int m0 = (group * GROUP_M + in_group % group_rows) * BM;  // first row of the block tile
    const int n0 = (in_group / group_rows) * BN;                    // first column
    const int KT = (K + BK - 1) / BK;                               // k-tiles

    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; ++s) {
            mbar_init(&full[s], 1);               // the producer's arrive (+ the TMA bytes)
            mbar_init(&empty[s], CONSUMERS * 4);  // one arrive per consumer warp
        }
        // Make the initialised barriers visible to the copy engine (the async proxy) too.
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();  // the barriers exist before anyone waits on them

    if (wg == 0) {
        setmaxnreg_dec<40>();  // the producer needs few registers: give them to the consumers
        if (tid == 0) {
            for (int kt = 0; kt < KT; ++kt) {
                const int s = kt % STAGES;
                // The stage's previous tile (kt - STAGES) must have been consumed; its phase is
                // the (kt / STAGES - 1)-th completion of empty[s].
                if (kt >= STAGES) mbar_wait(&empty[s], (kt / STAGES - 1) & 1);
                mbar_arrive_expect_tx(&full[s], STAGE_BYTES);  // whole boxes: zeros count too
                tma_load(As + s * A_STAGE, &map_a, kt * BK, m0, &full[s]);  // (BM, BK) of A
#pragma unroll
                for (int j = 0; j < BN / B_BOX; ++j)  // (BK, 64) of B, four times
                    tma_load(Bs + s * B_STAGE + j * BK * B_BOX, &map_b, n0 + j * B_BOX, kt * BK,
                             &full[s]);
            }
        }
    } else {
        setmaxnreg_inc<232>();
        float d[ACC];  // (64, BN) of C: this warpgroup's rows, in wgmma's register layout
#pragma unroll
        for (int i = 0; i < ACC; ++i) d[i] = 0.0f;
        const int row0 = (wg - 1) * WGMMA_M;  // this warpgroup's first row in the block tile

        for (int kt = 0; kt < KT; ++kt) {
            const int s = kt % STAGES;
            mbar_wait(&full[s], (kt / STAGES) & 1);  // tile kt has landed in stage s
            const __half* a = As + s * A_STAGE + row0 * BK;  // (64, BK) K-major
            const __half* b = Bs + s * B_STAGE;              // (BN / 64, BK, 64) MN-major
            wgmma_fence();  // the accumulators were written by ordinary instructions before
            // BEGIN SOLUTION: four wgmmas over the stage's 64-deep tile, from descriptors of As, Bs
#pragma unroll
            for (int kk = 0; kk < BK / WGMMA_K; ++kk) {
                // A: rows of 128 bytes, 8-row groups 1024 bytes apart (SBO); a 16-deep step is 32
                // bytes further along the (swizzled) row. B: 8 k-rows per 1024 bytes (SBO), the
                // next 64 columns one box (BK * 128 bytes) further (LBO); a step is 16 k-rows.
                wgmma_m64n256k16(d, smem_desc(a + kk * WGMMA_K, 16, 1024),
                                 smem_desc(b + kk * WGMMA_K * B_BOX, BK * 128, 1024));
            }
            // END SOLUTION
            wgmma_commit();
            wgmma_wait<0>();  // this tile's wgmmas are done reading stage s: it may be refilled
            if (tid % 32 == 0) mbar_arrive(&empty[s]);
        }

        // Epilogue: this warp's 16 rows of the warpgroup's 64, straight from the accumulators.
        const int warp = tid / 32, lane = tid % 32;
        store_tile(d, C, ldc, M, N, m0 + row0 + 16 * warp + lane / 4, n0, lane, alpha, beta,
                   m0 + BM <= M && n0 + BN <= N && vec_c);
    }
#else
    (void)map_a, (void)map_b, (void)M, (void)N, (void)K, (void)alpha, (void)beta, (void)C,
        (void)ldc, (void)vec_c;
#endif
}

// C = beta * C (K == 0: there is no product, and a tensor map cannot have an empty dimension).
static __global__ void scale_kernel(int M, int N, float beta, float* C, int ldc) {
    const long long i = blockIdx.x * 256LL + threadIdx.x;
    if (i >= static_cast<long long>(M) * N) return;
    float* p = C + (i / N) * ldc + i % N;
    *p = beta == 0.0f ? 0.0f : beta * *p;
}

// Copies a (rows, cols) matrix into a buffer with leading dimension ld_dst (a multiple of 8).
static __global__ void pad_kernel(const __half* src, int ld_src, __half* dst, int ld_dst, int rows,
                                  int cols) {
    const long long i = blockIdx.x * 256LL + threadIdx.x;
    if (i >= static_cast<long long>(rows) * ld_dst) return;
    const long long r = i / ld_dst, c = i % ld_dst;
    dst[i] = c < cols ? src[r * ld_src + c] : __half(0.0f);
}

// ---- host side ----------------------------------------------------------------------------------

// An operand TMA can read: itself when aligned, else a padded copy in a scratch buffer that is
// kept (and grown) between calls.
struct Operand {
    const __half* p;
    int ld;
};
inline Operand tma_ready(const __half* p, int rows, int cols, int ld, int which,
                         cudaStream_t stream) {
    if (ld % 8 == 0 && aligned16(p)) return {p, ld};
    static __half* scratch[2] = {nullptr, nullptr};
    static size_t capacity[2] = {0, 0};
    const int ld_pad = (cols + 7) / 8 * 8;
    const size_t count = size_t(rows) * ld_pad;
    if (count > capacity[which]) {
        if (scratch[which]) GEMM_CUDA_CHECK(cudaFree(scratch[which]));
        GEMM_CUDA_CHECK(cudaMalloc(&scratch[which], count * sizeof(__half)));
        capacity[which] = count;
    }
    pad_kernel<<<unsigned((count + 255) / 256), 256, 0, stream>>>(p, ld, scratch[which], ld_pad,
                                                                  rows, cols);
    GEMM_CUDA_CHECK_LAUNCH();
    return {scratch[which], ld_pad};
}

inline void gemm(int M, int N, int K, float alpha, const __half* A, int lda, const __half* B,
                 int ldb, float beta, float* C, int ldc, cudaStream_t stream = 0) {
    if (M == 0 || N == 0) return;  // nothing to write
    if (K == 0) {
        const long long count = static_cast<long long>(M) * N;
        scale_kernel<<<unsigned((count + 255) / 256), 256, 0, stream>>>(M, N, beta, C, ldc);
        GEMM_CUDA_CHECK_LAUNCH();
        return;
    }
    static const bool opted_in = [] {  // more than 48 KB of shared memory must be asked for
        GEMM_CUDA_CHECK(cudaFuncSetAttribute(
            wgmma_tma_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_BYTES));
        return true;
    }();
    (void)opted_in;
    const Operand a = tma_ready(A, M, K, lda, 0, stream);
    const Operand b = tma_ready(B, K, N, ldb, 1, stream);
    const CUtensorMap map_a = make_map(a.p, M, K, a.ld, BM, BK);     // boxes (128, 64) of A
    const CUtensorMap map_b = make_map(b.p, K, N, b.ld, BK, B_BOX);  // boxes (64, 64) of B
    const bool vec_c = ldc % 2 == 0 && reinterpret_cast<std::uintptr_t>(C) % 8 == 0;
    const int blocks = ((M + BM - 1) / BM) * ((N + BN - 1) / BN);
    wgmma_tma_kernel<<<blocks, THREADS, SMEM_BYTES, stream>>>(map_a, map_b, M, N, K, alpha, beta,
                                                              C, ldc, vec_c);
    GEMM_CUDA_CHECK_LAUNCH();
}

}  // namespace ch12

// Chapter 12: warpgroup MMA: wgmma reads both operands from shared memory through descriptors.
// New vs chapter 11: two warpgroups (4 warps each) each issue `wgmma.mma_async` m64n256k16, a
// (64, 16) x (16, 256) product with A and B read straight from shared memory through 64-bit
// matrix descriptors; only the (64, 256) accumulators live in registers (128 per thread): no
// ldmatrix, no fragments. fence / commit_group / wait_group order them. The operands still come
// through chapter 11's cp.async pipeline, now in the 128-byte-swizzled layout the descriptors
// name (B as four (BK, 64) panels), with `fence.proxy.async` before wgmma reads them.
// Napkin math: same 128x256 tile as chapters 10-11 (1.6 GB of L2 -> SM traffic at 4096^3); per
// k-tile each warp issues 4 wgmma instead of chapter 11's 128 mma.sync and 32 ldmatrix.
// Preconditions: compute capability 9.0 (sm_90a). The 16-byte copies need 16-byte aligned rows of
// A and B (common/device/aligned_operands.cuh pads them otherwise).
#pragma once

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda_check.cuh"
#include "device/aligned_operands.cuh"
#include "device/ch10_cp_async.cuh"
#include "device/ch12_wgmma.cuh"
#include "device/wgmma_epilogue.cuh"

namespace ch12 {

using namespace gemm::dev;  // cp.async (common/device/ch10_cp_async.cuh)
using namespace sm90;

constexpr int BM = 128, BN = 256, BK = 64;  // block tile; BK halves = 128 bytes = one swizzle row
constexpr int STAGES = 4;                   // tiles in flight
constexpr int CONSUMERS = 2;                // warpgroups that compute, 64 rows of the tile each
constexpr int WG = 128;                     // threads per warpgroup
constexpr int THREADS = WG * CONSUMERS;
constexpr int WGMMA_M = 64, WGMMA_K = 16;  // one wgmma: (64, 16) x (16, BN)
constexpr int B_BOX = 64;                  // columns of B per panel: 64 halves = 128 bytes
constexpr int GROUP_M = 8;                 // block rows walked together, for L2 reuse
constexpr int A_STAGE = BM * BK, B_STAGE = BK * BN;  // halves per stage
constexpr int STAGE_BYTES = (A_STAGE + B_STAGE) * int(sizeof(__half));
constexpr int SMEM_BYTES = STAGES * STAGE_BYTES + 1024;  // + slack to align the tiles to 1024 bytes
constexpr int ACC = WGMMA_ACC;  // fp32 accumulators per thread: (64, BN) / 128 threads
static_assert(BM == CONSUMERS * WGMMA_M, "each consumer warpgroup owns 64 rows of the tile");
static_assert(BK * int(sizeof(__half)) == 128, "a K-row of A is one 128-byte swizzle row");
static_assert(BN == 256 && BK % WGMMA_K == 0, "one m64n256k16 per 16-deep step");

// The byte offset of the 16-byte chunk q (8 halves) of row r of a (ROWS, COLS) tile in shared
// memory, laid out as TMA's 128-byte swizzle would (chapter 13; the host tests in test.cu
// checks it against swizzle128): COLS / 64 panels of (ROWS, 64), a panel row 128 bytes, chunk q % 8
// of its row at chunk (q % 8) ^ (r % 8).
template <int ROWS, int COLS>
__host__ __device__ constexpr uint32_t chunk_offset(int r, int q) {
    static_assert(ROWS % 8 == 0 && COLS % 64 == 0, "whole panels of whole swizzle periods");
    return 2 * ((q / 8) * ROWS * 64 + r * 64 + ((q % 8) ^ (r % 8)) * 8);
}

// The 16-deep step kk of a stage, as its descriptors give it to wgmma (README's table). A, (64, BK)
// K-major: 32 bytes further along the swizzled rows; 8-row groups 1024 bytes apart (SBO); LBO
// unused (16). B, BN / 64 panels of (BK, 64) MN-major: 16 k-rows of 128 bytes further; 8 k-rows
// 1024 bytes apart (SBO), the next 64 columns one panel (BK * 128 bytes) further (LBO).
__host__ __device__ constexpr DescStep a_step(int kk) {
    DescStep step{0, 0, 0};
    // BEGIN SOLUTION: A's step kk: its start offset in bytes, LBO and SBO (README's table)
    step = {uint32_t(2 * kk * WGMMA_K), 16, 1024};
    // END SOLUTION
    return step;
}
__host__ __device__ constexpr DescStep b_step(int kk) {
    DescStep step{0, 0, 0};
    // BEGIN SOLUTION: B's step kk: its start offset in bytes, LBO and SBO (README's table)
    step = {uint32_t(2 * kk * WGMMA_K * B_BOX), BK * 128, 1024};
    // END SOLUTION
    return step;
}

// Starts the copy of the (ROWS, COLS) tile at (r0, c0) of the row-major (rows, cols) matrix src
// into shared memory at dst, in the panel layout of chunk_offset. Chunks (partly) outside the
// matrix are zero-filled. Needs src's rows 16-byte aligned.
template <int ROWS, int COLS>
__device__ inline void load_tile(uint32_t dst, const __half* src, int ld, int rows, int cols,
                                 int r0, int c0) {
    constexpr int CPR = COLS / 8;                 // 16-byte chunks per row
    constexpr int ROWS_PER_PASS = THREADS / CPR;  // rows the block copies per pass
    static_assert(ROWS % ROWS_PER_PASS == 0 && ROWS_PER_PASS % 8 == 0,
                  "whole passes of whole 8-row swizzle periods: r % 8 is the same in every pass");
    const int r = threadIdx.x / CPR, cb = threadIdx.x % CPR;  // this thread's first chunk
    const int gc = c0 + 8 * cb;                               // its column in the matrix
    const int valid_cols = min(max(cols - gc, 0), 8);         // halves inside the matrix: 0..8
    const uint32_t first = dst + chunk_offset<ROWS, COLS>(r, cb);
#pragma unroll
    for (int it = 0; it < ROWS / ROWS_PER_PASS; ++it) {
        const int gr = r0 + r + it * ROWS_PER_PASS;
        const int valid = gr < rows ? valid_cols : 0;
        const long long offset = valid > 0 ? static_cast<long long>(gr) * ld + gc : 0;  // in src
        cp_async_16<CpAsync::cg>(first + 2 * it * ROWS_PER_PASS * 64, src + offset, 2 * valid);
    }
}

static __global__ void __launch_bounds__(THREADS, 1)
    wgmma_kernel(int M, int N, int K, float alpha, const __half* A, int lda, const __half* B,
                 int ldb, float beta, float* C, int ldc, bool vec_c) {
    extern __shared__ unsigned char smem_raw[];
    // 128-byte swizzled tiles must start on a 1024-byte boundary (the swizzle pattern repeats every
    // 8 rows of 128 bytes, and wgmma computes it from address bits).
    unsigned char* smem = reinterpret_cast<unsigned char*>(
        (reinterpret_cast<std::uintptr_t>(smem_raw) + 1023) & ~std::uintptr_t(1023));
    __half* As = reinterpret_cast<__half*>(smem);  // (STAGES, BM, BK), swizzled
    __half* Bs = As + STAGES * A_STAGE;            // (STAGES, BN / 64, BK, 64), swizzled

    const int wg = threadIdx.x / WG, tid = threadIdx.x % WG;  // each warpgroup: 64 rows
    const int tiles_m = (M + BM - 1) / BM, tiles_n = (N + BN - 1) / BN;
    const int group = blockIdx.x / (GROUP_M * tiles_n);
    const int in_group = blockIdx.x % (GROUP_M * tiles_n);
    const int group_rows = min(tiles_m - group * GROUP_M, GROUP_M);
    const int m0 = (group * GROUP_M + in_group % group_rows) * BM;  // first row of the block tile
    const int n0 = (in_group / group_rows) * BN;                    // first column
    const int KT = (K + BK - 1) / BK;                               // k-tiles

    // Starts the copies of tile kt into stage kt % STAGES, every thread its share; one commit
    // group per tile, empty past the last one, so that the count of groups stays uniform.
    auto load = [&](int kt) {
        const int s = kt % STAGES;
        if (kt < KT) {
            load_tile<BM, BK>(smem_u32(As + s * A_STAGE), A, lda, M, K, m0, kt * BK);
            load_tile<BK, BN>(smem_u32(Bs + s * B_STAGE), B, ldb, K, N, kt * BK, n0);
        }
        cp_async_commit();
    };
    for (int kt = 0; kt < STAGES - 1; ++kt) load(kt);  // the first STAGES - 1 tiles in flight

    float d[ACC];  // (64, BN) of C: this warpgroup's rows, in wgmma's register layout
#pragma unroll
    for (int i = 0; i < ACC; ++i) d[i] = 0.0f;
    const int row0 = wg * WGMMA_M;  // this warpgroup's first row in the block tile

    for (int kt = 0; kt < KT; ++kt) {
        const int s = kt % STAGES;
        cp_async_wait<STAGES - 2>();  // this thread's copies of tile kt have landed
        // cp.async wrote the stage through the generic proxy; wgmma reads it through the async
        // proxy, which sees those writes only after a proxy fence by the writing thread.
        fence_proxy_async();
        __syncthreads();  // everyone's copies of tile kt are in place and fenced; and every
                          // warpgroup is done with tile kt - 1, whose stage the next load refills
        const __half* a = As + s * A_STAGE + row0 * BK;  // (64, BK) K-major
        const __half* b = Bs + s * B_STAGE;              // (BN / 64, BK, 64) MN-major
        wgmma_fence();  // the accumulators were written by ordinary instructions before
        // BEGIN SOLUTION: four wgmmas over the stage's 64-deep tile (descriptors: a_step, b_step)
#pragma unroll
        for (int kk = 0; kk < BK / WGMMA_K; ++kk)
            wgmma_m64n256k16(d, smem_desc(a, a_step(kk)), smem_desc(b, b_step(kk)));
        // END SOLUTION
        wgmma_commit();
        load(kt + STAGES - 1);  // into tile kt - 1's stage, while the tensor cores work on tile kt
        wgmma_wait<0>();  // this tile's wgmmas are done reading stage s before the next barrier
    }

    // Epilogue: this warp's 16 rows of the warpgroup's 64, straight from the accumulators.
    const int warp = tid / 32, lane = tid % 32;
    store_tile(d, C, ldc, M, N, m0 + row0 + 16 * warp + lane / 4, n0, lane, alpha, beta,
               m0 + BM <= M && n0 + BN <= N && vec_c);
}

inline void gemm(int M, int N, int K, float alpha, const __half* A, int lda, const __half* B,
                 int ldb, float beta, float* C, int ldc, cudaStream_t stream = 0) {
    if (M == 0 || N == 0) return;      // nothing to write
    static const bool opted_in = [] {  // more than 48 KB of shared memory must be asked for
        GEMM_CUDA_CHECK(cudaFuncSetAttribute(
            wgmma_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_BYTES));
        return true;
    }();
    (void)opted_in;
    // A and B themselves, or padded copies where a row does not start on 16 bytes.
    const AlignedOperands ops(A, lda, B, ldb, M, N, K, stream);
    const bool vec_c = ldc % 2 == 0 && reinterpret_cast<std::uintptr_t>(C) % 8 == 0;
    const int blocks = ((M + BM - 1) / BM) * ((N + BN - 1) / BN);
    wgmma_kernel<<<blocks, THREADS, SMEM_BYTES, stream>>>(M, N, K, alpha, ops.a.p, ops.a.ld,
                                                          ops.b.p, ops.b.ld, beta, C, ldc, vec_c);
    GEMM_CUDA_CHECK_LAUNCH();
}

}  // namespace ch12

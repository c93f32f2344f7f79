// Chapter 14: warp specialization: a producer warpgroup that only copies, consumers that only
// compute. New vs chapter 13: the block gets a third warpgroup whose one thread issues every TMA
// copy; the two consumer warpgroups only wait on "full", multiply and arrive on "empty", so a
// refill no longer waits behind the issuing thread's own wgmmas; `setmaxnreg` moves registers from
// the producer (40 per thread) to the consumers (232). Block tile 128x256x64, 4 stages (192 KB).
// Napkin math: same 128x256 tile as chapters 10-13, so the same 1.6 GB of L2 -> SM traffic at
// 4096^3; what changes is who waits: the copies run a full 4 stages ahead of the slower consumer.
// Preconditions: compute capability 9.0 (sm_90a). TMA needs 16-byte aligned rows of A and B
// (common/device/aligned_operands.cuh pads them otherwise); K == 0 is C = beta * C.
#pragma once

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda_check.cuh"
#include "device/aligned_operands.cuh"
#include "device/ch12_wgmma.cuh"
#include "device/ch13_tma_mbarrier.cuh"
#include "device/ch14_setmaxnreg.cuh"
#include "device/timeline.cuh"  // GEMM_MARK: nothing unless built with -DGEMM_TIMELINE
#include "device/wgmma_epilogue.cuh"

namespace ch14 {

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
constexpr int ACC = WGMMA_ACC;  // fp32 accumulators per consumer thread: (64, BN) / 128 threads
static_assert(BM == CONSUMERS * WGMMA_M, "each consumer warpgroup owns 64 rows of the tile");
static_assert(BK * int(sizeof(__half)) == 128, "a K-row of A is one 128-byte swizzle row");
static_assert(BN == 256 && BK % WGMMA_K == 0, "one m64n256k16 per 16-deep step");

// Tile kt's stage, and the phases of that stage's barriers it waits for (README's diagram). Each
// completion of an mbarrier ends a phase and flips the parity a wait names: full[s] completes once
// per tile copied into stage s, so tile kt is its (kt / STAGES)-th completion; empty[s] once per
// tile consumed, and the producer refills stage s with tile kt after the completion for tile
// kt - STAGES, its (kt / STAGES - 1)-th (tiles kt < STAGES find the stage empty and wait for none).
__host__ __device__ constexpr int stage_of(int kt) {
    return kt % STAGES;
}
__host__ __device__ constexpr unsigned full_parity(int kt) {
    return (kt / STAGES) & 1;
}
__host__ __device__ constexpr unsigned empty_parity(int kt) {
    return (kt / STAGES - 1) & 1;
}

static __global__ void __launch_bounds__(THREADS, 1)
    warp_specialized_kernel(const __grid_constant__ CUtensorMap map_a,
                            const __grid_constant__ CUtensorMap map_b, int M, int N, int K,
                            float alpha, float beta, float* C, int ldc, bool vec_c) {
    extern __shared__ unsigned char smem_raw[];
    // 128-byte swizzled tiles must start on a 1024-byte boundary (the swizzle pattern repeats every
    // 8 rows of 128 bytes, and TMA and wgmma compute it from address bits).
    unsigned char* smem = reinterpret_cast<unsigned char*>(
        (reinterpret_cast<std::uintptr_t>(smem_raw) + 1023) & ~std::uintptr_t(1023));
    __half* As = reinterpret_cast<__half*>(smem);  // (STAGES, BM, BK), swizzled
    __half* Bs = As + STAGES * A_STAGE;            // (STAGES, BN / 64, BK, 64), swizzled
    __shared__ uint64_t full[STAGES];              // stage s holds tile kt: its copies have landed
    __shared__ uint64_t empty[STAGES];             // stage s may be refilled: its readers are done

    const int wg = threadIdx.x / WG, tid = threadIdx.x % WG;  // warpgroup 0 produces, 1.. consume
    const int tiles_m = (M + BM - 1) / BM, tiles_n = (N + BN - 1) / BN;
    const int group = blockIdx.x / (GROUP_M * tiles_n);
    const int in_group = blockIdx.x % (GROUP_M * tiles_n);
    const int group_rows = min(tiles_m - group * GROUP_M, GROUP_M);
    const int m0 = (group * GROUP_M + in_group % group_rows) * BM;  // first row of the block tile
    const int n0 = (in_group / group_rows) * BN;                    // first column
    const int KT = (K + BK - 1) / BK;                               // k-tiles
    GEMM_MARK(threadIdx.x == 0, block_begin, blockIdx.x, 0);

    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; ++s) {
            mbar_init(&full[s], 1);               // the producer's arrive (+ the TMA bytes)
            mbar_init(&empty[s], CONSUMERS * 4);  // one arrive per consumer warp
        }
        fence_barrier_init();  // the copy engine (the async proxy) sees them initialised
    }
    __syncthreads();  // the barriers exist before anyone waits on them

    // Copies tile kt into stage kt % STAGES (one thread calls it), once every consumer warp is done
    // with the tile the stage held before.
    auto load = [&](int kt) {
        const int s = stage_of(kt);
        // The stage's previous tile (kt - STAGES) must have been consumed.
        if (kt >= STAGES) mbar_wait(&empty[s], empty_parity(kt));
        mbar_arrive_expect_tx(&full[s], STAGE_BYTES);               // whole boxes: zeros count too
        tma_load(As + s * A_STAGE, &map_a, kt * BK, m0, &full[s]);  // (BM, BK) of A
#pragma unroll
        for (int j = 0; j < BN / B_BOX; ++j)  // (BK, 64) of B, four times
            tma_load(Bs + s * B_STAGE + j * BK * B_BOX, &map_b, n0 + j * B_BOX, kt * BK, &full[s]);
    };
    if (wg == 0) {             // the producer: one thread copies every tile, up to STAGES ahead
        setmaxnreg_dec<40>();  // it needs few registers: give them to the consumers
        GEMM_MARK(tid == 0, load_begin, blockIdx.x, 0);
        if (tid == 0)
            for (int kt = 0; kt < KT; ++kt) load(kt);
        GEMM_MARK(tid == 0, load_end, blockIdx.x, 0);
        return;  // the copies in flight land all the same: the consumers keep the block alive
    }
    setmaxnreg_inc<232>();  // the consumers: 128 accumulators each, and the producer's registers

    float d[ACC];  // (64, BN) of C: this warpgroup's rows, in wgmma's register layout
#pragma unroll
    for (int i = 0; i < ACC; ++i) d[i] = 0.0f;
    const int row0 = (wg - 1) * WGMMA_M;  // this warpgroup's first row in the block tile

    for (int kt = 0; kt < KT; ++kt) {
        const int s = stage_of(kt);
        mbar_wait(&full[s], full_parity(kt));  // tile kt has landed in stage s
        GEMM_MARK(kt == 0 && tid == 0, math_begin, blockIdx.x, wg);
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
        if (tid % 32 == 0) mbar_arrive(&empty[s]);  // the producer may refill it
    }
    GEMM_MARK(tid == 0, math_end, blockIdx.x, wg);

    // Epilogue: this warp's 16 rows of the warpgroup's 64, straight from the accumulators.
    const int warp = tid / 32, lane = tid % 32;
    store_tile(d, C, ldc, M, N, m0 + row0 + 16 * warp + lane / 4, n0, lane, alpha, beta,
               m0 + BM <= M && n0 + BN <= N && vec_c);
    GEMM_MARK(tid == 0, store_end, blockIdx.x, wg);
}

inline void gemm(int M, int N, int K, float alpha, const __half* A, int lda, const __half* B,
                 int ldb, float beta, float* C, int ldc, cudaStream_t stream = 0) {
    if (M == 0 || N == 0) return;                            // nothing to write
    if (K == 0) return scale_c(M, N, beta, C, ldc, stream);  // no product: C = beta * C
    static const bool opted_in = [] {  // more than 48 KB of shared memory must be asked for
        GEMM_CUDA_CHECK(cudaFuncSetAttribute(
            warp_specialized_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_BYTES));
        return true;
    }();
    (void)opted_in;
    // A and B themselves, or padded copies where a row does not start on 16 bytes.
    const AlignedOperands ops(A, lda, B, ldb, M, N, K, stream);
    const CUtensorMap map_a = make_map(ops.a.p, M, K, ops.a.ld, BM, BK);     // boxes (128, 64) of A
    const CUtensorMap map_b = make_map(ops.b.p, K, N, ops.b.ld, BK, B_BOX);  // boxes (64, 64) of B
    const bool vec_c = ldc % 2 == 0 && reinterpret_cast<std::uintptr_t>(C) % 8 == 0;
    const int blocks = ((M + BM - 1) / BM) * ((N + BN - 1) / BN);
    warp_specialized_kernel<<<blocks, THREADS, SMEM_BYTES, stream>>>(map_a, map_b, M, N, K, alpha,
                                                                     beta, C, ldc, vec_c);
    GEMM_CUDA_CHECK_LAUNCH();
}

}  // namespace ch14

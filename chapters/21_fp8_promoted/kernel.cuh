// Chapter 21: FP8, promoted. Chapter 20's kernel with the partial sums promoted to fp32 every 128
// of K, the accurate default from here on (cuBLASLt's default does the same).
// Contract: as chapter 20: C (M x N, bf16) = alpha * (sa A) (sb B)^T + beta * C, A M x K, B N x K.
// New vs chapter 20: each k-tile's four wgmmas write a fresh register set `part` in the tensor
// cores' short adders; ordinary fp32 adds then move it into the accumulators `d`, so no short sum
// is longer than 128 of K. Two sets take turns, so that the next k-tile's wgmmas run while one is
// added (wgmma.wait_group 1). Two sets of (64, 256) and d would take 384 registers a thread (at
// most 232 can be had): the tile is 128 x 128 (m64n128k32), 3 x 64 registers, 6 stages.
// Napkin math (4096^3): 137 GFLOP; L2 -> SM bytes M N K (1/BM + 1/BN) x 1 byte = 1.07 GB (the
// narrower tile: +33% on chapter 20); 64 fp32 adds a thread per k-tile against 256 tensor clocks.
// Preconditions: as chapter 20 (compute capability 9.0; unaligned operands are padded first).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda_check.cuh"
#include "device/aligned_operands.cuh"
#include "device/sm90.cuh"
#include "device/ch20_fp8_e4m3.cuh"  // the e4m3 wgmma shapes (chapter 20)
#include "device/wgmma_epilogue.cuh"

namespace ch21 {

using namespace sm90;

constexpr int BM = 128, BN = 128, BK = 128;  // block tile; BK bytes = one 128-byte swizzle row
constexpr int STAGES = 6;                    // tiles in flight: 6 x 32 KB
constexpr int CONSUMERS = 2;                 // warpgroups that compute, 64 rows of the tile each
constexpr int WG = 128;                      // threads per warpgroup
constexpr int THREADS = WG * (1 + CONSUMERS);
constexpr int WGMMA_M = 64, WGMMA_K = 32;            // one wgmma: (64, 32) x (BN, 32)^T
constexpr int GROUP_M = 8;                           // block rows walked together, for L2 reuse
constexpr int A_STAGE = BM * BK, B_STAGE = BN * BK;  // bytes per stage
constexpr int STAGE_BYTES = A_STAGE + B_STAGE;
constexpr int SMEM_BYTES = STAGES * STAGE_BYTES + 1024;  // + slack to align the tiles to 1024 bytes
constexpr int ACC = BN / 2;  // fp32 accumulators per consumer thread: (64, BN) / 128 threads
static_assert(BM == CONSUMERS * WGMMA_M, "each consumer warpgroup owns 64 rows of the tile");
static_assert(BK == 128, "a K-row of A or B is one 128-byte swizzle row");
static_assert(BN == 128 && BK % WGMMA_K == 0,
              "one m64n128k32 per 32-deep step: two sets of (64, 256) partial sums and the "
              "accumulators would take 384 registers a thread (max 232)");

// CHUNK: k-tiles per straight-line chunk of the consumers' loop (1: no overlap; below).
template <int CHUNK>
static __global__ void __launch_bounds__(THREADS, 1)
    fp8_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
               int M, int N, int K, float alpha, const float* scale_a, const float* scale_b,
               float beta, __nv_bfloat16* C, int ldc, bool vec_c) {
    extern __shared__ unsigned char smem_raw[];
    // 128-byte swizzled tiles must start on a 1024-byte boundary (the swizzle pattern repeats every
    // 8 rows of 128 bytes, and TMA and wgmma compute it from address bits).
    unsigned char* smem = reinterpret_cast<unsigned char*>(
        (reinterpret_cast<std::uintptr_t>(smem_raw) + 1023) & ~std::uintptr_t(1023));
    unsigned char* As = smem;                   // (STAGES, BM, BK) e4m3, swizzled
    unsigned char* Bs = As + STAGES * A_STAGE;  // (STAGES, BN, BK) e4m3, swizzled
    __shared__ uint64_t full[STAGES];           // stage s holds tile kt: its copies have landed
    __shared__ uint64_t empty[STAGES];          // stage s may be refilled: its readers are done

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
        fence_barrier_init();  // the copy engine (the async proxy) sees them initialised
    }
    __syncthreads();  // the barriers exist before anyone waits on them

    // Copies tile kt into stage kt % STAGES (one thread calls it), once every consumer warp is done
    // with the tile the stage held before.
    auto load = [&](int kt) {
        const int s = kt % STAGES;
        // The stage's previous tile (kt - STAGES) must have been consumed; its phase is the
        // (kt / STAGES - 1)-th completion of empty[s].
        if (kt >= STAGES) mbar_wait(&empty[s], (kt / STAGES - 1) & 1);
        mbar_arrive_expect_tx(&full[s], STAGE_BYTES);               // whole boxes: zeros count too
        tma_load(As + s * A_STAGE, &map_a, kt * BK, m0, &full[s]);  // (BM, BK) of A
        tma_load(Bs + s * B_STAGE, &map_b, kt * BK, n0, &full[s]);  // (BN, BK) of B, K-major too
    };
    if (wg == 0) {             // the producer: one thread copies every tile, up to STAGES ahead
        setmaxnreg_dec<40>();  // it needs few registers: give them to the consumers
        if (tid == 0)
            for (int kt = 0; kt < KT; ++kt) load(kt);
        return;  // the copies in flight land all the same: the consumers keep the block alive
    }
    setmaxnreg_inc<232>();  // the consumers: 3 x 64 registers of sums each, and the producer's

    float d[ACC];  // (64, BN) of C in fp32: this warpgroup's rows, in wgmma's register layout
#pragma unroll
    for (int i = 0; i < ACC; ++i) d[i] = 0.0f;
    const int row0 = (wg - 1) * WGMMA_M;  // this warpgroup's first row in the block tile

    // Two sets of partial sums in turn: k-tile kt + 1's wgmmas run while k-tile kt's sums are
    // promoted (the tensor cores' short sums join the fp32 accumulators d), so no short sum is
    // longer than 128 of K and the adds hide behind the tensor cores.
    float part[2][ACC];  // the tensor cores' sums of one k-tile each, in d's layout
    auto issue = [&](float(&p)[ACC], int kt) {  // k-tile kt's four wgmmas into p, in flight
        const int s = kt % STAGES;
        mbar_wait(&full[s], (kt / STAGES) & 1);                 // tile kt has landed in stage s
        const unsigned char* a = As + s * A_STAGE + row0 * BK;  // (64, BK) K-major
        const unsigned char* b = Bs + s * B_STAGE;              // (BN, BK) K-major
        wgmma_fence();  // p was read by ordinary instructions (its last promotion)
        // BEGIN SOLUTION: four wgmmas into p, the first overwriting it (scale-d 0)
#pragma unroll
        for (int kk = 0; kk < BK / WGMMA_K; ++kk) {
            // A and B alike: rows of 128 bytes, 8-row groups 1024 bytes apart (SBO); a 32-deep
            // step is 32 bytes further along the (swizzled) row.
            wgmma_m64n128k32_e4m3(p, smem_desc(a + kk * WGMMA_K, 16, 1024),
                                  smem_desc(b + kk * WGMMA_K, 16, 1024), kk > 0);
        }
        // END SOLUTION
        wgmma_commit();
    };
    auto promote = [&](float(&p)[ACC], int kt) {  // after a wait that finished k-tile kt
        if (tid % 32 == 0) mbar_arrive(&empty[kt % STAGES]);  // its stage may be refilled
#pragma unroll
        for (int i = 0; i < ACC; ++i) {
            fence_operand(p[i]);  // read only after the wait that finished them
            d[i] += p[i];
        }
    };
    // Chunks of CHUNK k-tiles, each straight-line code: ptxas follows the wgmma groups in flight
    // within it, but across a loop's back edge it waits for all of them first (C7514), so the
    // chunk ends with nothing in flight. CHUNK 1 is the plain loop: issue, wait, promote.
    int kt = 0;
    for (; kt + CHUNK <= KT; kt += CHUNK) {
        issue(part[0], kt);
#pragma unroll
        for (int j = 1; j <= CHUNK; ++j) {
            if (j < CHUNK) {
                issue(part[j % 2], kt + j);  // the next k-tile's wgmmas first,
                wgmma_wait<1>();             // then k-tile kt + j - 1's are done
            } else {
                wgmma_wait<0>();  // the chunk's last k-tile
            }
            promote(part[(j - 1) % 2], kt + j - 1);
        }
    }
    for (; kt < KT; ++kt) {  // the k-tiles after the last whole chunk, one at a time
        issue(part[0], kt);
        wgmma_wait<0>();
        promote(part[0], kt);
    }

    // Epilogue: this warp's 16 rows of the warpgroup's 64, straight from the accumulators; the
    // per-tensor scales factor out of the sum, so they multiply once here, with alpha.
    const int warp = tid / 32, lane = tid % 32;
    const float scale = alpha * __ldg(scale_a) * __ldg(scale_b);
    store_tile(d, C, ldc, M, N, m0 + row0 + 16 * warp + lane / 4, n0, lane, scale, beta,
               m0 + BM <= M && n0 + BN <= N && vec_c);
}

template <int CHUNK>
void gemm_cfg(int M, int N, int K, float alpha, const __nv_fp8_e4m3* A, int lda,
              const __nv_fp8_e4m3* B, int ldb, const float* scale_a, const float* scale_b,
              float beta, __nv_bfloat16* C, int ldc, cudaStream_t stream = 0) {
    if (M == 0 || N == 0) return;                            // nothing to write
    if (K == 0) return scale_c(M, N, beta, C, ldc, stream);  // no product: C = beta * C
    static const bool opted_in = [] {  // more than 48 KB of shared memory must be asked for
        GEMM_CUDA_CHECK(cudaFuncSetAttribute(
            fp8_kernel<CHUNK>, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_BYTES));
        return true;
    }();
    (void)opted_in;
    // A and B themselves, or padded copies where a row does not start on 16 bytes.
    const AlignedByteOperands ops(A, lda, B, ldb, M, N, K, stream);
    const CUtensorMap map_a = make_map(ops.a.p, M, K, ops.a.ld, BM, BK);  // boxes (128, 128) of A
    const CUtensorMap map_b = make_map(ops.b.p, N, K, ops.b.ld, BN, BK);  // boxes (128, 128) of B
    const bool vec_c = ldc % 2 == 0 && reinterpret_cast<std::uintptr_t>(C) % 4 == 0;
    const int blocks = ((M + BM - 1) / BM) * ((N + BN - 1) / BN);
    fp8_kernel<CHUNK><<<blocks, THREADS, SMEM_BYTES, stream>>>(map_a, map_b, M, N, K, alpha,
                                                               scale_a, scale_b, beta, C, ldc, vec_c);
    GEMM_CUDA_CHECK_LAUNCH();
}

// The chapter: chunks of 8 k-tiles (tools/measuring/tune.cu times 1, 2 and 8 beside it).
inline void gemm(int M, int N, int K, float alpha, const __nv_fp8_e4m3* A, int lda,
                 const __nv_fp8_e4m3* B, int ldb, const float* scale_a, const float* scale_b,
                 float beta, __nv_bfloat16* C, int ldc, cudaStream_t stream = 0) {
    gemm_cfg<8>(M, N, K, alpha, A, lda, B, ldb, scale_a, scale_b, beta, C, ldc, stream);
}

}  // namespace ch21

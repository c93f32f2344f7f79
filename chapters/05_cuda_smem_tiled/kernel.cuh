// Chapter 05: shared-memory tiling. Still one thread per element of C, same mapping as 04.
// New vs 04: the k loop is cut into steps of BK. Per step, the block copies a (BM, BK) tile of
// A and a (BK, BN) tile of B into shared memory (one element per thread, coalesced, zero-filled
// past the edges), then every thread runs its dot product out of shared memory.
// Napkin math: each element loaded from global memory is reused by 32 threads, so global
// traffic drops from 2MNK to MNK(1/BM + 1/BN) floats: 8 FLOP/byte instead of 0.25.
// Preconditions: none (gridDim.y <= 65535: a taller C is launched in slices of rows, by the
// general-shape layer in common/device/general_shape.cuh).
#pragma once

#include <cuda_runtime.h>

#include "cuda_check.cuh"
#include "general_shape.cuh"

namespace ch05 {

constexpr int BM = 32;  // rows of C per block: threadIdx.y walks them
constexpr int BN = 32;  // columns of C per block: threadIdx.x walks them (the coalesced way)
constexpr int BK = 32;  // k step: the width of the A tile and the height of the B tile
static_assert(BK == BM && BK == BN, "one thread loads one element of each tile: BM == BN == BK");

static __global__ void __launch_bounds__(BM* BN)
    gemm_kernel(int M, int N, int K, float alpha, const float* __restrict__ A, int lda,
                const float* __restrict__ B, int ldb, float beta, float* __restrict__ C, int ldc) {
    __shared__ float As[BM][BK];  // (BM, BK) tile of A
    __shared__ float Bs[BK][BN];  // (BK, BN) tile of B

    const int ty = threadIdx.y, tx = threadIdx.x;  // row, column inside the tile
    const int i = blockIdx.y * BM + ty;            // row of C: the same for the whole warp
    const int j = blockIdx.x * BN + tx;            // column of C: neighbours in a warp are adjacent
    // No early return: threads past the edge still help load the tiles and reach every barrier.

    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += BK) {
        // BEGIN SOLUTION: each thread copies A(i, k0+tx) and B(k0+ty, j), 0 outside the matrices
        As[ty][tx] = (i < M && k0 + tx < K) ? A[i * lda + k0 + tx] : 0.0f;
        Bs[ty][tx] = (k0 + ty < K && j < N) ? B[(k0 + ty) * ldb + j] : 0.0f;
        // END SOLUTION
        __syncthreads();  // both tiles are complete before anyone reads them

        // BEGIN SOLUTION: dot product of row ty of As and column tx of Bs
#pragma unroll
        for (int k = 0; k < BK; ++k) acc += As[ty][k] * Bs[k][tx];  // As: broadcast, Bs: 32 banks
        // END SOLUTION
        __syncthreads();  // everyone is done reading before the next step overwrites the tiles
    }

    if (i >= M || j >= N) return;
    // beta == 0 must not read C: it may hold garbage (NaN * 0 = NaN).
    C[i * ldc + j] = (beta == 0.0f) ? alpha * acc : alpha * acc + beta * C[i * ldc + j];
}

inline void gemm(int M, int N, int K, float alpha, const float* A, int lda, const float* B, int ldb,
                 float beta, float* C, int ldc, cudaStream_t stream = 0) {
    if (M == 0 || N == 0) return;  // a zero grid dimension is a launch error
    const dim3 block(BN, BM);      // x: columns, y: rows
    gemm::for_each_grid_slice(M, BM, [&](long long i0, int m) {  // rows i0 .. i0+m
        const dim3 grid((N + BN - 1) / BN, (m + BM - 1) / BM);
        gemm_kernel<<<grid, block, 0, stream>>>(m, N, K, alpha, A + i0 * lda, lda, B, ldb, beta,
                                                C + i0 * ldc, ldc);
        GEMM_CUDA_CHECK_LAUNCH();
    });
}

}  // namespace ch05

// Chapter 04: the same one-thread-per-element kernel, with threadIdx.x walking the COLUMNS of C.
// New vs 03: two index lines and the grid are swapped. Now the 32 threads of a warp read 32
// consecutive floats of B (one 128-byte line) and write 32 consecutive floats of C, while they
// all read the same element of A (a broadcast). Same FLOPs, far fewer memory transactions.
// Napkin math: per warp and k, 1 line of B + 1 broadcast word of A, instead of 32 lines of A.
// Preconditions: none (gridDim.y <= 65535: a taller C is launched in slices of rows, by the
// general-shape layer in common/device/general_shape.cuh).
#pragma once

#include <cuda_runtime.h>

#include "cuda_check.cuh"
#include "general_shape.cuh"

namespace ch04 {

constexpr int BM = 32;  // rows of C per block: threadIdx.y walks them
constexpr int BN = 32;  // columns of C per block: threadIdx.x walks them (the coalesced way)

static __global__ void __launch_bounds__(BM* BN)
    gemm_kernel(int M, int N, int K, float alpha, const float* __restrict__ A, int lda,
                const float* __restrict__ B, int ldb, float beta, float* __restrict__ C, int ldc) {
    const int i = blockIdx.y * BM + threadIdx.y;  // row of C: the same for the whole warp
    const int j = blockIdx.x * BN + threadIdx.x;  // column of C: neighbours in a warp are adjacent
    if (i >= M || j >= N) return;                 // the last block row/column hangs over the edge

    float acc = 0.0f;
    // BEGIN SOLUTION: dot product of row i of A and column j of B
    for (int k = 0; k < K; ++k) acc += A[i * lda + k] * B[k * ldb + j];
    // END SOLUTION
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

}  // namespace ch04

// Chapter 03: the first GPU kernel. One thread computes one element of C with a dot product.
// New vs 02 (CPU): the i/j loops become a grid of 32x32-thread blocks; the k loop stays.
// The thread -> element mapping is deliberately the "wrong" one: threadIdx.x walks the ROWS of
// C, so the 32 threads of a warp read A and write C 32 rows apart (lda/ldc floats) instead of
// side by side. Chapter 04 swaps two lines and fixes that.
// Napkin math: 2 loads (8 bytes) per FMA (2 FLOP) -> 0.25 FLOP/byte if nothing were cached.
// Preconditions: none (gridDim.y <= 65535: a wider C is launched in slices of columns, by the
// general-shape layer in common/device/general_shape.cuh).
#pragma once

#include <cuda_runtime.h>

#include "cuda_check.cuh"
#include "general_shape.cuh"

namespace ch03 {

constexpr int BM = 32;  // rows of C per block: threadIdx.x walks them (the "wrong" way)
constexpr int BN = 32;  // columns of C per block: threadIdx.y walks them

static __global__ void __launch_bounds__(BM* BN)
    gemm_kernel(int M, int N, int K, float alpha, const float* __restrict__ A, int lda,
                const float* __restrict__ B, int ldb, float beta, float* __restrict__ C, int ldc) {
    const int i = blockIdx.x * BM + threadIdx.x;  // row of C: warp neighbours are lda apart in A
    const int j = blockIdx.y * BN + threadIdx.y;  // column of C: the same for the whole warp
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
    const dim3 block(BM, BN);      // x: rows, y: columns
    gemm::for_each_grid_slice(N, BN, [&](long long j0, int n) {  // columns j0 .. j0+n
        const dim3 grid((M + BM - 1) / BM, (n + BN - 1) / BN);
        gemm_kernel<<<grid, block, 0, stream>>>(M, n, K, alpha, A, lda, B + j0, ldb, beta, C + j0,
                                                ldc);
        GEMM_CUDA_CHECK_LAUNCH();
    });
}

}  // namespace ch03

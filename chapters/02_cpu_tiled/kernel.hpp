// Chapter 02: i-k-j loop order, cache blocking and OpenMP threads.
// New: (1) i-k-j order makes the inner loop walk a row of B and a row of C with stride 1, so the
// compiler turns it into SIMD multiply-adds; (2) blocks of BK x BN of B are reused by BM rows of C
// while they sit in cache; (3) threads take disjoint row blocks of C, so they never share a write.
// Napkin math: at 1024 the whole of B (4 MiB) does not fit in L2, one BK x BN block (128 KiB) does;
// each B element loaded from memory is then used BM times instead of once.
// Preconditions: none (any M, N, K >= 0, lda >= K, ldb >= N, ldc >= N).
#pragma once

#include <algorithm>

namespace ch02 {

constexpr int BM = 32;   // rows of C per block: one thread's unit of work
constexpr int BN = 512;  // columns of C (and B) per block: a row segment of C stays in L1
constexpr int BK = 64;   // rows of B per block: BK x BN floats = 128 KiB, stays in L2

inline void gemm(int M, int N, int K, float alpha, const float* A, int lda, const float* B, int ldb,
                 float beta, float* C, int ldc) {
#pragma omp parallel for schedule(dynamic)
    for (int i0 = 0; i0 < M; i0 += BM) {
        const int i1 = std::min(i0 + BM, M);
        // C = beta * C first, then the products are added in; beta == 0 must not read C.
        for (int i = i0; i < i1; ++i)
            for (int j = 0; j < N; ++j)
                C[i * ldc + j] = beta == 0.0f ? 0.0f : beta * C[i * ldc + j];

        for (int k0 = 0; k0 < K; k0 += BK) {
            const int k1 = std::min(k0 + BK, K);
            for (int j0 = 0; j0 < N; j0 += BN) {
                const int j1 = std::min(j0 + BN, N);
                // BEGIN SOLUTION: accumulate this (BM x BK) * (BK x BN) block product into C
                for (int i = i0; i < i1; ++i) {
                    float* __restrict c = C + i * ldc;
                    for (int k = k0; k < k1; ++k) {
                        const float a = alpha * A[i * lda + k];
                        const float* __restrict b = B + k * ldb;
#pragma omp simd
                        for (int j = j0; j < j1; ++j) c[j] += a * b[j];
                    }
                }
                // END SOLUTION
            }
        }
    }
}

}  // namespace ch02

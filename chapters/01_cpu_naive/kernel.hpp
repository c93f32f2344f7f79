// Chapter 01: the row-major i-j-k triple loop, the definition every later chapter is checked
// against. New: everything. C[i][j] = alpha * sum_k A[i][k] * B[k][j] + beta * C[i][j]. Napkin
// math: 2*M*N*K FLOPs, one thread, and the inner loop walks B down a column (a stride of ldb floats
// per step), so almost every B load misses the cache once N is large: expect well under 1 GFLOP/s
// at 1024. Preconditions: none (any M, N, K >= 0, lda >= K, ldb >= N, ldc >= N).
#pragma once

namespace ch01 {

inline void gemm(int M, int N, int K, float alpha, const float* A, int lda, const float* B, int ldb,
                 float beta, float* C, int ldc) {
    for (int i = 0; i < M; ++i) {
        for (int j = 0; j < N; ++j) {
            // BEGIN SOLUTION: dot product of row i of A with column j of B
            float acc = 0.0f;
            for (int k = 0; k < K; ++k) acc += A[i * lda + k] * B[k * ldb + j];
            // beta == 0 means "C is output only": never read it (it may hold garbage or NaN).
            C[i * ldc + j] = beta == 0.0f ? alpha * acc : alpha * acc + beta * C[i * ldc + j];
            // END SOLUTION
        }
    }
}

}  // namespace ch01

// WMMA on a block tile in shared memory, as taught in chapter 09: a warp's (WM, WN) tile of C is
// FM x FN accumulator fragments; per 16-deep step it loads FM fragments of A and FN of B from the
// padded tiles As (BM, LDA_S) and Bs (BK, LDB_S) and multiplies every pair; the epilogue stages
// each fragment through a per-warp (16, LDC_S) float buffer and writes C bounds-checked.
// Used by chapters 09 and 10. Cfg provides FM, FN, WM, WN, LDA_S, LDB_S, LDC_S.
#pragma once

#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <mma.h>

namespace gemm::dev {

namespace wmma = nvcuda::wmma;

constexpr int WMMA_M = 16, WMMA_N = 16, WMMA_K = 16;  // the tensor-core tile shape of mma_sync

using FragA = wmma::fragment<wmma::matrix_a, WMMA_M, WMMA_N, WMMA_K, __half, wmma::row_major>;
using FragB = wmma::fragment<wmma::matrix_b, WMMA_M, WMMA_N, WMMA_K, __half, wmma::row_major>;
using FragC = wmma::fragment<wmma::accumulator, WMMA_M, WMMA_N, WMMA_K, float>;

// This warp's fragments for the 16-deep step kk of the stored tiles: FM of A (16, 16) from its
// WM rows of As, FN of B (16, 16) from its WN columns of Bs.
template <class Cfg>
__device__ inline void load_frags(FragA (&a)[Cfg::FM], FragB (&b)[Cfg::FN], const __half* As,
                                  const __half* Bs, int kk, int wm, int wn) {
    const __half* Aw = As + wm * Cfg::WM * Cfg::LDA_S + kk;  // (WM, 16) of this warp
    const __half* Bw = Bs + kk * Cfg::LDB_S + wn * Cfg::WN;  // (16, WN) of this warp
#pragma unroll
    for (int i = 0; i < Cfg::FM; ++i)
        wmma::load_matrix_sync(a[i], Aw + i * WMMA_M * Cfg::LDA_S, Cfg::LDA_S);
#pragma unroll
    for (int j = 0; j < Cfg::FN; ++j) wmma::load_matrix_sync(b[j], Bw + j * WMMA_N, Cfg::LDB_S);
}

// acc (WM, WN) += a (WM, 16) * b (16, WN): every fragment is used FN or FM times.
template <class Cfg>
__device__ inline void mma_frags(FragC (&acc)[Cfg::FM][Cfg::FN], const FragA (&a)[Cfg::FM],
                                 const FragB (&b)[Cfg::FN]) {
#pragma unroll
    for (int i = 0; i < Cfg::FM; ++i)
#pragma unroll
        for (int j = 0; j < Cfg::FN; ++j) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
}

// Epilogue of warp (wm, wn) of the block tile at (m0, n0), one fragment at a time through the
// warp's staging buffer Cw (16, LDC_S): C = alpha * acc + beta * C with bounds checks; C is not
// read when beta == 0 (it may hold garbage: NaN * 0 = NaN).
template <class Cfg>
__device__ inline void store_acc(FragC (&acc)[Cfg::FM][Cfg::FN], float* Cw, int M, int N,
                                 float alpha, float beta, float* C, int ldc, int m0, int n0, int wm,
                                 int wn, int lane) {
#pragma unroll
    for (int i = 0; i < Cfg::FM; ++i) {
#pragma unroll
        for (int j = 0; j < Cfg::FN; ++j) {
            // The fragment covers C(r0..r0+15, c0..c0+15); the test is warp-uniform.
            const int r0 = m0 + wm * Cfg::WM + i * WMMA_M, c0 = n0 + wn * Cfg::WN + j * WMMA_N;
            if (r0 >= M || c0 >= N) continue;
            wmma::store_matrix_sync(Cw, acc[i][j], Cfg::LDC_S, wmma::mem_row_major);
            __syncwarp();  // the whole fragment is in Cw before lanes read what other lanes wrote
            for (int e = lane; e < WMMA_M * WMMA_N; e += 32) {
                const int r = r0 + e / WMMA_N, c = c0 + e % WMMA_N;
                if (r < M && c < N) {
                    const float v = alpha * Cw[(e / WMMA_N) * Cfg::LDC_S + e % WMMA_N];
                    float* p = &C[r * ldc + c];
                    *p = beta == 0.0f ? v : v + beta * *p;
                }
            }
            __syncwarp();  // every lane has read Cw before the next fragment overwrites it
        }
    }
}

}  // namespace gemm::dev

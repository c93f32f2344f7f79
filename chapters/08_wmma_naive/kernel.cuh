// Chapter 08: tensor cores through WMMA. One warp computes one 16x16 tile of C.
// New vs the CUDA-core chapters: T = __half and the multiply-adds run on tensor cores: one
// wmma::mma_sync is a 16x16x16 product (8192 FLOP) for the whole warp. Fragments come straight
// from global memory, so there is no reuse beyond the 16x16 tile itself.
// Napkin math: per 16x16x16 step a warp reads 2 * 16*16 halves (1 KB) for 8192 FLOP = 8 FLOP/byte;
// from DRAM at ~3 TB/s that is ~24 TFLOP/s, whatever L1/L2 catch is the upside.
// Preconditions: none. The fast path (load/store_matrix_sync on global memory) needs a full 16x16
// tile, ld % 8 == 0 for A and B (ld % 4 == 0 for C) and 32-byte aligned base pointers; every other
// tile is staged, zero-padded, through a per-warp shared-memory buffer.
#pragma once

#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <mma.h>

#include "cuda_check.cuh"
#include "device/vec_io.cuh"

namespace ch08 {

namespace wmma = nvcuda::wmma;

constexpr int WMMA_M = 16, WMMA_N = 16, WMMA_K = 16;  // the tensor-core tile shape of mma_sync
constexpr int WARPS_M = 2, WARPS_N = 2;               // warps per block, as a 2x2 grid of tiles
constexpr int WARPS = WARPS_M * WARPS_N;
constexpr int THREADS = 32 * WARPS;
constexpr int BM = WARPS_M * WMMA_M;  // 32 rows of C per block
constexpr int BN = WARPS_N * WMMA_N;  // 32 columns of C per block

// load_matrix_sync / store_matrix_sync want 256-bit aligned pointers.
inline bool aligned32(const void* p) {
    return gemm::dev::aligned(p, 32);
}

// The slow path for one operand tile: copies rows [r0, r0+16) x cols [c0, c0+16) of a row-major
// (rows, cols) matrix into a dense 16x16 shared tile, zero outside the matrix.
__device__ inline void stage_tile(__half* tile /* (16, 16) */, const __half* src, int rows,
                                  int cols, int ld, int r0, int c0, int lane) {
    for (int e = lane; e < WMMA_M * WMMA_K; e += 32) {
        const int r = e / 16, c = e % 16;
        const bool inside = r0 + r < rows && c0 + c < cols;
        tile[e] = inside ? src[(r0 + r) * ld + c0 + c] : __float2half(0.0f);
    }
}

// fast_a / fast_b / fast_c: the ld and alignment preconditions of the global-memory fast path.
static __global__ void __launch_bounds__(THREADS)
    wmma_naive_kernel(int M, int N, int K, float alpha, const __half* A, int lda, const __half* B,
                      int ldb, float beta, float* C, int ldc, bool fast_a, bool fast_b,
                      bool fast_c) {
    // Per-warp staging buffers for edge tiles and misaligned operands.
    __shared__ __align__(32) __half As[WARPS][WMMA_M * WMMA_K];  // (16, 16) per warp
    __shared__ __align__(32) __half Bs[WARPS][WMMA_K * WMMA_N];  // (16, 16) per warp
    __shared__ __align__(32) float Cs[WARPS][WMMA_M * WMMA_N];   // (16, 16) per warp

    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int tiles_n = (N + BN - 1) / BN;  // 1D grid: block b covers block-row b / tiles_n
    // This warp's 16x16 tile of C starts at (m0, n0).
    const int m0 = (blockIdx.x / tiles_n) * BM + (warp / WARPS_N) * WMMA_M;
    const int n0 = (blockIdx.x % tiles_n) * BN + (warp % WARPS_N) * WMMA_N;
    // A tile outside C has nothing to do; leaving early is safe: no __syncthreads below.
    if (m0 >= M || n0 >= N) return;
    const bool full_m = m0 + WMMA_M <= M, full_n = n0 + WMMA_N <= N;

    using FragA = wmma::fragment<wmma::matrix_a, WMMA_M, WMMA_N, WMMA_K, __half, wmma::row_major>;
    using FragB = wmma::fragment<wmma::matrix_b, WMMA_M, WMMA_N, WMMA_K, __half, wmma::row_major>;
    using FragC = wmma::fragment<wmma::accumulator, WMMA_M, WMMA_N, WMMA_K, float>;
    FragC acc;  // (16, 16) of C, spread over the warp's registers
    wmma::fill_fragment(acc, 0.0f);

    for (int k0 = 0; k0 < K; k0 += WMMA_K) {
        // BEGIN SOLUTION: load the A and B tiles at k0 (direct or staged), then mma_sync
        const bool full_k = k0 + WMMA_K <= K;
        FragA a;  // A(m0..m0+15, k0..k0+15)
        FragB b;  // B(k0..k0+15, n0..n0+15)
        if (fast_a && full_m && full_k) {
            wmma::load_matrix_sync(a, A + m0 * lda + k0, lda);
        } else {
            stage_tile(As[warp], A, M, K, lda, m0, k0, lane);
            __syncwarp();  // the staged tile is complete before the warp reads it as a fragment
            wmma::load_matrix_sync(a, As[warp], WMMA_K);
        }
        if (fast_b && full_k && full_n) {
            wmma::load_matrix_sync(b, B + k0 * ldb + n0, ldb);
        } else {
            stage_tile(Bs[warp], B, K, N, ldb, k0, n0, lane);
            __syncwarp();  // same for B
            wmma::load_matrix_sync(b, Bs[warp], WMMA_N);
        }
        wmma::mma_sync(acc, a, b, acc);  // acc += a * b on the tensor cores
        __syncwarp();  // every lane has read As/Bs before the next step overwrites them
        // END SOLUTION
    }

    // Epilogue: C = alpha * acc + beta * C, never reading C when beta == 0.
    // BEGIN SOLUTION: alpha*acc + beta*C: direct if full and aligned, else staged and checked
    if (fast_c && full_m && full_n) {
        float* c_tile = C + m0 * ldc + n0;  // (16, 16) of C in global memory
        if (beta != 0.0f) {
            // An accumulator fragment loaded from C has the same element-to-lane layout as acc.
            FragC c_frag;
            wmma::load_matrix_sync(c_frag, c_tile, ldc, wmma::mem_row_major);
            for (int t = 0; t < acc.num_elements; ++t)
                acc.x[t] = alpha * acc.x[t] + beta * c_frag.x[t];
        } else {
            for (int t = 0; t < acc.num_elements; ++t) acc.x[t] = alpha * acc.x[t];
        }
        wmma::store_matrix_sync(c_tile, acc, ldc, wmma::mem_row_major);
    } else {
        wmma::store_matrix_sync(Cs[warp], acc, WMMA_N, wmma::mem_row_major);
        __syncwarp();  // the whole tile is in Cs before lanes read elements other lanes wrote
        for (int e = lane; e < WMMA_M * WMMA_N; e += 32) {
            const int r = m0 + e / 16, c = n0 + e % 16;
            if (r < M && c < N) {
                float* p = &C[r * ldc + c];
                *p = beta == 0.0f ? alpha * Cs[warp][e] : alpha * Cs[warp][e] + beta * *p;
            }
        }
    }
    // END SOLUTION
}

inline void gemm(int M, int N, int K, float alpha, const __half* A, int lda, const __half* B,
                 int ldb, float beta, float* C, int ldc, cudaStream_t stream = 0) {
    if (M == 0 || N == 0) return;  // nothing to write; a zero-sized grid would be a launch error
    const bool fast_a = lda % 8 == 0 && aligned32(A);  // ldm multiple of 8 halves = 16 bytes
    const bool fast_b = ldb % 8 == 0 && aligned32(B);
    const bool fast_c = ldc % 4 == 0 && aligned32(C);  // ldm multiple of 4 floats = 16 bytes
    const int blocks = ((M + BM - 1) / BM) * ((N + BN - 1) / BN);  // 1D: no 65535 limit on tall C
    wmma_naive_kernel<<<blocks, THREADS, 0, stream>>>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc,
                                                      fast_a, fast_b, fast_c);
    GEMM_CUDA_CHECK_LAUNCH();
}

}  // namespace ch08

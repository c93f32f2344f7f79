// Vector I/O: 16-byte loads and stores, and the run-time test that allows them. Taught in
// chapter 06 (float4, fp32) and chapter 09 (8 halves, fp16); every chapter after takes them here.
// A vector access needs an aligned address; the chapters check the pointers and leading dimensions
// on the host and pick the vector or the scalar instance of their kernel (VEC).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace gemm::dev {

// Is p a multiple of `bytes` (a power of two)? The host-side half of every vector fast path.
inline bool aligned(const void* p, std::size_t bytes) {
    return reinterpret_cast<std::uintptr_t>(p) % bytes == 0;
}
inline bool aligned16(const void* p) {
    return aligned(p, 16);
}

// ---- fp32: one float4 of a row (chapters 06, 07)
// -------------------------------------------------

// p[0..3] of one row as a float4. Entries at column >= cols, or all four when the row is
// outside the matrix, are 0 (so edge tiles add nothing). VEC: cols % 4 == 0 and p is 16-byte
// aligned, so the chunk is wholly inside or wholly outside: one predicated 128-bit load.
template <bool VEC>
__device__ __forceinline__ float4 load4(const float* p, bool row_ok, int col, int cols) {
    float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (VEC) return (row_ok && col < cols) ? *reinterpret_cast<const float4*>(p) : v;
    if (!row_ok) return v;
    if (col + 0 < cols) v.x = p[0];
    if (col + 1 < cols) v.y = p[1];
    if (col + 2 < cols) v.z = p[2];
    if (col + 3 < cols) v.w = p[3];
    return v;
}

// p[0..3] = alpha * v + beta * p[0..3], only for columns < cols. beta == 0 never reads C
// (it may hold garbage: NaN * 0 = NaN).
template <bool VEC>
__device__ __forceinline__ void store4(float* p, int col, int cols, float4 v, float alpha,
                                       float beta) {
    v = make_float4(alpha * v.x, alpha * v.y, alpha * v.z, alpha * v.w);
    if (VEC) {  // cols % 4 == 0: the chunk is wholly inside or wholly outside
        if (col >= cols) return;
        if (beta != 0.0f) {
            const float4 c = *reinterpret_cast<const float4*>(p);
            v = make_float4(v.x + beta * c.x, v.y + beta * c.y, v.z + beta * c.z, v.w + beta * c.w);
        }
        *reinterpret_cast<float4*>(p) = v;
        return;
    }
    const float r[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
    for (int q = 0; q < 4; ++q)
        if (col + q < cols) p[q] = (beta == 0.0f) ? r[q] : r[q] + beta * p[q];
}

// This thread's float4 chunks of the (BM, BK) tile of A and the (BK, BN) tile of B at step k0,
// global -> registers. Consecutive threads take consecutive chunks of a row: coalesced.
// Cfg provides BK, BN, THREADS, A_LOADS = BM*BK/4/THREADS and B_LOADS = BK*BN/4/THREADS.
template <class Cfg, bool VEC>
__device__ __forceinline__ void load_global(int M, int N, int K, const float* A, int lda,
                                            const float* B, int ldb, int m0, int n0, int k0,
                                            float4 (&ra)[Cfg::A_LOADS],
                                            float4 (&rb)[Cfg::B_LOADS]) {
    constexpr int BK = Cfg::BK, BN = Cfg::BN, THREADS = Cfg::THREADS;
#pragma unroll
    for (int l = 0; l < Cfg::A_LOADS; ++l) {
        const int c = threadIdx.x + l * THREADS;                         // chunk of (BM, BK/4)
        const int row = m0 + c / (BK / 4), col = k0 + c % (BK / 4) * 4;  // in A
        ra[l] = load4<VEC>(A + (row < M ? row * lda + col : 0), row < M, col, K);
    }
#pragma unroll
    for (int l = 0; l < Cfg::B_LOADS; ++l) {
        const int c = threadIdx.x + l * THREADS;                         // chunk of (BK, BN/4)
        const int row = k0 + c / (BN / 4), col = n0 + c % (BN / 4) * 4;  // in B
        rb[l] = load4<VEC>(B + (row < K ? row * ldb + col : 0), row < K, col, N);
    }
}

}  // namespace gemm::dev

// Chapter 06: register tiling. Each thread computes a (TM, TN) = (8, 8) tile of C in registers.
// New vs 05: per k, a thread reads a column of TM values of the A tile and a row of TN values
// of the B tile into registers and does TM*TN FMAs with them (an outer product), so each value
// read from shared memory feeds TN (or TM) FMAs instead of one. A is stored transposed, (BK, BM),
// so both fragments are contiguous and read as float4; global loads are float4 too.
// Napkin math: smem reads per FMA drop from 2 to (TM+TN)/(TM*TN) = 1/4; global traffic is
// MNK(1/BM + 1/BN) floats = 32 FLOP/byte at 128x128 (05: 8).
// Preconditions: none. float4 loads need lda, ldb, ldc, K, N % 4 == 0 and 16-byte aligned
// pointers: checked at run time, else the same kernel, scalar loads (load4/store4, in
// common/device/vec_io.cuh). gridDim.y <= 65535: a taller C is launched in slices of rows.
#pragma once

#include <cuda_runtime.h>

#include "cuda_check.cuh"
#include "general_shape.cuh"
#include "device/vec_io.cuh"

namespace ch06 {

using gemm::dev::aligned16;
using gemm::dev::load_global;
using gemm::dev::store4;

template <int BM_, int BN_, int BK_, int TM_, int TN_>
struct Config {
    static constexpr int BM = BM_, BN = BN_, BK = BK_;     // block tile (BM, BN), k step BK
    static constexpr int TM = TM_, TN = TN_;               // thread tile (TM, TN)
    static constexpr int THREADS = (BM / TM) * (BN / TN);  // one thread per thread tile
    static constexpr int A_LOADS = BM * BK / 4 / THREADS;  // float4 chunks of A per thread and step
    static constexpr int B_LOADS = BK * BN / 4 / THREADS;  // float4 chunks of B per thread and step
    static_assert(BM % TM == 0 && BN % TN == 0, "thread tiles must tile the block tile");
    static_assert(TM % 4 == 0 && TN % 4 == 0, "fragments are read from shared memory as float4");
    static_assert(BK % 4 == 0 && BN % 4 == 0,
                  "tiles are copied in float4 chunks along k (A), n (B)");
    static_assert((BM * BK / 4) % THREADS == 0 && (BK * BN / 4) % THREADS == 0,
                  "every thread copies the same number of chunks");
    static_assert(THREADS % 32 == 0 && THREADS <= 1024, "whole warps, at most 1024 threads");
};

// Candidates for the H100 sweep; gemm() uses Default.
namespace configs {
using c128x128x8 = Config<128, 128, 8, 8, 8>;    // 256 threads
using c128x128x16 = Config<128, 128, 16, 8, 8>;  // 256 threads, half the barriers per k
using c128x64x8 = Config<128, 64, 8, 8, 8>;      // 128 threads: more blocks for mid sizes
using c64x64x8 = Config<64, 64, 8, 8, 8>;        // 64 threads
using Default = c128x128x16;
}  // namespace configs

// Registers -> shared memory. A goes in transposed, As[k][m], so that a thread's TM values
// for one k are contiguous (float4 reads in the inner loop); B keeps its layout.
template <class Cfg>
static __device__ __forceinline__ void store_shared(const float4 (&ra)[Cfg::A_LOADS],
                                                    const float4 (&rb)[Cfg::B_LOADS],
                                                    float (*As)[Cfg::BM], float (*Bs)[Cfg::BN]) {
    constexpr int BK = Cfg::BK, BN = Cfg::BN, THREADS = Cfg::THREADS;
#pragma unroll
    for (int l = 0; l < Cfg::A_LOADS; ++l) {
        const int c = threadIdx.x + l * THREADS;
        const int m = c / (BK / 4), k = c % (BK / 4) * 4;  // A(m, k..k+3) -> As[k..k+3][m]
        As[k + 0][m] = ra[l].x;
        As[k + 1][m] = ra[l].y;
        As[k + 2][m] = ra[l].z;
        As[k + 3][m] = ra[l].w;
    }
#pragma unroll
    for (int l = 0; l < Cfg::B_LOADS; ++l) {
        const int c = threadIdx.x + l * THREADS;
        const int k = c / (BN / 4), n = c % (BN / 4) * 4;  // B(k, n..n+3) -> Bs[k][n..n+3]
        *reinterpret_cast<float4*>(&Bs[k][n]) = rb[l];
    }
}

// Fragments for one k: a = As[k][tm0 .. tm0+TM), b = Bs[k][tn0 .. tn0+TN), as float4 reads.
template <class Cfg>
static __device__ __forceinline__ void load_fragments(const float (*As)[Cfg::BM],
                                                      const float (*Bs)[Cfg::BN], int k, int tm0,
                                                      int tn0, float (&a)[Cfg::TM],
                                                      float (&b)[Cfg::TN]) {
#pragma unroll
    for (int s = 0; s < Cfg::TM / 4; ++s) {
        const float4 v = *reinterpret_cast<const float4*>(&As[k][tm0 + 4 * s]);
        a[4 * s + 0] = v.x, a[4 * s + 1] = v.y, a[4 * s + 2] = v.z, a[4 * s + 3] = v.w;
    }
#pragma unroll
    for (int s = 0; s < Cfg::TN / 4; ++s) {
        const float4 v = *reinterpret_cast<const float4*>(&Bs[k][tn0 + 4 * s]);
        b[4 * s + 0] = v.x, b[4 * s + 1] = v.y, b[4 * s + 2] = v.z, b[4 * s + 3] = v.w;
    }
}

template <class Cfg, bool VEC>
static __global__ void __launch_bounds__(Cfg::THREADS)
    gemm_kernel(int M, int N, int K, float alpha, const float* __restrict__ A, int lda,
                const float* __restrict__ B, int ldb, float beta, float* __restrict__ C, int ldc) {
    constexpr int BM = Cfg::BM, BN = Cfg::BN, BK = Cfg::BK, TM = Cfg::TM, TN = Cfg::TN;
    __shared__ __align__(16) float As[BK][BM];  // (BK, BM): the A tile, transposed
    __shared__ __align__(16) float Bs[BK][BN];  // (BK, BN): the B tile

    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;  // block tile origin in C
    const int tm0 = threadIdx.x / (BN / TN) * TM;          // thread tile origin in the block tile
    const int tn0 = threadIdx.x % (BN / TN) * TN;

    float acc[TM][TN] = {};  // (TM, TN) tile of C, in registers

    const int kTiles = (K + BK - 1) / BK;
    for (int t = 0; t < kTiles; ++t) {
        // BEGIN SOLUTION: copy step t's tiles of A and B into As (transposed) and Bs
        float4 ra[Cfg::A_LOADS], rb[Cfg::B_LOADS];  // this thread's chunks, in flight
        load_global<Cfg, VEC>(M, N, K, A, lda, B, ldb, m0, n0, t * BK, ra, rb);
        store_shared<Cfg>(ra, rb, As, Bs);
        // END SOLUTION
        __syncthreads();  // both tiles are complete before anyone reads them

#pragma unroll
        for (int k = 0; k < BK; ++k) {
            // BEGIN SOLUTION: read the fragments for this k and add their outer product to acc
            float a[TM], b[TN];  // (TM) column of the A tile, (TN) row of the B tile
            load_fragments<Cfg>(As, Bs, k, tm0, tn0, a, b);
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] += a[i] * b[j];
            // END SOLUTION
        }
        __syncthreads();  // everyone is done reading before the next step overwrites the tiles
    }

#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int row = m0 + tm0 + i;
        if (row >= M) break;  // rows are increasing: the rest are past the edge too
#pragma unroll
        for (int j = 0; j < TN; j += 4) {
            const int col = n0 + tn0 + j;
            store4<VEC>(C + row * ldc + col, col, N,
                        make_float4(acc[i][j], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]), alpha,
                        beta);
        }
    }
}

// gemm() with an explicit tile configuration (used to sweep configs::* on a new GPU).
template <class Cfg>
inline void gemm_cfg(int M, int N, int K, float alpha, const float* A, int lda, const float* B,
                     int ldb, float beta, float* C, int ldc, cudaStream_t stream = 0) {
    if (M == 0 || N == 0) return;  // a zero grid dimension is a launch error
    // float4 loads/stores need every row start 16-byte aligned (base pointers, leading dims);
    // with K, N % 4 == 0 too, a float4 chunk never straddles the edge of a matrix.
    const bool vec = lda % 4 == 0 && ldb % 4 == 0 && ldc % 4 == 0 && K % 4 == 0 && N % 4 == 0 &&
                     aligned16(A) && aligned16(B) && aligned16(C);
    const dim3 block(Cfg::THREADS);
    gemm::for_each_grid_slice(M, Cfg::BM, [&](long long i0, int m) {  // rows i0 .. i0+m
        const dim3 grid((N + Cfg::BN - 1) / Cfg::BN, (m + Cfg::BM - 1) / Cfg::BM);
        const float* Ai = A + i0 * lda;  // a slice starts BM-row aligned: alignment unchanged
        float* Ci = C + i0 * ldc;
        if (vec)
            gemm_kernel<Cfg, true>
                <<<grid, block, 0, stream>>>(m, N, K, alpha, Ai, lda, B, ldb, beta, Ci, ldc);
        else
            gemm_kernel<Cfg, false>
                <<<grid, block, 0, stream>>>(m, N, K, alpha, Ai, lda, B, ldb, beta, Ci, ldc);
        GEMM_CUDA_CHECK_LAUNCH();
    });
}

inline void gemm(int M, int N, int K, float alpha, const float* A, int lda, const float* B, int ldb,
                 float beta, float* C, int ldc, cudaStream_t stream = 0) {
    gemm_cfg<configs::Default>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, stream);
}

}  // namespace ch06

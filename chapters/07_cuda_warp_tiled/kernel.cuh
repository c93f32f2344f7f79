// Chapter 07: warp tiling. Chapter 06's kernel, with the threads of a warp arranged to share
// shared-memory reads. New vs 06: a warp owns a (WM, WN) tile and its lanes' (TM, TN) tiles are
// 4x4 sub-blocks strided across it, so each warp-wide float4 read of As/Bs is a broadcast or 128
// contiguous bytes: no bank conflicts. As rows are padded (PAD) so that the transposed stores hit
// 32 different banks too.
// Napkin math: same global traffic as 06 (32 FLOP/byte at 128x128), same 64 FFMA per 4 LDS.128
// per k; what changes is that each LDS.128 costs one wavefront instead of up to four.
// Preconditions: none (float4 fast path checked at run time, as in 06).
#pragma once

#include <cuda_runtime.h>

#include "cuda_check.cuh"
#include "device/vec_io.cuh"

namespace ch07 {

using gemm::dev::aligned16;
using gemm::dev::load_global;
using gemm::dev::store4;

template <int BM_, int BN_, int BK_, int WM_, int WN_, int TM_, int TN_, int MIN_BLOCKS_>
struct Config {
    static constexpr int BM = BM_, BN = BN_, BK = BK_;  // block tile (BM, BN), k step BK
    static constexpr int WM = WM_, WN = WN_;            // warp tile (WM, WN)
    static constexpr int TM = TM_, TN = TN_;            // thread tile (TM, TN): 4x4 sub-blocks
    static constexpr int LM = WM / TM, LN = WN / TN;    // a warp's lanes as a (LM, LN) grid
    static constexpr int THREADS = 32 * (BM / WM) * (BN / WN);  // one warp per warp tile
    static constexpr int A_LOADS = BM * BK / 4 / THREADS;  // float4 chunks of A per thread and step
    static constexpr int B_LOADS = BK * BN / 4 / THREADS;  // float4 chunks of B per thread and step
    static constexpr int PAD = 4;  // As row padding: the transposed stores spread over all banks
    static constexpr int MIN_BLOCKS = MIN_BLOCKS_;  // resident blocks per SM (caps registers)
    static constexpr int SMEM_BYTES = BK * (BM + PAD) * 4 + BK * BN * 4;
    static_assert(BM % WM == 0 && BN % WN == 0, "warp tiles must tile the block tile");
    static_assert(WM % TM == 0 && WN % TN == 0 && LM * LN == 32, "32 thread tiles per warp tile");
    static_assert(TM % 4 == 0 && TN % 4 == 0, "thread tiles are made of 4x4 sub-blocks (float4)");
    static_assert(BK % 4 == 0 && BN % 4 == 0,
                  "tiles are copied in float4 chunks along k (A), n (B)");
    static_assert((BM * BK / 4) % THREADS == 0 && (BK * BN / 4) % THREADS == 0,
                  "every thread copies the same number of chunks");
    static_assert(BM % 32 == 0, "with BM % 32 == 0, PAD = 4 shifts each As row by 4 banks");
    static_assert(THREADS <= 1024, "at most 1024 threads per block");
    static_assert(SMEM_BYTES <= 48 * 1024, "static shared memory: fits every GPU from sm_75 on");
};

// Candidates for the H100 sweep; gemm() uses Default. All fit sm_75's limits (<= 48 KB smem,
// <= 64K registers per block), so one choice is valid on every supported GPU.
namespace configs {
//                         BM   BN  BK  WM  WN  TM  TN  blocks/SM
using c128x128x16 = Config<128, 128, 16, 32, 64, 8, 8, 2>;  // 256 threads, <= 128 registers
using c128x128x8 = Config<128, 128, 8, 32, 64, 8, 8, 2>;    // twice the barriers per FLOP
using c128x256x8 = Config<128, 256, 8, 64, 64, 8, 16, 1>;   // 256 threads, 128 accumulators
using c256x128x8 = Config<256, 128, 8, 64, 64, 16, 8, 1>;   // 256 threads, 128 accumulators
using c64x64x8 = Config<64, 64, 8, 32, 32, 4, 8, 4>;        // 128 threads: small problems
using Default = c128x128x16;
}  // namespace configs

// Registers -> shared memory. A goes in transposed, As[k][m], so that a thread's TM values
// for one k are contiguous (float4 reads in the inner loop); B keeps its layout. The PAD
// columns put As[k][m] in bank (4k + m) % 32: one store instruction of a warp (BK = 8: 16 rows
// m, k = 4c + q for chunks c = 0, 1) hits banks 16c + 4q + m, 32 different ones; with BK = 16
// (8 rows, chunks c = 0..3) c and c + 2 share a bank: 2-way, against 4-way unpadded (chapter 06).
template <class Cfg>
static __device__ __forceinline__ void store_shared(const float4 (&ra)[Cfg::A_LOADS],
                                                    const float4 (&rb)[Cfg::B_LOADS],
                                                    float (*As)[Cfg::BM + Cfg::PAD],
                                                    float (*Bs)[Cfg::BN]) {
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

// Fragments for one k: the thread's TM rows are TM/4 float4s, one per 4x4 sub-block, LM*4
// apart; its TN columns likewise, LN*4 apart. Lanes of one row of the lane grid read LN
// consecutive float4s of Bs (all 32 banks once); lanes of one column share the As float4.
template <class Cfg>
static __device__ __forceinline__ void load_fragments(const float (*As)[Cfg::BM + Cfg::PAD],
                                                      const float (*Bs)[Cfg::BN], int k, int tm0,
                                                      int tn0, float (&a)[Cfg::TM],
                                                      float (&b)[Cfg::TN]) {
#pragma unroll
    for (int s = 0; s < Cfg::TM / 4; ++s) {
        const float4 v = *reinterpret_cast<const float4*>(&As[k][tm0 + s * Cfg::LM * 4]);
        a[4 * s + 0] = v.x, a[4 * s + 1] = v.y, a[4 * s + 2] = v.z, a[4 * s + 3] = v.w;
    }
#pragma unroll
    for (int s = 0; s < Cfg::TN / 4; ++s) {
        const float4 v = *reinterpret_cast<const float4*>(&Bs[k][tn0 + s * Cfg::LN * 4]);
        b[4 * s + 0] = v.x, b[4 * s + 1] = v.y, b[4 * s + 2] = v.z, b[4 * s + 3] = v.w;
    }
}

template <class Cfg, bool VEC>
static __global__ void __launch_bounds__(Cfg::THREADS, Cfg::MIN_BLOCKS)
    gemm_kernel(int M, int N, int K, float alpha, const float* __restrict__ A, int lda,
                const float* __restrict__ B, int ldb, float beta, float* __restrict__ C, int ldc) {
    constexpr int BM = Cfg::BM, BN = Cfg::BN, BK = Cfg::BK, WM = Cfg::WM, WN = Cfg::WN;
    constexpr int TM = Cfg::TM, TN = Cfg::TN, LM = Cfg::LM, LN = Cfg::LN, PAD = Cfg::PAD;
    __shared__ __align__(16) float As[BK][BM + PAD];  // (BK, BM + PAD): the A tile, transposed
    __shared__ __align__(16) float Bs[BK][BN];        // (BK, BN): the B tile

    const int tiles_n = (N + BN - 1) / BN;  // 1D grid: block b covers block-row b / tiles_n
    const int m0 = blockIdx.x / tiles_n * BM, n0 = blockIdx.x % tiles_n * BN;  // block tile in C
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int wm0 = warp / (BN / WN) * WM, wn0 = warp % (BN / WN) * WN;  // warp tile in block tile
    const int tm0 = wm0 + lane / LN * 4, tn0 = wn0 + lane % LN * 4;      // first 4x4 sub-block

    float acc[TM][TN] = {};  // (TM, TN) tile of C, in registers

    const int kTiles = (K + BK - 1) / BK;
    for (int t = 0; t < kTiles; ++t) {
        float4 ra[Cfg::A_LOADS], rb[Cfg::B_LOADS];  // this thread's chunks, in flight
        load_global<Cfg, VEC>(M, N, K, A, lda, B, ldb, m0, n0, t * BK, ra, rb);
        store_shared<Cfg>(ra, rb, As, Bs);
        __syncthreads();  // both tiles are complete before anyone reads them

#pragma unroll
        for (int k = 0; k < BK; ++k) {
            // BEGIN SOLUTION: this k's fragments (4x4 sub-blocks LM*4, LN*4 apart), outer product
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

    // Row 4s+i of the thread tile is row tm0 + s*LM*4 + i of the block tile; columns likewise.
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int row = m0 + tm0 + i / 4 * LM * 4 + i % 4;
        if (row >= M) break;  // rows are increasing: the rest are past the edge too
#pragma unroll
        for (int j = 0; j < TN; j += 4) {
            const int col = n0 + tn0 + j / 4 * LN * 4;
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
    // 1D grid (no 65535 limit on tall C): the kernel maps blockIdx.x to a block tile.
    const dim3 grid(((M + Cfg::BM - 1) / Cfg::BM) * ((N + Cfg::BN - 1) / Cfg::BN));
    if (vec)
        gemm_kernel<Cfg, true>
            <<<grid, block, 0, stream>>>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
    else
        gemm_kernel<Cfg, false>
            <<<grid, block, 0, stream>>>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
    GEMM_CUDA_CHECK_LAUNCH();
}

inline void gemm(int M, int N, int K, float alpha, const float* A, int lda, const float* B, int ldb,
                 float beta, float* C, int ldc, cudaStream_t stream = 0) {
    gemm_cfg<configs::Default>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, stream);
}

}  // namespace ch07

// Chapter 09: WMMA with block tiles in shared memory and a warp tile of several fragments.
// New vs chapter 08: a block of 4 warps computes a BM x BN = 128x128 tile of C; the A tile (BM, BK)
// and B tile (BK, BN), BK = 64, are copied to shared memory once and read by every warp, and each
// warp keeps FM x FN = 4x4 accumulator fragments, so one A fragment feeds FN mma_syncs, one B FM.
// Rows of As/Bs are padded by 8 halves so the ldmatrix behind load_matrix_sync is conflict-free.
// One buffer: load, sync, compute, sync.
// Napkin math: L2 -> SM traffic = 2*M*N*K*(1/BM + 1/BN) bytes = 2.1 GB at 4096^3 (17 GB in ch08):
// 64 FLOP/byte. The copy latency that nothing overlaps is the new limit (see README).
// Preconditions: none. 16-byte loads need lda, ldb, K, N % 8 == 0 and 16-byte aligned A and B,
// else the same tiling loads scalars; edge tiles are zero-filled, C is written bounds-checked.
// The fragment loads, the mma_syncs and the staged epilogue live in common/device/wmma_tile.cuh
// (chapter 10 uses them too); the README walks through them.
#pragma once

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda_check.cuh"
#include "device/vec_io.cuh"
#include "device/wmma_tile.cuh"

namespace ch09 {

using gemm::dev::aligned16;
using gemm::dev::FragA, gemm::dev::FragB, gemm::dev::FragC;
using gemm::dev::load_frags, gemm::dev::mma_frags, gemm::dev::store_acc;
using gemm::dev::WMMA_M, gemm::dev::WMMA_N, gemm::dev::WMMA_K;
namespace wmma = nvcuda::wmma;

constexpr int VEC = 8;  // halves per 16-byte chunk

// Block tile BM x BN, K step BK, warp tile WM x WN; MIN_BLOCKS per SM for __launch_bounds__.
template <int BM_, int BN_, int BK_, int WM_, int WN_, int MIN_BLOCKS_>
struct Config {
    static constexpr int BM = BM_, BN = BN_, BK = BK_, WM = WM_, WN = WN_, MIN_BLOCKS = MIN_BLOCKS_;
    static constexpr int WARPS_M = BM / WM, WARPS_N = BN / WN;
    static constexpr int WARPS = WARPS_M * WARPS_N, THREADS = 32 * WARPS;
    static constexpr int FM = WM / WMMA_M, FN = WN / WMMA_N;  // accumulator fragments per warp
    static constexpr int PAD = 8;                             // halves = 16 bytes, see README
    static constexpr int LDA_S = BK + PAD, LDB_S = BN + PAD;  // leading dimensions of As and Bs
    static constexpr int LDC_S = WMMA_N + 4;                  // of a staged float fragment
    static constexpr int A_CHUNKS = BM * BK / VEC / THREADS;  // 16-byte chunks per thread per tile
    static constexpr int B_CHUNKS = BK * BN / VEC / THREADS;
    static_assert(BM % WM == 0 && BN % WN == 0, "warp tiles must tile the block tile");
    static_assert(WM % WMMA_M == 0 && WN % WMMA_N == 0, "a warp tile is whole 16x16 fragments");
    static_assert(BK % WMMA_K == 0, "BK is whole 16-deep mma steps");
    static_assert(A_CHUNKS * VEC * THREADS == BM * BK && B_CHUNKS * VEC * THREADS == BK * BN,
                  "every thread copies the same number of whole 16-byte chunks");
};

namespace configs {
using b128x128_k32 = Config<128, 128, 32, 64, 32, 2>;  // 8 warps of 4x2 fragments, 2 blocks per SM
using b128x256_k32 = Config<128, 256, 32, 64, 64, 1>;  // 8 warps of 4x4 fragments, 1 block per SM
using b256x128_k32 = Config<256, 128, 32, 64, 64, 1>;  // the same, transposed
using b128x128_k64 = Config<128, 128, 64, 64, 32, 2>;  // half the round trips per FLOP
using b128x128_k32_w4 = Config<128, 128, 32, 64, 64, 2>;  // 4 warps of 4x4 fragments, 2 per SM
using b128x128_k64_w4 = Config<128, 128, 64, 64, 64, 2>;  // both: the default
}  // namespace configs

// The 8 halves (r, c..c+7) of a row-major (rows, cols) matrix, zero outside it. kVec: ld % 8 == 0,
// cols % 8 == 0 and src 16-byte aligned, so a chunk is one aligned 16-byte load or all outside.
template <bool kVec>
__device__ inline uint4 load_chunk(const __half* src, int ld, int rows, int cols, int r, int c) {
    if constexpr (kVec) {
        if (r < rows && c < cols) return *reinterpret_cast<const uint4*>(&src[r * ld + c]);
        return make_uint4(0, 0, 0, 0);
    } else {
        alignas(16) __half v[VEC];
        for (int t = 0; t < VEC; ++t)
            v[t] = (r < rows && c + t < cols) ? src[r * ld + c + t] : __float2half(0.0f);
        return *reinterpret_cast<const uint4*>(v);
    }
}

// Global -> registers: this thread's chunks of the (ROWS, COLS) tile at (r0, c0) of src. Thread t
// takes column chunk t % CPR of rows t / CPR, t / CPR + ROWS_PER_IT, ...
template <int ROWS, int COLS, int THREADS, bool kVec, int N>
__device__ inline void tile_load(uint4 (&regs)[N], const __half* src, int ld, int rows, int cols,
                                 int r0, int c0, int tid) {
    constexpr int CPR = COLS / VEC, ROWS_PER_IT = THREADS / CPR;  // chunks per row, rows per pass
    static_assert(THREADS % CPR == 0 && N * ROWS_PER_IT == ROWS, "N passes cover the tile");
    // BEGIN SOLUTION: chunk it: row r0 + tid / CPR + it * ROWS_PER_IT, column c0 + (tid % CPR) * 8
    const int r = tid / CPR, c = (tid % CPR) * VEC;  // this thread's first chunk in the tile
#pragma unroll
    for (int it = 0; it < N; ++it)
        regs[it] = load_chunk<kVec>(src, ld, rows, cols, r0 + r + it * ROWS_PER_IT, c0 + c);
    // END SOLUTION
}

// Registers -> shared: the same chunks into the padded tile dst (ROWS, LD).
template <int ROWS, int COLS, int LD, int THREADS, int N>
__device__ inline void tile_store(__half* dst, const uint4 (&regs)[N], int tid) {
    constexpr int CPR = COLS / VEC, ROWS_PER_IT = THREADS / CPR;
    const int r = tid / CPR, c = (tid % CPR) * VEC;
#pragma unroll
    for (int it = 0; it < N; ++it)  // 16-byte aligned: LD % 8 == 0
        *reinterpret_cast<uint4*>(&dst[(r + it * ROWS_PER_IT) * LD + c]) = regs[it];
}

template <class Cfg, bool kVec>
static __global__ void __launch_bounds__(Cfg::THREADS, Cfg::MIN_BLOCKS)
    wmma_smem_kernel(int M, int N, int K, float alpha, const __half* A, int lda, const __half* B,
                     int ldb, float beta, float* C, int ldc) {
    constexpr int BM = Cfg::BM, BN = Cfg::BN, BK = Cfg::BK, THREADS = Cfg::THREADS;
    constexpr int LDA_S = Cfg::LDA_S, LDB_S = Cfg::LDB_S, LDC_S = Cfg::LDC_S;
    __shared__ __align__(128) __half As[BM * LDA_S];                 // (BM, BK), padded rows
    __shared__ __align__(128) __half Bs[BK * LDB_S];                 // (BK, BN), padded rows
    __shared__ __align__(128) float Cs[Cfg::WARPS][WMMA_M * LDC_S];  // (16, 16) per warp

    const int tid = threadIdx.x, warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int tiles_n = (N + BN - 1) / BN;       // 1D grid: block b covers block-row b / tiles_n
    const int m0 = (blockIdx.x / tiles_n) * BM;  // first row of the block tile
    const int n0 = (blockIdx.x % tiles_n) * BN;  // first column
    const int wm = warp / Cfg::WARPS_N, wn = warp % Cfg::WARPS_N;  // this warp's tile in the block

    FragC acc[Cfg::FM][Cfg::FN];  // (WM, WN) of C in registers
#pragma unroll
    for (int i = 0; i < Cfg::FM; ++i)
#pragma unroll
        for (int j = 0; j < Cfg::FN; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

    uint4 ra[Cfg::A_CHUNKS], rb[Cfg::B_CHUNKS];  // this thread's share of the next A and B tiles
    for (int k0 = 0; k0 < K; k0 += BK) {
        // All loads are in flight before the first store waits for its data.
        tile_load<BM, BK, THREADS, kVec>(ra, A, lda, M, K, m0, k0, tid);
        tile_load<BK, BN, THREADS, kVec>(rb, B, ldb, K, N, k0, n0, tid);
        tile_store<BM, BK, LDA_S, THREADS>(As, ra, tid);
        tile_store<BK, BN, LDB_S, THREADS>(Bs, rb, tid);
        __syncthreads();  // As and Bs are complete before any warp reads them
#pragma unroll
        for (int kk = 0; kk < BK; kk += WMMA_K) {
            FragA a[Cfg::FM];  // (WM, 16) of A
            FragB b[Cfg::FN];  // (16, WN) of B
            load_frags<Cfg>(a, b, As, Bs, kk, wm, wn);
            mma_frags<Cfg>(acc, a, b);
        }
        __syncthreads();  // every warp is done with As and Bs before the next copy overwrites them
    }

    // Epilogue, one fragment at a time through this warp's Cs: C = alpha * acc + beta * C.
    store_acc<Cfg>(acc, Cs[warp], M, N, alpha, beta, C, ldc, m0, n0, wm, wn, lane);
}

// Same signature as gemm, for one configuration.
template <class Cfg>
inline void gemm_cfg(int M, int N, int K, float alpha, const __half* A, int lda, const __half* B,
                     int ldb, float beta, float* C, int ldc, cudaStream_t stream = 0) {
    if (M == 0 || N == 0) return;  // nothing to write; a zero-sized grid would be a launch error
    const int blocks = ((M + Cfg::BM - 1) / Cfg::BM) * ((N + Cfg::BN - 1) / Cfg::BN);
    // Whole, aligned 16-byte chunks in every row of A and B?
    const bool vec = lda % VEC == 0 && ldb % VEC == 0 && K % VEC == 0 && N % VEC == 0 &&
                     aligned16(A) && aligned16(B);
    auto kernel = vec ? wmma_smem_kernel<Cfg, true> : wmma_smem_kernel<Cfg, false>;
    kernel<<<blocks, Cfg::THREADS, 0, stream>>>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
    GEMM_CUDA_CHECK_LAUNCH();
}

inline void gemm(int M, int N, int K, float alpha, const __half* A, int lda, const __half* B,
                 int ldb, float beta, float* C, int ldc, cudaStream_t stream = 0) {
    gemm_cfg<configs::b128x128_k64_w4>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, stream);
}

}  // namespace ch09

// Chapter 10: WMMA fed by a multi-stage cp.async pipeline: tiles k+1.. load while tile k computes.
// New vs chapter 09: STAGES shared-memory buffers filled by cp.async (sm_80+: global -> shared, no
// register round trip, zero-fill via src-size), so copy latency hides behind the mma_syncs; each
// 16-deep step issues a share of the copy of tile k + STAGES - 1; one wait and one barrier per
// k-tile. The block order is a named configuration (GROUP_M, common/device/tile_order.cuh).
// Napkin math: L2 -> SM traffic 2*M*N*K*(1/BM + 1/BN) = 1.6 GB at 4096^3 for 128x256: 85 FLOP/byte.
// Preconditions: none. cp.async needs lda, ldb % 8 == 0 and 16-byte aligned A and B, else the same
// pipeline copies scalars (general_shape.cuh); on sm_75 cp.async is a synchronous copy
// (common/device/sm80.cuh). Edge chunks are zero-filled; C is written bounds-checked.
#pragma once

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda_check.cuh"
#include "general_shape.cuh"
#include "device/sm80.cuh"
#include "device/tile_order.cuh"
#include "device/vec_io.cuh"
#include "device/wmma_tile.cuh"

namespace ch10 {

using gemm::dev::aligned16;
using gemm::dev::cp_async_16, gemm::dev::cp_async_commit, gemm::dev::cp_async_wait;
using gemm::dev::FragA, gemm::dev::FragB, gemm::dev::FragC;
using gemm::dev::load_frags, gemm::dev::mma_frags, gemm::dev::store_acc;
using gemm::dev::WMMA_M, gemm::dev::WMMA_N, gemm::dev::WMMA_K;
namespace wmma = nvcuda::wmma;

constexpr int VEC = 8;  // halves per 16-byte chunk

// Block tile BM x BN, K step BK, warp tile WM x WN, STAGES buffers; MIN_BLOCKS per SM for
// __launch_bounds__; GROUP_M tile rows walked together (1: row-major block order).
template <int BM_, int BN_, int BK_, int WM_, int WN_, int STAGES_, int MIN_BLOCKS_,
          int GROUP_M_ = 8>
struct Config {
    static constexpr int BM = BM_, BN = BN_, BK = BK_, WM = WM_, WN = WN_, MIN_BLOCKS = MIN_BLOCKS_;
    static constexpr int STAGES = STAGES_, GROUP_M = GROUP_M_;
    static constexpr int WARPS_M = BM / WM, WARPS_N = BN / WN;
    static constexpr int WARPS = WARPS_M * WARPS_N, THREADS = 32 * WARPS;
    static constexpr int FM = WM / WMMA_M, FN = WN / WMMA_N;  // accumulator fragments per warp
    static constexpr int PAD = 8;                             // halves = 16 bytes, see README
    static constexpr int LDA_S = BK + PAD, LDB_S = BN + PAD;  // leading dimensions of As and Bs
    static constexpr int LDC_S = WMMA_N + 4;                  // of a staged float fragment
    static constexpr int A_STAGE = BM * LDA_S, B_STAGE = BK * LDB_S;  // halves per stage
    static constexpr int SMEM_BYTES = STAGES * (A_STAGE + B_STAGE) * int(sizeof(__half));
    static_assert(BM % WM == 0 && BN % WN == 0, "warp tiles must tile the block tile");
    static_assert(WM % WMMA_M == 0 && WN % WMMA_N == 0, "a warp tile is whole 16x16 fragments");
    static_assert(BK % WMMA_K == 0, "BK is whole 16-deep mma steps");
    static_assert(BM * BK % (VEC * THREADS) == 0 && BK * BN % (VEC * THREADS) == 0,
                  "every thread copies the same number of whole 16-byte chunks");
    static_assert(STAGES >= 2, "the copy of one tile overlaps the math on another");
    static_assert(WARPS * WMMA_M * LDC_S * int(sizeof(float)) <= SMEM_BYTES,
                  "the epilogue's per-warp C staging reuses the pipeline buffers");
};

namespace configs {
//                                BM   BN  BK  WM  WN stages blocks/SM
using b128x128_k64_s3 = Config<128, 128, 64, 64, 64, 3, 2>;  // chapter 09's tile, 3 stages, 108 KB
using b128x128_k32_s4 = Config<128, 128, 32, 64, 64, 4, 2>;  // 4 warps, 2 blocks per SM, 76 KB
using b128x256_k32_s3 = Config<128, 256, 32, 64, 64, 3, 1>;  // 8 warps of 4x4 fragments, 81 KB
using b128x256_k32_s4 = Config<128, 256, 32, 64, 64, 4, 1>;  // one more stage in flight, 108 KB
using b256x128_k32_s3 = Config<256, 128, 32, 64, 64, 3, 1>;  // transposed, 87 KB
using b128x256_k64_s3 = Config<128, 256, 64, 64, 64, 3, 1>;  // half the barriers per FLOP, 157 KB
using b128x256_k64_s4 = Config<128, 256, 64, 64, 64, 4, 1>;  // one more stage, 209 KB
using b256x128_k64_s3 = Config<256, 128, 64, 64, 64, 3, 1>;  // transposed, 163 KB
using b128x256_k128_s2 = Config<128, 256, 128, 64, 64, 2, 1>;  // a barrier per 8 steps, 205 KB
using b128x128_k32_s2 = Config<128, 128, 32, 64, 32, 2, 1>;    // fits 48 KB: sm_75
// The default tile in row-major block order, to measure what the grouped order buys.
using b128x256_k64_s3_rowmajor = Config<128, 256, 64, 64, 64, 3, 1, 1>;
}  // namespace configs

// Global -> shared without registers: part `part` of PARTS of this thread's 16-byte chunks of the
// (ROWS, COLS) tile at (r0, c0) of src, into the padded tile at shared address dst (ROWS, LD).
// Thread t takes column chunk t % CPR of rows t / CPR, t / CPR + ROWS_PER_IT, ... Chunks over the
// edge of the matrix read only what is inside it (src-size) and are zero-filled. kVec: ld % 8 == 0
// and src 16-byte aligned, else scalar copies. `part` is a constant once the k-step loop unrolls.
template <int ROWS, int COLS, int LD, int THREADS, int PARTS, bool kVec>
__device__ inline void tile_cp_async(uint32_t dst, const __half* src, int ld, int rows, int cols,
                                     int r0, int c0, int tid, int part) {
    constexpr int CPR = COLS / VEC, ROWS_PER_IT = THREADS / CPR;  // chunks per row, rows per pass
    constexpr int N = ROWS / ROWS_PER_IT;                         // chunks per thread
    static_assert(THREADS % CPR == 0 && ROWS % ROWS_PER_IT == 0, "whole passes cover the tile");
    const int r = tid / CPR, c = (tid % CPR) * VEC;      // this thread's first chunk in the tile
    const int gc = c0 + c;                               // its column in the matrix
    const int valid_cols = min(max(cols - gc, 0), VEC);  // halves inside the matrix: 0..8
#pragma unroll
    for (int it = 0; it < N; ++it) {
        if (it * PARTS / N != part) continue;  // chunk it belongs to part it * PARTS / N
        const int gr = r0 + r + it * ROWS_PER_IT;
        const uint32_t d = dst + 2 * ((r + it * ROWS_PER_IT) * LD + c);  // bytes: 2 per half
        if constexpr (!kVec) {
            gemm::dev::copy_chunk_scalar(d, src, ld, rows, cols, gr, gc);
            continue;
        }
        const int valid = gr < rows ? valid_cols : 0;
        const int offset = valid > 0 ? gr * ld + gc : 0;  // an address inside src even if unread
        cp_async_16(d, src + offset, 2 * valid);
    }
}

template <class Cfg, bool kVec>
static __global__ void __launch_bounds__(Cfg::THREADS, Cfg::MIN_BLOCKS)
    wmma_pipelined_kernel(int M, int N, int K, float alpha, const __half* A, int lda,
                          const __half* B, int ldb, float beta, float* C, int ldc) {
    constexpr int BM = Cfg::BM, BN = Cfg::BN, BK = Cfg::BK, THREADS = Cfg::THREADS;
    constexpr int LDA_S = Cfg::LDA_S, LDB_S = Cfg::LDB_S, LDC_S = Cfg::LDC_S;
    constexpr int STAGES = Cfg::STAGES, KSTEPS = BK / WMMA_K;  // KSTEPS 16-deep steps per k-tile
    extern __shared__ __align__(128) unsigned char smem[];
    __half* As = reinterpret_cast<__half*>(smem);  // (STAGES, BM, LDA_S)
    __half* Bs = As + STAGES * Cfg::A_STAGE;       // (STAGES, BK, LDB_S)
    // The same as 32-bit shared-memory addresses, the operand of cp.async.
    const uint32_t As_s = static_cast<uint32_t>(__cvta_generic_to_shared(As));
    const uint32_t Bs_s = static_cast<uint32_t>(__cvta_generic_to_shared(Bs));

    const int tid = threadIdx.x, warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const gemm::dev::TileOrigin tile =
        gemm::dev::grouped_tile(blockIdx.x, M, N, BM, BN, Cfg::GROUP_M);
    const int m0 = tile.m0, n0 = tile.n0;  // first row and column of the block tile
    const int wm = warp / Cfg::WARPS_N, wn = warp % Cfg::WARPS_N;  // this warp's tile in the block

    FragC acc[Cfg::FM][Cfg::FN];  // (WM, WN) of C in registers
#pragma unroll
    for (int i = 0; i < Cfg::FM; ++i)
#pragma unroll
        for (int j = 0; j < Cfg::FN; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

    const int KT = (K + BK - 1) / BK;  // k-tiles
    // Part `part` of KSTEPS of the copy of k-tile kt into stage s. Past the end (kt >= KT) every
    // chunk is out of range: it reads nothing and zero-fills a stage nobody reads.
    auto copy_tile = [&](int s, int kt, int part) {
        const int k0 = kt * BK;
        tile_cp_async<BM, BK, LDA_S, THREADS, KSTEPS, kVec>(As_s + s * 2 * Cfg::A_STAGE, A, lda, M,
                                                            K, m0, k0, tid, part);
        tile_cp_async<BK, BN, LDB_S, THREADS, KSTEPS, kVec>(Bs_s + s * 2 * Cfg::B_STAGE, B, ldb, K,
                                                            N, k0, n0, tid, part);
    };

    // Prologue: k-tiles 0 .. STAGES-2 in flight, one commit group each (empty past the end, so the
    // count of groups stays uniform).
    for (int s = 0; s < STAGES - 1; ++s) {
        if (s < KT) {
#pragma unroll
            for (int part = 0; part < KSTEPS; ++part) copy_tile(s, s, part);
        }
        cp_async_commit();
    }

    // rs: the stage of tile kt (read); ws: the stage of tile kt + STAGES - 1 (written), which is
    // tile kt - 1's. Each moves on by one stage per k-tile.
    for (int kt = 0, rs = 0, ws = STAGES - 1; kt < KT;
         ++kt, ws = rs, rs = rs + 1 < STAGES ? rs + 1 : 0) {
        cp_async_wait<STAGES - 2>();  // this thread's copies of tile kt have landed
        // Everyone's copies of tile kt have landed, and every warp is done with tile kt - 1: its
        // stage ws may be overwritten from here on.
        __syncthreads();
        // BEGIN SOLUTION: per 16-deep step: a share of the copy of tile kt+STAGES-1, then the mma
#pragma unroll
        for (int ks = 0; ks < KSTEPS; ++ks) {
            // A share of the chunks per step, so that the copy instructions mix with the
            // mma_syncs instead of arriving as one burst.
            copy_tile(ws, kt + STAGES - 1, ks);
            FragA a[Cfg::FM];  // (WM, 16) of A
            FragB b[Cfg::FN];  // (16, WN) of B
            load_frags<Cfg>(a, b, As + rs * Cfg::A_STAGE, Bs + rs * Cfg::B_STAGE, ks * WMMA_K, wm,
                            wn);
            mma_frags<Cfg>(acc, a, b);
        }
        cp_async_commit();  // one group per k-tile
        // END SOLUTION
    }

    // Epilogue, one fragment at a time through a per-warp Cw: C = alpha * acc + beta * C.
    cp_async_wait<0>();  // only empty groups are left: returns at once
    __syncthreads();  // every warp is done with As/Bs: they become the per-warp staging buffers Cw
    float* Cw = reinterpret_cast<float*>(smem) + warp * WMMA_M * LDC_S;  // (16, LDC_S)
    store_acc<Cfg>(acc, Cw, M, N, alpha, beta, C, ldc, m0, n0, wm, wn, lane);
}

// Same signature as gemm, for one configuration.
template <class Cfg>
inline void gemm_cfg(int M, int N, int K, float alpha, const __half* A, int lda, const __half* B,
                     int ldb, float beta, float* C, int ldc, cudaStream_t stream = 0) {
    if (M == 0 || N == 0) return;  // nothing to write; a zero-sized grid would be a launch error
    // More than 48 KB of dynamic shared memory must be opted into, once per kernel.
    static const bool opted_in = [] {
        constexpr auto attr = cudaFuncAttributeMaxDynamicSharedMemorySize;
        GEMM_CUDA_CHECK(
            cudaFuncSetAttribute(wmma_pipelined_kernel<Cfg, true>, attr, Cfg::SMEM_BYTES));
        GEMM_CUDA_CHECK(
            cudaFuncSetAttribute(wmma_pipelined_kernel<Cfg, false>, attr, Cfg::SMEM_BYTES));
        return true;
    }();
    (void)opted_in;
    const int blocks = ((M + Cfg::BM - 1) / Cfg::BM) * ((N + Cfg::BN - 1) / Cfg::BN);
    const bool vec = lda % VEC == 0 && ldb % VEC == 0 && aligned16(A) && aligned16(B);
    auto kernel = vec ? wmma_pipelined_kernel<Cfg, true> : wmma_pipelined_kernel<Cfg, false>;
    kernel<<<blocks, Cfg::THREADS, Cfg::SMEM_BYTES, stream>>>(M, N, K, alpha, A, lda, B, ldb, beta,
                                                              C, ldc);
    GEMM_CUDA_CHECK_LAUNCH();
}

// The largest default configuration that this device's shared memory takes.
// The configuration gemm() runs, from whether 16-byte copies are possible (vec) and how much shared
// memory a block may opt into: fn(Cfg{}) is called with it. tools/shape_sweep asks the same
// function for the tile it marks, so the two cannot drift apart.
template <class Fn>
inline void choose_config(bool vec, Fn&& fn) {
    const int smem_optin = gemm::dev::smem_optin_bytes();
    // BK = 64 only with cp.async: its scalar-copy instance (misaligned A or B) spills.
    if (vec && smem_optin >= configs::b128x256_k64_s3::SMEM_BYTES)  // sm_80, sm_90: 163, 227 KB
        fn(configs::b128x256_k64_s3{});
    else if (smem_optin >= configs::b128x256_k32_s3::SMEM_BYTES)  // sm_86, sm_89: 99 KB
        fn(configs::b128x256_k32_s3{});
    else  // sm_75: 64 KB
        fn(configs::b128x128_k32_s2{});
}

inline void gemm(int M, int N, int K, float alpha, const __half* A, int lda, const __half* B,
                 int ldb, float beta, float* C, int ldc, cudaStream_t stream = 0) {
    const bool vec = lda % VEC == 0 && ldb % VEC == 0 && aligned16(A) && aligned16(B);
    choose_config(vec, [&](auto cfg) {
        gemm_cfg<decltype(cfg)>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, stream);
    });
}

}  // namespace ch10

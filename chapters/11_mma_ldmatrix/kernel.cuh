// Chapter 11: tensor cores without WMMA: mma.sync m16n8k16 fed by ldmatrix from swizzled tiles.
// New vs chapter 10: the fragments are plain registers whose lanes the PTX ISA documents, loaded
// with ldmatrix.x4 (A) and ldmatrix.x4.trans (row-major B) and multiplied with inline-PTX mma.sync;
// As and Bs are unpadded and XOR-swizzled (16-byte chunk c of row r stored at chunk c ^ (r % 8)),
// so cp.async stores and ldmatrix reads are both bank-conflict free; the epilogue writes C
// straight from the accumulator registers. Fewer instructions around each HMMA: the fragments of
// step k+1 are loaded before the mma.syncs of step k, and whole tiles copy without bounds tests
// (kFull). The PTX wrappers are in common/device/ch11_mma_ldmatrix.cuh (the README shows them).
// Napkin math: as chapter 10 (85 FLOP per L2 byte at 128x256); fewer instructions per HMMA.
// Preconditions: none. cp.async needs lda, ldb % 8 == 0 and 16-byte aligned A and B (else scalar
// copies, same tiling); float2 C accesses need ldc % 2 == 0 and 8-byte aligned C.
#pragma once

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda_check.cuh"
#include "device/ch10_cp_async.cuh"
#include "device/ch11_mma_ldmatrix.cuh"
#include "device/tile_order.cuh"
#include "device/vec_io.cuh"
#include "general_shape.cuh"

namespace ch11 {

using gemm::dev::aligned, gemm::dev::aligned16;
using gemm::dev::cp_async_commit, gemm::dev::cp_async_wait, gemm::dev::CpAsync;
using gemm::dev::ldmatrix_x4, gemm::dev::ldmatrix_x4_trans, gemm::dev::mma_16816;
using gemm::dev::mma_c_elem, gemm::dev::RowCol;

constexpr int MMA_M = 16, MMA_N = 8, MMA_K = 16;  // the shape of one mma.sync
constexpr int VEC = 8;                            // halves per 16-byte chunk
constexpr int GROUP_M = 8;                        // tile rows walked together (chapter 10)

// Block tile BM x BN, K step BK, warp tile WM x WN, STAGES buffers; MIN_BLOCKS per SM for
// __launch_bounds__.
template <int BM_, int BN_, int BK_, int WM_, int WN_, int STAGES_, int MIN_BLOCKS_>
struct Config {
    static constexpr int BM = BM_, BN = BN_, BK = BK_, WM = WM_, WN = WN_, MIN_BLOCKS = MIN_BLOCKS_;
    static constexpr int STAGES = STAGES_;
    static constexpr int WARPS_M = BM / WM, WARPS_N = BN / WN;
    static constexpr int WARPS = WARPS_M * WARPS_N, THREADS = 32 * WARPS;
    static constexpr int FM = WM / MMA_M, FN = WN / MMA_N;    // mma tiles per warp tile
    static constexpr int A_CHUNKS = BM * BK / VEC / THREADS;  // 16-byte chunks per thread per tile
    static constexpr int B_CHUNKS = BK * BN / VEC / THREADS;
    static constexpr int A_STAGE = BM * BK, B_STAGE = BK * BN;  // halves per stage: no padding
    static constexpr int SMEM_BYTES = STAGES * (A_STAGE + B_STAGE) * int(sizeof(__half));
    static_assert(BM % WM == 0 && BN % WN == 0, "warp tiles must tile the block tile");
    static_assert(WM % MMA_M == 0 && WN % (2 * MMA_N) == 0,
                  "a warp tile is whole 16x16 blocks: one ldmatrix.x4 each for A and for B");
    static_assert(BK % (2 * MMA_K) == 0,
                  "an even number of 16-deep steps per k-tile: the two fragment buffers alternate "
                  "the same way in every k-tile");
    static_assert(BK == 32 || BK % 64 == 0,
                  "swizzle: an As row is half a 128-byte line or whole lines");
    static_assert(BN % 64 == 0, "swizzle: a Bs row is whole 128-byte lines");
    static_assert(A_CHUNKS * VEC * THREADS == BM * BK && B_CHUNKS * VEC * THREADS == BK * BN,
                  "every thread copies the same number of whole 16-byte chunks");
    static_assert(STAGES >= 2, "the copy of one tile overlaps the math on another");
};

namespace configs {
using b128x256_k64_s3 = Config<128, 256, 64, 64, 64, 3, 1>;  // 8 warps of 4x8 mma tiles, 144 KB
using b128x256_k64_s4 = Config<128, 256, 64, 64, 64, 4, 1>;  // one more stage, 192 KB
using b256x128_k64_s3 = Config<256, 128, 64, 64, 64, 3, 1>;  // transposed, 144 KB
using b256x128_k64_s4 = Config<256, 128, 64, 64, 64, 4, 1>;  // transposed, 192 KB
using b128x256_k32_s4 = Config<128, 256, 32, 64, 64, 4, 1>;  // twice the barriers, 96 KB
using b128x256_k32_s3 = Config<128, 256, 32, 64, 64, 3, 1>;  // 72 KB: sm_86, sm_89
using b128x128_k64_s3 = Config<128, 128, 64, 64, 64, 3, 2>;  // 4 warps, 2 blocks per SM, 96 KB
using b128x128_k32_s2 = Config<128, 128, 32, 64, 32, 2, 1>;  // 32 KB: sm_75, misaligned A/B
}  // namespace configs

// Offset in halves of the 16-byte chunk c of row r in a row-major, unpadded tile COLS halves wide.
// The chunk index inside its 128-byte line (8 chunks = the 32 banks) is XORed with the line's
// number mod 8, so the 8 rows one ldmatrix phase reads (same c) land on 8 different bank groups;
// 8 consecutive chunks of a line (what 8 threads copy) stay a permutation of that line. A row of
// 32 halves is half a line: the two rows of a line share one XOR. Periodic in r: swizzle(r + 16q,
// c) = 16q * COLS + swizzle(r, c), which the callers use to keep the XOR out of the unrolled loops.
template <int COLS>
__host__ __device__ constexpr int swizzle(int r, int c) {
    constexpr int CPR = COLS / VEC;  // chunks per row: 4 (half a line) or a multiple of 8
    const int line = CPR >= 8 ? r : r * CPR / 8;  // which 128-byte line of its row r's start is in
    return ((r * CPR + c) ^ (line % 8)) * VEC;
}
static_assert(swizzle<64>(3, 5) == 3 * 64 + (5 ^ 3) * 8 && swizzle<32>(3, 1) == (13 ^ 1) * 8,
              "chunk c of row r: c ^ (r % 8) in whole lines, two rows per line at 32 halves");

// This thread's chunks of a (ROWS, COLS) tile: column chunk tid % CPR of rows tid / CPR,
// tid / CPR + ROWS_PER_IT, ... A pass of ROWS_PER_IT rows is a whole swizzle period, so a chunk's
// place in the swizzled tile is swizzle(first row, c) + it * ROWS_PER_IT * COLS.
template <int ROWS, int COLS, int THREADS>
struct TileChunks {
    static constexpr int CPR = COLS / VEC;             // chunks per row
    static constexpr int ROWS_PER_IT = THREADS / CPR;  // rows per pass
    static constexpr int N = ROWS / ROWS_PER_IT;       // chunks per thread
    static_assert(THREADS % CPR == 0 && ROWS % ROWS_PER_IT == 0, "whole passes cover the tile");
    static_assert(ROWS_PER_IT % 16 == 0 || (CPR >= 8 && ROWS_PER_IT % 8 == 0),
                  "a pass is a whole number of swizzle periods (8 rows, 16 for half-line rows)");
};

// Global -> shared without registers: part `part` of PARTS of this thread's chunks of the
// (ROWS, COLS) tile at (r0, c0) of src into the swizzled tile at shared address dst. kVec: ld % 8
// == 0 and src 16-byte aligned, else scalar copies. Branch-free, so the compiler can interleave it
// with the mma.syncs around it; `part` is a constant once the caller's k-step loop is unrolled.
// .cg (L2 only, not L1): with this kernel's layout it measured faster than chapter 10's .ca.
template <int ROWS, int COLS, int THREADS, int PARTS, bool kFull, bool kVec = true>
__device__ inline void tile_cp_async(uint32_t dst, const __half* src, int ld, int rows, int cols,
                                     int r0, int c0, int tid, int part, bool live) {
    using T = TileChunks<ROWS, COLS, THREADS>;
    const int r = tid / T::CPR, c = (tid % T::CPR) * VEC;  // this thread's first chunk in the tile
    const uint32_t first = dst + 2 * swizzle<COLS>(r, c / VEC);  // its place in shared memory
    const int gc = c0 + c;                                       // its column in the matrix
    const int valid_cols = min(max(cols - gc, 0), VEC);          // halves inside the matrix: 0..8
#pragma unroll
    for (int it = 0; it < T::N; ++it) {
        if (it * PARTS / T::N != part) continue;  // chunk it belongs to part it * PARTS / N
        const uint32_t d = first + 2 * it * T::ROWS_PER_IT * COLS;
        const int gr = r0 + r + it * T::ROWS_PER_IT;
        if constexpr (kFull) {  // the tile lies inside the matrix: no tests, no zero fill
            gemm::dev::cp_async_16_if<CpAsync::cg>(d, &src[gr * ld + gc], live);
            continue;
        }
        if constexpr (!kVec) {
            gemm::dev::copy_chunk_scalar(d, src, ld, rows, cols, gr, gc);
            continue;
        }
        const int valid = gr < rows ? valid_cols : 0;
        const int offset = valid > 0 ? gr * ld + gc : 0;  // an address inside src even if unread
        gemm::dev::cp_async_16<CpAsync::cg>(d, src + offset, 2 * valid);
    }
}

// The row and 16-byte chunk of a 16x16 block whose address lane `lane` gives ldmatrix.x4: row
// lane % 16, chunk lane / 16. Lanes 8i..8i+7 address matrix i, so the four 8x8 matrices arrive in
// the order the mma operands want them: A's a[0..3], two B tiles' b[j][0..1] (README's figure;
// the host tests in test.cu check it against the PTX ISA's fragment layouts).
__host__ __device__ constexpr RowCol ldmatrix_x4_address(int lane) {
    return {lane % 16, lane / 16};
}

// This warp's fragments for the 16-deep step ks of the stored tiles (shared addresses As, Bs):
// FM of A (16, 16) from its WM rows, FN of B (16, 8) from its WN columns. One ldmatrix.x4 per
// 16x16 block.
template <class Cfg>
__device__ inline void load_frags(uint32_t (&a)[Cfg::FM][4], uint32_t (&b)[Cfg::FN][2], uint32_t As,
                                  uint32_t Bs, int ks, int wm, int wn, int lane) {
    // BEGIN SOLUTION: one ldmatrix.x4 per 16x16 block of A, one ldmatrix.x4.trans per two B tiles
    constexpr int BK = Cfg::BK, BN = Cfg::BN;
    const int r = ldmatrix_x4_address(lane).row, c = ldmatrix_x4_address(lane).col;
    // A: block i is rows wm * WM + 16 i (a multiple of 16: the swizzle repeats), chunks 2 ks + c.
    const uint32_t a0 = As + 2 * (wm * Cfg::WM * BK + swizzle<BK>(r, 2 * ks + c));
#pragma unroll
    for (int i = 0; i < Cfg::FM; ++i) {
        ldmatrix_x4(a[i], a0 + 2 * i * MMA_M * BK);
    }
    // B: rows 16 ks + r, chunks of columns wn * WN + 16 jp; transposed, so that a lane holds
    // two consecutive k of one column n, as the col-major B operand wants.
#pragma unroll
    for (int jp = 0; jp < Cfg::FN / 2; ++jp) {
        const int chunk = (wn * Cfg::WN + jp * 2 * MMA_N) / VEC + c;
        ldmatrix_x4_trans(b[2 * jp], b[2 * jp + 1],
                          Bs + 2 * (ks * MMA_K * BN + swizzle<BN>(r, chunk)));
    }
    // END SOLUTION
}

// acc (WM, WN) += a (WM, 16) * b (16, WN): every A fragment is used FN times, every B one FM.
template <class Cfg>
__device__ inline void mma_frags(float (&acc)[Cfg::FM][Cfg::FN][4], const uint32_t (&a)[Cfg::FM][4],
                                 const uint32_t (&b)[Cfg::FN][2]) {
#pragma unroll
    for (int i = 0; i < Cfg::FM; ++i)
#pragma unroll
        for (int j = 0; j < Cfg::FN; ++j) mma_16816(acc[i][j], a[i], b[j]);
}

template <class Cfg, bool kVec, bool kFull>
static __global__ void __launch_bounds__(Cfg::THREADS, Cfg::MIN_BLOCKS)
    mma_pipelined_kernel(int M, int N, int K, float alpha, const __half* A, int lda,
                         const __half* B, int ldb, float beta, float* C, int ldc, bool pair_c) {
    constexpr int BM = Cfg::BM, BN = Cfg::BN, BK = Cfg::BK, THREADS = Cfg::THREADS;
    constexpr int STAGES = Cfg::STAGES, KSTEPS = BK / MMA_K;  // KSTEPS 16-deep steps per k-tile
    extern __shared__ __align__(128) unsigned char smem[];
    __half* As = reinterpret_cast<__half*>(smem);  // (STAGES, BM, BK), swizzled
    __half* Bs = As + STAGES * Cfg::A_STAGE;       // (STAGES, BK, BN), swizzled
    // The same as 32-bit shared-memory addresses, the operand of cp.async and ldmatrix.
    const uint32_t As_s = static_cast<uint32_t>(__cvta_generic_to_shared(As));
    const uint32_t Bs_s = static_cast<uint32_t>(__cvta_generic_to_shared(Bs));

    const int tid = threadIdx.x, warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const gemm::dev::TileOrigin tile = gemm::dev::grouped_tile(blockIdx.x, M, N, BM, BN, GROUP_M);
    const int m0 = tile.m0, n0 = tile.n0;  // first row and column of the block tile
    const int wm = warp / Cfg::WARPS_N, wn = warp % Cfg::WARPS_N;  // this warp's tile in the block

    float acc[Cfg::FM][Cfg::FN][4];  // (WM, WN) of C: FM x FN tiles of (16, 8), 4 per lane each
#pragma unroll
    for (int i = 0; i < Cfg::FM; ++i)
#pragma unroll
        for (int j = 0; j < Cfg::FN; ++j)
#pragma unroll
            for (int e = 0; e < 4; ++e) acc[i][j][e] = 0.0f;

    const int KT = (K + BK - 1) / BK;  // k-tiles
    constexpr uint32_t A_STAGE_BYTES = 2 * Cfg::A_STAGE, B_STAGE_BYTES = 2 * Cfg::B_STAGE;
    // Asynchronous path: start part `part` of the copy of k-tile kt into stage s. The copy is
    // spread over the k-steps; with two stages it must land within one k-tile, so over the first
    // half of them only.
    constexpr int PARTS = STAGES > 2 ? KSTEPS : KSTEPS / 2;
    auto copy_async = [&](int s, int kt, int part) {
        // Past the end (kt >= KT): the bounds-checked copy reads nothing (out of range), the
        // kFull copy is switched off (its address is kept inside the matrix all the same).
        const int k0 = (kFull ? min(kt, KT - 1) : kt) * BK;
        tile_cp_async<BM, BK, THREADS, PARTS, kFull, kVec>(As_s + s * A_STAGE_BYTES, A, lda, M, K,
                                                           m0, k0, tid, part, kt < KT);
        tile_cp_async<BK, BN, THREADS, PARTS, kFull, kVec>(Bs_s + s * B_STAGE_BYTES, B, ldb, K, N,
                                                           k0, n0, tid, part, kt < KT);
    };

    // Prologue: k-tiles 0 .. STAGES-2 in flight, one commit group each (empty past the end, so the
    // count of groups stays uniform), then the fragments of tile 0's first step.
    for (int s = 0; s < STAGES - 1; ++s) {
        if (s < KT) {
#pragma unroll
            for (int part = 0; part < PARTS; ++part) copy_async(s, s, part);
        }
        cp_async_commit();
    }
    uint32_t a[2][Cfg::FM][4];  // (WM, 16) of A, twice: the step being multiplied and the next one
    uint32_t b[2][Cfg::FN][2];  // (16, WN) of B, likewise
    if (KT > 0) {
        cp_async_wait<STAGES - 2>();  // this thread's tile 0 has landed
        __syncthreads();              // everyone's has
        load_frags<Cfg>(a[0], b[0], As_s, Bs_s, 0, wm, wn, lane);
    }

    // rs: the stage of tile kt (read); ws: the stage of tile kt + STAGES - 1 (written), tile
    // kt - 1's. Each moves on by one stage per k-tile.
    for (int kt = 0, rs = 0, ws = STAGES - 1; kt < KT;
         ++kt, ws = rs, rs = rs + 1 < STAGES ? rs + 1 : 0) {
        const int next = kt + STAGES - 1;  // the tile to copy in this iteration
#pragma unroll
        for (int ks = 0; ks < KSTEPS; ++ks) {
            // Tile next goes into stage ws (tile kt - 1's), free since the last barrier, a share
            // of the chunks per step so that the copy instructions mix with the mma.syncs.
            copy_async(ws, next, ks);
            if (ks == KSTEPS - 1) cp_async_commit();  // one group per tile
            // Where the next step's fragments are: this tile, or on the last step the next tile,
            // once it has landed (wait + barrier). After that barrier nobody reads this tile's
            // stage any more, which is what frees it for the copy issued in the next iteration.
            int stage = rs, kk = ks + 1;
            if (ks == KSTEPS - 1) {
                cp_async_wait<STAGES - 2>();  // my copies of kt+1 landed
                __syncthreads();  // everyone's tile kt+1 is in place; everyone is done with tile kt
                stage = rs + 1 < STAGES ? rs + 1 : 0, kk = 0;
            }
            // BEGIN SOLUTION: ldmatrix the fragments of step ks+1, then the mma.syncs of step ks
            // Fragments for step ks+1 are requested before the mma of step ks, which hides their
            // latency behind the tensor cores.
            if (ks < KSTEPS - 1 || kt + 1 < KT) {
                load_frags<Cfg>(a[(ks + 1) % 2], b[(ks + 1) % 2], As_s + stage * A_STAGE_BYTES,
                                Bs_s + stage * B_STAGE_BYTES, kk, wm, wn, lane);
            }
            mma_frags<Cfg>(acc, a[ks % 2], b[ks % 2]);
            // END SOLUTION
        }
    }
    cp_async_wait<0>();  // only empty groups are left: returns at once

    // Epilogue: C = alpha * acc + beta * C straight from the registers; C is not read when
    // beta == 0. Lane l holds rows l / 4 and l / 4 + 8, columns 2 (l % 4) and +1 of each tile.
#pragma unroll
    for (int i = 0; i < Cfg::FM; ++i) {
#pragma unroll
        for (int j = 0; j < Cfg::FN; ++j) {
            const int c = n0 + wn * Cfg::WN + j * MMA_N + mma_c_elem(lane, 0).col;  // its first
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const int r = m0 + wm * Cfg::WM + i * MMA_M + mma_c_elem(lane, 2 * h).row;
                if (r >= M || c >= N) continue;
                // BEGIN SOLUTION: scale the two accumulators of row r, add beta * C, store
                float* p = &C[r * ldc + c];
                const float v0 = alpha * acc[i][j][2 * h], v1 = alpha * acc[i][j][2 * h + 1];
                if (pair_c && c + 1 < N) {  // both columns inside, 8-byte aligned: one float2
                    float2 v = make_float2(v0, v1);
                    if (beta != 0.0f) {
                        const float2 old = *reinterpret_cast<const float2*>(p);
                        v.x += beta * old.x, v.y += beta * old.y;
                    }
                    *reinterpret_cast<float2*>(p) = v;
                } else {
                    p[0] = beta == 0.0f ? v0 : v0 + beta * p[0];
                    if (c + 1 < N) p[1] = beta == 0.0f ? v1 : v1 + beta * p[1];
                }
                // END SOLUTION
            }
        }
    }
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
            cudaFuncSetAttribute(mma_pipelined_kernel<Cfg, true, true>, attr, Cfg::SMEM_BYTES));
        GEMM_CUDA_CHECK(
            cudaFuncSetAttribute(mma_pipelined_kernel<Cfg, true, false>, attr, Cfg::SMEM_BYTES));
        GEMM_CUDA_CHECK(
            cudaFuncSetAttribute(mma_pipelined_kernel<Cfg, false, false>, attr, Cfg::SMEM_BYTES));
        return true;
    }();
    (void)opted_in;
    const int blocks = ((M + Cfg::BM - 1) / Cfg::BM) * ((N + Cfg::BN - 1) / Cfg::BN);
    const bool vec = lda % VEC == 0 && ldb % VEC == 0 && aligned16(A) && aligned16(B);
    const bool pair_c = ldc % 2 == 0 && aligned(C, 8);  // float2 loads and stores of C
    // Whole tiles only (the benchmark shapes): no bounds tests in the copies.
    const bool full = vec && M % Cfg::BM == 0 && N % Cfg::BN == 0 && K % Cfg::BK == 0;
    auto kernel = full  ? mma_pipelined_kernel<Cfg, true, true>
                  : vec ? mma_pipelined_kernel<Cfg, true, false>
                        : mma_pipelined_kernel<Cfg, false, false>;
    kernel<<<blocks, Cfg::THREADS, Cfg::SMEM_BYTES, stream>>>(M, N, K, alpha, A, lda, B, ldb, beta,
                                                              C, ldc, pair_c);
    GEMM_CUDA_CHECK_LAUNCH();
}

// The largest default configuration that this device's shared memory takes.
// The configuration gemm() runs, from whether 16-byte copies are possible (vec) and how much shared
// memory a block may opt into: fn(Cfg{}) is called with it. tools/shape_sweep asks the same
// function for the tile it marks, so the two cannot drift apart.
template <class Fn>
inline void choose_config(bool vec, Fn&& fn) {
    const int smem_optin = gemm::dev::smem_optin_bytes();
    // With scalar copies (misaligned A/B) a 64x64 warp tile would spill: the 64x32 warp tiles of
    // the small config instead, as on sm_75 (64 KB).
    if (vec && smem_optin >= configs::b128x256_k64_s3::SMEM_BYTES)  // sm_80, sm_90: 163, 227 KB
        fn(configs::b128x256_k64_s3{});
    else if (vec && smem_optin >= configs::b128x256_k32_s3::SMEM_BYTES)  // sm_86, sm_89: 99 KB
        fn(configs::b128x256_k32_s3{});
    else  // sm_75 (64 KB), or no cp.async
        fn(configs::b128x128_k32_s2{});
}

inline void gemm(int M, int N, int K, float alpha, const __half* A, int lda, const __half* B,
                 int ldb, float beta, float* C, int ldc, cudaStream_t stream = 0) {
    const bool vec = lda % VEC == 0 && ldb % VEC == 0 && aligned16(A) && aligned16(B);
    choose_config(vec, [&](auto cfg) {
        gemm_cfg<decltype(cfg)>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, stream);
    });
}

}  // namespace ch11

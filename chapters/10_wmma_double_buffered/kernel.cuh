// Chapter 10: WMMA fed by a multi-stage cp.async pipeline: tiles k+1.. load while tile k computes.
// New vs chapter 09: STAGES shared-memory buffers filled by cp.async (sm_80+: global -> shared, no
// register round trip, zero-fill via src-size), so copy latency hides behind the mma_syncs; each
// k-step issues a share of the copy and the next step's fragments before its mma_syncs; 128x256x64
// block tiles, 64x64 warp tiles (4x4 fragments); grouped block order for L2 reuse; whole tiles
// copy without bounds tests and store straight to global. Without cp.async (sm_75, misaligned
// A/B) copies are staged through registers.
// Napkin math: L2 -> SM traffic 2*M*N*K*(1/BM + 1/BN) = 1.6 GB at 4096^3: 85 FLOP/byte.
// Preconditions: none. 16-byte copies need lda, ldb % 8 == 0 and 16-byte aligned A and B (else
// scalar copies, same tiling); the direct C store needs a full fragment, ldc % 4 == 0 and C
// 32-byte aligned (else staged through shared memory with bounds checks).
#pragma once

#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <mma.h>

#include <cstdint>

#include "cuda_check.cuh"

namespace ch10 {

namespace wmma = nvcuda::wmma;

constexpr int WMMA_M = 16, WMMA_N = 16, WMMA_K = 16;  // the tensor-core tile shape of mma_sync
constexpr int VEC = 8;                                // halves per 16-byte chunk
constexpr int GROUP_M = 8;                            // block rows walked together, for L2 reuse

// Block tile BM x BN, K step BK, warp tile WM x WN, STAGES buffers; MIN_BLOCKS per SM for
// __launch_bounds__.
template <int BM_, int BN_, int BK_, int WM_, int WN_, int STAGES_, int MIN_BLOCKS_>
struct Config {
    static constexpr int BM = BM_, BN = BN_, BK = BK_, WM = WM_, WN = WN_, MIN_BLOCKS = MIN_BLOCKS_;
    static constexpr int STAGES = STAGES_;
    static constexpr int WARPS_M = BM / WM, WARPS_N = BN / WN;
    static constexpr int WARPS = WARPS_M * WARPS_N, THREADS = 32 * WARPS;
    static constexpr int FM = WM / WMMA_M, FN = WN / WMMA_N;  // accumulator fragments per warp
    static constexpr int PAD = 8;                             // halves = 16 bytes, see README
    static constexpr int LDA_S = BK + PAD, LDB_S = BN + PAD;  // leading dimensions of As and Bs
    static constexpr int LDC_S = WMMA_N + 4;                  // of a staged float fragment
    static constexpr int A_CHUNKS = BM * BK / VEC / THREADS;  // 16-byte chunks per thread per tile
    static constexpr int B_CHUNKS = BK * BN / VEC / THREADS;
    static constexpr int A_STAGE = BM * LDA_S, B_STAGE = BK * LDB_S;  // halves per stage
    static constexpr int SMEM_BYTES = STAGES * (A_STAGE + B_STAGE) * int(sizeof(__half));
    static_assert(BM % WM == 0 && BN % WN == 0, "warp tiles must tile the block tile");
    static_assert(WM % WMMA_M == 0 && WN % WMMA_N == 0, "a warp tile is whole 16x16 fragments");
    static_assert(BK % (2 * WMMA_K) == 0,
                  "an even number of 16-deep steps per k-tile: the two fragment buffers alternate "
                  "the same way in every k-tile");
    static_assert(A_CHUNKS * VEC * THREADS == BM * BK && B_CHUNKS * VEC * THREADS == BK * BN,
                  "every thread copies the same number of whole 16-byte chunks");
    static_assert(STAGES >= 2, "the copy of one tile overlaps the math on another");
    static_assert(WARPS * WMMA_M * LDC_S * int(sizeof(float)) <= SMEM_BYTES,
                  "the epilogue's per-warp C staging reuses the pipeline buffers");
};

namespace configs {
using b128x256_k32_s3 = Config<128, 256, 32, 64, 64, 3, 1>;    // 8 warps of 4x4 fragments, 81 KB
using b128x256_k32_s4 = Config<128, 256, 32, 64, 64, 4, 1>;    // one more stage in flight, 108 KB
using b256x128_k32_s3 = Config<256, 128, 32, 64, 64, 3, 1>;    // transposed, 87 KB
using b128x256_k64_s3 = Config<128, 256, 64, 64, 64, 3, 1>;    // half the barriers per FLOP, 157 KB
using b128x256_k64_s4 = Config<128, 256, 64, 64, 64, 4, 1>;    // one more stage, 209 KB
using b256x128_k64_s3 = Config<256, 128, 64, 64, 64, 3, 1>;    // transposed, 163 KB
using b128x256_k128_s2 = Config<128, 256, 128, 64, 64, 2, 1>;  // a barrier per 8 steps, 205 KB
using b128x128_k32_s4 = Config<128, 128, 32, 64, 64, 4, 2>;    // 4 warps, 2 blocks per SM, 76 KB
using b128x128_k64_s3 = Config<128, 128, 64, 64, 64, 3, 2>;    // 4 warps, 2 blocks per SM, 108 KB
using b128x128_k32_s2 = Config<128, 128, 32, 64, 32, 2, 1>;    // fits 48 KB: sm_75 and the fallback
}  // namespace configs

inline bool aligned16(const void* p) {
    return reinterpret_cast<std::uintptr_t>(p) % 16 == 0;
}
inline bool aligned32(const void* p) {
    return reinterpret_cast<std::uintptr_t>(p) % 32 == 0;
}

// cp.async exists from sm_80 on; this is evaluated separately in each device compilation pass.
__host__ __device__ constexpr bool has_cp_async() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
    return false;
#else
    return true;
#endif
}

// 16-byte global -> shared copy that bypasses registers; the bytes past src_bytes are written as
// zeros, which is how out-of-range chunks become zero padding. .ca (through L1), not .cg (L2
// only): on the H100 the .cg form moved ~1.5x the bytes from L2 to the SMs (see README).
__device__ inline void cp_async_16(__half* dst, const __half* src, int src_bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(dst));
    asm volatile("cp.async.ca.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(src),
                 "r"(src_bytes));
#endif
}
// All 16 bytes if `live`, else nothing (a predicated copy: no branch, no traffic).
__device__ inline void cp_async_16(__half* dst, const __half* src, bool live) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(dst));
    asm volatile(
        "{\n .reg .pred p;\n setp.ne.b32 p, %2, 0;\n"
        " @p cp.async.ca.shared.global [%0], [%1], 16;\n}\n" ::"r"(s),
        "l"(src), "r"(int(live)));
#endif
}
// Closes the group of copies issued since the last commit.
__device__ inline void cp_async_commit() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}
// Waits until at most PENDING of this thread's committed groups are still in flight.
template <int PENDING>
__device__ inline void cp_async_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group %0;\n" ::"n"(PENDING) : "memory");
#endif
}

// The 8 halves (r, c..c+7) of a row-major (rows, cols) matrix, zero outside it. kVec: ld % 8 == 0
// and src 16-byte aligned, so a chunk wholly inside is one 16-byte load (unlike chapter 09, cols
// need not be a multiple of 8: cp.async takes ragged edges, so this register path does too).
template <bool kVec>
__device__ inline uint4 load_chunk(const __half* src, int ld, int rows, int cols, int r, int c) {
    if (kVec && r < rows && c + VEC <= cols) {
        return *reinterpret_cast<const uint4*>(&src[r * ld + c]);
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
    const int r = tid / CPR, c = (tid % CPR) * VEC;  // this thread's first chunk in the tile
#pragma unroll
    for (int it = 0; it < N; ++it)
        regs[it] = load_chunk<kVec>(src, ld, rows, cols, r0 + r + it * ROWS_PER_IT, c0 + c);
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

// Global -> shared without registers: part `part` of PARTS of this thread's chunks of the
// (ROWS, COLS) tile at (r0, c0) of src into the padded tile dst (ROWS, LD), chunks as in tile_load.
// Needs ld % 8 == 0 and src 16-byte aligned. Branch-free, so the compiler can interleave it with
// the mma_syncs around it; `part` is a constant once the caller's k-step loop is unrolled.
template <int ROWS, int COLS, int LD, int THREADS, int PARTS, bool kFull>
__device__ inline void tile_cp_async(__half* dst, const __half* src, int ld, int rows, int cols,
                                     int r0, int c0, int tid, int part, bool live) {
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
        if constexpr (kFull) {  // the tile lies inside the matrix: no tests, no zero fill
            cp_async_16(&dst[(r + it * ROWS_PER_IT) * LD + c], &src[gr * ld + gc], live);
            continue;
        }
        const int valid = gr < rows ? valid_cols : 0;
        const int offset = valid > 0 ? gr * ld + gc : 0;  // an address inside src even if unread
        cp_async_16(&dst[(r + it * ROWS_PER_IT) * LD + c], src + offset, 2 * valid);
    }
}

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

template <class Cfg, bool kVec, bool kFull>
static __global__ void __launch_bounds__(Cfg::THREADS, Cfg::MIN_BLOCKS)
    wmma_pipelined_kernel(int M, int N, int K, float alpha, const __half* A, int lda,
                          const __half* B, int ldb, float beta, float* C, int ldc, bool fast_c) {
    constexpr int BM = Cfg::BM, BN = Cfg::BN, BK = Cfg::BK, THREADS = Cfg::THREADS;
    constexpr int LDA_S = Cfg::LDA_S, LDB_S = Cfg::LDB_S, LDC_S = Cfg::LDC_S;
    constexpr int STAGES = Cfg::STAGES, KSTEPS = BK / WMMA_K;  // KSTEPS 16-deep steps per k-tile
    constexpr bool kAsync = kVec && has_cp_async();  // else: copies staged through registers
    extern __shared__ __align__(128) unsigned char smem[];
    __half* As = reinterpret_cast<__half*>(smem);  // (STAGES, BM, LDA_S)
    __half* Bs = As + STAGES * Cfg::A_STAGE;       // (STAGES, BK, LDB_S)

    const int tid = threadIdx.x, warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    // Block order: GROUP_M block-rows at a time, column by column, so that the blocks running
    // together share their A row-panels and B column-panels in L2.
    const int tiles_m = (M + BM - 1) / BM, tiles_n = (N + BN - 1) / BN;
    const int group = blockIdx.x / (GROUP_M * tiles_n);
    const int in_group = blockIdx.x % (GROUP_M * tiles_n);
    const int group_rows = min(tiles_m - group * GROUP_M, GROUP_M);  // the last group may be short
    const int m0 = (group * GROUP_M + in_group % group_rows) * BM;   // first row of the block tile
    const int n0 = (in_group / group_rows) * BN;                     // first column
    const int wm = warp / Cfg::WARPS_N, wn = warp % Cfg::WARPS_N;  // this warp's tile in the block

    FragC acc[Cfg::FM][Cfg::FN];  // (WM, WN) of C in registers
#pragma unroll
    for (int i = 0; i < Cfg::FM; ++i)
#pragma unroll
        for (int j = 0; j < Cfg::FN; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

    const int KT = (K + BK - 1) / BK;  // k-tiles
    // Asynchronous path: start part `part` of the copy of k-tile kt into stage s. The copy is
    // spread over the k-steps; with two stages it must land within one k-tile, so over the first
    // half of them only.
    constexpr int PARTS = STAGES > 2 ? KSTEPS : KSTEPS / 2;
    auto copy_async = [&](int s, int kt, int part) {
        // Past the end (kt >= KT): the bounds-checked copy reads nothing (out of range), the
        // kFull copy is switched off (its address is kept inside the matrix all the same).
        const int k0 = (kFull ? min(kt, KT - 1) : kt) * BK;
        tile_cp_async<BM, BK, LDA_S, THREADS, PARTS, kFull>(As + s * Cfg::A_STAGE, A, lda, M, K, m0,
                                                            k0, tid, part, kt < KT);
        tile_cp_async<BK, BN, LDB_S, THREADS, PARTS, kFull>(Bs + s * Cfg::B_STAGE, B, ldb, K, N, k0,
                                                            n0, tid, part, kt < KT);
    };
    // Register path: load k-tile kt into ra/rb, later store them into stage s.
    uint4 ra[Cfg::A_CHUNKS], rb[Cfg::B_CHUNKS];  // this thread's share of one A and one B tile
    auto load_regs = [&](int kt) {
        const int k0 = kt * BK;
        tile_load<BM, BK, THREADS, kVec>(ra, A, lda, M, K, m0, k0, tid);
        tile_load<BK, BN, THREADS, kVec>(rb, B, ldb, K, N, k0, n0, tid);
    };
    auto store_regs = [&](int s) {
        tile_store<BM, BK, LDA_S, THREADS>(As + s * Cfg::A_STAGE, ra, tid);
        tile_store<BK, BN, LDB_S, THREADS>(Bs + s * Cfg::B_STAGE, rb, tid);
    };

    // Prologue: k-tiles 0 .. STAGES-2 in flight, one commit group each (empty past the end, so the
    // count of groups stays uniform), then the fragments of tile 0's first step.
    for (int s = 0; s < STAGES - 1; ++s) {
        if constexpr (kAsync) {
            if (s < KT) {
#pragma unroll
                for (int part = 0; part < PARTS; ++part) copy_async(s, s, part);
            }
            cp_async_commit();
        } else if (s < KT) {
            load_regs(s);
            store_regs(s);
        }
    }
    FragA a[2][Cfg::FM];  // (WM, 16) of A, twice: the step being multiplied and the next one
    FragB b[2][Cfg::FN];  // (16, WN) of B, likewise
    if (KT > 0) {
        if constexpr (kAsync) cp_async_wait<STAGES - 2>();  // this thread's tile 0 has landed
        __syncthreads();                                    // everyone's has
        load_frags<Cfg>(a[0], b[0], As, Bs, 0, wm, wn);
    }

    // rs: the stage of tile kt (read); ws: the stage of tile kt + STAGES - 1 (written), tile
    // kt - 1's. Each moves on by one stage per k-tile.
    for (int kt = 0, rs = 0, ws = STAGES - 1; kt < KT;
         ++kt, ws = rs, rs = rs + 1 < STAGES ? rs + 1 : 0) {
        // BEGIN SOLUTION: per step: a share of tile next's copy, next step's fragments, the mma
        const int next = kt + STAGES - 1;  // the tile to copy in this iteration
#pragma unroll
        for (int ks = 0; ks < KSTEPS; ++ks) {
            // Tile next goes into stage ws (tile kt - 1's), free since the last barrier, a share
            // of the chunks per step so that the copy instructions mix with the mma_syncs. No
            // `next < KT` branch: past the end the copy reads nothing (see copy_async) and
            // without a branch the compiler interleaves copies and mma_syncs.
            if constexpr (kAsync) {
                copy_async(ws, next, ks);
                if (ks == KSTEPS - 1) cp_async_commit();  // one group per tile
            } else if (ks == 0) {
                load_regs(next);  // in flight during the mma steps, stored on the last one
            }
            // Where the next step's fragments are: this tile, or on the last step the next tile,
            // once it has landed (wait + barrier). After that barrier nobody reads this tile's
            // stage any more, which is what frees it for the copy issued in the next iteration.
            int stage = rs, kk = (ks + 1) * WMMA_K;
            if (ks == KSTEPS - 1) {
                if constexpr (!kAsync) store_regs(ws);              // tile kt-1's stage: free
                if constexpr (kAsync) cp_async_wait<STAGES - 2>();  // my copies of kt+1 landed
                __syncthreads();  // everyone's tile kt+1 is in place; everyone is done with tile kt
                stage = rs + 1 < STAGES ? rs + 1 : 0, kk = 0;
            }
            // Fragments for step ks+1 are requested before the mma of step ks, which hides their
            // latency behind the tensor cores.
            if (ks < KSTEPS - 1 || kt + 1 < KT) {
                load_frags<Cfg>(a[(ks + 1) % 2], b[(ks + 1) % 2], As + stage * Cfg::A_STAGE,
                                Bs + stage * Cfg::B_STAGE, kk, wm, wn);
            }
            mma_frags<Cfg>(acc, a[ks % 2], b[ks % 2]);
        }
        // END SOLUTION
    }

    // Epilogue: C = alpha * acc + beta * C; C is not read when beta == 0.
    if constexpr (kAsync) cp_async_wait<0>();  // only empty groups are left: returns at once
    __syncthreads();  // every warp is done with As/Bs: they become the per-warp staging buffers Cw
    float* Cw = reinterpret_cast<float*>(smem) + warp * WMMA_M * LDC_S;  // (16, LDC_S)
#pragma unroll
    for (int i = 0; i < Cfg::FM; ++i) {
#pragma unroll
        for (int j = 0; j < Cfg::FN; ++j) {
            // The fragment covers C(r0..r0+15, c0..c0+15); the tests are warp-uniform.
            const int r0 = m0 + wm * Cfg::WM + i * WMMA_M, c0 = n0 + wn * Cfg::WN + j * WMMA_N;
            if (r0 >= M || c0 >= N) continue;
            // BEGIN SOLUTION: full aligned fragments straight to global, the others through Cw
            if (fast_c && r0 + WMMA_M <= M && c0 + WMMA_N <= N) {
                float* c_tile = C + r0 * ldc + c0;  // (16, 16) of C in global memory
                if (beta != 0.0f) {
                    FragC c_frag;  // same element-to-lane layout as acc[i][j]
                    wmma::load_matrix_sync(c_frag, c_tile, ldc, wmma::mem_row_major);
                    for (int t = 0; t < c_frag.num_elements; ++t)
                        acc[i][j].x[t] = alpha * acc[i][j].x[t] + beta * c_frag.x[t];
                } else {
                    for (int t = 0; t < acc[i][j].num_elements; ++t) acc[i][j].x[t] *= alpha;
                }
                wmma::store_matrix_sync(c_tile, acc[i][j], ldc, wmma::mem_row_major);
                continue;
            }
            wmma::store_matrix_sync(Cw, acc[i][j], LDC_S, wmma::mem_row_major);
            __syncwarp();  // the whole fragment is in Cw before lanes read what other lanes wrote
            for (int e = lane; e < WMMA_M * WMMA_N; e += 32) {
                const int r = r0 + e / WMMA_N, c = c0 + e % WMMA_N;
                if (r < M && c < N) {
                    const float v = alpha * Cw[(e / WMMA_N) * LDC_S + e % WMMA_N];
                    float* p = &C[r * ldc + c];
                    *p = beta == 0.0f ? v : v + beta * *p;
                }
            }
            __syncwarp();  // every lane has read Cw before the next fragment overwrites it
            // END SOLUTION
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
            cudaFuncSetAttribute(wmma_pipelined_kernel<Cfg, true, true>, attr, Cfg::SMEM_BYTES));
        GEMM_CUDA_CHECK(
            cudaFuncSetAttribute(wmma_pipelined_kernel<Cfg, true, false>, attr, Cfg::SMEM_BYTES));
        GEMM_CUDA_CHECK(
            cudaFuncSetAttribute(wmma_pipelined_kernel<Cfg, false, false>, attr, Cfg::SMEM_BYTES));
        return true;
    }();
    (void)opted_in;
    const int blocks = ((M + Cfg::BM - 1) / Cfg::BM) * ((N + Cfg::BN - 1) / Cfg::BN);
    const bool vec = lda % VEC == 0 && ldb % VEC == 0 && aligned16(A) && aligned16(B);
    const bool fast_c = ldc % 4 == 0 && aligned32(C);  // store_matrix_sync: ldm % 4, 32-byte base
    // Whole tiles only (the benchmark shapes): no bounds tests in the copies.
    const bool full = vec && M % Cfg::BM == 0 && N % Cfg::BN == 0 && K % Cfg::BK == 0;
    auto kernel = full  ? wmma_pipelined_kernel<Cfg, true, true>
                  : vec ? wmma_pipelined_kernel<Cfg, true, false>
                        : wmma_pipelined_kernel<Cfg, false, false>;
    kernel<<<blocks, Cfg::THREADS, Cfg::SMEM_BYTES, stream>>>(M, N, K, alpha, A, lda, B, ldb, beta,
                                                              C, ldc, fast_c);
    GEMM_CUDA_CHECK_LAUNCH();
}

// The largest default configuration that this device's shared memory takes (looked up once).
inline void gemm(int M, int N, int K, float alpha, const __half* A, int lda, const __half* B,
                 int ldb, float beta, float* C, int ldc, cudaStream_t stream = 0) {
    static const int smem_optin = [] {
        int device = 0, bytes = 0;
        GEMM_CUDA_CHECK(cudaGetDevice(&device));
        GEMM_CUDA_CHECK(
            cudaDeviceGetAttribute(&bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
        return bytes;
    }();
    // BK = 64 only with cp.async: staged through registers, a 64-deep tile would spill.
    const bool vec = lda % VEC == 0 && ldb % VEC == 0 && aligned16(A) && aligned16(B);
    if (vec && smem_optin >= configs::b128x256_k64_s3::SMEM_BYTES)  // sm_80, sm_90: 163, 227 KB
        gemm_cfg<configs::b128x256_k64_s3>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, stream);
    else if (smem_optin >= configs::b128x256_k32_s3::SMEM_BYTES)  // sm_86, sm_89: 99 KB
        gemm_cfg<configs::b128x256_k32_s3>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, stream);
    else  // sm_75: 64 KB
        gemm_cfg<configs::b128x128_k32_s2>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, stream);
}

}  // namespace ch10

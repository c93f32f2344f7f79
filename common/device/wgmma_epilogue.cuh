// The epilogues of the wgmma chapters (12 on): a warpgroup's (64, 256) accumulator tile of
// wgmma.m64n256k16, written to C with alpha and beta from registers (store_tile), or, from chapter
// 15 on, through shared memory and TMA stores (store_tile_tma; in bf16 for the FP8 chapters from
// 22 on, store_tile_tma_bf16).
#pragma once

#include <cuda_bf16.h>

#include "device/sm90.cuh"

namespace sm90 {

// C's element: fp32 (chapters 12-16) or bf16 (the FP8 chapters, 20-23). Pairs of adjacent columns are
// read and written as one 8- or 4-byte access; single elements at the matrix's edges.
__device__ inline float2 load_pair(const float* p) { return *reinterpret_cast<const float2*>(p); }
__device__ inline float2 load_pair(const __nv_bfloat16* p) {
    return __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(p));
}
__device__ inline void store_pair(float* p, float a, float b) {
    *reinterpret_cast<float2*>(p) = make_float2(a, b);
}
__device__ inline void store_pair(__nv_bfloat16* p, float a, float b) {
    *reinterpret_cast<__nv_bfloat162*>(p) = __floats2bfloat162_rn(a, b);
}
__device__ inline float load_one(const float* p) { return *p; }
__device__ inline float load_one(const __nv_bfloat16* p) { return __bfloat162float(*p); }
__device__ inline void store_one(float* p, float v) { *p = v; }
__device__ inline void store_one(__nv_bfloat16* p, float v) { *p = __float2bfloat16(v); }

// C = alpha * d + beta * C, C not read when beta == 0. Thread t of a warpgroup holds rows r and
// r + 8 (r = 16 * warp + lane / 4 of its 64) and, for every 8 columns j, the pair of columns
// 8j + 2 * (lane % 4) and + 1: d[4j], d[4j+1] on row r, d[4j+2], d[4j+3] on row r + 8 (the
// mma.sync m16n8 layout of chapter 11, stacked). r is this thread's first row in C, n0 the tile's
// first column; 2 * ACC columns (256 for m64n256). fast: the whole (64, 2 * ACC) tile lies inside
// C and its pairs are aligned (8 bytes for fp32, 4 for bf16).
template <class T, int ACC>
__device__ inline void store_tile(const float (&d)[ACC], T* C, int ldc, int M, int N, int r,
                                  int n0, int lane, float alpha, float beta, bool fast) {
#pragma unroll
    for (int j = 0; j < ACC / 4; ++j) {
        const int c = n0 + 8 * j + 2 * (lane % 4);
#pragma unroll
        for (int h = 0; h < 2; ++h) {  // rows r and r + 8
            const int row = r + 8 * h;
            float v0 = alpha * d[4 * j + 2 * h], v1 = alpha * d[4 * j + 2 * h + 1];
            T* p = C + static_cast<long long>(row) * ldc + c;
            if (fast) {  // (row, c) and (row, c + 1) inside C, aligned
                if (beta != 0.0f) {
                    const float2 old = load_pair(p);
                    v0 += beta * old.x, v1 += beta * old.y;
                }
                store_pair(p, v0, v1);
                continue;
            }
            if (row >= M) continue;
            if (c < N) store_one(p, beta == 0.0f ? v0 : v0 + beta * load_one(p));
            if (c + 1 < N) store_one(p + 1, beta == 0.0f ? v1 : v1 + beta * load_one(p + 1));
        }
    }
}

// The epilogue through TMA (chapter 15; beta == 0): this warpgroup's (64, 2 * ACC) tile goes out
// in (64, Cfg::C_BOX) boxes (C_BOX = 32 floats: one 128-byte swizzle row). Each box is written to
// one of two shared-memory buffers in the TMA's 128-byte swizzle, then one thread hands it to the
// copy engine and the warpgroup fills the other buffer: the writes to global memory overlap the
// next box and the next tile's math. Thread t writes the elements it holds (see store_tile above)
// at row r, column c of a box: 16-byte chunk c / 4 of the 128-byte row goes to chunk (c / 4) ^
// (r % 8), so that the 8 rows of a warp's write hit different banks. Cs: this warpgroup's two
// (64, C_BOX) buffers, 1024-byte aligned.
template <class Cfg, int ACC>
__device__ inline void store_tile_tma(const float (&d)[ACC], float* Cs,
                                      const CUtensorMap* map_c, int m0, int n0, float alpha, int wg,
                                      int tid) {
    constexpr int BOX = Cfg::C_BOX;  // columns per box: 32 floats = one 128-byte swizzle row
    const int warp = tid / 32, lane = tid % 32;
#pragma unroll
    for (int q = 0; q < 2 * ACC / BOX; ++q) {  // the tile's 2 * ACC columns (256 for m64n256)
        float* buf = Cs + (q % 2) * 64 * BOX;  // (64, BOX), swizzled
        // The buffer is free once the copy engine has read the box stored from it two boxes ago.
        if (tid == 0) tma_store_wait<1, true>();
        named_sync(wg, 128);  // the warpgroup
#pragma unroll
        for (int jj = 0; jj < BOX / 8; ++jj) {
            const int j = q * BOX / 8 + jj;             // the 8-column group of d
            const int chunk = 2 * jj + (lane % 4) / 2;  // of the element pair in its 128-byte row
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const int r = 16 * warp + lane / 4 + 8 * h;
                float* p = buf + r * BOX + (chunk ^ (r % 8)) * 4 + (lane % 2) * 2;
                *reinterpret_cast<float2*>(p) =
                    make_float2(alpha * d[4 * j + 2 * h], alpha * d[4 * j + 2 * h + 1]);
            }
        }
        fence_proxy_async();  // each thread's writes, before the copy engine reads them
        named_sync(wg, 128);  // the warpgroup
        if (tid == 0)
            tma_store(map_c, buf, n0 + q * BOX, m0);  // rows past M, columns past N: not written
    }
}

// The FP8 chapters' TMA stores (22 on; beta == 0): this warpgroup's (64, BN) tile of C, times
// `scale`, in bf16, through a (BN / 64, 64, 64) buffer of its own (64 bf16 = one 128-byte swizzle
// row per box row), then BN / 64 TMA stores of (64, 64) by one thread, which go out while the next
// tile's main loop runs. Chapter 15's lesson with one buffer per warpgroup: the wait for the stores
// comes only here, a tile later, before the buffer is written again. Thread t writes the pairs it
// holds (store_tile's layout) at their swizzled place. m: the warpgroup's first row of C; Cs:
// 1024-byte aligned.
constexpr int TMA_BF16_BOX = 64;  // the boxes' bf16 columns (the host's tensor map for C: (64, 64))
template <int BN, int ACC>
__device__ inline void store_tile_tma_bf16(const float (&d)[ACC], unsigned char* Cs,
                                           const CUtensorMap* map_c, int m, int n0, float scale,
                                           int wg, int tid) {
    constexpr int BOX = TMA_BF16_BOX;  // bf16 columns per box: one 128-byte swizzle row
    static_assert(2 * ACC == BN && BN % BOX == 0, "(64, BN) in whole boxes");
    const int warp = tid / 32, lane = tid % 32;
    if (tid == 0) tma_store_wait<0, true>();  // the copy engine has read the last tile's boxes
    named_sync(wg, 128);                      // the warpgroup, after thread 0's wait
#pragma unroll
    for (int j = 0; j < ACC / 4; ++j) {
        const int c = 8 * j + 2 * (lane % 4);  // this thread's pair of columns (store_tile)
#pragma unroll
        for (int h = 0; h < 2; ++h) {  // rows r and r + 8, at their swizzled place
            const int row = 16 * warp + lane / 4 + 8 * h;  // r's place in the 64 rows
            const int at = (c / BOX) * 64 * 128 + row * 128 + 2 * (c % BOX);
            store_pair(reinterpret_cast<__nv_bfloat16*>(Cs + swizzle128(at)),
                       scale * d[4 * j + 2 * h], scale * d[4 * j + 2 * h + 1]);
        }
    }
    fence_proxy_async();  // each thread's writes, before the copy engine reads them
    named_sync(wg, 128);  // all of them, before thread 0 hands the boxes over
    if (tid == 0)
        for (int q = 0; q < BN / BOX; ++q)  // rows past M, columns past N: not written
            tma_store(map_c, Cs + q * 64 * 128, n0 + q * BOX, m);
}

}  // namespace sm90

// The register epilogue of the wgmma chapters (12 on): a warpgroup's (64, 256) accumulator tile of
// wgmma.m64n256k16, written to C with alpha and beta.
#pragma once

#include "device/sm90.cuh"

namespace sm90 {

// C = alpha * d + beta * C, C not read when beta == 0. Thread t of a warpgroup holds rows r and
// r + 8 (r = 16 * warp + lane / 4 of its 64) and, for every 8 columns j, the pair of columns
// 8j + 2 * (lane % 4) and + 1: d[4j], d[4j+1] on row r, d[4j+2], d[4j+3] on row r + 8 (the
// mma.sync m16n8 layout of chapter 11, stacked). r is this thread's first row in C, n0 the tile's
// first column. fast: the whole (64, 256) tile lies inside C and pairs of floats are 8-byte
// aligned.
__device__ inline void store_tile(const float (&d)[WGMMA_ACC], float* C, int ldc, int M, int N,
                                  int r, int n0, int lane, float alpha, float beta, bool fast) {
#pragma unroll
    for (int j = 0; j < WGMMA_ACC / 4; ++j) {
        const int c = n0 + 8 * j + 2 * (lane % 4);
#pragma unroll
        for (int h = 0; h < 2; ++h) {  // rows r and r + 8
            const int row = r + 8 * h;
            float v0 = alpha * d[4 * j + 2 * h], v1 = alpha * d[4 * j + 2 * h + 1];
            float* p = C + static_cast<long long>(row) * ldc + c;
            if (fast) {  // (row, c) and (row, c + 1) inside C, 8-byte aligned
                if (beta != 0.0f) {
                    const float2 old = *reinterpret_cast<const float2*>(p);
                    v0 += beta * old.x, v1 += beta * old.y;
                }
                *reinterpret_cast<float2*>(p) = make_float2(v0, v1);
                continue;
            }
            if (row >= M) continue;
            if (c < N) p[0] = beta == 0.0f ? v0 : v0 + beta * p[0];
            if (c + 1 < N) p[1] = beta == 0.0f ? v1 : v1 + beta * p[1];
        }
    }
}

}  // namespace sm90

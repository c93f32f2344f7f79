// The general-shape layer: what a chapter needs for the shapes and pointers its fast path does not
// take, kept out of the kernel files so that they read as the fast path. Every chapter still meets
// the whole contract (every M, N, K, leading dimension and alignment: tests/cases.hpp).
#pragma once

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

namespace gemm {

// ---- Grid-limit slicing (chapters 03-06) --------------------------------------------------------
// A 2D grid has at most 65535 blocks along y. A chapter whose grid walks one dimension of C with
// blockIdx.y launches once per slice of at most 65535 * TILE rows (or columns) of that dimension:
// launch(first, count) is called for each slice. With the benchmark shapes there is one slice.
template <class Launch>
inline void for_each_grid_slice(long long extent, int tile, Launch launch) {
    const long long slice = 65535LL * tile;  // rows (or columns) one launch can cover
    for (long long first = 0; first < extent; first += slice)
        launch(first, int(std::min<long long>(extent - first, slice)));
}

namespace dev {

// ---- Operands that cp.async cannot copy (chapters 10-11) ----------------------------------------
// cp.async copies 16 aligned bytes. An operand whose leading dimension is not a multiple of 8
// halves, or whose base is not 16-byte aligned, is copied chunk by chunk with scalar loads instead:
// the 8 halves (r, c..c+7) of a row-major (rows, cols) matrix, zero outside it, stored to the
// shared address dst. Synchronous: the barrier that publishes the stage publishes these stores too.
__device__ inline void copy_chunk_scalar(uint32_t dst, const __half* src, int ld, int rows,
                                         int cols, int r, int c) {
    alignas(16) __half v[8];
#pragma unroll
    for (int t = 0; t < 8; ++t)
        v[t] = (r < rows && c + t < cols) ? src[r * ld + c + t] : __float2half(0.0f);
    const uint4 w = *reinterpret_cast<const uint4*>(v);
    asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};\n" ::"r"(dst), "r"(w.x), "r"(w.y),
                 "r"(w.z), "r"(w.w)
                 : "memory");
}

}  // namespace dev
}  // namespace gemm

// PTX wrappers taught in chapter 11: ldmatrix (8x8 matrices of halves from shared memory into the
// registers of a warp) and mma.sync m16n8k16, with the lane layouts the PTX ISA documents for them
// as host-callable functions (what chapter 11's README and tools/reporting/figures.py draw, what
// the kernels index their accumulators with). sm_75 has no m16n8k16: there it becomes two m16n8k8.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace gemm::dev {

// An element of a small matrix: row and column.
struct RowCol {
    int row, col;
};

// Where ldmatrix puts things: lanes 8i..8i+7 give the row addresses of matrix i, register i
// receives it, lane l holding row l / 4, columns 2 (l % 4) + h for its two halves h = 0, 1.
__host__ __device__ constexpr RowCol ldmatrix_elem(int lane, int h) {
    return {lane / 4, 2 * (lane % 4) + h};
}
// .trans delivers each matrix transposed: lane l holds column l / 4, rows 2 (l % 4) + h.
__host__ __device__ constexpr RowCol ldmatrix_trans_elem(int lane, int h) {
    return {2 * (lane % 4) + h, lane / 4};
}

// The fragments of mma.sync m16n8k16 (PTX ISA, "Matrix Fragments for mma.m16n8k16"), for lane l,
// g = l / 4, t = l % 4. A (16, 16): register i (0..3), half h at row g + 8 (i % 2), column
// 2t + h + 8 (i / 2). B (16, 8) as (k, n): register i (0..1), half h at k = 2t + h + 8i, n = g.
// C and D (16, 8): element e (0..3) at row g + 8 (e / 2), column 2t + e % 2.
__host__ __device__ constexpr RowCol mma_a_elem(int lane, int i, int h) {
    return {lane / 4 + 8 * (i % 2), 2 * (lane % 4) + h + 8 * (i / 2)};
}
__host__ __device__ constexpr RowCol mma_b_elem(int lane, int i, int h) {
    return {2 * (lane % 4) + h + 8 * i, lane / 4};
}
__host__ __device__ constexpr RowCol mma_c_elem(int lane, int e) {
    return {lane / 4 + 8 * (e / 2), 2 * (lane % 4) + e % 2};
}

// Four 8x8 matrices of halves from shared memory (layout: ldmatrix_elem above; .trans:
// ldmatrix_trans_elem).
__device__ inline void ldmatrix_x4(uint32_t (&r)[4], uint32_t addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}
__device__ inline void ldmatrix_x4_trans(uint32_t (&r0)[2], uint32_t (&r1)[2], uint32_t addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r0[0]), "=r"(r0[1]), "=r"(r1[0]), "=r"(r1[1])
                 : "r"(addr));
}

// d (16, 8) += a (16, 16) * b (16, 8), fp16 inputs, fp32 accumulators (layouts: mma_a_elem,
// mma_b_elem, mma_c_elem above; figures in chapter 11's README). sm_75 has no m16n8k16: there the
// same product is two 8-deep halves.
__device__ inline void mma_16816(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
        "{%8, %9}, {%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#else  // a[0..1], b[0] hold k 0..7; a[2..3], b[1] k 8..15
    asm volatile(
        "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5}, {%6}, "
        "{%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(b[0]));
    asm volatile(
        "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5}, {%6}, "
        "{%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[2]), "r"(a[3]), "r"(b[1]));
#endif
}

}  // namespace gemm::dev

// The wgmma of chapter 18 (small M): A and B swapped. C^T = B^T A^T, so wgmma's A operand (64
// rows) is 64 columns of our B, and wgmma's N (8 to 64) is our M, the few rows of a decode batch.
// Our B is row-major K x N: its (64 of N, 16 of K) slice has the 64 N contiguous, MN-major, which
// the transpose-A immediate says (fp16 wgmma reads either operand either way; FP8 cannot). Our A is
// row-major M x K: for wgmma's B operand that is K-major, no transpose. Both descriptors are
// chapter 12's smem_desc: the 128-byte swizzle, leading and stride byte offsets as for chapter
// 15's B (MN-major) and A (K-major). Layout of d: chapter 12's README, read with the roles swapped
// (the thread's "rows" are columns of our C, its "columns" rows of our C).
// Builds on: common/device/ch16_wgmma_narrow.cuh
#pragma once

#include <cstdint>

#include "device/sm90.cuh"

namespace sm90 {

#define SM90_D8(i)                                                                              \
    "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]), \
        "+f"(d[i + 6]), "+f"(d[i + 7])

// d (64, 8 * J) += A^T (64, 16) * B (16, 8 * J): imm-scale-a, imm-scale-b 1; imm-trans-a 1
// (MN-major A), imm-trans-b 0 (K-major B). Called by the accumulator array: float d[4], d[8],
// d[16] or d[32] issue m64n8k16, m64n16k16, m64n32k16 or m64n64k16.
__device__ inline void wgmma_swapped(float (&d)[4], uint64_t desc_a, uint64_t desc_b) {
    asm volatile(
        "{\n .reg .pred acc;\n setp.ne.b32 acc, %6, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%0, %1, %2, %3},"
        " %4, %5, acc, 1, 1, 1, 0;\n}"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "l"(desc_a), "l"(desc_b), "r"(1));
}
__device__ inline void wgmma_swapped(float (&d)[8], uint64_t desc_a, uint64_t desc_b) {
    asm volatile(
        "{\n .reg .pred acc;\n setp.ne.b32 acc, %10, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7},"
        " %8, %9, acc, 1, 1, 1, 0;\n}"
        : SM90_D8(0)
        : "l"(desc_a), "l"(desc_b), "r"(1));
}
__device__ inline void wgmma_swapped(float (&d)[16], uint64_t desc_a, uint64_t desc_b) {
    asm volatile(
        "{\n .reg .pred acc;\n setp.ne.b32 acc, %18, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15},"
        " %16, %17, acc, 1, 1, 1, 0;\n}"
        : SM90_D8(0), SM90_D8(8)
        : "l"(desc_a), "l"(desc_b), "r"(1));
}
__device__ inline void wgmma_swapped(float (&d)[32], uint64_t desc_a, uint64_t desc_b) {
    asm volatile(
        "{\n .reg .pred acc;\n setp.ne.b32 acc, %34, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15,"
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31},"
        " %32, %33, acc, 1, 1, 1, 0;\n}"
        : SM90_D8(0), SM90_D8(8), SM90_D8(16), SM90_D8(24)
        : "l"(desc_a), "l"(desc_b), "r"(1));
}
#undef SM90_D8

}  // namespace sm90

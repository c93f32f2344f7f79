// PTX wrappers taught in chapter 16: the narrower wgmma tiles (N = 128 or 64 columns) for outputs
// with few tiles, and one name for the three widths.
#pragma once

#include <cstdint>

#include "device/ch12_wgmma.cuh"  // wgmma_m64n256k16, WGMMA_ACC

namespace sm90 {

#define SM90_D8(i)                                                                              \
    "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]), \
        "+f"(d[i + 6]), "+f"(d[i + 7])

// The same instruction as wgmma_m64n256k16 with N = 128 or 64 columns (64 or 32 accumulators per
// thread, the same layout cut short).
__device__ inline void wgmma_m64n128k16(float (&d)[64], uint64_t desc_a, uint64_t desc_b) {
    asm volatile(
        "{\n .reg .pred acc;\n setp.ne.b32 acc, %66, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15,"
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31,"
        "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47,"
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63},"
        " %64, %65, acc, 1, 1, 0, 1;\n}"
        : SM90_D8(0), SM90_D8(8), SM90_D8(16), SM90_D8(24), SM90_D8(32), SM90_D8(40), SM90_D8(48),
          SM90_D8(56)
        : "l"(desc_a), "l"(desc_b), "r"(1));
}
__device__ inline void wgmma_m64n64k16(float (&d)[32], uint64_t desc_a, uint64_t desc_b) {
    asm volatile(
        "{\n .reg .pred acc;\n setp.ne.b32 acc, %34, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15,"
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31},"
        " %32, %33, acc, 1, 1, 0, 1;\n}"
        : SM90_D8(0), SM90_D8(8), SM90_D8(16), SM90_D8(24)
        : "l"(desc_a), "l"(desc_b), "r"(1));
}
// One name for the three widths, picked by the accumulator array: wgmma_m64k16(d, a, b) with
// float d[128], d[64] or d[32] issues m64n256k16, m64n128k16 or m64n64k16.
__device__ inline void wgmma_m64k16(float (&d)[128], uint64_t a, uint64_t b) {
    wgmma_m64n256k16(d, a, b);
}
__device__ inline void wgmma_m64k16(float (&d)[64], uint64_t a, uint64_t b) {
    wgmma_m64n128k16(d, a, b);
}
__device__ inline void wgmma_m64k16(float (&d)[32], uint64_t a, uint64_t b) {
    wgmma_m64n64k16(d, a, b);
}
#undef SM90_D8

}  // namespace sm90

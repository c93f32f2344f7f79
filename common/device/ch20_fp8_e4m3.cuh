// FP8 (e4m3) additions to sm90.cuh, taught in chapter 20 and used by 21-23: the e4m3 wgmma
// shapes, the fence that keeps the compiler from touching accumulators while a wgmma may still
// write them, and a named-barrier arrive.
#pragma once

#include <cstdint>

#include "device/sm90.cuh"

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define SM90_FP8_SM90A 1
#endif

namespace sm90 {

// An empty instruction that "reads and writes" r: the compiler cannot move a use of r across it
// (nor across wgmma_wait, as both are volatile asm). After wgmma_wait, the registers wgmma wrote
// asynchronously are final; this orders the plain instructions that read them after the wait.
__device__ inline void fence_operand(float& r) {
    asm volatile("" : "+f"(r)::"memory");
}

// Arrives on named barrier `id` (1..15) without waiting: with named_sync (sm90.cuh) on the other
// side, one warpgroup hands a turn to another (chapter 22's ordered wgmma issue).
__device__ inline void named_arrive(int id, int count) {
    asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(count) : "memory");
}

#define SM90_FP8_D8(i)                                                                          \
    "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]), \
        "+f"(d[i + 6]), "+f"(d[i + 7])

// d (64, 256) (+)= A (64, 32) * B (256, 32)^T, e4m3 from shared memory, both K-major (the only
// layout FP8 wgmma reads: no transpose immediates). scale_d 0 overwrites d, 1 adds to it.
__device__ inline void wgmma_m64n256k32_e4m3(float (&d)[128], uint64_t desc_a, uint64_t desc_b,
                                             int scale_d) {
#ifdef SM90_FP8_SM90A
    asm volatile(
        "{\n .reg .pred acc;\n setp.ne.b32 acc, %130, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, "
        "%18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, "
        "%34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, "
        "%50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, "
        "%66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, "
        "%82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, "
        "%98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, "
        "%111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, "
        "%124, %125, %126, %127"
        "}, %128, %129, acc, 1, 1;\n}"  // d, A, B, scale-d, no negation of A or B
        : SM90_FP8_D8(0), SM90_FP8_D8(8), SM90_FP8_D8(16), SM90_FP8_D8(24), SM90_FP8_D8(32),
          SM90_FP8_D8(40), SM90_FP8_D8(48), SM90_FP8_D8(56), SM90_FP8_D8(64), SM90_FP8_D8(72),
          SM90_FP8_D8(80), SM90_FP8_D8(88), SM90_FP8_D8(96), SM90_FP8_D8(104), SM90_FP8_D8(112),
          SM90_FP8_D8(120)
        : "l"(desc_a), "l"(desc_b), "r"(scale_d));
#else
    (void)d, (void)desc_a, (void)desc_b, (void)scale_d;
#endif
}

// d (64, 128) (+)= A (64, 32) * B (128, 32)^T, e4m3 from shared memory, both K-major (the only
// layout FP8 wgmma reads: no transpose immediates). scale_d 0 overwrites d, 1 adds to it.
__device__ inline void wgmma_m64n128k32_e4m3(float (&d)[64], uint64_t desc_a, uint64_t desc_b,
                                             int scale_d) {
#ifdef SM90_FP8_SM90A
    asm volatile(
        "{\n .reg .pred acc;\n setp.ne.b32 acc, %66, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, "
        "%18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, "
        "%34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, "
        "%50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
        "}, %64, %65, acc, 1, 1;\n}"  // d, A, B, scale-d, no negation of A or B
        : SM90_FP8_D8(0), SM90_FP8_D8(8), SM90_FP8_D8(16), SM90_FP8_D8(24), SM90_FP8_D8(32),
          SM90_FP8_D8(40), SM90_FP8_D8(48), SM90_FP8_D8(56)
        : "l"(desc_a), "l"(desc_b), "r"(scale_d));
#else
    (void)d, (void)desc_a, (void)desc_b, (void)scale_d;
#endif
}

#undef SM90_FP8_D8

}  // namespace sm90

// PTX wrappers taught in chapter 12: wgmma.mma_async m64n256k16 (a warpgroup's (64, 16) x (16,
// 256) product with both operands read from shared memory), its shared-memory matrix descriptor,
// the fence / commit / wait that order it, and the proxy fence between generic-proxy writes and
// the async proxy that wgmma reads through. Layouts: chapter 12's README.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

// wgmma and setmaxnreg exist in code built for exactly sm_90a (meson.build's hopper_arch_args); a
// device pass for any other target would assemble nothing useful, so it stops here, loudly.
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
#error "ch12_wgmma.cuh is sm_90a code: build with -gencode=arch=compute_90a,code=sm_90a"
#endif

namespace sm90 {

__device__ inline unsigned smem_u32(const void* p) {
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// A wgmma shared-memory matrix descriptor (PTX ISA, "Matrix Descriptor Format"): start address,
// leading- and stride-dimension byte offsets (all >> 4) and the swizzle mode (1 = 128 bytes).
__device__ inline uint64_t smem_desc(const void* p, unsigned lbo_bytes, unsigned sbo_bytes) {
    return uint64_t((smem_u32(p) & 0x3FFFF) >> 4) | uint64_t(lbo_bytes >> 4) << 16 |
           uint64_t(sbo_bytes >> 4) << 32 | uint64_t(1) << 62;
}

// Orders this warpgroup's register accesses (the accumulators) before the wgmmas that follow.
__device__ inline void wgmma_fence() {
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
}
// Closes the group of wgmmas issued since the last commit.
__device__ inline void wgmma_commit() {
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}
// Waits until at most PENDING of this warpgroup's committed groups are still running.
template <int PENDING>
__device__ inline void wgmma_wait() {
    asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(PENDING) : "memory");
}

// Generic-proxy writes to shared memory (ordinary stores, cp.async) become visible to the async
// proxy (wgmma's operand reads, TMA stores) of the same block.
__device__ inline void fence_proxy_async() {
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

constexpr int WGMMA_ACC = 128;  // fp32 accumulators per thread of m64n256k16: (64, 256) / 128

#define SM90_D8(i)                                                                              \
    "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]), \
        "+f"(d[i + 6]), "+f"(d[i + 7])

// d (64, 256) += A (64, 16) * B (16, 256), both from shared memory. A is K-major (row-major A: a
// row's 16 k are contiguous); B is MN-major (row-major B: a k-row's n are contiguous), which the
// last immediate (transpose B = 1) says. d is this thread's 128 accumulators (layout:
// wgmma_epilogue.cuh and chapter 12's README).
__device__ inline void wgmma_m64n256k16(float (&d)[WGMMA_ACC], uint64_t desc_a, uint64_t desc_b) {
    asm volatile(
        "{\n .reg .pred acc;\n setp.ne.b32 acc, %130, 0;\n"  // scale-d: 1 adds to d, 0 overwrites
        "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15,"
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31,"
        "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47,"
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63,"
        "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79,"
        "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95,"
        "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110,"
        "%111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124,"
        "%125, %126, %127},"
        " %128, %129, acc, 1, 1, 0, 1;\n}"  // scale A, B by 1; transpose A: no, B: yes
        : SM90_D8(0), SM90_D8(8), SM90_D8(16), SM90_D8(24), SM90_D8(32), SM90_D8(40), SM90_D8(48),
          SM90_D8(56), SM90_D8(64), SM90_D8(72), SM90_D8(80), SM90_D8(88), SM90_D8(96),
          SM90_D8(104), SM90_D8(112), SM90_D8(120)
        : "l"(desc_a), "l"(desc_b), "r"(1));
}

#undef SM90_D8

}  // namespace sm90

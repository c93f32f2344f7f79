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

// ---- the layouts, host-callable: the kernels use them, tools/reporting/figures.py draws them
// ----------------

// The 128-byte swizzle (TMA's CU_TENSOR_MAP_SWIZZLE_128B, the descriptor's swizzle mode 1) of a
// byte offset from a 1024-byte aligned base: the 16-byte chunk inside a 128-byte row (bits 4-6) is
// XORed with the row's number mod 8 (bits 7-9). The hardware applies it to address bits, hence the
// 1024-byte alignment of every swizzled tile.
__host__ __device__ constexpr uint32_t swizzle128(uint32_t offset) {
    return offset ^ ((offset >> 7) & 7) << 4;
}

// A wgmma shared-memory matrix descriptor (PTX ISA, "Matrix Descriptor Format"), 64 bits: 14-bit
// fields of byte counts >> 4 for the start address, the leading- and the stride-dimension byte
// offsets (LBO, SBO), and the swizzle mode in two bits (1 = 128 bytes).
constexpr int DESC_START_BIT = 0, DESC_LBO_BIT = 16, DESC_SBO_BIT = 32, DESC_FIELD_BITS = 14;
constexpr int DESC_SWIZZLE_BIT = 62, DESC_SWIZZLE_BITS = 2, DESC_SWIZZLE_128B = 1;
__host__ __device__ constexpr uint64_t desc_encode(uint32_t addr, uint32_t lbo_bytes,
                                                   uint32_t sbo_bytes) {
    return uint64_t((addr & 0x3FFFF) >> 4) << DESC_START_BIT |
           uint64_t(lbo_bytes >> 4) << DESC_LBO_BIT | uint64_t(sbo_bytes >> 4) << DESC_SBO_BIT |
           uint64_t(DESC_SWIZZLE_128B) << DESC_SWIZZLE_BIT;
}

// What one wgmma k16 step reads: its operand starts `offset` bytes after a tile's base, with these
// byte offsets between core-matrix groups (their meaning: wgmma_operand_byte below).
struct DescStep {
    uint32_t offset, lbo, sbo;
};

// An operand's major-ness: K-major (a row of M or N holds its k contiguously, as row-major A) or
// MN-major (a k-row holds its M or N contiguously, as row-major B; fp16 only, transpose bit set).
enum class Major { K, MN };

// The byte, from the 1024-byte aligned base, that wgmma reads for element (mn, k) (0 <= k < 16)
// of an fp16 operand whose descriptor starts `start` bytes after that base, in the 128-byte swizzle
// (PTX ISA, "Shared Memory Matrix Layout"). Core matrices are 8 rows of 16 bytes. K-major: row mn
// is 128 bytes (mn % 8 of a group of 8), groups SBO apart, k at 2k bytes; LBO unused (16 k fit in a
// 128-byte row). MN-major: k-row k % 8 is 128 bytes holding 64 of MN, groups of 8 k-rows SBO apart,
// the next 64 of MN LBO further. The kernels never compute this (the tensor cores do); the tests
// check that the kernels' copies put every element where it says.
__host__ __device__ constexpr uint32_t wgmma_operand_byte(Major major, uint32_t start, uint32_t lbo,
                                                          uint32_t sbo, int mn, int k) {
    return swizzle128(major == Major::K ? start + (mn / 8) * sbo + (mn % 8) * 128 + 2 * k
                                        : start + (mn / 64) * lbo + (k / 8) * sbo + (k % 8) * 128 +
                                              2 * (mn % 64));
}

// ---- the instructions
// -----------------------------------------------------------------------------

__device__ inline uint64_t smem_desc(const void* p, unsigned lbo_bytes, unsigned sbo_bytes) {
    return desc_encode(smem_u32(p), lbo_bytes, sbo_bytes);
}
// The descriptor of one step of the tile at p.
__device__ inline uint64_t smem_desc(const void* p, DescStep step) {
    return desc_encode(smem_u32(p) + step.offset, step.lbo, step.sbo);
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

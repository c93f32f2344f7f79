// PTX wrappers of the sm_80 generation (Ampere on, also Hopper): cp.async (taught in chapter 10),
// ldmatrix and mma.sync m16n8k16 (chapter 11). Shared-memory operands are 32-bit shared-window
// addresses (__cvta_generic_to_shared), as the instructions take them.
// Built for sm_75 too (every chapter compiles for 7.5): there cp.async becomes an ordinary,
// synchronous copy through registers (its commit and wait do nothing, the data is already in place
// at the next barrier) and m16n8k16 becomes two m16n8k8. Same results, no overlap.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "cuda_check.cuh"

namespace gemm::dev {

// The most dynamic shared memory one block of the current device may opt into (looked up once):
// what decides which of a chapter's pipelines fits (sm_75: 64 KB, sm_86/89: 99, sm_80: 163,
// sm_90: 227).
inline int smem_optin_bytes() {
    static const int bytes = [] {
        int device = 0, b = 0;
        GEMM_CUDA_CHECK(cudaGetDevice(&device));
        GEMM_CUDA_CHECK(
            cudaDeviceGetAttribute(&b, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
        return b;
    }();
    return bytes;
}

// cp.async's cache operator: .ca keeps the line in L1 as well, .cg goes to L2 only.
enum class CpAsync { ca, cg };

// 16 bytes global -> shared (dst: shared address, src: 16-byte aligned), asynchronously and
// without registers. Bytes past src_bytes (0..16) are written as zeros: that is how a chunk
// hanging over the edge of a matrix becomes zero padding, and src_bytes = 0 reads nothing.
template <CpAsync OP = CpAsync::ca>
__device__ inline void cp_async_16(uint32_t dst, const void* src, int src_bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    if constexpr (OP == CpAsync::ca)
        asm volatile("cp.async.ca.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src),
                     "r"(src_bytes));
    else
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src),
                     "r"(src_bytes));
#else  // sm_75: the same bytes, synchronously
    alignas(16) unsigned char v[16] = {};
    if (src_bytes == 16) {
        *reinterpret_cast<uint4*>(v) = *static_cast<const uint4*>(src);
    } else {
        for (int i = 0; i < src_bytes; ++i) v[i] = static_cast<const unsigned char*>(src)[i];
    }
    const uint4 w = *reinterpret_cast<const uint4*>(v);
    asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};\n" ::"r"(dst), "r"(w.x), "r"(w.y),
                 "r"(w.z), "r"(w.w)
                 : "memory");
#endif
}

// All 16 bytes if `live`, else nothing at all (a predicated copy: no branch, no traffic).
template <CpAsync OP = CpAsync::ca>
__device__ inline void cp_async_16_if(uint32_t dst, const void* src, bool live) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    if constexpr (OP == CpAsync::ca)
        asm volatile(
            "{\n .reg .pred p;\n setp.ne.b32 p, %2, 0;\n"
            " @p cp.async.ca.shared.global [%0], [%1], 16;\n}\n" ::"r"(dst),
            "l"(src), "r"(int(live)));
    else
        asm volatile(
            "{\n .reg .pred p;\n setp.ne.b32 p, %2, 0;\n"
            " @p cp.async.cg.shared.global [%0], [%1], 16;\n}\n" ::"r"(dst),
            "l"(src), "r"(int(live)));
#else
    if (live) cp_async_16<OP>(dst, src, 16);
#endif
}

// Closes the group of copies this thread issued since its last commit.
__device__ inline void cp_async_commit() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}

// Waits until at most PENDING of this thread's committed groups are still in flight. Other
// threads' copies are visible only after a barrier that follows their waits.
template <int PENDING>
__device__ inline void cp_async_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group %0;\n" ::"n"(PENDING) : "memory");
#endif
}

// Four 8x8 matrices of halves from shared memory: lanes 8i..8i+7 give the row addresses of matrix
// i, register i receives it, lane l holding row l / 4, columns 2 (l % 4) and 2 (l % 4) + 1.
// .trans delivers each matrix transposed: lane l holds column l / 4, rows 2 (l % 4), +1.
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

// d (16, 8) += a (16, 16) * b (16, 8), fp16 inputs, fp32 accumulators (layouts: chapter 11's
// README). sm_75 has no m16n8k16: there the same product is two 8-deep halves.
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

// PTX wrappers taught in chapter 10: cp.async (16 bytes global -> shared without registers, its
// commit and wait), and the shared-memory opt-in that decides which pipeline fits. Shared-memory
// operands are 32-bit shared-window addresses (__cvta_generic_to_shared), as the instructions take
// them. Built for sm_75 too (every chapter compiles for 7.5): there cp.async becomes an ordinary,
// synchronous copy through registers (its commit and wait do nothing, the data is already in place
// at the next barrier). Same results, no overlap.
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

}  // namespace gemm::dev

// The sm_80 copy instructions the chapters from 11 on use: cp.async, a 16-byte global -> shared
// copy that bypasses the registers, and its commit groups (taught in chapters 10 and 11).
#pragma once

#include <cuda_fp16.h>

#include <cstdint>

namespace sm80 {

// 16 bytes from src into the shared-memory address dst; the bytes past src_bytes (0..16) are
// written as zeros, which is how chunks outside the matrix become zero padding. .cg: through L2
// only, not L1 (chapter 11's README).
__device__ inline void cp_async_16(uint32_t dst, const __half* src, int src_bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src),
                 "r"(src_bytes));
#endif
}
// Closes the group of copies issued since the last commit.
__device__ inline void cp_async_commit() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}
// Waits until at most PENDING of this thread's committed groups are still in flight.
template <int PENDING>
__device__ inline void cp_async_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group %0;\n" ::"n"(PENDING) : "memory");
#endif
}

}  // namespace sm80

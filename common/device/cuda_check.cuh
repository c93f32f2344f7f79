// Error checks for CUDA runtime calls and kernel launches: every failure names the call, file and
// line. CUDA runtime calls only: cuBLAS and cuBLASLt return their own status type, and the
// yardsticks check their calls where they make them (GEMM_CUBLAS_CHECK, for cuBLAS and cuBLASLt
// alike, in common/harness/yardsticks.cu). In the kernels' room (common/device/) because kernel
// files include it; the harness, the tools and the grading child include the same file.
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

namespace gemm {

// Prints "<file>:<line>: <call> failed: <error name> (<message>)" and exits with code 1. Defined
// here and nowhere else: the harness, the chapters, the tools and the grading child call this one.
[[noreturn]] inline void cuda_fail(const char* call, cudaError_t err, const char* file, int line) {
    std::fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", file, line, call, cudaGetErrorName(err),
                 cudaGetErrorString(err));
    std::exit(1);
}

}  // namespace gemm

// Wraps a CUDA runtime call: GEMM_CUDA_CHECK(cudaMalloc(&p, bytes));
#define GEMM_CUDA_CHECK(call)                                                                  \
    do {                                                                                       \
        cudaError_t gemm_err_ = (call);                                                        \
        if (gemm_err_ != cudaSuccess) ::gemm::cuda_fail(#call, gemm_err_, __FILE__, __LINE__); \
    } while (0)

// After a kernel launch: catches bad launch configurations (too much shared memory, a grid
// dimension of zero) at the launch site rather than at the next unrelated call.
#define GEMM_CUDA_CHECK_LAUNCH() GEMM_CUDA_CHECK(cudaGetLastError())

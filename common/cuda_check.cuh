// Error checks for CUDA runtime and cuBLAS calls: every failure names the call, file and line.
#pragma once

#include <cuda_runtime.h>

namespace gemm {

// Prints "<file>:<line>: <call> failed: <error name> (<message>)" and exits with code 1.
[[noreturn]] void cuda_fail(const char* call, cudaError_t err, const char* file, int line);

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

// Entry point of every GPU chapter: parse the command line, check, time against cuBLAS, report.
// Also what the gpu test suite uses to check any kernel with the chapter contract, and what a
// chapter's grading binary (common/grading/) takes the chapter's backend from.
#pragma once

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <string>

#include "backend.hpp"
#include "chapter.hpp"
#include "cuda_check.cuh"
#include "device_facts.cuh"
#include "options.hpp"
#include "problem.hpp"
#include "report.hpp"

namespace gemm {

// The kernel contract for GPU chapters (device pointers, row-major, C = alpha*A*B + beta*C).
using GpuGemmF32 = void (*)(int M, int N, int K, float alpha, const float* A, int lda,
                            const float* B, int ldb, float beta, float* C, int ldc,
                            cudaStream_t stream);
using GpuGemmF16 = void (*)(int M, int N, int K, float alpha, const __half* A, int lda,
                            const __half* B, int ldb, float beta, float* C, int ldc,
                            cudaStream_t stream);

// Runs a chapter binary. Returns the process exit code: 0 all checks passed, 1 a check failed,
// 2 a usage error, 77 no usable CUDA device (or one older than info.min_cc).
int run_gpu_chapter(int argc, char** argv, const ChapterInfo& info, GpuGemmF32 gemm);
int run_gpu_chapter(int argc, char** argv, const ChapterInfo& info, GpuGemmF16 gemm);

// The backend run_gpu_chapter measures the chapter on (on the device the options name), for a
// binary of the chapter's other than its own: its grading binary.
BackendFactory gpu_backend(const ChapterInfo& info, GpuGemmF32 gemm);
BackendFactory gpu_backend(const ChapterInfo& info, GpuGemmF16 gemm);

// The cuBLAS yardsticks, behind the same contract as the chapters (row-major, device pointers).
// cuBLAS is column-major; see the comment in yardsticks.cu for how a row-major product is asked
// for.
void cublas_sgemm(int M, int N, int K, float alpha, const float* A, int lda, const float* B,
                  int ldb, float beta, float* C, int ldc, cudaStream_t stream = 0);
void cublas_hgemm(int M, int N, int K, float alpha, const __half* A, int lda, const __half* B,
                  int ldb, float beta, float* C, int ldc, cudaStream_t stream = 0);
std::string cublas_version();  // "13.1.0"

// Runs `gemm` once on the inputs of `p` (padding and poison included) and checks its output
// against the double-precision reference: full check, or sampled when `mode` says so.
CheckResult check_gpu_gemm(GpuGemmF32 gemm, const Problem& p, CheckMode mode = CheckMode::Auto);
CheckResult check_gpu_gemm(GpuGemmF16 gemm, const Problem& p, CheckMode mode = CheckMode::Auto);

// Device memory that frees itself.
template <class T>
class DeviceBuffer {
public:
    DeviceBuffer() = default;
    explicit DeviceBuffer(std::size_t count) : count_(count) {
        if (count) GEMM_CUDA_CHECK(cudaMalloc(&ptr_, count * sizeof(T)));
    }
    ~DeviceBuffer() {
        if (ptr_) cudaFree(ptr_);
    }
    DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(o.ptr_), count_(o.count_) { o.ptr_ = nullptr; }
    DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
        std::swap(ptr_, o.ptr_);
        std::swap(count_, o.count_);
        return *this;
    }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    T* get() const { return ptr_; }
    std::size_t size() const { return count_; }

private:
    T* ptr_ = nullptr;
    std::size_t count_ = 0;
};

}  // namespace gemm

// What an FP8 chapter (20-23) hands the harness: the kernel contract with e4m3 operands, scales
// and bf16 C, its entry point and check, and the cuBLASLt FP8 yardsticks (yardsticks.cu). The
// backend, the timing and the report are every chapter's (gpu_backend.cu, runner.cpp); what differs
// per precision is named in precision.hpp; inputs and scale layouts: fp8_problem.hpp.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <vector>

#include "backend.hpp"
#include "chapter.hpp"
#include "fp8_problem.hpp"
#include "options.hpp"
#include "problem.hpp"

namespace gemm {

// C (M x N, bf16, ldc) = alpha * (sa A) (sb B)^T + beta * C, device pointers, row-major: A is
// M x K (lda), B is N x K (ldb), both e4m3 and K-major; scale_a, scale_b point to one float each
// (Precision::E4M3Fast, E4M3) or to the per-block scales (E4M3Block; layouts: fp8_problem.hpp).
// Accumulation in fp32 (at least as the tensor cores do it); C is not read when beta == 0.
using GpuGemmFp8 = void (*)(int M, int N, int K, float alpha, const __nv_fp8_e4m3* A, int lda,
                            const __nv_fp8_e4m3* B, int ldb, const float* scale_a,
                            const float* scale_b, float beta, __nv_bfloat16* C, int ldc,
                            cudaStream_t stream);

// Runs an FP8 chapter binary. Its arithmetic comes from the chapter list's precision column
// (info.precision, precision_from_list()): fp8_fast, fp8 or fp8_block, whose entry in
// precision.hpp picks the check's tolerance and the yardstick, the cuBLASLt mode of the same
// arithmetic (fast accumulation, the default, block scales), with the same scales and bf16 C. A
// precision without e4m3 inputs exits 2; otherwise exit codes as run_gpu_chapter.
int run_fp8_chapter(int argc, char** argv, const ChapterInfo& info, GpuGemmFp8 gemm);

// The FP8 precision the chapter list names for `info`; throws std::invalid_argument, naming the
// chapter, for an unknown precision or one without e4m3 inputs.
Precision fp8_precision(const ChapterInfo& info);
// The backend run_fp8_chapter measures the chapter on, for its grading binary (as gpu_backend of
// harness_gpu.cuh); `precision` is fp8_precision(info).
BackendFactory gpu_backend(const ChapterInfo& info, Precision precision, GpuGemmFp8 gemm);

// Runs `gemm` once on the inputs of p (p.precision: an FP8 one) and checks C.
CheckResult check_gpu_fp8(GpuGemmFp8 gemm, const Problem& p, CheckMode mode = CheckMode::Auto);
// Runs `gemm` once on the given inputs (hp.p.precision: an FP8 one) and returns C as the harness
// holds it (M x ldc floats, bf16 values), for checks of their own (tests/fp8_checks.cuh).
std::vector<float> run_gpu_fp8(GpuGemmFp8 gemm, const HostProblem& hp);

// The cuBLASLt yardsticks behind the same contract. cublaslt_fp8 takes per-tensor scales and
// leaves fast accumulation off (cuBLASLt's default and PyTorch's _scaled_mm's: partial sums are
// promoted to fp32); cublaslt_fp8_fast_accum turns it on; cublaslt_fp8_blocks reads 1 x 128 scales
// of A and 128 x 128 scales of B (VEC128_32F, BLK128x128_32F; cuBLASLt 12.9 and later, 9.0).
// Each exits naming the call when cuBLASLt refuses; cublaslt_fp8_supports says beforehand.
void cublaslt_fp8(int M, int N, int K, float alpha, const __nv_fp8_e4m3* A, int lda,
                  const __nv_fp8_e4m3* B, int ldb, const float* scale_a, const float* scale_b,
                  float beta, __nv_bfloat16* C, int ldc, cudaStream_t stream);
void cublaslt_fp8_fast_accum(int M, int N, int K, float alpha, const __nv_fp8_e4m3* A, int lda,
                             const __nv_fp8_e4m3* B, int ldb, const float* scale_a,
                             const float* scale_b, float beta, __nv_bfloat16* C, int ldc,
                             cudaStream_t stream);
void cublaslt_fp8_blocks(int M, int N, int K, float alpha, const __nv_fp8_e4m3* A, int lda,
                         const __nv_fp8_e4m3* B, int ldb, const float* scale_a,
                         const float* scale_b, float beta, __nv_bfloat16* C, int ldc,
                         cudaStream_t stream);
// Whether cuBLASLt has an algorithm for this FP8 problem (16-byte aligned operands, lda and ldb
// multiples of 16, ldc of 8, and whatever its heuristics say). E4M3Fast is E4M3 with fast_accum.
bool cublaslt_fp8_supports(Precision scaling, bool fast_accum, int M, int N, int K, const void* A,
                           int lda, const void* B, int ldb, const void* C, int ldc);

}  // namespace gemm

// The one function a grading child's two translation units share: grade_gemm, the submitted
// kernel's gemm behind the contract's signature. tools/grading/grade_entry.cu defines it next to
// the submission's kernel file; tools/grading/grade_child.cu calls it and sees nothing else of that
// file. Build flags as for grade_child.cu: GRADE_GPU, and GRADE_HALF when A and B are fp16,
// GRADE_FP8 when they are e4m3 codes with scales and C is bf16 (the FP8 chapters' contract,
// harness_fp8.cuh).
#pragma once

#ifdef GRADE_GPU
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#ifdef GRADE_FP8
#include <cuda_bf16.h>
#include <cuda_fp8.h>

extern "C" void grade_gemm(int M, int N, int K, float alpha, const __nv_fp8_e4m3* A, int lda,
                           const __nv_fp8_e4m3* B, int ldb, const float* scale_a,
                           const float* scale_b, float beta, __nv_bfloat16* C, int ldc,
                           cudaStream_t stream);
#else
#ifdef GRADE_HALF
using GradeIn = __half;
#else
using GradeIn = float;
#endif
extern "C" void grade_gemm(int M, int N, int K, float alpha, const GradeIn* A, int lda,
                           const GradeIn* B, int ldb, float beta, float* C, int ldc,
                           cudaStream_t stream);
#endif
#else
using GradeIn = float;
extern "C" void grade_gemm(int M, int N, int K, float alpha, const float* A, int lda,
                           const float* B, int ldb, float beta, float* C, int ldc);
#endif

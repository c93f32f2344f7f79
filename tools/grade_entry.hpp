// The one function a grading child's two translation units share: grade_gemm, the submitted
// kernel's gemm behind the contract's signature. tools/grade_entry.cu defines it next to the
// submission's kernel file; tools/grade_child.cu calls it and sees nothing else of that file.
// Build flags as for grade_child.cu: GRADE_GPU, and GRADE_HALF when A and B are fp16.
#pragma once

#ifdef GRADE_GPU
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#ifdef GRADE_HALF
using GradeIn = __half;
#else
using GradeIn = float;
#endif
extern "C" void grade_gemm(int M, int N, int K, float alpha, const GradeIn* A, int lda,
                           const GradeIn* B, int ldb, float beta, float* C, int ldc,
                           cudaStream_t stream);
#else
using GradeIn = float;
extern "C" void grade_gemm(int M, int N, int K, float alpha, const float* A, int lda,
                           const float* B, int ldb, float beta, float* C, int ldc);
#endif

// The submission's translation unit of a grading child: its kernel file, and grade_gemm calling
// its gemm. tools/grading/grade.py compiles this file alone and then makes every symbol of the
// object local but grade_gemm (objcopy --keep-global-symbol), so that nothing the kernel file
// defines can stand in for a function of tools/grading/grade_child.cu, and nothing there can be
// overloaded from here. GRADE_NS names the chapter's namespace (ch07).
#include "grade_entry.hpp"
#include "kernel_under_test.h"  // the submission's kernel file, copied under this name

#if defined(GRADE_FP8)
extern "C" void grade_gemm(int M, int N, int K, float alpha, const __nv_fp8_e4m3* A, int lda,
                           const __nv_fp8_e4m3* B, int ldb, const float* scale_a,
                           const float* scale_b, float beta, __nv_bfloat16* C, int ldc,
                           cudaStream_t stream) {
    GRADE_NS::gemm(M, N, K, alpha, A, lda, B, ldb, scale_a, scale_b, beta, C, ldc, stream);
}
#elif defined(GRADE_GPU)
extern "C" void grade_gemm(int M, int N, int K, float alpha, const GradeIn* A, int lda,
                           const GradeIn* B, int ldb, float beta, float* C, int ldc,
                           cudaStream_t stream) {
    GRADE_NS::gemm(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, stream);
}
#else
extern "C" void grade_gemm(int M, int N, int K, float alpha, const float* A, int lda,
                           const float* B, int ldb, float beta, float* C, int ldc) {
    GRADE_NS::gemm(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}
#endif

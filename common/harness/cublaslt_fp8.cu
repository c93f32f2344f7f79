// The cuBLASLt FP8 yardsticks (e4m3 operands, scales, bf16 C), behind the FP8 chapters' contract
// (harness_fp8.cuh); the backend that times them is the one of every precision (gpu_runner.cu).
#include <cublasLt.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <tuple>

#include "cuda_check.cuh"
#include "harness_fp8.cuh"

namespace gemm {

namespace {

#define GEMM_CUBLASLT_CHECK(call)                                                     \
    do {                                                                              \
        cublasStatus_t gemm_st_ = (call);                                             \
        if (gemm_st_ != CUBLAS_STATUS_SUCCESS) {                                      \
            std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, \
                         cublasLt_status(gemm_st_));                                  \
            std::exit(1);                                                             \
        }                                                                             \
    } while (0)

const char* cublasLt_status(cublasStatus_t s) {
    switch (s) {
        case CUBLAS_STATUS_NOT_SUPPORTED:
            return "CUBLAS_STATUS_NOT_SUPPORTED";
        case CUBLAS_STATUS_INVALID_VALUE:
            return "CUBLAS_STATUS_INVALID_VALUE";
        case CUBLAS_STATUS_ARCH_MISMATCH:
            return "CUBLAS_STATUS_ARCH_MISMATCH";
        case CUBLAS_STATUS_EXECUTION_FAILED:
            return "CUBLAS_STATUS_EXECUTION_FAILED";
        default:
            return "cuBLAS status (see cublas_api.h)";
    }
}

// One cuBLASLt plan per problem: descriptors and the heuristic's first algorithm, made once, so
// that the timed calls are the matmul alone (a plan costs tens of microseconds of host time, which
// would sit between the timing events).
struct Plan {
    cublasLtMatmulDesc_t desc = nullptr;
    cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
    cublasLtMatmulHeuristicResult_t heuristic{};
    bool found = false;
};

constexpr std::size_t kWorkspaceBytes = 32u << 20;

struct Lt {
    cublasLtHandle_t handle = nullptr;
    void* workspace = nullptr;
};
Lt& lt() {  // per device, made on first use (the warm-up calls make it, outside timed regions)
    static std::mutex mutex;
    static std::map<int, Lt> per_device;
    int dev = 0;
    GEMM_CUDA_CHECK(cudaGetDevice(&dev));
    const std::lock_guard<std::mutex> lock(mutex);
    Lt& l = per_device[dev];
    if (!l.handle) {
        GEMM_CUBLASLT_CHECK(cublasLtCreate(&l.handle));
        GEMM_CUDA_CHECK(cudaMalloc(&l.workspace, kWorkspaceBytes));
    }
    return l;
}

// Row-major C (M x N) = A (M x K) * B^T (B: N x K) is, in cuBLASLt's column-major terms,
// C^T (N x M) = B (stored as K x N, transposed: "T") * A (stored as K x M: "N"): the "TN" layout
// FP8 needs. So cuBLASLt's A is our B and its B is our A; scales swap the same way.
Plan& plan(Precision scaling, bool fast_accum, int M, int N, int K, int lda, int ldb, int ldc) {
    static std::mutex mutex;
    static std::map<std::tuple<int, int, bool, int, int, int, int, int, int>, Plan> plans;
    if (precision_info(scaling).sums == Sums::Unpromoted)  // fp8_fast: fp8's with fast accumulation
        scaling = Precision::E4M3, fast_accum = true;
    int dev = 0;
    GEMM_CUDA_CHECK(cudaGetDevice(&dev));
    const std::lock_guard<std::mutex> lock(mutex);
    Plan& p = plans[{dev, int(scaling), fast_accum, M, N, K, lda, ldb, ldc}];
    if (p.desc) return p;
    GEMM_CUBLASLT_CHECK(cublasLtMatmulDescCreate(&p.desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    const cublasOperation_t t = CUBLAS_OP_T, n = CUBLAS_OP_N;
    GEMM_CUBLASLT_CHECK(
        cublasLtMatmulDescSetAttribute(p.desc, CUBLASLT_MATMUL_DESC_TRANSA, &t, sizeof t));
    GEMM_CUBLASLT_CHECK(
        cublasLtMatmulDescSetAttribute(p.desc, CUBLASLT_MATMUL_DESC_TRANSB, &n, sizeof n));
    const int8_t fast = fast_accum ? 1 : 0;
    GEMM_CUBLASLT_CHECK(cublasLtMatmulDescSetAttribute(p.desc, CUBLASLT_MATMUL_DESC_FAST_ACCUM,
                                                       &fast, sizeof fast));
    if (precision_info(scaling).scales == Scales::Blocks) {
        const int32_t a_mode = CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F;  // our B
        const int32_t b_mode = CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F;      // our A
        GEMM_CUBLASLT_CHECK(cublasLtMatmulDescSetAttribute(
            p.desc, CUBLASLT_MATMUL_DESC_A_SCALE_MODE, &a_mode, sizeof a_mode));
        GEMM_CUBLASLT_CHECK(cublasLtMatmulDescSetAttribute(
            p.desc, CUBLASLT_MATMUL_DESC_B_SCALE_MODE, &b_mode, sizeof b_mode));
    }
    // Any non-null scale pointers, for the heuristic: the call sets the real ones.
    static const float* placeholder = reinterpret_cast<const float*>(16);
    GEMM_CUBLASLT_CHECK(cublasLtMatmulDescSetAttribute(p.desc, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER,
                                                       &placeholder, sizeof placeholder));
    GEMM_CUBLASLT_CHECK(cublasLtMatmulDescSetAttribute(p.desc, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER,
                                                       &placeholder, sizeof placeholder));
    GEMM_CUBLASLT_CHECK(cublasLtMatrixLayoutCreate(&p.a, CUDA_R_8F_E4M3, K, N, ldb));
    GEMM_CUBLASLT_CHECK(cublasLtMatrixLayoutCreate(&p.b, CUDA_R_8F_E4M3, K, M, lda));
    GEMM_CUBLASLT_CHECK(cublasLtMatrixLayoutCreate(&p.c, CUDA_R_16BF, N, M, ldc));
    cublasLtMatmulPreference_t pref = nullptr;
    GEMM_CUBLASLT_CHECK(cublasLtMatmulPreferenceCreate(&pref));
    GEMM_CUBLASLT_CHECK(cublasLtMatmulPreferenceSetAttribute(
        pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &kWorkspaceBytes, sizeof kWorkspaceBytes));
    const uint32_t align = 16;  // the operands are 16-byte aligned, not more (views, padding)
    for (auto attr :
         {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
          CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES})
        GEMM_CUBLASLT_CHECK(cublasLtMatmulPreferenceSetAttribute(pref, attr, &align, sizeof align));
    int returned = 0;
    const cublasStatus_t st = cublasLtMatmulAlgoGetHeuristic(lt().handle, p.desc, p.a, p.b, p.c,
                                                             p.c, pref, 1, &p.heuristic, &returned);
    p.found = st == CUBLAS_STATUS_SUCCESS && returned > 0;
    cublasLtMatmulPreferenceDestroy(pref);
    return p;
}

void matmul(Precision scaling, bool fast_accum, int M, int N, int K, float alpha,
            const __nv_fp8_e4m3* A, int lda, const __nv_fp8_e4m3* B, int ldb, const float* scale_a,
            const float* scale_b, float beta, __nv_bfloat16* C, int ldc, cudaStream_t stream) {
    if (M == 0 || N == 0) return;
    Plan& p = plan(scaling, fast_accum, M, N, K, lda, ldb, ldc);
    if (!p.found) {
        std::fprintf(stderr,
                     "cublasLtMatmul: no FP8 (%s%s) algorithm for M=%d N=%d K=%d lda=%d ldb=%d "
                     "ldc=%d\n",
                     to_string(scaling), fast_accum ? ", fast accumulation" : "", M, N, K, lda, ldb,
                     ldc);
        std::exit(1);
    }
    // cuBLASLt's A is our B (see plan()): its scale is ours of B.
    GEMM_CUBLASLT_CHECK(cublasLtMatmulDescSetAttribute(p.desc, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER,
                                                       &scale_b, sizeof scale_b));
    GEMM_CUBLASLT_CHECK(cublasLtMatmulDescSetAttribute(p.desc, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER,
                                                       &scale_a, sizeof scale_a));
    GEMM_CUBLASLT_CHECK(cublasLtMatmul(lt().handle, p.desc, &alpha, B, p.a, A, p.b, &beta, C, p.c,
                                       C, p.c, &p.heuristic.algo, lt().workspace, kWorkspaceBytes,
                                       stream));
}

bool aligned(const void* p, std::size_t n) {
    return reinterpret_cast<std::uintptr_t>(p) % n == 0;
}

}  // namespace

void cublaslt_fp8(int M, int N, int K, float alpha, const __nv_fp8_e4m3* A, int lda,
                  const __nv_fp8_e4m3* B, int ldb, const float* scale_a, const float* scale_b,
                  float beta, __nv_bfloat16* C, int ldc, cudaStream_t stream) {
    matmul(Precision::E4M3, false, M, N, K, alpha, A, lda, B, ldb, scale_a, scale_b, beta, C, ldc,
           stream);
}
void cublaslt_fp8_fast_accum(int M, int N, int K, float alpha, const __nv_fp8_e4m3* A, int lda,
                             const __nv_fp8_e4m3* B, int ldb, const float* scale_a,
                             const float* scale_b, float beta, __nv_bfloat16* C, int ldc,
                             cudaStream_t stream) {
    matmul(Precision::E4M3, true, M, N, K, alpha, A, lda, B, ldb, scale_a, scale_b, beta, C, ldc,
           stream);
}
void cublaslt_fp8_blocks(int M, int N, int K, float alpha, const __nv_fp8_e4m3* A, int lda,
                         const __nv_fp8_e4m3* B, int ldb, const float* scale_a,
                         const float* scale_b, float beta, __nv_bfloat16* C, int ldc,
                         cudaStream_t stream) {
    matmul(Precision::E4M3Block, false, M, N, K, alpha, A, lda, B, ldb, scale_a, scale_b, beta, C,
           ldc, stream);
}

bool cublaslt_fp8_supports(Precision scaling, bool fast_accum, int M, int N, int K, const void* A,
                           int lda, const void* B, int ldb, const void* C, int ldc) {
    if (M == 0 || N == 0 || K == 0) return false;
    if (!aligned(A, 16) || !aligned(B, 16) || !aligned(C, 16) || lda % 16 || ldb % 16 || ldc % 8 ||
        K % 16)
        return false;
    return plan(scaling, fast_accum, M, N, K, lda, ldb, ldc).found;
}

}  // namespace gemm

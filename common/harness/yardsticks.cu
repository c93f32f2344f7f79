// The yardsticks: cuBLAS (fp32, fp16 with fp32 accumulation) and cuBLASLt's three FP8 modes (fast
// accumulation, its default, block scales), each behind its chapters' contract (harness_gpu.cuh,
// harness_fp8.cuh). Every library call is checked by the one macro below; the backend that times
// them is every precision's (gpu_backend.cu).
#include <cublasLt.h>
#include <cublas_v2.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <tuple>

#include "cuda_check.cuh"
#include "harness_fp8.cuh"
#include "harness_gpu.cuh"

namespace gemm {

namespace {

// A cuBLAS or cuBLASLt call (both return cublasStatus_t): "<file>:<line>: <call> failed: <status
// name> (<message>)" and exit code 1, as GEMM_CUDA_CHECK does for the CUDA runtime.
#define GEMM_CUBLAS_CHECK(call)                                                            \
    do {                                                                                   \
        const cublasStatus_t gemm_st_ = (call);                                            \
        if (gemm_st_ != CUBLAS_STATUS_SUCCESS) {                                           \
            std::fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", __FILE__, __LINE__, #call, \
                         cublasGetStatusName(gemm_st_), cublasGetStatusString(gemm_st_));  \
            std::exit(1);                                                                  \
        }                                                                                  \
    } while (0)

// One handle per device, made on first use (outside any timed region: the warm-up calls make it).
cublasHandle_t handle() {
    static cublasHandle_t handles[64] = {};
    int dev = 0;
    GEMM_CUDA_CHECK(cudaGetDevice(&dev));
    if (dev >= 64) {
        std::fprintf(stderr, "device %d: this harness supports 64 devices\n", dev);
        std::exit(1);
    }
    if (!handles[dev]) GEMM_CUBLAS_CHECK(cublasCreate(&handles[dev]));
    return handles[dev];
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
        GEMM_CUBLAS_CHECK(cublasLtCreate(&l.handle));
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
    GEMM_CUBLAS_CHECK(cublasLtMatmulDescCreate(&p.desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    const cublasOperation_t t = CUBLAS_OP_T, n = CUBLAS_OP_N;
    GEMM_CUBLAS_CHECK(
        cublasLtMatmulDescSetAttribute(p.desc, CUBLASLT_MATMUL_DESC_TRANSA, &t, sizeof t));
    GEMM_CUBLAS_CHECK(
        cublasLtMatmulDescSetAttribute(p.desc, CUBLASLT_MATMUL_DESC_TRANSB, &n, sizeof n));
    const int8_t fast = fast_accum ? 1 : 0;
    GEMM_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(p.desc, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast,
                                                     sizeof fast));
    if (precision_info(scaling).scales == Scales::Blocks) {
        const int32_t a_mode = CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F;  // our B
        const int32_t b_mode = CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F;      // our A
        GEMM_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(p.desc, CUBLASLT_MATMUL_DESC_A_SCALE_MODE,
                                                         &a_mode, sizeof a_mode));
        GEMM_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(p.desc, CUBLASLT_MATMUL_DESC_B_SCALE_MODE,
                                                         &b_mode, sizeof b_mode));
    }
    // Any non-null scale pointers, for the heuristic: the call sets the real ones.
    static const float* placeholder = reinterpret_cast<const float*>(16);
    GEMM_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(p.desc, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER,
                                                     &placeholder, sizeof placeholder));
    GEMM_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(p.desc, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER,
                                                     &placeholder, sizeof placeholder));
    GEMM_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&p.a, CUDA_R_8F_E4M3, K, N, ldb));
    GEMM_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&p.b, CUDA_R_8F_E4M3, K, M, lda));
    GEMM_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&p.c, CUDA_R_16BF, N, M, ldc));
    cublasLtMatmulPreference_t pref = nullptr;
    GEMM_CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&pref));
    GEMM_CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(
        pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &kWorkspaceBytes, sizeof kWorkspaceBytes));
    const uint32_t align = 16;  // the operands are 16-byte aligned, not more (views, padding)
    for (auto attr :
         {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
          CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES})
        GEMM_CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(pref, attr, &align, sizeof align));
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
    GEMM_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(p.desc, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER,
                                                     &scale_b, sizeof scale_b));
    GEMM_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(p.desc, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER,
                                                     &scale_a, sizeof scale_a));
    GEMM_CUBLAS_CHECK(cublasLtMatmul(lt().handle, p.desc, &alpha, B, p.a, A, p.b, &beta, C, p.c, C,
                                     p.c, &p.heuristic.algo, lt().workspace, kWorkspaceBytes,
                                     stream));
}

bool aligned(const void* p, std::size_t n) {
    return reinterpret_cast<std::uintptr_t>(p) % n == 0;
}

}  // namespace

std::string cublas_version() {
    int major = 0, minor = 0, patch = 0;
    GEMM_CUBLAS_CHECK(cublasGetProperty(MAJOR_VERSION, &major));
    GEMM_CUBLAS_CHECK(cublasGetProperty(MINOR_VERSION, &minor));
    GEMM_CUBLAS_CHECK(cublasGetProperty(PATCH_LEVEL, &patch));
    return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

// Row-major through a column-major library: a row-major M x N matrix with leading dimension ld is,
// byte for byte, the column-major N x M matrix of its transpose with the same ld. So row-major
// C = A * B is column-major C^T = B^T * A^T: ask cuBLAS for an N x M result with the operands
// swapped (B first, then A) and no transposes. Nothing is copied or transposed.
void cublas_sgemm(int M, int N, int K, float alpha, const float* A, int lda, const float* B,
                  int ldb, float beta, float* C, int ldc, cudaStream_t stream) {
    if (M == 0 || N == 0) return;
    cublasHandle_t h = handle();
    GEMM_CUBLAS_CHECK(cublasSetStream(h, stream));
    GEMM_CUBLAS_CHECK(
        cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &alpha, B, ldb, A, lda, &beta, C, ldc));
}

void cublas_hgemm(int M, int N, int K, float alpha, const __half* A, int lda, const __half* B,
                  int ldb, float beta, float* C, int ldc, cudaStream_t stream) {
    if (M == 0 || N == 0) return;
    cublasHandle_t h = handle();
    GEMM_CUBLAS_CHECK(cublasSetStream(h, stream));
    // fp16 inputs, fp32 accumulation and fp32 C: the same computation as the WMMA chapters.
    GEMM_CUBLAS_CHECK(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &alpha, B, CUDA_R_16F, ldb,
                                   A, CUDA_R_16F, lda, &beta, C, CUDA_R_32F, ldc,
                                   CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

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

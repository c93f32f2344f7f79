// The FP8 backend (e4m3 operands, scales, bf16 C) and the cuBLASLt FP8 yardsticks.
#include <cublasLt.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <stdexcept>
#include <tuple>
#include <vector>

#include "gpu_backend.cuh"
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
    if (scaling == Precision::E4M3Fast) scaling = Precision::E4M3, fast_accum = true;
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
    if (scaling == Precision::E4M3Block) {
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

// Host <-> device copies of bf16 C. The values are bf16 already (C0 is rounded to it, the poison
// is NaN), so the conversion is exact.
void upload_bf16(const std::vector<float>& host, __nv_bfloat16* dev) {
    std::vector<__nv_bfloat16> tmp(host.size());
    for (std::size_t i = 0; i < host.size(); ++i) tmp[i] = __float2bfloat16(host[i]);
    if (!tmp.empty())
        GEMM_CUDA_CHECK(cudaMemcpy(dev, tmp.data(), tmp.size() * sizeof(__nv_bfloat16),
                                   cudaMemcpyHostToDevice));
}
template <class T>
void upload_raw(const std::vector<T>& host, DeviceBuffer<T>& dev, std::size_t offset) {
    dev = DeviceBuffer<T>(host.size() + offset);
    if (!host.empty())
        GEMM_CUDA_CHECK(cudaMemcpy(dev.get() + offset, host.data(), host.size() * sizeof(T),
                                   cudaMemcpyHostToDevice));
}

class Fp8Backend : public DeviceBackend {
public:
    Fp8Backend(int device, Precision scaling, GpuGemmFp8 chapter, GpuGemmFp8 yardstick,
               const char* yardstick_name, bool l2_flush = false)
        : DeviceBackend(device, yardstick_name, l2_flush),
          scaling_(scaling),
          chapter_(chapter),
          yardstick_(yardstick) {}

    void check_fits(const Problem& p) const override {
        std::size_t free_b = 0, total_b = 0;
        GEMM_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
        const unsigned long long scales =
            4ull * (fp8_scale_a_count(p.precision, p.shape.M, p.shape.K) +
                    fp8_scale_b_count(p.precision, p.shape.N, p.shape.K));
        // Codes, C in bf16, the scales, the scratch copies of unaligned operands, a workspace.
        const unsigned long long need =
            2ull * (p.elems_A() + p.elems_B()) + 2ull * p.elems_C() + scales + (96ull << 20);
        if (need > free_b)
            throw UsageError("size " + p.shape.str() + " needs " + std::to_string(need >> 20) +
                             " MiB of GPU memory, only " + std::to_string(free_b >> 20) +
                             " MiB free on device " + std::to_string(device_));
        // Host: codes and dequantized A and B, C0, the initial C, C handed back, the bf16 staging.
        check_host_fits(p, 5ull * (p.elems_A() + p.elems_B()) + 18ull * p.elems_C());
    }

    void load(const HostProblem& hp) override {
        p_ = hp.p;
        dA_ = DeviceBuffer<std::uint8_t>();  // free the previous size first
        dB_ = DeviceBuffer<std::uint8_t>();
        dC_ = DeviceBuffer<__nv_bfloat16>();
        off_ = std::size_t(p_.view_offset);
        upload_raw(hp.A8, dA_, off_);
        upload_raw(hp.B8, dB_, off_);
        upload_raw(hp.scale_a, dsa_, 0);
        upload_raw(hp.scale_b, dsb_, 0);
        const std::vector<float> c = initial_C(hp);
        dC_ = DeviceBuffer<__nv_bfloat16>(c.size() + off_);
        upload_bf16(c, dC_.get() + off_);
    }

    std::vector<float> run_once(const std::vector<float>& c_init) override {
        upload_bf16(c_init, dC_.get() + off_);
        call(chapter_);
        GEMM_CUDA_CHECK(cudaStreamSynchronize(stream_));
        std::vector<__nv_bfloat16> c(dC_.size() - off_);
        if (!c.empty())
            GEMM_CUDA_CHECK(cudaMemcpy(c.data(), dC_.get() + off_, c.size() * sizeof(__nv_bfloat16),
                                       cudaMemcpyDeviceToHost));
        std::vector<float> C(c.size());
        for (std::size_t i = 0; i < c.size(); ++i) C[i] = __bfloat162float(c[i]);
        return C;
    }

    std::vector<double> time_chapter(int warmup, int reps) override {
        return time(warmup, reps, [&] { call(chapter_); });
    }
    // Empty where cuBLASLt has no algorithm for the shape (odd K or leading dimensions): the
    // report then shows no yardstick for that size.
    std::vector<double> time_yardstick(int warmup, int reps) override {
        if (!cublaslt_fp8_supports(scaling_, false, p_.shape.M, p_.shape.N, p_.shape.K, a(), p_.lda,
                                   b(), p_.ldb, c(), p_.ldc))
            return {};
        return time(warmup, reps, [&] { call(yardstick_); });
    }

private:
    const __nv_fp8_e4m3* a() const {
        return reinterpret_cast<const __nv_fp8_e4m3*>(dA_.get() + off_);
    }
    const __nv_fp8_e4m3* b() const {
        return reinterpret_cast<const __nv_fp8_e4m3*>(dB_.get() + off_);
    }
    __nv_bfloat16* c() const { return dC_.get() + off_; }
    void call(GpuGemmFp8 fn) {
        fn(p_.shape.M, p_.shape.N, p_.shape.K, p_.alpha, a(), p_.lda, b(), p_.ldb, dsa_.get(),
           dsb_.get(), p_.beta, c(), p_.ldc, stream_);
        GEMM_CUDA_CHECK(cudaGetLastError());
    }

    Precision scaling_;
    GpuGemmFp8 chapter_, yardstick_;
    Problem p_;
    std::size_t off_ = 0;  // Problem::view_offset, in elements of each matrix
    DeviceBuffer<std::uint8_t> dA_, dB_;
    DeviceBuffer<float> dsa_, dsb_;
    DeviceBuffer<__nv_bfloat16> dC_;
};

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

int run_fp8_chapter(int argc, char** argv, const ChapterInfo& info, GpuGemmFp8 gemm) {
    Precision scaling = Precision::E4M3;
    try {
        scaling = precision_from_list(info.precision);
    } catch (const std::invalid_argument& e) {
        std::fprintf(stderr, "run_fp8_chapter: %s: %s (chapters/chapters.txt)\n", info.id.c_str(),
                     e.what());
        return 2;
    }
    // The yardstick: cuBLASLt doing the same arithmetic (precision.hpp names it).
    GpuGemmFp8 yardstick = nullptr;
    switch (precision_info(scaling).yardstick) {
        case Yardstick::CublasLtFp8:
            yardstick = cublaslt_fp8;
            break;
        case Yardstick::CublasLtFp8FastAccum:
            yardstick = cublaslt_fp8_fast_accum;
            break;
        case Yardstick::CublasLtFp8Blocks:
            yardstick = cublaslt_fp8_blocks;
            break;
        default:
            std::fprintf(stderr, "run_fp8_chapter: %s: precision %s has no e4m3 inputs\n",
                         info.id.c_str(), info.precision.c_str());
            return 2;
    }
    const char* name = precision_info(scaling).yardstick_name;
    return run_chapter(argc, argv, info, scaling, [&](const Options& o) {
        if (!o.remote.empty())  // the --remote protocol carries fp32 and fp16 operands only
            throw UsageError("--remote: the FP8 chapters are graded in one process");
        const int dev = select_device(o, info);
        return std::unique_ptr<Backend>(
            new Fp8Backend(dev, scaling, gemm, yardstick, name, o.l2_flush));
    });
}

CheckResult check_gpu_fp8(GpuGemmFp8 gemm, const Problem& p, CheckMode mode) {
    int dev = 0;
    GEMM_CUDA_CHECK(cudaGetDevice(&dev));
    Fp8Backend backend(dev, p.precision, gemm, nullptr, "");
    return load_and_check(backend, make_inputs(p), mode);
}

std::vector<float> run_gpu_fp8(GpuGemmFp8 gemm, const HostProblem& hp) {
    int dev = 0;
    GEMM_CUDA_CHECK(cudaGetDevice(&dev));
    Fp8Backend backend(dev, hp.p.precision, gemm, nullptr, "");
    backend.load(hp);
    return backend.run_once(initial_C(hp));
}

}  // namespace gemm

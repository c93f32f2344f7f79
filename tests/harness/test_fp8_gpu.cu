// The harness's FP8 side on the GPU: the cuBLASLt yardsticks the FP8 chapters (20-23) are measured
// against, and the block-scaled check's strictness (each FP8 chapter's own tests are beside it:
// chapters/NN_slug/test.cu). Built for sm_90a alone; skips on other GPUs, and without a GPU unless
// GEMM_REQUIRE_GPU=1.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include "22_fp8_persistent/kernel.cuh"
#include "gpu_checks.cuh"
#include "harness_fp8.cuh"

// The check can fail: per-block inputs through a per-tensor kernel, which applies the first
// scale of A and of B to everything, must not pass.
TEST_CASE("a kernel that ignores the block scales fails the check") {
    const gemm::Problem p =
        gemm::as_precision(gemm_tests::make(256, 256, 512), gemm::Precision::E4M3Block);
    CHECK_FALSE(gemm::check_gpu_fp8(ch22::gemm, p).pass);
}

// The yardsticks are right too (on shapes cuBLASLt takes); the block-scaled one also checks that
// the scale layouts of fp8_problem.hpp are the ones cuBLASLt reads.
TEST_SUITE("cuBLASLt FP8 yardsticks") {
    TEST_CASE("default, fast accumulation, block scales") {
        for (const gemm::Problem& q : {gemm_tests::make(256, 256, 512),
                                       gemm_tests::make(1024, 768, 2048, 0, 0, 0, 1.5f, -0.5f)}) {
            for (gemm::Precision s :
                 {gemm::Precision::E4M3Fast, gemm::Precision::E4M3, gemm::Precision::E4M3Block}) {
                const gemm::Problem p = gemm::as_precision(q, s);
                CAPTURE(gemm_tests::name(p));
                CAPTURE(gemm::to_string(s));
                const int M = p.shape.M, N = p.shape.N, K = p.shape.K;
                if (!gemm::cublaslt_fp8_supports(s, false, M, N, K, nullptr, K, nullptr, K, nullptr,
                                                 N)) {
                    MESSAGE("cuBLASLt has no FP8 algorithm for this (", gemm::to_string(s), ")");
                    continue;
                }
                const gemm::GpuGemmFp8 fn =
                    s == gemm::Precision::E4M3Fast ? gemm::cublaslt_fp8_fast_accum
                    : s == gemm::Precision::E4M3   ? gemm::cublaslt_fp8
                                                   : gemm::cublaslt_fp8_blocks;
                const gemm::CheckResult r = gemm::check_gpu_fp8(fn, p);
                CHECK_MESSAGE(r.pass, r.summary());
            }
        }
    }
}
int main(int argc, char** argv) {
    return gemm_tests::gpu_test_main(argc, argv, true);
}

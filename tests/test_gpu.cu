// The gpu suite: the cuBLAS yardsticks, the device report, and the named configurations of the
// chapters that have several (each chapter's default is tested on its own: tests/test_chapter.cu).
// Built a second time with GEMM_TEST_HOPPER for sm_90a alone: then it tests the Hopper chapters'
// configurations, and skips on other GPUs.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#ifdef GEMM_TEST_HOPPER
#include "15_wgmma_persistent/kernel.cuh"
#include "17_fp8/kernel.cuh"
#include "harness_fp8.cuh"
#else
#include "11_mma_ldmatrix/kernel.cuh"
#endif
#include "gpu_checks.cuh"

using gemm_tests::check_all;
using gemm_tests::check_chapter;
using gemm_tests::check_misaligned_views;

#ifdef GEMM_TEST_HOPPER
// FP8 (chapter 17): the shared awkward shapes with B as N x K (as_fp8 keeps a padded ldb's padding),
// misaligned views (one byte off), and shapes for its own paths: several k-tiles with a partial
// last one, promotion groups cut short by the end of K, several 128-blocks of scales along M and
// N, TMA-ready leading dimensions (multiples of 16) with partial tiles.
void check_fp8(gemm::GpuGemmFp8 fn, gemm::Precision scaling) {
    std::vector<gemm::Problem> cases = gemm_tests::small_cases();
    for (const gemm::Problem& p : gemm_tests::large_cases()) cases.push_back(p);
    for (gemm::Problem p : {gemm_tests::make(96, 128, 64, 64, 128, 128, 1.0f, 0.5f),
                            gemm_tests::make(97, 101, 103, 105, 107, 109, 1.0f, 0.5f),
                            gemm_tests::make(300, 260, 270, 280, 264, 272)}) {
        p.view_offset = 1;
        cases.push_back(p);
    }
    for (const gemm::Problem& p :
         {gemm_tests::make(1000, 1000, 1000), gemm_tests::make(2000, 3000, 520, 0, 0, 0, 1.5f, -0.5f),
          gemm_tests::make(136, 264, 8200), gemm_tests::make(384, 640, 1152),
          gemm_tests::make(200, 72, 129, 144, 72 + 15, 80, 1.0f, 1.0f),
          gemm_tests::make(260, 390, 640, 0, 0, 0, -2.0f, 0.0f)})
        cases.push_back(p);
    for (const gemm::Problem& q : cases) {
        const gemm::Problem p = gemm::as_fp8(q, scaling);
        CAPTURE(gemm_tests::name(p));
        CAPTURE(p.view_offset);
        gemm::CheckResult r = gemm::check_gpu_fp8(fn, p);
        CHECK_MESSAGE(r.pass, r.summary());
    }
}

TEST_SUITE("hopper configurations") {
    // The steps of chapter 15's table are kernels of their own: each must be right too.
    TEST_CASE("15_wgmma_persistent, one block per tile") {
        check_chapter(ch15::gemm_cfg<ch15::configs::single>, true);
    }
    TEST_CASE("15_wgmma_persistent, one block per tile, nothing left in flight") {
        check_chapter(ch15::gemm_cfg<ch15::configs::single_wait0>, true);
    }
    TEST_CASE("15_wgmma_persistent, persistent without clusters") {
        check_chapter(ch15::gemm_cfg<ch15::configs::persistent>, true);
    }
    TEST_CASE("15_wgmma_persistent, clusters without persistence") {
        check_chapter(ch15::gemm_cfg<ch15::configs::cluster2>, true);
    }
    TEST_CASE("15_wgmma_persistent, persistent clusters, C stored from registers") {
        check_chapter(ch15::gemm_cfg<ch15::configs::persistent_cluster2>, true);
    }
    // Chapters 16, 17 and 19: tests/test_stream_k.cu.
}
TEST_SUITE("fp8") {
    TEST_CASE("17_fp8") { check_fp8(ch17::gemm, gemm::Precision::E4M3); }
    // The steps of chapter 17's table: each is a kernel of its own.
    TEST_CASE("17_fp8, per-block scales") {
        check_fp8(ch17::gemm_blocks, gemm::Precision::E4M3Block);
    }
    TEST_CASE("17_fp8, 128-wide tile, never promoted") {
        check_fp8(ch17::gemm_cfg<ch17::configs::per_tensor_n128>, gemm::Precision::E4M3);
    }
    TEST_CASE("17_fp8, promoted every k-tile") {
        check_fp8(ch17::gemm_cfg<ch17::configs::promote1>, gemm::Precision::E4M3);
    }
    TEST_CASE("17_fp8, promoted every 4 k-tiles") {
        check_fp8(ch17::gemm_cfg<ch17::configs::promote4>, gemm::Precision::E4M3);
    }
    // Chapter 15's schedule on FP8 (tuning candidates).
    TEST_CASE("17_fp8, one k-tile of wgmmas in flight") {
        check_fp8(ch17::gemm_cfg<ch17::configs::per_tensor_wait1>, gemm::Precision::E4M3);
    }
    TEST_CASE("17_fp8, persistent") {
        check_fp8(ch17::gemm_cfg<ch17::configs::per_tensor_persistent>, gemm::Precision::E4M3);
    }
    TEST_CASE("17_fp8, persistent, clusters of two sharing B") {
        check_fp8(ch17::gemm_cfg<ch17::configs::per_tensor_persistent_cluster2>,
                  gemm::Precision::E4M3);
    }
    TEST_CASE("17_fp8, per-block scales, promotion beside the next k-tile's wgmmas") {
        check_fp8(ch17::gemm_cfg<ch17::configs::per_block_overlap>, gemm::Precision::E4M3Block);
    }
    TEST_CASE("17_fp8, per-block scales, persistent") {
        check_fp8(ch17::gemm_cfg<ch17::configs::per_block_persistent>, gemm::Precision::E4M3Block);
    }
    // The check can fail: per-block inputs through the per-tensor kernel, which applies the first
    // scale of A and of B to everything, must not pass.
    TEST_CASE("17_fp8: a kernel that ignores the block scales fails the check") {
        const gemm::Problem p = gemm::as_fp8(gemm_tests::make(256, 256, 512), gemm::Precision::E4M3Block);
        CHECK_FALSE(gemm::check_gpu_fp8(ch17::gemm, p).pass);
    }
    // The yardsticks are right too (on shapes cuBLASLt takes); the block-scaled one also checks
    // that the scale layouts of fp8_problem.hpp are the ones cuBLASLt reads.
    TEST_CASE("cuBLASLt FP8 yardsticks") {
        for (const gemm::Problem& q :
             {gemm_tests::make(256, 256, 512), gemm_tests::make(1024, 768, 2048, 0, 0, 0, 1.5f, -0.5f)}) {
            for (gemm::Precision s : {gemm::Precision::E4M3, gemm::Precision::E4M3Block}) {
                const gemm::Problem p = gemm::as_fp8(q, s);
                CAPTURE(gemm_tests::name(p));
                CAPTURE(gemm::to_string(s));
                const int M = p.shape.M, N = p.shape.N, K = p.shape.K;
                if (!gemm::cublaslt_fp8_supports(s, false, M, N, K, nullptr, K, nullptr, K, nullptr, N)) {
                    MESSAGE("cuBLASLt has no FP8 algorithm for this (", gemm::to_string(s), ")");
                    continue;
                }
                const gemm::CheckResult r = gemm::check_gpu_fp8(
                    s == gemm::Precision::E4M3 ? gemm::cublaslt_fp8 : gemm::cublaslt_fp8_blocks, p);
                CHECK_MESSAGE(r.pass, r.summary());
            }
        }
    }
}
#else
TEST_SUITE("device") {
    TEST_CASE("the device report names the GPU and its peaks") {
        int dev = 0;
        GEMM_CUDA_CHECK(cudaGetDevice(&dev));
        std::string report = gemm::device_report(dev);
        cudaDeviceProp prop{};
        GEMM_CUDA_CHECK(cudaGetDeviceProperties(&prop, dev));
        CHECK(report.find(prop.name) != std::string::npos);
        CHECK(report.find("compute capability") != std::string::npos);
        CHECK(report.find("SMs") != std::string::npos);
        CHECK(report.find("fp32 CUDA cores") != std::string::npos);
        CHECK(report.find("fp16 tensor cores") != std::string::npos);
        CHECK(report.find("GB/s") != std::string::npos);
    }

    TEST_CASE("host and device agree on fp16 rounding") {
        for (float x : {0.1f, -0.333333f, 1.0009765625f, 3e-6f, 7e-8f, 1234.567f, -65519.0f}) {
            CAPTURE(x);
            CHECK(gemm::round_to_half(x) == __half2float(__float2half_rn(x)));
        }
    }
}

TEST_SUITE("yardsticks") {
    TEST_CASE("cuBLAS SGEMM (row-major through the column-major trick)") {
        check_all(gemm::cublas_sgemm, true);
        check_misaligned_views(gemm::cublas_sgemm);
    }
    TEST_CASE("cuBLAS GemmEx fp16 in, fp32 accumulate") {
        check_all(gemm::cublas_hgemm, true);
        check_misaligned_views(gemm::cublas_hgemm);
    }
}

TEST_SUITE("configurations") {
    // The configuration sm_86/sm_89 take (less shared memory), here on whatever GPU runs the test.
    TEST_CASE("11_mma_ldmatrix, b128x256_k32_s3") {
        check_all(ch11::gemm_cfg<ch11::configs::b128x256_k32_s3>, false);
        check_misaligned_views(ch11::gemm_cfg<ch11::configs::b128x256_k32_s3>);
    }
}
#endif  // GEMM_TEST_HOPPER

int main(int argc, char** argv) {
#ifdef GEMM_TEST_HOPPER
    return gemm_tests::gpu_test_main(argc, argv, true);
#else
    return gemm_tests::gpu_test_main(argc, argv, false);
#endif
}

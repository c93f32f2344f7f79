// The gpu suite: the cuBLAS yardsticks, the device report, and the named configurations of the
// chapters that have several (each chapter's default is tested on its own:
// tests/chapters/test_chapter.cu). Built a second time with GEMM_TEST_HOPPER for sm_90a alone: then
// it tests the Hopper chapters' configurations, and skips on other GPUs.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#ifdef GEMM_TEST_HOPPER
#include "15_wgmma_persistent/kernel.cuh"
#else
#include "11_mma_ldmatrix/kernel.cuh"
#endif
#include "gpu_checks.cuh"

using gemm_tests::check_all;
using gemm_tests::check_chapter;
using gemm_tests::check_misaligned_views;

#ifdef GEMM_TEST_HOPPER
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
    // Chapters 16, 17 and 19: tests/chapters/test_stream_k.cu.
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

// The gpu suite of the harness: the device report, fp16 rounding on host and device, and the
// cuBLAS yardsticks every chapter is measured against (each chapter's own tests are beside it:
// chapters/NN_slug/test.cu). SKIP without a GPU unless GEMM_REQUIRE_GPU=1.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <string>

#include "gpu_checks.cuh"

using gemm_tests::check_all;
using gemm_tests::check_misaligned_views;

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

int main(int argc, char** argv) {
    return gemm_tests::gpu_test_main(argc, argv, false);
}

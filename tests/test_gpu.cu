// The gpu suite: the cuBLAS yardsticks, the device report, and the named configurations of the
// chapters that have several (each chapter's default is tested on its own: tests/test_chapter.cu).
// Built a second time with GEMM_TEST_HOPPER for sm_90a alone: then it tests the Hopper chapters'
// configurations, and skips on other GPUs.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#ifdef GEMM_TEST_HOPPER
#include "15_wgmma_persistent/kernel.cuh"
#include "16_every_shape/kernel.cuh"
#else
#include "11_mma_ldmatrix/kernel.cuh"
#endif
#include "gpu_checks.cuh"

using gemm_tests::check_all;
using gemm_tests::check_chapter;
using gemm_tests::check_misaligned_views;

#ifdef GEMM_TEST_HOPPER
// Shapes that send chapter 16 down each of its branches (tests/test_schedule.cu pins which goes
// where on 132 SMs): few rows with deep K (64-, 128- and 256-row tiles split by stream-K), the
// hybrid's data-parallel waves plus a split tail, K not a multiple of 64, alpha and beta (the
// partials must be summed before beta * C is added, once), beta = 0 with C through TMA stores and
// through registers, and the same through the padded copies (misaligned views).
template <class Fn>
void check_split_paths(Fn fn) {
    const std::vector<gemm::Problem> cases = {
        gemm_tests::make(1, 768, 6000),
        gemm_tests::make(64, 1024, 8192),
        gemm_tests::make(37, 520, 4100, 0, 0, 0, 1.5f, -0.5f),
        gemm_tests::make(100, 2048, 4096, 0, 0, 0, 0.5f, 2.0f),
        gemm_tests::make(128, 512, 6144, 6152, 520, 516),  // padded lds, beta 0, C by TMA
        gemm_tests::make(200, 1536, 3000, 0, 0, 0, -1.0f, 0.25f),
        gemm_tests::make(130, 1000, 5003),  // N % 4 != 0: C from registers
        gemm_tests::make(1024, 1024, 8192),
        gemm_tests::make(2304, 2048, 1024),                       // 72 cluster tiles, 66 workers
        gemm_tests::make(4096, 2304, 1024, 0, 0, 0, 1.0f, 1.0f),  // 144: a wave + a split tail
        gemm_tests::make(1500, 40, 9000, 0, 0, 0, 1.0f, 0.5f),    // few columns: 64-wide tiles
        gemm_tests::make(64, 64, 65536, 0, 0, 0, 2.0f, -1.0f),    // one tile, 132 pieces
        gemm_tests::make(512, 1000, 4096),                        // (128, 128) tiles
    };
    for (gemm::Problem p : cases) {
        CAPTURE(gemm_tests::name(p));
        gemm::CheckResult r = gemm::check_gpu_gemm(fn, p);
        CHECK_MESSAGE(r.pass, r.summary());
        if (static_cast<long long>(p.shape.M) * p.shape.N > (4 << 20)) continue;
        p.view_offset = 1;
        CAPTURE(p.view_offset);
        r = gemm::check_gpu_gemm(fn, p);
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
    // Chapter 16: its dispatcher on the shapes of every branch (the shared cases: test_chapter.cu),
    // then each named configuration of its table on every shape, not only where it is chosen.
    TEST_CASE("16_every_shape, the dispatcher's branches") {
        check_split_paths(ch16::gemm);
    }
    TEST_CASE("16_every_shape, data_parallel") {
        check_chapter(ch16::gemm_named<ch16::configs::rows256_cluster2, ch16::Split::data_parallel>,
                      true);
    }
    TEST_CASE("16_every_shape, stream_k") {
        auto fn = ch16::gemm_named<ch16::configs::rows256_cluster2, ch16::Split::stream_k>;
        check_chapter(fn, true);
        check_split_paths(fn);
    }
    TEST_CASE("16_every_shape, hybrid") {
        auto fn = ch16::gemm_named<ch16::configs::rows256_cluster2, ch16::Split::hybrid>;
        check_chapter(fn, true);
        check_split_paths(fn);
    }
    TEST_CASE("16_every_shape, rows128_stream_k") {
        auto fn = ch16::gemm_named<ch16::configs::rows128, ch16::Split::stream_k>;
        check_chapter(fn, true);
        check_split_paths(fn);
    }
    TEST_CASE("16_every_shape, n128_stream_k") {
        auto fn = ch16::gemm_named<ch16::configs::n128, ch16::Split::stream_k>;
        check_chapter(fn, true);
        check_split_paths(fn);
    }
    TEST_CASE("16_every_shape, n128_hybrid") {
        check_split_paths(ch16::gemm_named<ch16::configs::n128, ch16::Split::hybrid>);
    }
    TEST_CASE("16_every_shape, n64_stream_k") {
        auto fn = ch16::gemm_named<ch16::configs::n64, ch16::Split::stream_k>;
        check_chapter(fn, true);
        check_split_paths(fn);
    }
    TEST_CASE("16_every_shape, n64_data_parallel") {
        check_chapter(ch16::gemm_named<ch16::configs::n64, ch16::Split::data_parallel>, true);
    }
    TEST_CASE("16_every_shape, rows64_data_parallel") {
        check_chapter(ch16::gemm_named<ch16::configs::rows64, ch16::Split::data_parallel>, true);
    }
    TEST_CASE("16_every_shape, rows64_stream_k") {
        auto fn = ch16::gemm_named<ch16::configs::rows64, ch16::Split::stream_k>;
        check_chapter(fn, true);
        check_split_paths(fn);
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

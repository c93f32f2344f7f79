// The gpu suite: the cuBLAS yardsticks, the device report and every GPU chapter against the
// double-precision reference on awkward shapes. Without a GPU the whole binary reports SKIP (exit
// 77) unless GEMM_REQUIRE_GPU=1, which turns a missing GPU into a failure. Built a second time with
// GEMM_TEST_HOPPER for sm_90a alone: then it tests the Hopper chapters, and skips on other GPUs.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#ifdef GEMM_TEST_HOPPER
#include "13_wgmma_persistent/kernel.cuh"  // includes chapter 12's
#include "17_fp8/kernel.cuh"
#include "harness_fp8.cuh"
#else
#include "03_cuda_naive/kernel.cuh"
#include "04_cuda_coalesced/kernel.cuh"
#include "05_cuda_smem_tiled/kernel.cuh"
#include "06_cuda_register_tiled/kernel.cuh"
#include "07_cuda_warp_tiled/kernel.cuh"
#include "08_wmma_naive/kernel.cuh"
#include "09_wmma_smem/kernel.cuh"
#include "10_wmma_double_buffered/kernel.cuh"
#include "11_mma_ldmatrix/kernel.cuh"
#endif
#include "cases.hpp"
#include "harness_gpu.cuh"

namespace {

template <class Fn>
void check_all(Fn fn, bool include_large) {
    std::vector<gemm::Problem> cases = gemm_tests::small_cases();
    if (include_large)
        for (const gemm::Problem& p : gemm_tests::large_cases()) cases.push_back(p);
    for (const gemm::Problem& p : cases) {
        CAPTURE(gemm_tests::name(p));
        gemm::CheckResult r = gemm::check_gpu_gemm(fn, p);
        CHECK_MESSAGE(r.pass, r.summary());
    }
}

// A view into a bigger matrix: base pointers one element past a 16-byte boundary, with leading
// dimensions that are multiples of 8 (so only the pointers betray the misalignment) and odd ones.
template <class Fn>
void check_misaligned_views(Fn fn) {
    for (gemm::Problem p : {gemm_tests::make(96, 128, 64, 64, 128, 128, 1.0f, 0.5f),
                            gemm_tests::make(97, 101, 103, 105, 107, 109, 1.0f, 0.5f),
                            gemm_tests::make(300, 260, 270, 280, 264, 272)}) {
        p.view_offset = 1;
        CAPTURE(gemm_tests::name(p));
        gemm::CheckResult r = gemm::check_gpu_gemm(fn, p);
        CHECK_MESSAGE(r.pass, r.summary());
    }
}

}  // namespace

#ifdef GEMM_TEST_HOPPER
// Shapes that take the TMA path itself (leading dimensions multiples of 8) with partial tiles,
// several persistent rounds, a long K and alpha/beta; the awkward ones of cases.hpp take the padded
// copy.
template <class Fn>
void check_tma_paths(Fn fn) {
    for (const gemm::Problem& p :
         {gemm_tests::make(1000, 1000, 1000), gemm_tests::make(2000, 3000, 520, 0, 0, 0, 1.5f, -0.5f),
          gemm_tests::make(4096, 4096, 64), gemm_tests::make(136, 264, 8200),
          gemm_tests::make(200, 72, 16, 24, 80, 75, 1.0f, 1.0f),
          gemm_tests::make(300, 200, 40, 48, 208, 204, 0.5f, 0.0f)}) {  // C by TMA, padded ldc
        CAPTURE(gemm_tests::name(p));
        gemm::CheckResult r = gemm::check_gpu_gemm(fn, p);
        CHECK_MESSAGE(r.pass, r.summary());
    }
}

template <class Fn>
void check_hopper(Fn fn) {
    check_all(fn, true);
    check_misaligned_views(fn);
    check_tma_paths(fn);
}

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

TEST_SUITE("hopper chapters") {
    TEST_CASE("12_wgmma_tma") { check_hopper(ch12::gemm); }
    TEST_CASE("13_wgmma_persistent") { check_hopper(ch13::gemm); }
    // The steps of chapter 13's table are kernels of their own: each must be right too.
    TEST_CASE("13_wgmma_persistent, one block per tile") {
        check_hopper(ch13::gemm_cfg<ch13::configs::single>);
    }
    TEST_CASE("13_wgmma_persistent, persistent without clusters") {
        check_hopper(ch13::gemm_cfg<ch13::configs::persistent>);
    }
    TEST_CASE("13_wgmma_persistent, clusters without persistence") {
        check_hopper(ch13::gemm_cfg<ch13::configs::cluster2>);
    }
    TEST_CASE("13_wgmma_persistent, persistent clusters, C stored from registers") {
        check_hopper(ch13::gemm_cfg<ch13::configs::persistent_cluster2>);
    }
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

TEST_SUITE("chapters") {
    TEST_CASE("03_cuda_naive") {
        check_all(ch03::gemm, true);
        check_misaligned_views(ch03::gemm);
    }
    TEST_CASE("04_cuda_coalesced") {
        check_all(ch04::gemm, true);
        check_misaligned_views(ch04::gemm);
    }
    TEST_CASE("05_cuda_smem_tiled") {
        check_all(ch05::gemm, true);
        check_misaligned_views(ch05::gemm);
    }
    TEST_CASE("06_cuda_register_tiled") {
        check_all(ch06::gemm, true);
        check_misaligned_views(ch06::gemm);
    }
    TEST_CASE("07_cuda_warp_tiled") {
        check_all(ch07::gemm, true);
        check_misaligned_views(ch07::gemm);
    }
    TEST_CASE("08_wmma_naive") {
        check_all(ch08::gemm, true);
        check_misaligned_views(ch08::gemm);
    }
    TEST_CASE("09_wmma_smem") {
        check_all(ch09::gemm, true);
        check_misaligned_views(ch09::gemm);
    }
    TEST_CASE("10_wmma_double_buffered") {
        check_all(ch10::gemm, true);
        check_misaligned_views(ch10::gemm);
    }
    TEST_CASE("11_mma_ldmatrix") {
        check_all(ch11::gemm, true);
        check_misaligned_views(ch11::gemm);
    }
    // The configuration sm_86/sm_89 take (less shared memory), here on whatever GPU runs the test.
    TEST_CASE("11_mma_ldmatrix, b128x256_k32_s3") {
        check_all(ch11::gemm_cfg<ch11::configs::b128x256_k32_s3>, false);
        check_misaligned_views(ch11::gemm_cfg<ch11::configs::b128x256_k32_s3>);
    }
}
#endif  // GEMM_TEST_HOPPER

int main(int argc, char** argv) {
    std::string why;
    if (!gemm::cuda_device_available(&why)) {
        const char* req = std::getenv("GEMM_REQUIRE_GPU");
        if (req && std::strcmp(req, "0") != 0 && *req) {
            std::cerr << "GEMM_REQUIRE_GPU is set but " << why << "\n";
            return 1;
        }
        std::cout << "skipped: " << why << "\n";
        return 77;
    }
#ifdef GEMM_TEST_HOPPER
    int dev = 0, major = 0, minor = 0;
    GEMM_CUDA_CHECK(cudaGetDevice(&dev));
    GEMM_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
    GEMM_CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev));
    if (major != 9 || minor != 0) {  // not a failure: these chapters are for Hopper alone
        std::cout << "skipped: the Hopper chapters need compute capability 9.0, device " << dev
                  << " has " << major << "." << minor << "\n";
        return 77;
    }
#endif
    doctest::Context ctx(argc, argv);
    return ctx.run();
}

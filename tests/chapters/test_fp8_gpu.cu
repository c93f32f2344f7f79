// The FP8 chapters (20-23) on the GPU: each on the shared awkward shapes with B as N x K and on
// misaligned views, each checked with its own arithmetic's tolerance (chapters.txt's precision);
// the accuracy contract at deep K with positive inputs; and the cuBLASLt yardsticks. Built for
// sm_90a alone; skips on other GPUs, and without a GPU unless GEMM_REQUIRE_GPU=1.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "20_fp8_e4m3/kernel.cuh"
#include "21_fp8_promoted/kernel.cuh"
#include "22_fp8_persistent/kernel.cuh"
#include "23_fp8_block_scaled/kernel.cuh"
#include "gpu_checks.cuh"
#include "harness_fp8.cuh"

namespace {

// The precision a chapter's binary runs with: its column of chapters/chapters.txt.
gemm::Precision list_precision(const char* id) {
    return gemm::precision_from_list(gemm::chapter_info(id).precision);
}

// The shared awkward shapes with B as N x K (as_precision keeps a padded ldb's padding), misaligned
// views (one byte off), and shapes for the FP8 paths: several k-tiles with a partial last one, an
// odd number of k-tiles (the two sets of partial sums end on either), fewer k-tiles than a chunk
// (K 520), exactly one (1000), chunks and a remainder (1152, 8200), several 128-blocks of scales
// along M and N, TMA-ready leading dimensions (multiples of 16) with partial tiles, more tiles than
// the persistent grid holds.
void check_fp8(gemm::GpuGemmFp8 fn, gemm::Precision precision) {
    std::vector<gemm::Problem> cases = gemm_tests::small_cases();
    for (const gemm::Problem& p : gemm_tests::large_cases()) cases.push_back(p);
    for (gemm::Problem p : {gemm_tests::make(96, 128, 64, 64, 128, 128, 1.0f, 0.5f),
                            gemm_tests::make(97, 101, 103, 105, 107, 109, 1.0f, 0.5f),
                            gemm_tests::make(300, 260, 270, 280, 264, 272)}) {
        p.view_offset = 1;
        cases.push_back(p);
    }
    for (const gemm::Problem& p :
         {gemm_tests::make(1000, 1000, 1000),
          gemm_tests::make(2000, 3000, 520, 0, 0, 0, 1.5f, -0.5f), gemm_tests::make(136, 264, 8200),
          gemm_tests::make(384, 640, 1152),
          gemm_tests::make(200, 72, 129, 144, 72 + 15, 80, 1.0f, 1.0f),
          gemm_tests::make(260, 390, 640, 0, 0, 0, -2.0f, 0.0f),
          gemm_tests::make(4100, 2300, 384, 0, 0, 0, 1.0f, 0.25f)})
        cases.push_back(p);
    for (const gemm::Problem& q : cases) {
        const gemm::Problem p = gemm::as_precision(q, precision);
        CAPTURE(gemm_tests::name(p));
        CAPTURE(p.view_offset);
        gemm::CheckResult r = gemm::check_gpu_fp8(fn, p);
        CHECK_MESSAGE(r.pass, r.summary());
    }
}

// 256 x 256 x 32768 with positive inputs (sums that grow like K): the largest relative error over
// the elements of C, each against the double-precision product of the same e4m3 inputs.
double deep_k_max_rel_err(gemm::GpuGemmFp8 fn, gemm::Precision precision) {
    gemm::Problem p;
    p.shape = {256, 256, 32768};
    p.precision = precision;
    gemm::HostProblem hp = gemm::make_inputs(p);
    gemm::make_positive(hp);
    std::vector<double> expected, scale;
    gemm::reference_gemm(hp, expected, scale);
    const std::vector<float> C = gemm::run_gpu_fp8(fn, hp);
    double worst = 0.0;
    for (std::size_t i = 0; i < expected.size(); ++i) {
        REQUIRE(expected[i] > 0.0);
        worst = std::fmax(worst, std::fabs(double(C[i]) - expected[i]) / expected[i]);
    }
    return worst;
}

}  // namespace

TEST_SUITE("fp8 chapters") {
    TEST_CASE("the list gives each chapter its arithmetic") {
        CHECK(list_precision("20_fp8_e4m3") == gemm::Precision::E4M3Fast);
        CHECK(list_precision("21_fp8_promoted") == gemm::Precision::E4M3);
        CHECK(list_precision("22_fp8_persistent") == gemm::Precision::E4M3);
        CHECK(list_precision("23_fp8_block_scaled") == gemm::Precision::E4M3Block);
    }
    TEST_CASE("20_fp8_e4m3") {
        check_fp8(ch20::gemm, list_precision("20_fp8_e4m3"));
    }
    TEST_CASE("21_fp8_promoted") {
        check_fp8(ch21::gemm, list_precision("21_fp8_promoted"));
    }
    TEST_CASE("21_fp8_promoted, chunks of 1 (no overlap) and of 3 (odd: a chunk ends on set 0)") {
        check_fp8(ch21::gemm_cfg<1>, list_precision("21_fp8_promoted"));
        check_fp8(ch21::gemm_cfg<3>, list_precision("21_fp8_promoted"));
    }
    TEST_CASE("22_fp8_persistent") {
        check_fp8(ch22::gemm, list_precision("22_fp8_persistent"));
    }
    TEST_CASE("22_fp8_persistent, without clusters") {
        check_fp8(ch22::gemm_cfg<1>, list_precision("22_fp8_persistent"));
    }
    TEST_CASE("22_fp8_persistent, chunks of 1 (no overlap) and of 3") {
        check_fp8(ch22::gemm_cfg<2, 1>, list_precision("22_fp8_persistent"));
        check_fp8(ch22::gemm_cfg<1, 3>, list_precision("22_fp8_persistent"));
    }
    TEST_CASE("23_fp8_block_scaled") {
        check_fp8(ch23::gemm, list_precision("23_fp8_block_scaled"));
    }
    TEST_CASE("23_fp8_block_scaled, pairs sharing B (gemm() runs none)") {
        check_fp8(ch23::gemm_cfg<2>, list_precision("23_fp8_block_scaled"));
    }
    TEST_CASE("23_fp8_block_scaled, chunks of 1 (no overlap) and of 3") {
        check_fp8(ch23::gemm_cfg<2, 1>, list_precision("23_fp8_block_scaled"));
        check_fp8(ch23::gemm_cfg<2, 3>, list_precision("23_fp8_block_scaled"));
    }
    // The check can fail: per-block inputs through a per-tensor kernel, which applies the first
    // scale of A and of B to everything, must not pass.
    TEST_CASE("a kernel that ignores the block scales fails the check") {
        const gemm::Problem p =
            gemm::as_precision(gemm_tests::make(256, 256, 512), gemm::Precision::E4M3Block);
        CHECK_FALSE(gemm::check_gpu_fp8(ch22::gemm, p).pass);
    }
}

// The accuracy contract: promoted chapters are within 1% of the exact value at every element of
// 256 x 256 x 32768 with positive inputs. The unpromoted chapter stays within its documented bound
// (2^-11 per 32-deep step, harness/problem.hpp) and is measurably worse than 1%: the test can tell
// promotion apart (chapter 20's README has the curve).
TEST_SUITE("fp8 accuracy at deep K") {
    TEST_CASE("21_fp8_promoted") {
        CHECK(deep_k_max_rel_err(ch21::gemm, gemm::Precision::E4M3) <= 0.01);
    }
    TEST_CASE("22_fp8_persistent") {
        CHECK(deep_k_max_rel_err(ch22::gemm, gemm::Precision::E4M3) <= 0.01);
    }
    TEST_CASE("23_fp8_block_scaled") {
        CHECK(deep_k_max_rel_err(ch23::gemm, gemm::Precision::E4M3Block) <= 0.01);
    }
    TEST_CASE("20_fp8_e4m3: within its looser bound, and not within 1%") {
        const double err = deep_k_max_rel_err(ch20::gemm, gemm::Precision::E4M3Fast);
        MESSAGE("20_fp8_e4m3: largest relative error at 256 x 256 x 32768, positive: ", err);
        CHECK(err <= std::ldexp(1.0, -11) * (32768.0 / 32.0 + 8.0));
        CHECK(err > 0.01);
    }
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

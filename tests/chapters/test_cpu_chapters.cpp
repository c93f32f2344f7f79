// The CPU chapters against the double-precision reference on awkward shapes.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include "01_cpu_naive/kernel.hpp"
#include "02_cpu_tiled/kernel.hpp"
#include "cases.hpp"
#include "harness_cpu.hpp"

namespace {

void check_chapter(gemm::CpuGemmF32 fn) {
    for (const gemm::Problem& p : gemm_tests::small_cases()) {
        CAPTURE(gemm_tests::name(p));
        gemm::CheckResult r = gemm::check_cpu_gemm(fn, p, gemm::CheckMode::Full);
        CHECK_MESSAGE(r.pass, r.summary());
    }
}

}  // namespace

TEST_CASE("01_cpu_naive") {
    check_chapter(ch01::gemm);
}
TEST_CASE("02_cpu_tiled") {
    check_chapter(ch02::gemm);
}

TEST_CASE("02_cpu_tiled across its block edges") {
    // Just below, at and above BM, BK and BN, so that every partial block is exercised.
    for (int M : {ch02::BM - 1, ch02::BM + 1})
        for (int N : {ch02::BN - 1, ch02::BN + 3})
            for (int K : {ch02::BK - 1, ch02::BK, 2 * ch02::BK + 1}) {
                gemm::Problem p = gemm_tests::make(M, N, K, K + 1, N + 2, N + 1, 0.75f, -1.0f);
                CAPTURE(gemm_tests::name(p));
                gemm::CheckResult r = gemm::check_cpu_gemm(ch02::gemm, p, gemm::CheckMode::Full);
                CHECK_MESSAGE(r.pass, r.summary());
            }
}

#ifdef GEMM_HAVE_CBLAS
TEST_CASE("the CBLAS yardstick computes the same product") {
    for (const gemm::Problem& p : gemm_tests::small_cases()) {
        CAPTURE(gemm_tests::name(p));
        gemm::CheckResult r =
            gemm::check_cpu_gemm(gemm::cblas_yardstick(), p, gemm::CheckMode::Full);
        CHECK_MESSAGE(r.pass, r.summary());
    }
}
#endif

TEST_CASE("the sampled check agrees on a chapter's larger output") {
    gemm::Problem p = gemm_tests::make(700, 650, 300, 0, 0, 0, 1.0f, 0.5f);
    CHECK(gemm::check_cpu_gemm(ch02::gemm, p, gemm::CheckMode::Sample).pass);
}

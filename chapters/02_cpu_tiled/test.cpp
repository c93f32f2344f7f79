// Chapter 02's tests: its gemm() against the double-precision reference on the contract's awkward
// shapes (tests/cpu_checks.hpp) and across its block edges, and the sampled check agreeing on a
// larger output. Built and run by chapters/meson.build as cpu_02_cpu_tiled.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include "cpu_checks.hpp"
#include "kernel.hpp"

TEST_CASE("02_cpu_tiled") {
    gemm_tests::check_cpu_chapter(ch02::gemm);
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

TEST_CASE("the sampled check agrees on a chapter's larger output") {
    gemm::Problem p = gemm_tests::make(700, 650, 300, 0, 0, 0, 1.0f, 0.5f);
    CHECK(gemm::check_cpu_gemm(ch02::gemm, p, gemm::CheckMode::Sample).pass);
}

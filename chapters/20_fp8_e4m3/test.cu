// Chapter 20's tests, on the GPU (gpu_20_fp8_e4m3; SKIP without one, and on GPUs other than
// compute capability 9.0): its gemm() and named configurations on the shared awkward shapes with B
// as N x K, misaligned views and the FP8 paths' shapes, checked with its own arithmetic's tolerance
// (chapters.txt's precision; tests/fp8_checks.cuh); and the accuracy contract, unpromoted: its
// looser bound at deep K, and measurably worse than 1% there (the test can tell promotion apart).
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cmath>

#include "fp8_checks.cuh"
#include "kernel.cuh"

using gemm_tests::check_fp8;
using gemm_tests::deep_k_max_rel_err;
using gemm_tests::list_precision;

TEST_CASE("the list gives 20_fp8_e4m3 its arithmetic") {
    CHECK(list_precision("20_fp8_e4m3") == gemm::Precision::E4M3Fast);
}

TEST_CASE("20_fp8_e4m3") {
    check_fp8(ch20::gemm, list_precision("20_fp8_e4m3"));
}

TEST_CASE("20_fp8_e4m3 at deep K: within its looser bound, and not within 1%") {
    const double err = deep_k_max_rel_err(ch20::gemm, gemm::Precision::E4M3Fast);
    MESSAGE("20_fp8_e4m3: largest relative error at 256 x 256 x 32768, positive: ", err);
    CHECK(err <= std::ldexp(1.0, -11) * (32768.0 / 32.0 + 8.0));
    CHECK(err > 0.01);
}

int main(int argc, char** argv) {
    return gemm_tests::chapter_test_main(argc, argv, true);
}

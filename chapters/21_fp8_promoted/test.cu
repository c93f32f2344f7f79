// Chapter 21's tests, on the GPU (gpu_21_fp8_promoted; SKIP without one, and on GPUs other than
// compute capability 9.0): its gemm() and named configurations on the shared awkward shapes with B
// as N x K, misaligned views and the FP8 paths' shapes, checked with its own arithmetic's tolerance
// (chapters.txt's precision; tests/fp8_checks.cuh); and the accuracy contract, promoted: within 1%
// at every element at deep K.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cmath>

#include "fp8_checks.cuh"
#include "kernel.cuh"

using gemm_tests::check_fp8;
using gemm_tests::deep_k_max_rel_err;
using gemm_tests::list_precision;

TEST_CASE("the list gives 21_fp8_promoted its arithmetic") {
    CHECK(list_precision("21_fp8_promoted") == gemm::Precision::E4M3);
}

TEST_CASE("21_fp8_promoted") {
    check_fp8(ch21::gemm, list_precision("21_fp8_promoted"));
}
TEST_CASE("21_fp8_promoted, chunks of 1 (no overlap) and of 3 (odd: a chunk ends on set 0)") {
    check_fp8(ch21::gemm_cfg<1>, list_precision("21_fp8_promoted"));
    check_fp8(ch21::gemm_cfg<3>, list_precision("21_fp8_promoted"));
}

TEST_CASE("21_fp8_promoted at deep K: within 1%") {
    CHECK(deep_k_max_rel_err(ch21::gemm, gemm::Precision::E4M3) <= 0.01);
}

int main(int argc, char** argv) {
    return gemm_tests::chapter_test_main(argc, argv, true);
}

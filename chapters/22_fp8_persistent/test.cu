// Chapter 22's tests, on the GPU (gpu_22_fp8_persistent; SKIP without one, and on GPUs other than
// compute capability 9.0): its gemm() and named configurations on the shared awkward shapes with B
// as N x K, misaligned views and the FP8 paths' shapes, checked with its own arithmetic's tolerance
// (chapters.txt's precision; tests/fp8_checks.cuh); and the accuracy contract, promoted: within 1%
// at every element at deep K.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cmath>

#include "fp8_checks.cuh"
#include "kernel.cuh"
#include "wide.cuh"

using gemm_tests::check_fp8;
using gemm_tests::deep_k_max_rel_err;
using gemm_tests::list_precision;

TEST_CASE("the list gives 22_fp8_persistent its arithmetic") {
    CHECK(list_precision("22_fp8_persistent") == gemm::Precision::E4M3);
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

// gemm() stores C by TMA where it may (beta 0, 16-byte rows, N % 8 == 0), else from registers;
// the other configurations: TMA stores without pairs, and the register epilogue throughout (the
// chapter before its TMA store, still a tune candidate).
TEST_CASE("22_fp8_persistent, TMA stores without pairs; the register epilogue") {
    check_fp8(ch22::gemm_cfg<1, 3, true>, list_precision("22_fp8_persistent"));
    check_fp8(ch22::gemm_cfg<2>, list_precision("22_fp8_persistent"));
}
TEST_CASE("22_fp8_persistent, the register epilogue, at deep K: within 1%") {
    CHECK(deep_k_max_rel_err(ch22::gemm_cfg<2>, gemm::Precision::E4M3) <= 0.01);
}

TEST_CASE("22_fp8_persistent at deep K: within 1%") {
    CHECK(deep_k_max_rel_err(ch22::gemm, gemm::Precision::E4M3) <= 0.01);
}

// The wide tile (wide.cuh, issue 38 step 2): 256 rows in two 64-row waves per warpgroup, pairs
// along N sharing A; the same shapes (M not a multiple of 256, N odd, K not a multiple of 128, odd
// ld, beta != 0) and the same accuracy contract; C by TMA stores where gemm_wide may (beta 0,
// 16-byte rows, N % 8 == 0), else from registers, and from registers throughout.
TEST_CASE("22_fp8_persistent wide, pairs along N sharing A") {
    check_fp8(ch22::gemm_wide<2>, list_precision("22_fp8_persistent"));
}
TEST_CASE("22_fp8_persistent wide, pairs, the register epilogue") {
    check_fp8(ch22::gemm_wide<2, false, 4, false>, list_precision("22_fp8_persistent"));
}
TEST_CASE("22_fp8_persistent wide, without clusters") {
    check_fp8(ch22::gemm_wide<1>, list_precision("22_fp8_persistent"));
}
TEST_CASE("22_fp8_persistent wide, two sets of sums (chunks of 4; of 3, registers' epilogue)") {
    check_fp8(ch22::gemm_wide<2, true>, list_precision("22_fp8_persistent"));
    check_fp8(ch22::gemm_wide<1, true, 3, false>, list_precision("22_fp8_persistent"));
}
TEST_CASE("22_fp8_persistent wide at deep K: within 1%") {
    CHECK(deep_k_max_rel_err(ch22::gemm_wide<2>, gemm::Precision::E4M3) <= 0.01);
    CHECK(deep_k_max_rel_err(ch22::gemm_wide<2, true>, gemm::Precision::E4M3) <= 0.01);
}

int main(int argc, char** argv) {
    return gemm_tests::chapter_test_main(argc, argv, true);
}

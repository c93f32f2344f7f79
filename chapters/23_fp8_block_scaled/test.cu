// Chapter 23's tests, on the GPU (gpu_23_fp8_block_scaled; SKIP without one, and on GPUs other than
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

TEST_CASE("the list gives 23_fp8_block_scaled its arithmetic") {
    CHECK(list_precision("23_fp8_block_scaled") == gemm::Precision::E4M3Block);
}

TEST_CASE("23_fp8_block_scaled") {
    check_fp8(ch23::gemm, list_precision("23_fp8_block_scaled"));
}
// C from registers everywhere (store_tile), gemm()'s configuration without STORE_TMA.
TEST_CASE("23_fp8_block_scaled, the register epilogue") {
    check_fp8(ch23::gemm_cfg<1>, list_precision("23_fp8_block_scaled"));
}
TEST_CASE("23_fp8_block_scaled, pairs sharing B (gemm() runs them from PAIRS_MIN_M rows)") {
    check_fp8(ch23::gemm_cfg<2>, list_precision("23_fp8_block_scaled"));
}
TEST_CASE("23_fp8_block_scaled, chunks of 1 (no overlap) and of 3") {
    check_fp8(ch23::gemm_cfg<2, 1>, list_precision("23_fp8_block_scaled"));
    check_fp8(ch23::gemm_cfg<2, 3>, list_precision("23_fp8_block_scaled"));
}

// C through TMA stores where it may be (beta 0, 16-byte rows, N % 8 == 0), else from registers.
TEST_CASE("23_fp8_block_scaled, C through TMA stores") {
    check_fp8(ch23::gemm_cfg<2, 8, true>, list_precision("23_fp8_block_scaled"));
    check_fp8(ch23::gemm_cfg<1, 3, true>, list_precision("23_fp8_block_scaled"));
}
TEST_CASE("23_fp8_block_scaled, the register epilogue, at deep K: within 1%") {
    CHECK(deep_k_max_rel_err(ch23::gemm_cfg<1>, gemm::Precision::E4M3Block) <= 0.01);
}

TEST_CASE("23_fp8_block_scaled at deep K: within 1%") {
    CHECK(deep_k_max_rel_err(ch23::gemm, gemm::Precision::E4M3Block) <= 0.01);
}

int main(int argc, char** argv) {
    return gemm_tests::chapter_test_main(argc, argv, true);
}

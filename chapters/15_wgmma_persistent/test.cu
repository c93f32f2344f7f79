// Chapter 15's tests: its gemm() and every step of its table (each a kernel of its own) against
// the double-precision reference on every shape of tests/cases.hpp, misaligned views and the
// shapes of its TMA paths (tests/gpu_checks.cuh). Built and run by chapters/meson.build as
// gpu_15_wgmma_persistent: SKIP without a GPU.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include "gpu_checks.cuh"
#include "kernel.cuh"

TEST_CASE("15_wgmma_persistent") {
    gemm_tests::check_chapter(ch15::gemm, true);
}

TEST_SUITE("15_wgmma_persistent configurations") {
    // The steps of chapter 15's table are kernels of their own: each must be right too.
    TEST_CASE("15_wgmma_persistent, one block per tile") {
        gemm_tests::check_chapter(ch15::gemm_cfg<ch15::configs::single>, true);
    }
    TEST_CASE("15_wgmma_persistent, one block per tile, nothing left in flight") {
        gemm_tests::check_chapter(ch15::gemm_cfg<ch15::configs::single_wait0>, true);
    }
    TEST_CASE("15_wgmma_persistent, persistent without clusters") {
        gemm_tests::check_chapter(ch15::gemm_cfg<ch15::configs::persistent>, true);
    }
    TEST_CASE("15_wgmma_persistent, clusters without persistence") {
        gemm_tests::check_chapter(ch15::gemm_cfg<ch15::configs::cluster2>, true);
    }
    TEST_CASE("15_wgmma_persistent, persistent clusters, C stored from registers") {
        gemm_tests::check_chapter(ch15::gemm_cfg<ch15::configs::persistent_cluster2>, true);
    }
}

int main(int argc, char** argv) {
    return gemm_tests::chapter_test_main(argc, argv, true);
}

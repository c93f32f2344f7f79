// Chapter 13's tests: its gemm() against the double-precision reference on every shape of
// tests/cases.hpp, misaligned views, and the shapes of its TMA paths (sm_90a)
// (tests/gpu_checks.cuh). Built and run by chapters/meson.build as gpu_13_tma_mbarrier: SKIP
// without a GPU.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include "gpu_checks.cuh"
#include "kernel.cuh"

TEST_CASE("13_tma_mbarrier") {
    gemm_tests::check_chapter(ch13::gemm, true);
}

int main(int argc, char** argv) {
    return gemm_tests::chapter_test_main(argc, argv, true);
}

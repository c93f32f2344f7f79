// Chapter 09's tests: its gemm() against the double-precision reference on every shape of
// tests/cases.hpp, misaligned views
// (tests/gpu_checks.cuh). Built and run by chapters/meson.build as gpu_09_wmma_smem: SKIP without a
// GPU.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include "gpu_checks.cuh"
#include "kernel.cuh"

TEST_CASE("09_wmma_smem") {
    gemm_tests::check_chapter(ch09::gemm, false);
}

int main(int argc, char** argv) {
    return gemm_tests::chapter_test_main(argc, argv, false);
}

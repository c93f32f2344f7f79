// One chapter's GPU test, built once per GPU chapter of chapters/chapters.txt (tests/meson.build):
// GEMM_CHAPTER names its folder, GEMM_CHAPTER_NS its namespace, GEMM_CHAPTER_HOPPER is 1 for the
// sm_90a chapters. The chapter's gemm() against the double-precision reference on every shape of
// cases.hpp, misaligned views, and for sm_90a code the shapes of its TMA paths.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#define GEMM_STR2(x) #x
#define GEMM_STR(x) GEMM_STR2(x)
#include GEMM_STR(GEMM_CHAPTER/kernel.cuh)

#include "gpu_checks.cuh"

TEST_CASE(GEMM_STR(GEMM_CHAPTER)) {
    gemm_tests::check_chapter(GEMM_CHAPTER_NS::gemm, GEMM_CHAPTER_HOPPER);
}

int main(int argc, char** argv) {
    return gemm_tests::gpu_test_main(argc, argv, GEMM_CHAPTER_HOPPER);
}

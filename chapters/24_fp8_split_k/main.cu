// Chapter 24: chapter 23's block-scaled FP8 with K split for few tiles; against cuBLASLt's
// block-scaled mode. The arithmetic (and with it the yardstick and the check's tolerance) is
// chapters.txt's precision.
#include "harness_fp8.cuh"
#include "kernel.cuh"

int main(int argc, char** argv) {
    return gemm::run_fp8_chapter(argc, argv, gemm::chapter_info("24_fp8_split_k"), ch24::gemm);
}

// Chapter 21: FP8 promoted to fp32 every 128 of K; against cuBLASLt's default.
// The arithmetic (and with it the yardstick and the check's tolerance) is chapters.txt's precision.
#include "harness_fp8.cuh"
#include "kernel.cuh"

int main(int argc, char** argv) {
    return gemm::run_fp8_chapter(argc, argv, gemm::chapter_info("21_fp8_promoted"), ch21::gemm);
}

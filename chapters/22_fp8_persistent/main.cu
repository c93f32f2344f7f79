// Chapter 22: the promoted FP8 kernel, persistent with clusters; against cuBLASLt's default.
// The arithmetic (and with it the yardstick and the check's tolerance) is chapters.txt's precision.
#include "harness_fp8.cuh"
#include "kernel.cuh"

int main(int argc, char** argv) {
    return gemm::run_fp8_chapter(argc, argv, gemm::chapter_info("22_fp8_persistent"), ch22::gemm);
}

// Chapter 23: FP8 with 1x128 / 128x128 block scales; against cuBLASLt's block-scaled mode.
// The arithmetic (and with it the yardstick and the check's tolerance) is chapters.txt's precision.
#include "harness_fp8.cuh"
#include "kernel.cuh"

int main(int argc, char** argv) {
    return gemm::run_fp8_chapter(argc, argv, gemm::chapter_info("23_fp8_block_scaled"), ch23::gemm);
}

// Chapter 20: e4m3 operands, per-tensor scales, unpromoted; against cuBLASLt with fast
// accumulation. The arithmetic (and with it the yardstick and the check's tolerance) is
// chapters.txt's precision.
#include "harness_fp8.cuh"
#include "kernel.cuh"

int main(int argc, char** argv) {
    return gemm::run_fp8_chapter(argc, argv, gemm::chapter_info("20_fp8_e4m3"), ch20::gemm);
}

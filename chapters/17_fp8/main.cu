// Chapter 17: FP8 (e4m3) operands with per-tensor scales, bf16 C, against cuBLASLt's FP8 matmul.
#include "harness_fp8.cuh"
#include "kernel.cuh"

int main(int argc, char** argv) {
    return gemm::run_fp8_chapter(argc, argv, gemm::chapter_info("17_fp8"), gemm::Precision::E4M3,
                                 ch17::gemm);
}

// Chapter 17: FP8 (e4m3) operands with per-tensor scales, bf16 C, against cuBLASLt's FP8 matmul.
#include "harness_fp8.cuh"
#include "kernel.cuh"

int main(int argc, char** argv) {
    return gemm::run_fp8_chapter(argc, argv,
                                 {"17_fp8",
                                  "Hopper FP8: e4m3 wgmma, per-tensor scales, bf16 out",
                                  90,
                                  {256, 512, 1024, 2048, 4096, 8192, 16384},
                                  90},
                                 gemm::Precision::E4M3, ch17::gemm);
}

// Chapter 06: Register tiling: 8x8 outputs per thread, float4 loads.
#include "harness_gpu.cuh"
#include "kernel.cuh"

int main(int argc, char** argv) {
    return gemm::run_gpu_chapter(argc, argv, gemm::chapter_info("06_cuda_register_tiled"), ch06::gemm);
}

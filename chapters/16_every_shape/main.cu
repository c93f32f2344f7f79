// Chapter 16: stream-K and 64-row tiles, chosen per shape: cuBLAS speed with few rows and deep K.
#include "harness_gpu.cuh"
#include "kernel.cuh"

int main(int argc, char** argv) {
    return gemm::run_gpu_chapter(argc, argv, gemm::chapter_info("16_every_shape"), ch16::gemm);
}

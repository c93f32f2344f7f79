// Chapter 09: WMMA with A and B block tiles in shared memory, several fragments per warp.
#include "harness_gpu.cuh"
#include "kernel.cuh"

int main(int argc, char** argv) {
    return gemm::run_gpu_chapter(argc, argv, gemm::chapter_info("09_wmma_smem"), ch09::gemm);
}

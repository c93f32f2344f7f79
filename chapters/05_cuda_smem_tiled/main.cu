// Chapter 05: Shared memory: 32x32 tiles of A and B per block.
#include "harness_gpu.cuh"
#include "kernel.cuh"

int main(int argc, char** argv) {
    return gemm::run_gpu_chapter(argc, argv, gemm::chapter_info("05_cuda_smem_tiled"), ch05::gemm);
}

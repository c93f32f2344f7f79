// Chapter 05: Shared memory: 32x32 tiles of A and B per block.
#include "harness_gpu.cuh"
#include "kernel.cuh"

int main(int argc, char** argv) {
    return gemm::run_gpu_chapter(argc, argv,
                                 {"05_cuda_smem_tiled",
                                  "Shared memory: 32x32 tiles of A and B per block",
                                  75,
                                  {256, 512, 1024, 2048, 4096}},
                                 ch05::gemm);
}

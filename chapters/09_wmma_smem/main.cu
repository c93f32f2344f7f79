// Chapter 09: WMMA with A and B block tiles in shared memory, several fragments per warp.
#include "harness_gpu.cuh"
#include "kernel.cuh"

int main(int argc, char** argv) {
    return gemm::run_gpu_chapter(argc, argv,
                                 {"09_wmma_smem",
                                  "WMMA: block tiles in shared memory, 4x4 fragments per warp",
                                  75,
                                  {256, 512, 1024, 2048, 4096, 8192, 16384}},
                                 ch09::gemm);
}

// Chapter 08: tensor cores through WMMA, one warp per 16x16 tile of C, fragments from global
// memory.
#include "harness_gpu.cuh"
#include "kernel.cuh"

int main(int argc, char** argv) {
    return gemm::run_gpu_chapter(argc, argv,
                                 {"08_wmma_naive",
                                  "WMMA: one warp per 16x16 tile, fragments from global",
                                  75,
                                  {256, 512, 1024, 2048, 4096, 8192}},
                                 ch08::gemm);
}

// Chapter 07: Warp tiles, conflict-free smem, double buffering.
#include "harness_gpu.cuh"
#include "kernel.cuh"

int main(int argc, char** argv) {
    return gemm::run_gpu_chapter(argc, argv,
                                 {"07_cuda_warp_tiled",
                                  "Warp tiles, conflict-free smem, double buffering",
                                  75,
                                  {256, 512, 1024, 2048, 4096, 8192}},
                                 ch07::gemm);
}

// Chapter 12: wgmma from shared-memory descriptors, operands through the cp.async pipeline.
#include "harness_gpu.cuh"
#include "kernel.cuh"

int main(int argc, char** argv) {
    return gemm::run_gpu_chapter(argc, argv,
                                 {"12_wgmma",
                                  "Hopper: wgmma from shared memory, cp.async pipeline",
                                  90,
                                  {256, 512, 1024, 2048, 4096, 8192, 16384},
                                  90},
                                 ch12::gemm);
}

// Chapter 15: chapter 14's pipeline, persistent and in clusters of two sharing B by TMA multicast.
#include "harness_gpu.cuh"
#include "kernel.cuh"

int main(int argc, char** argv) {
    return gemm::run_gpu_chapter(argc, argv,
                                 {"15_wgmma_persistent",
                                  "Hopper: persistent tiles, clusters with TMA multicast",
                                  90,
                                  {256, 512, 1024, 2048, 4096, 8192, 16384},
                                  90},
                                 ch15::gemm);
}

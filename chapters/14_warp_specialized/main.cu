// Chapter 14: a producer warpgroup issues the TMA copies, two consumer warpgroups run wgmma.
#include "harness_gpu.cuh"
#include "kernel.cuh"

int main(int argc, char** argv) {
    return gemm::run_gpu_chapter(argc, argv,
                                 {"14_warp_specialized",
                                  "Hopper: TMA + mbarrier pipeline + wgmma, warp-specialized",
                                  90,
                                  {256, 512, 1024, 2048, 4096, 8192, 16384},
                                  90},
                                 ch14::gemm);
}

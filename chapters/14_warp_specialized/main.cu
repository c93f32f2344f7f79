// Chapter 12: TMA copies, an mbarrier pipeline and wgmma, with a producer and two consumer warpgroups.
#include "harness_gpu.cuh"
#include "kernel.cuh"

int main(int argc, char** argv) {
    return gemm::run_gpu_chapter(argc, argv,
                                 {"12_wgmma_tma",
                                  "Hopper: TMA + mbarrier pipeline + wgmma, warp-specialized",
                                  90,
                                  {256, 512, 1024, 2048, 4096, 8192, 16384},
                                  90},
                                 ch12::gemm);
}

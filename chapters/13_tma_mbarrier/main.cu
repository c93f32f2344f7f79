// Chapter 13: chapter 12 with TMA copies issued by one thread, completing on mbarriers.
#include "harness_gpu.cuh"
#include "kernel.cuh"

int main(int argc, char** argv) {
    return gemm::run_gpu_chapter(argc, argv,
                                 {"13_tma_mbarrier",
                                  "Hopper: TMA copies + mbarrier pipeline, wgmma",
                                  90,
                                  {256, 512, 1024, 2048, 4096, 8192, 16384},
                                  90},
                                 ch13::gemm);
}

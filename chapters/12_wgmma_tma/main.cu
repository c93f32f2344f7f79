// Chapter 12: TMA copies, an mbarrier pipeline and wgmma, with a producer and two consumer warpgroups.
#include "harness_gpu.cuh"
#include "kernel.cuh"

int main(int argc, char** argv) {
    return gemm::run_gpu_chapter(argc, argv, gemm::chapter_info("12_wgmma_tma"), ch12::gemm);
}

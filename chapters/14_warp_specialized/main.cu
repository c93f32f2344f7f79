// Chapter 14: a producer warpgroup issues the TMA copies, two consumer warpgroups run wgmma.
#include "harness_gpu.cuh"
#include "kernel.cuh"

int main(int argc, char** argv) {
    return gemm::run_gpu_chapter(argc, argv, gemm::chapter_info("14_warp_specialized"), ch14::gemm);
}

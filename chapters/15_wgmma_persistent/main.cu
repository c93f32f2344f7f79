// Chapter 15: chapter 14's pipeline, persistent and in clusters of two sharing B by TMA multicast.
#include "harness_gpu.cuh"
#include "kernel.cuh"

int main(int argc, char** argv) {
    return gemm::run_gpu_chapter(argc, argv, gemm::chapter_info("15_wgmma_persistent"), ch15::gemm);
}

// Chapter 13: chapter 12's pipeline, persistent and in clusters of two sharing B by TMA multicast.
#include "harness_gpu.cuh"
#include "kernel.cuh"

int main(int argc, char** argv) {
    return gemm::run_gpu_chapter(argc, argv, gemm::chapter_info("13_wgmma_persistent"), ch13::gemm);
}

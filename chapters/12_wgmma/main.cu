// Chapter 12: wgmma from shared-memory descriptors, operands through the cp.async pipeline.
#include "harness_gpu.cuh"
#include "kernel.cuh"

int main(int argc, char** argv) {
    return gemm::run_gpu_chapter(argc, argv, gemm::chapter_info("12_wgmma"), ch12::gemm);
}

// Chapter 07: Warp tiles, conflict-free smem, double buffering.
#include "harness_gpu.cuh"
#include "kernel.cuh"

int main(int argc, char** argv) {
    return gemm::run_gpu_chapter(argc, argv, gemm::chapter_info("07_cuda_warp_tiled"), ch07::gemm);
}

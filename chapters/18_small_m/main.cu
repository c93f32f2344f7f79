// Chapter 18: small M with A and B swapped (M is wgmma's N), split over K, the last split adds.
#include "harness_gpu.cuh"
#include "kernel.cuh"

int main(int argc, char** argv) {
    return gemm::run_gpu_chapter(argc, argv, gemm::chapter_info("18_small_m"), ch18::gemm);
}

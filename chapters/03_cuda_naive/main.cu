// Chapter 03: Naive: one thread per element of C.
#include "harness_gpu.cuh"
#include "kernel.cuh"

int main(int argc, char** argv) {
    return gemm::run_gpu_chapter(argc, argv, gemm::chapter_info("03_cuda_naive"), ch03::gemm);
}

// Chapter 03: Naive: one thread per element of C.
#include "harness_gpu.cuh"
#include "kernel.cuh"

int main(int argc, char** argv) {
    return gemm::run_gpu_chapter(
        argc, argv,
        {"03_cuda_naive", "Naive: one thread per element of C", 75, {256, 512, 1024, 2048, 4096}},
        ch03::gemm);
}

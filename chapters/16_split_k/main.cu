// Chapter 16: split-K, for outputs with fewer tiles than the GPU has SMs.
#include "harness_gpu.cuh"
#include "kernel.cuh"

int main(int argc, char** argv) {
    return gemm::run_gpu_chapter(argc, argv, gemm::chapter_info("16_split_k"), ch16::gemm);
}

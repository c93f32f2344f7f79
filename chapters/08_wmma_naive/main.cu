// Chapter 08: tensor cores through WMMA, one warp per 16x16 tile of C, fragments from global
// memory.
#include "harness_gpu.cuh"
#include "kernel.cuh"

int main(int argc, char** argv) {
    return gemm::run_gpu_chapter(argc, argv, gemm::chapter_info("08_wmma_naive"), ch08::gemm);
}

// Chapter 10: WMMA fed by a multi-stage cp.async pipeline: copies overlap tensor-core math.
#include "harness_gpu.cuh"
#include "kernel.cuh"

int main(int argc, char** argv) {
    return gemm::run_gpu_chapter(argc, argv, gemm::chapter_info("10_wmma_double_buffered"), ch10::gemm);
}

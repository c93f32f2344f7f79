// Chapter 04: Coalesced: threadIdx.x walks the columns of C.
#include "harness_gpu.cuh"
#include "kernel.cuh"

int main(int argc, char** argv) {
    return gemm::run_gpu_chapter(argc, argv, gemm::chapter_info("04_cuda_coalesced"), ch04::gemm);
}

// Chapter 13: chapter 12 with TMA copies issued by one thread, completing on mbarriers.
#include "harness_gpu.cuh"
#include "kernel.cuh"

int main(int argc, char** argv) {
    return gemm::run_gpu_chapter(argc, argv, gemm::chapter_info("13_tma_mbarrier"), ch13::gemm);
}

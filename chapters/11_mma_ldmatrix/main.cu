// Chapter 11: mma.sync m16n8k16 fed by ldmatrix from XOR-swizzled shared memory, cp.async pipeline.
#include "harness_gpu.cuh"
#include "kernel.cuh"

int main(int argc, char** argv) {
    return gemm::run_gpu_chapter(argc, argv, gemm::chapter_info("11_mma_ldmatrix"), ch11::gemm);
}

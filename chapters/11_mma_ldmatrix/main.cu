// Chapter 11: mma.sync m16n8k16 fed by ldmatrix from XOR-swizzled shared memory, cp.async pipeline.
#include "harness_gpu.cuh"
#include "kernel.cuh"

int main(int argc, char** argv) {
    return gemm::run_gpu_chapter(argc, argv,
                                 {"11_mma_ldmatrix",
                                  "mma.sync m16n8k16 + ldmatrix, XOR-swizzled shared memory",
                                  75,
                                  {256, 512, 1024, 2048, 4096, 8192, 16384}},
                                 ch11::gemm);
}

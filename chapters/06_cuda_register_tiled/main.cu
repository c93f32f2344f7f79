// Chapter 06: Register tiling: 8x8 outputs per thread, float4 loads.
#include "harness_gpu.cuh"
#include "kernel.cuh"

int main(int argc, char** argv) {
    return gemm::run_gpu_chapter(argc, argv,
                                 {"06_cuda_register_tiled",
                                  "Register tiling: 8x8 outputs per thread, float4 loads",
                                  75,
                                  {256, 512, 1024, 2048, 4096, 8192}},
                                 ch06::gemm);
}

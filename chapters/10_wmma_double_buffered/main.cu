// Chapter 10: WMMA fed by a multi-stage cp.async pipeline: copies overlap tensor-core math.
#include "harness_gpu.cuh"
#include "kernel.cuh"

int main(int argc, char** argv) {
    return gemm::run_gpu_chapter(argc, argv,
                                 {"10_wmma_double_buffered",
                                  "WMMA: multi-stage cp.async pipeline, 64x64 warp tiles",
                                  75,
                                  {256, 512, 1024, 2048, 4096, 8192, 16384}},
                                 ch10::gemm);
}

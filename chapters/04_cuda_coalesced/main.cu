// Chapter 04: Coalesced: threadIdx.x walks the columns of C.
#include "harness_gpu.cuh"
#include "kernel.cuh"

int main(int argc, char** argv) {
    return gemm::run_gpu_chapter(argc, argv,
                                 {"04_cuda_coalesced",
                                  "Coalesced: threadIdx.x walks the columns of C",
                                  75,
                                  {256, 512, 1024, 2048, 4096}},
                                 ch04::gemm);
}

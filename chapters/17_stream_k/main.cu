// Chapter 17: stream-K, every k-iteration of every tile spread evenly over a persistent grid.
#include "harness_gpu.cuh"
#include "kernel.cuh"

int main(int argc, char** argv) {
    return gemm::run_gpu_chapter(argc, argv, gemm::chapter_info("17_stream_k"), ch17::gemm);
}

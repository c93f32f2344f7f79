// Chapter 02: i-k-j order, cache blocking and OpenMP threads.
#include "harness_cpu.hpp"
#include "kernel.hpp"

int main(int argc, char** argv) {
    return gemm::run_cpu_chapter(
        argc, argv,
        {"02_cpu_tiled", "CPU: i-k-j order, cache blocking, OpenMP", 0, {64, 128, 256, 512, 1024}},
        ch02::gemm);
}

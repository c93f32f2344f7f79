// Chapter 02: i-k-j order, cache blocking and OpenMP threads.
#include "harness_cpu.hpp"
#include "kernel.hpp"

int main(int argc, char** argv) {
    return gemm::run_cpu_chapter(argc, argv, gemm::chapter_info("02_cpu_tiled"), ch02::gemm);
}

// Chapter 01: the naive CPU triple loop.
#include "harness_cpu.hpp"
#include "kernel.hpp"

int main(int argc, char** argv) {
    return gemm::run_cpu_chapter(argc, argv, gemm::chapter_info("01_cpu_naive"), ch01::gemm);
}

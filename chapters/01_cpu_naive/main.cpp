// Chapter 01: the naive CPU triple loop.
#include "harness_cpu.hpp"
#include "kernel.hpp"

int main(int argc, char** argv) {
    return gemm::run_cpu_chapter(
        argc, argv, {"01_cpu_naive", "CPU: the i-j-k triple loop", 0, {64, 128, 256, 512}},
        ch01::gemm);
}

// Chapter 19: a dispatcher choosing among chapters 16 and 17's kernels and tiles per shape.
#include "harness_gpu.cuh"
#include "kernel.cuh"

int main(int argc, char** argv) {
    ch19::Plan plan{};
    ch19::forced_plan(plan);  // a bad GEMM_PLAN: exit 2 before anything runs
    return gemm::run_gpu_chapter(argc, argv, gemm::chapter_info("19_dispatcher"), ch19::gemm);
}

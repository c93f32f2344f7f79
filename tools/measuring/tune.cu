// Times every candidate tile configuration of the tunable chapters through the same harness as
// the chapters (same checks, same timing, cuBLAS in the same run), one CSV per candidate.
//   build/tools/tune --sizes 4096,8192 --out results/tune [any chapter option]
// The defaults the chapters use were chosen from this tool's output on the H100 (see
// docs/tuning.md). Built a second time as tune_hopper (GEMM_TUNE_HOPPER, sm_90a only): chapters
// 12-16, the steps of chapter 15's table and the FP8 chapters (20-24).
#include <cstdlib>
#include <string>

// Each chapter names its own candidates in chapters/<id>/configs.hpp (for_each_candidate); this
// tool lists none of its own (tests/tools/test_facts.py checks). Every GPU chapter's configs.hpp is
// included here, those without candidates too, so that the static_asserts holding their napkin
// tiles to the kernels' compile in one build or the other.
#ifdef GEMM_TUNE_HOPPER
#include "12_wgmma/configs.hpp"
#include "13_tma_mbarrier/configs.hpp"
#include "14_warp_specialized/configs.hpp"
#include "15_wgmma_persistent/configs.hpp"
#include "16_split_k/configs.hpp"
#include "17_stream_k/configs.hpp"
#include "18_small_m/configs.hpp"
#include "19_dispatcher/configs.hpp"
#include "20_fp8_e4m3/configs.hpp"
#include "21_fp8_promoted/configs.hpp"
#include "22_fp8_persistent/configs.hpp"
#include "23_fp8_block_scaled/configs.hpp"
#include "24_fp8_split_k/configs.hpp"
#include "harness_fp8.cuh"
#else
#include "03_cuda_naive/configs.hpp"
#include "04_cuda_coalesced/configs.hpp"
#include "05_cuda_smem_tiled/configs.hpp"
#include "06_cuda_register_tiled/configs.hpp"
#include "07_cuda_warp_tiled/configs.hpp"
#include "08_wmma_naive/configs.hpp"
#include "09_wmma_smem/configs.hpp"
#include "10_wmma_double_buffered/configs.hpp"
#include "11_mma_ldmatrix/configs.hpp"
#endif
#include "harness_gpu.cuh"

namespace {

int worst = 0;

template <class Fn>
void candidate(int argc, char** argv, const std::string& id, Fn fn) {
    // GEMM_TUNE_ONLY=10_ times only the candidates whose name contains "10_".
    const char* only = std::getenv("GEMM_TUNE_ONLY");
    if (only && id.find(only) == std::string::npos) return;
#ifdef GEMM_TUNE_HOPPER
    int rc = gemm::run_gpu_chapter(argc, argv, {id, "tuning candidate", 90, {4096}, 90}, fn);
#else
    int rc = gemm::run_gpu_chapter(argc, argv, {id, "tuning candidate", 75, {4096}}, fn);
#endif
    if (rc == 2 || rc == 77) std::exit(rc);  // the same for every candidate: stop at once
    worst = std::max(worst, rc);
}

#ifdef GEMM_TUNE_HOPPER
// The FP8 chapters' steps (20-24), timed against the cuBLASLt mode of the same arithmetic:
// `precision` is a value of chapters.txt's precision column (fp8_fast, fp8, fp8_block).
void candidate_fp8(int argc, char** argv, const std::string& id, const char* precision,
                   gemm::GpuGemmFp8 fn) {
    const char* only = std::getenv("GEMM_TUNE_ONLY");
    if (only && id.find(only) == std::string::npos) return;
    const int rc = gemm::run_fp8_chapter(argc, argv,
                                         {id, "FP8 step", 90, {4096}, 90, "hopper", precision}, fn);
    if (rc == 2 || rc == 77) std::exit(rc);
    worst = std::max(worst, rc);
}
#endif

}  // namespace

int main(int argc, char** argv) {
    auto gpu = [&](const char* id, auto fn) { candidate(argc, argv, id, fn); };
#ifdef GEMM_TUNE_HOPPER
    auto fp8 = [&](const char* precision) {
        return [=](const char* id, gemm::GpuGemmFp8 fn) {
            candidate_fp8(argc, argv, id, precision, fn);
        };
    };
    ch12::facts::for_each_candidate(gpu);
    ch13::facts::for_each_candidate(gpu);
    ch14::facts::for_each_candidate(gpu);
    ch15::facts::for_each_candidate(gpu);  // the steps of chapter 15's table
    ch16::facts::for_each_candidate(gpu);  // chapter 16's table (GEMM_TUNE_ONLY=16_)
    ch18::facts::for_each_candidate(gpu);  // EXPERIMENT: B read in place (GEMM_TUNE_ONLY=18_)
    // The FP8 chapters (GEMM_TUNE_ONLY=fp8_), with their precision of chapters/chapters.txt.
    ch20::facts::for_each_candidate(fp8("fp8_fast"));
    ch21::facts::for_each_candidate(fp8("fp8"));
    ch22::facts::for_each_candidate(fp8("fp8"));
    ch23::facts::for_each_candidate(fp8("fp8_block"));
    ch24::facts::for_each_candidate(fp8("fp8_block"));  // split-K's slice counts (GEMM_TUNE_ONLY=24_)
#else
    ch06::facts::for_each_candidate(gpu);
    ch07::facts::for_each_candidate(gpu);
    ch09::facts::for_each_candidate(gpu);
    ch10::facts::for_each_candidate(gpu);
    ch11::facts::for_each_candidate(gpu);
#endif
    return worst;
}

// Times every candidate tile configuration of the tunable chapters through the same harness as
// the chapters (same checks, same timing, cuBLAS in the same run), one CSV per candidate.
//   build/tools/tune --sizes 4096,8192 --out results/tune [any chapter option]
// The defaults the chapters use were chosen from this tool's output on the H100 (see
// docs/tuning.md). Built a second time as tune_hopper (GEMM_TUNE_HOPPER, sm_90a only): chapters
// 12-16, the steps of chapter 15's table and the FP8 chapters (20-23).
#include <cstdlib>
#include <string>

#ifdef GEMM_TUNE_HOPPER
#include "12_wgmma/kernel.cuh"
#include "13_tma_mbarrier/kernel.cuh"
#include "14_warp_specialized/kernel.cuh"
#include "15_wgmma_persistent/kernel.cuh"
#include "16_split_k/kernel.cuh"
#include "20_fp8_e4m3/kernel.cuh"
#include "21_fp8_promoted/kernel.cuh"
#include "22_fp8_persistent/kernel.cuh"
#include "23_fp8_block_scaled/kernel.cuh"
#include "harness_fp8.cuh"
#else
#include "06_cuda_register_tiled/kernel.cuh"
#include "07_cuda_warp_tiled/kernel.cuh"
#include "09_wmma_smem/kernel.cuh"
#include "10_wmma_double_buffered/kernel.cuh"
#include "11_mma_ldmatrix/kernel.cuh"
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
// The FP8 chapters' steps (20-23), timed against the cuBLASLt mode of the same arithmetic:
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
#ifdef GEMM_TUNE_HOPPER
    namespace c15 = ch15::configs;
    candidate(argc, argv, "12_wgmma", ch12::gemm);
    candidate(argc, argv, "13_tma_mbarrier", ch13::gemm);
    candidate(argc, argv, "14_warp_specialized", ch14::gemm);
    candidate(argc, argv, "15_single", ch15::gemm_cfg<c15::single>);
    candidate(argc, argv, "15_single_wait0", ch15::gemm_cfg<c15::single_wait0>);
    candidate(argc, argv, "15_persistent", ch15::gemm_cfg<c15::persistent>);
    candidate(argc, argv, "15_cluster2", ch15::gemm_cfg<c15::cluster2>);
    candidate(argc, argv, "15_persistent_cluster2", ch15::gemm_cfg<c15::persistent_cluster2>);
    candidate(argc, argv, "15_persistent_cluster2_tma_store", ch15::gemm_cfg<c15::best>);
    // Chapter 16's table: chapter 15's tile without and with the split, the narrower tiles, then
    // the chapter's gemm (GEMM_TUNE_ONLY=16_).
    namespace c16 = ch16::configs;
    candidate(argc, argv, "16_cluster2_whole", ch16::gemm_cfg<c16::cluster2, false>);
    candidate(argc, argv, "16_cluster2_split", ch16::gemm_cfg<c16::cluster2>);
    candidate(argc, argv, "16_rows128_split", ch16::gemm_cfg<c16::rows128>);
    candidate(argc, argv, "16_n128_split", ch16::gemm_cfg<c16::n128>);
    candidate(argc, argv, "16_n64_split", ch16::gemm_cfg<c16::n64>);
    candidate(argc, argv, "16_split_k", ch16::gemm);
    // The FP8 chapters (GEMM_TUNE_ONLY=fp8_): each chapter; 22 and 23 with and without clusters
    // and the consumers' ordered issue (ORDERED).
    candidate_fp8(argc, argv, "20_fp8_e4m3", "fp8_fast", ch20::gemm);
    candidate_fp8(argc, argv, "21_fp8_promoted", "fp8", ch21::gemm);
    candidate_fp8(argc, argv, "22_fp8_persistent_cluster1", "fp8", ch22::gemm_cfg<1>);
    candidate_fp8(argc, argv, "22_fp8_persistent_cluster2", "fp8", ch22::gemm_cfg<2>);
    candidate_fp8(argc, argv, "22_fp8_persistent_cluster1_ordered", "fp8", ch22::gemm_cfg<1, true>);
    candidate_fp8(argc, argv, "22_fp8_persistent_cluster2_ordered", "fp8", ch22::gemm_cfg<2, true>);
    candidate_fp8(argc, argv, "23_fp8_block_scaled_cluster1", "fp8_block", ch23::gemm_cfg<1>);
    candidate_fp8(argc, argv, "23_fp8_block_scaled_cluster2", "fp8_block", ch23::gemm_cfg<2>);
    candidate_fp8(argc, argv, "23_fp8_block_scaled_cluster1_ordered", "fp8_block",
                  ch23::gemm_cfg<1, true>);
#else
    namespace c6 = ch06::configs;
    namespace c7 = ch07::configs;
    candidate(argc, argv, "06_c128x128x8", ch06::gemm_cfg<c6::c128x128x8>);
    candidate(argc, argv, "06_c128x128x16", ch06::gemm_cfg<c6::c128x128x16>);
    candidate(argc, argv, "06_c128x64x8", ch06::gemm_cfg<c6::c128x64x8>);
    candidate(argc, argv, "07_c128x128x16", ch07::gemm_cfg<c7::c128x128x16>);
    candidate(argc, argv, "07_c128x128x8", ch07::gemm_cfg<c7::c128x128x8>);
    candidate(argc, argv, "07_c128x256x8", ch07::gemm_cfg<c7::c128x256x8>);
    candidate(argc, argv, "07_c256x128x8", ch07::gemm_cfg<c7::c256x128x8>);
    candidate(argc, argv, "07_c64x64x8", ch07::gemm_cfg<c7::c64x64x8>);
    namespace c9 = ch09::configs;
    namespace c10 = ch10::configs;
    candidate(argc, argv, "09_b128x128_k32", ch09::gemm_cfg<c9::b128x128_k32>);
    candidate(argc, argv, "09_b128x256_k32", ch09::gemm_cfg<c9::b128x256_k32>);
    candidate(argc, argv, "09_b256x128_k32", ch09::gemm_cfg<c9::b256x128_k32>);
    candidate(argc, argv, "09_b128x128_k64", ch09::gemm_cfg<c9::b128x128_k64>);
    candidate(argc, argv, "09_b128x128_k32_w4", ch09::gemm_cfg<c9::b128x128_k32_w4>);
    candidate(argc, argv, "09_b128x128_k64_w4", ch09::gemm_cfg<c9::b128x128_k64_w4>);
    candidate(argc, argv, "10_b128x256_k32_s3", ch10::gemm_cfg<c10::b128x256_k32_s3>);
    candidate(argc, argv, "10_b128x256_k32_s4", ch10::gemm_cfg<c10::b128x256_k32_s4>);
    candidate(argc, argv, "10_b256x128_k32_s3", ch10::gemm_cfg<c10::b256x128_k32_s3>);
    candidate(argc, argv, "10_b128x256_k64_s3", ch10::gemm_cfg<c10::b128x256_k64_s3>);
    candidate(argc, argv, "10_b128x128_k32_s4", ch10::gemm_cfg<c10::b128x128_k32_s4>);
    candidate(argc, argv, "10_b128x256_k64_s4", ch10::gemm_cfg<c10::b128x256_k64_s4>);
    candidate(argc, argv, "10_b128x256_k128_s2", ch10::gemm_cfg<c10::b128x256_k128_s2>);
    candidate(argc, argv, "10_b256x128_k64_s3", ch10::gemm_cfg<c10::b256x128_k64_s3>);
    candidate(argc, argv, "10_b128x128_k64_s3", ch10::gemm_cfg<c10::b128x128_k64_s3>);
    candidate(argc, argv, "10_b128x256_k64_s3_rowmajor",
              ch10::gemm_cfg<c10::b128x256_k64_s3_rowmajor>);
    namespace c11 = ch11::configs;
    candidate(argc, argv, "11_b128x256_k64_s3", ch11::gemm_cfg<c11::b128x256_k64_s3>);
    candidate(argc, argv, "11_b128x256_k64_s4", ch11::gemm_cfg<c11::b128x256_k64_s4>);
    candidate(argc, argv, "11_b256x128_k64_s3", ch11::gemm_cfg<c11::b256x128_k64_s3>);
    candidate(argc, argv, "11_b256x128_k64_s4", ch11::gemm_cfg<c11::b256x128_k64_s4>);
    candidate(argc, argv, "11_b128x256_k32_s4", ch11::gemm_cfg<c11::b128x256_k32_s4>);
    candidate(argc, argv, "11_b128x128_k64_s3", ch11::gemm_cfg<c11::b128x128_k64_s3>);
#endif
    return worst;
}

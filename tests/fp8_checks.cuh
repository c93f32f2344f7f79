// What the FP8 chapters' tests (chapters/20-23/test.cu) check a kernel with: the shapes of the
// FP8 paths under a chapter's own arithmetic, and the largest relative error at deep K.
#pragma once

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "gpu_checks.cuh"
#include "harness_fp8.cuh"

namespace gemm_tests {

// The precision a chapter's binary runs with: its column of chapters/chapters.txt.
inline gemm::Precision list_precision(const char* id) {
    return gemm::precision_from_list(gemm::chapter_info(id).precision);
}

// The shared awkward shapes with B as N x K (as_precision keeps a padded ldb's padding), misaligned
// views (one byte off), and shapes for the FP8 paths: several k-tiles with a partial last one, an
// odd number of k-tiles (the two sets of partial sums end on either), fewer k-tiles than a chunk
// (K 520), exactly one (1000), chunks and a remainder (1152, 8200), several 128-blocks of scales
// along M and N, TMA-ready leading dimensions (multiples of 16) with partial tiles, more tiles than
// the persistent grid holds; and for C written by TMA stores (beta 0, 16-byte rows, N % 8 == 0):
// partial tiles with C's rows padded, and several tiles per block of the persistent grid.
inline void check_fp8(gemm::GpuGemmFp8 fn, gemm::Precision precision) {
    std::vector<gemm::Problem> cases = gemm_tests::small_cases();
    for (const gemm::Problem& p : gemm_tests::large_cases()) cases.push_back(p);
    for (gemm::Problem p : {gemm_tests::make(96, 128, 64, 64, 128, 128, 1.0f, 0.5f),
                            gemm_tests::make(97, 101, 103, 105, 107, 109, 1.0f, 0.5f),
                            gemm_tests::make(300, 260, 270, 280, 264, 272)}) {
        p.view_offset = 1;
        cases.push_back(p);
    }
    for (const gemm::Problem& p :
         {gemm_tests::make(1000, 1000, 1000),
          gemm_tests::make(2000, 3000, 520, 0, 0, 0, 1.5f, -0.5f), gemm_tests::make(136, 264, 8200),
          gemm_tests::make(384, 640, 1152),
          gemm_tests::make(200, 72, 129, 144, 72 + 15, 80, 1.0f, 1.0f),
          gemm_tests::make(260, 390, 640, 0, 0, 0, -2.0f, 0.0f),
          gemm_tests::make(4100, 2300, 384, 0, 0, 0, 1.0f, 0.25f),
          gemm_tests::make(300, 264, 270, 0, 0, 272), gemm_tests::make(4100, 2304, 384)})
        cases.push_back(p);
    for (const gemm::Problem& q : cases) {
        const gemm::Problem p = gemm::as_precision(q, precision);
        CAPTURE(gemm_tests::name(p));
        CAPTURE(p.view_offset);
        gemm::CheckResult r = gemm::check_gpu_fp8(fn, p);
        CHECK_MESSAGE(r.pass, r.summary());
    }
}

// 256 x 256 x 32768 with positive inputs (sums that grow like K): the largest relative error over
// the elements of C, each against the double-precision product of the same e4m3 inputs.
inline double deep_k_max_rel_err(gemm::GpuGemmFp8 fn, gemm::Precision precision) {
    gemm::Problem p;
    p.shape = {256, 256, 32768};
    p.precision = precision;
    gemm::HostProblem hp = gemm::make_inputs(p);
    gemm::make_positive(hp);
    std::vector<double> expected, scale;
    gemm::reference_gemm(hp, expected, scale);
    const std::vector<float> C = gemm::run_gpu_fp8(fn, hp);
    double worst = 0.0;
    for (std::size_t i = 0; i < expected.size(); ++i) {
        REQUIRE(expected[i] > 0.0);
        worst = std::fmax(worst, std::fabs(double(C[i]) - expected[i]) / expected[i]);
    }
    return worst;
}

}  // namespace gemm_tests

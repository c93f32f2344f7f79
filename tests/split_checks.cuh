// The shapes that split, for the chapters that split K (16, 17 and 19's tests): every path of a
// split on the GPU, through the chapter's own kernel and through the padded copies.
#pragma once

#include <doctest/doctest.h>

#include <vector>

#include "gpu_checks.cuh"

namespace gemm_tests {

// Shapes that split: few rows with deep K (32 tiles for 66 or 132 workers), K not a multiple of 64
// (the slices' remainder), alpha and beta (the partials summed before beta * C is added, once),
// beta = 0 with C through TMA stores and through registers, N not a multiple of 4 (the partials'
// padded rows), one tile with many slices, and the same through the padded copies (misaligned
// views). Then shapes with enough tiles: no split.
template <class Fn>
void check_split_paths(Fn fn) {
    const std::vector<gemm::Problem> cases = {
        gemm_tests::make(1, 768, 6000),
        gemm_tests::make(64, 1024, 8192),
        gemm_tests::make(37, 520, 4100, 0, 0, 0, 1.5f, -0.5f),
        gemm_tests::make(100, 2048, 4096, 0, 0, 0, 0.5f, 2.0f),
        gemm_tests::make(128, 512, 6144, 6152, 520, 516),  // padded lds, beta 0, C by TMA
        gemm_tests::make(200, 1536, 3000, 0, 0, 0, -1.0f, 0.25f),
        gemm_tests::make(130, 1000, 5003),  // N % 4 != 0: C from registers
        gemm_tests::make(1024, 1024, 8192),
        gemm_tests::make(2304, 2048, 1024),                       // 72 cluster tiles, 66 workers
        gemm_tests::make(4096, 2304, 1024, 0, 0, 0, 1.0f, 1.0f),  // 144: a wave + a tail
        gemm_tests::make(1500, 40, 9000, 0, 0, 0, 1.0f, 0.5f),    // few columns
        gemm_tests::make(64, 64, 65536, 0, 0, 0, 2.0f, -1.0f),    // one tile, many slices
        gemm_tests::make(512, 1000, 4096),
    };
    for (gemm::Problem p : cases) {
        CAPTURE(gemm_tests::name(p));
        gemm::CheckResult r = gemm::check_gpu_gemm(fn, p);
        CHECK_MESSAGE(r.pass, r.summary());
        if (static_cast<long long>(p.shape.M) * p.shape.N > (4 << 20)) continue;
        p.view_offset = 1;
        CAPTURE(p.view_offset);
        r = gemm::check_gpu_gemm(fn, p);
        CHECK_MESSAGE(r.pass, r.summary());
    }
}

}  // namespace gemm_tests

// The awkward shapes every chapter must get right, shared by the CPU and GPU suites.
#pragma once

#include <string>
#include <vector>

#include "problem.hpp"

namespace gemm_tests {

inline gemm::Problem make(int M, int N, int K, int lda = 0, int ldb = 0, int ldc = 0,
                          float alpha = 1.0f, float beta = 0.0f) {
    gemm::Problem p;
    p.shape = {M, N, K};
    p.lda = lda;
    p.ldb = ldb;
    p.ldc = ldc;
    p.alpha = alpha;
    p.beta = beta;
    return p;
}

// Small enough for the naive CPU chapter and a full check.
inline std::vector<gemm::Problem> small_cases() {
    return {
        make(1, 1, 1),
        make(0, 5, 3),                       // no rows
        make(5, 0, 3),                       // no columns
        make(5, 3, 0, 0, 0, 0, 1.0f, 0.0f),  // K = 0: C = beta * C = 0
        make(5, 3, 0, 0, 0, 0, 2.0f, 0.5f),  // K = 0: C = 0.5 * C
        make(17, 33, 65),
        make(127, 1, 129),
        make(1, 127, 129),
        make(64, 48, 200),
        make(200, 64, 48),
        make(16, 16, 16),
        make(128, 128, 128),
        make(33, 47, 91, 91 + 3, 47 + 5, 47 + 7),  // leading dimensions past the rows
        make(40, 40, 40, 41, 43, 45),              // odd ld: defeats 16-byte loads
        make(64, 64, 64, 72, 72, 72),              // padded but 16-byte aligned
        make(65, 66, 67, 0, 0, 0, -1.5f, 0.75f),   // alpha and beta other than 1 and 0
        make(31, 29, 37, 40, 33, 30, 0.5f, -2.0f),
        make(129, 257, 33, 0, 0, 0, 1.0f, 1.0f),
        // beta = 0, C 16-byte aligned rows (ldc % 4 == 0) but N odd: a store that clips a row's
        // end to 16 bytes writes padding (chapter 15's TMA stores did, graded on the H200).
        make(53, 155, 137, 144, 159, 160, -0.5f, 0.0f),
    };
}

// Larger shapes for the GPU chapters: edge tiles of every big tile size, tall-skinny, short-wide.
inline std::vector<gemm::Problem> large_cases() {
    return {
        make(4093, 4095, 4097),
        make(8192, 16, 64),  // tall-skinny
        make(16, 8192, 64),  // short-wide
        make(8190, 33, 1000),
        make(33, 8190, 1000),
        make(1000, 1000, 8191),  // long K
        make(515, 517, 519, 523, 521, 529, 1.25f, -0.5f),
        make(1024, 1024, 1024, 1024 + 1, 1024 + 2, 1024 + 3),  // misaligned rows everywhere
        make(256, 256, 24),                                    // K not a multiple of 16 or 32
        make(256, 256, 8),
        make(256, 512, 192, 0, 0, 0, 1.5f,
             -0.5f),  // divides every block tile: the whole-tile paths
        make(1024, 768, 320, 0, 0, 0, 1.0f, 1.0f),
        make(2200000, 3, 2),  // more rows than 65535 blocks of 32: launched in slices
        make(2, 2200000, 3),  // more columns than 65535 blocks of 32
    };
}

inline std::string name(const gemm::Problem& p) {
    return p.shape.str() +
           (p.lda || p.ldb || p.ldc ? " ld " + std::to_string(p.lda) + "/" + std::to_string(p.ldb) +
                                          "/" + std::to_string(p.ldc)
                                    : std::string()) +
           " alpha " + std::to_string(p.alpha) + " beta " + std::to_string(p.beta);
}

}  // namespace gemm_tests

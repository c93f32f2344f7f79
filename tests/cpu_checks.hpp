// What the CPU chapters' tests (chapters/01_cpu_naive/test.cpp, 02_cpu_tiled/test.cpp) and the
// CBLAS yardstick's check a CPU GEMM with: the double-precision reference on the contract's
// awkward shapes (tests/cases.hpp), every element compared.
#pragma once

#include <doctest/doctest.h>

#include "cases.hpp"
#include "harness_cpu.hpp"

namespace gemm_tests {

inline void check_cpu_chapter(gemm::CpuGemmF32 fn) {
    for (const gemm::Problem& p : small_cases()) {
        CAPTURE(name(p));
        gemm::CheckResult r = gemm::check_cpu_gemm(fn, p, gemm::CheckMode::Full);
        CHECK_MESSAGE(r.pass, r.summary());
    }
}

}  // namespace gemm_tests

// Chapter 01's tests: its gemm() against the double-precision reference on the contract's awkward
// shapes (tests/cpu_checks.hpp). Built and run by chapters/meson.build as cpu_01_cpu_naive.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include "cpu_checks.hpp"
#include "kernel.hpp"

TEST_CASE("01_cpu_naive") {
    gemm_tests::check_cpu_chapter(ch01::gemm);
}

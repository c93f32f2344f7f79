// Chapter 14's tests: its gemm() against the double-precision reference on every shape of
// tests/cases.hpp, misaligned views and the shapes of its TMA paths (tests/gpu_checks.cuh), as
// gpu_14_warp_specialized: SKIP without a GPU; and on the host alone (TEST_SUITE "host", run as
// host_14_warp_specialized on any machine): its parities block before their phase completes and
// pass after.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include "gpu_checks.cuh"
#include "kernel.cuh"

TEST_CASE("14_warp_specialized") {
    gemm_tests::check_chapter(ch14::gemm, true);
}

TEST_SUITE("host") {
    TEST_CASE("chapter 14: each wait's parity blocks until its phase completes, then passes") {
        // An mbarrier's phase bit flips at each completion; try_wait.parity p returns once the
        // phase with parity p has completed: while (completions & 1) == p it waits.
        auto passes = [](int completions, unsigned parity) {
            return unsigned(completions & 1) != parity;
        };
        for (int kt = 0; kt < 5 * ch14::STAGES; ++kt) {
            CAPTURE(kt);
            const int round = kt / ch14::STAGES;  // earlier tiles copied into this stage
            CHECK(ch14::stage_of(kt) == kt % ch14::STAGES);
            // full: tile kt's copy is the stage's completion number `round` (0-based).
            CHECK_FALSE(passes(round, ch14::full_parity(kt)));
            CHECK(passes(round + 1, ch14::full_parity(kt)));
            // empty: the refill for tile kt waits for tile kt - STAGES to be consumed, completion
            // number round - 1.
            if (kt >= ch14::STAGES) {
                CHECK_FALSE(passes(round - 1, ch14::empty_parity(kt)));
                CHECK(passes(round, ch14::empty_parity(kt)));
            }
        }
    }
}

int main(int argc, char** argv) {
    return gemm_tests::chapter_test_main(argc, argv, true);
}

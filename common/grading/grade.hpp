// --grade's shapes: what run_chapter hands to grade() (declared in common/harness/modes.hpp,
// defined in grade.cpp) checks a kernel on, and what the grading child and its tests recompute.
#pragma once

#include <cstdint>
#include <vector>

#include "modes.hpp"  // grade(), defined in grade.cpp
#include "problem.hpp"

namespace gemm {

// The shapes --grade checks: fixed awkward ones plus random ones drawn from `seed` (with random
// padded leading dimensions, alpha and beta); `large` adds three around 1000-2200 (GPU chapters).
// Every draw is grading_draw(seed, n) for n = 0, 1, ... in a fixed order, and every problem's
// matrices come from grading_data_seed(seed, its index): a keyed function (SipHash-2-4 with the
// seed as its key), so that neither the shapes nor the matrices a child sees reveal the seed.
std::vector<Problem> grading_problems(std::uint64_t seed, bool large);
std::uint64_t grading_draw(std::uint64_t seed, std::uint64_t n);
std::uint64_t grading_data_seed(std::uint64_t seed, std::uint64_t problem);

}  // namespace gemm

// The grade itself and its shapes: what a chapter's grading binary (grade_chapter.hpp) checks a
// kernel on, and what the grading child and its tests recompute.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backend.hpp"
#include "chapter.hpp"
#include "problem.hpp"

namespace gemm {

// The grade: correctness on grading_problems(o.seed) plus a short benchmark of `bench_sizes`; a
// summary on stdout and the same as JSON in <out>/<id>.grade.json. `remote` names the child that
// runs the kernel ("" in this process), whose failures are told without its numbers. Returns the
// exit code: 0 only when every shape passed, 1 otherwise, 2 when the verdict cannot be written.
// `yard` names the yardstick ("" for none), `prog` the program in error messages.
int grade(Backend& backend, const ChapterInfo& info, Precision precision, Options o,
          const std::string& remote, const std::vector<Shape>& bench_sizes, const std::string& yard,
          const std::string& prog);

// The shapes a grade checks: fixed awkward ones plus random ones drawn from `seed` (with random
// padded leading dimensions, alpha and beta); `large` adds three around 1000-2200 (GPU chapters).
// Every draw is grading_draw(seed, n) for n = 0, 1, ... in a fixed order, and every problem's
// matrices come from grading_data_seed(seed, its index): a keyed function (SipHash-2-4 with the
// seed as its key), so that neither the shapes nor the matrices a child sees reveal the seed.
std::vector<Problem> grading_problems(std::uint64_t seed, bool large);
std::uint64_t grading_draw(std::uint64_t seed, std::uint64_t n);
std::uint64_t grading_data_seed(std::uint64_t seed, std::uint64_t problem);

}  // namespace gemm

// The trusted side of a grade: a Backend whose chapter kernel runs in a child process.
// The child (tools/grading/grade_child.cu around a submitted kernel, sandboxed by tools/grading/grade.py) only
// computes; this process makes the inputs, checks what comes back against its own reference,
// times every run on its own clock, times the yardstick itself and writes the verdict. See
// docs/assignments.md for the threat model.
#pragma once

#include <string>

#include "modes.hpp"  // RemoteError, kRemoteCheckOnly, make_remote_backend (defined here)
#include "problem.hpp"

namespace gemm {

// What a grade says about a failed check of a child's C: the check and what was wrong ("out of
// tolerance", "NaN", "padding written"), without a number the child chose (no value, no error, not
// which or how many elements): a child could spell the seed with them.
std::string blind_summary(const CheckResult& c);

}  // namespace gemm

// The trusted side of a grade: a Backend whose chapter kernel runs in a child process.
// The child (tools/grading/grade_child.cu around a submitted kernel, sandboxed by
// tools/grading/grade.py) only computes; this process makes the inputs, checks what comes back
// against its own reference, times every run on its own clock, times the yardstick itself and
// writes the verdict. See docs/assignments.md for the threat model.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>

#include "backend.hpp"
#include "problem.hpp"

namespace gemm {

// The child crashed, hung past the time limit, or answered something that is not a reply.
struct RemoteError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// --remote with this program checks the whole command line (options, sizes, that they fit on this
// machine) and exits 0 without running anything: tools/grading/grade.py asks it before it builds.
constexpr const char* kRemoteCheckOnly = ":check";

// `local` provides the device, the yardstick and the memory checks; `program` is started once
// (stdin /dev/null, stdout and stderr to `program`.log) and computes every chapter call. Each
// request must be answered within `timeout_s` seconds. finish() throws RemoteError when the child
// does not exit with code 0 once asked to. While the yardstick is timed, every process of the
// child is stopped (SIGSTOP), so that nothing it runs can slow the yardstick down; a child whose
// threads still had CPU time over the series fails the grade.
std::unique_ptr<Backend> make_remote_backend(std::unique_ptr<Backend> local,
                                             const std::string& program, int timeout_s);

// What a grade says about a failed check of a child's C: the check and what was wrong ("out of
// tolerance", "NaN", "padding written"), without a number the child chose (no value, no error, not
// which or how many elements): a child could spell the seed with them.
std::string blind_summary(const CheckResult& c);

}  // namespace gemm

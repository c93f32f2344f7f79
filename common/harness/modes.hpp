// --grade and --remote: what a chapter binary hands over to common/grading/. Declared here in the
// harness's own words (a Backend, the Options) and defined there, so that the harness includes
// nothing of grading while grading includes the harness: run_chapter (runner.cpp) calls these two
// and nothing else of grading.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "backend.hpp"
#include "chapter.hpp"

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
// child is stopped (SIGSTOP), so that nothing it runs can slow the yardstick down.
// Defined in common/grading/remote.cpp.
std::unique_ptr<Backend> make_remote_backend(std::unique_ptr<Backend> local,
                                             const std::string& program, int timeout_s);

// --grade: correctness on grading_problems(o.seed) plus a short benchmark of `bench_sizes`; a
// summary on stdout and the same as JSON in <out>/<id>.grade.json. Returns the exit code: 0 only
// when every shape passed, 1 otherwise, 2 when the verdict cannot be written. `yard` names the
// yardstick ("" for none), `prog` the program in error messages. Defined in
// common/grading/grade.cpp.
int grade(Backend& backend, const ChapterInfo& info, Precision precision, Options o,
          const std::vector<Shape>& bench_sizes, const std::string& yard, const std::string& prog);

}  // namespace gemm

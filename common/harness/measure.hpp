// One shape, checked and timed: the check against the double-precision reference, then the
// rounds alternating the chapter and its yardstick; the row the table, the CSV and the charts show.
#pragma once

#include <string>

#include "backend.hpp"
#include "chapter.hpp"
#include "options.hpp"
#include "problem.hpp"
#include "report.hpp"

namespace gemm {

// Auto resolves to full up to 2^30 multiply-adds (and 2^26 elements of C), sample above.
CheckMode resolve_check(CheckMode mode, const Shape& s);

// The one path every check takes (chapter runs, grades, the test suites): load the inputs, run the
// chapter once on the poisoned C, compare. `mode` Auto resolves by size; Off is not a check.
CheckResult load_and_check(Backend& backend, const HostProblem& hp, CheckMode mode);

// Checks `problem` (as o.check says; `check` gets the result) and times it: o.rounds rounds of
// o.reps runs of the chapter and of the yardstick `yard` ("": none) in turn. The row is stamped
// with the build's commit and the chapter's source hash (stamp.hpp).
Row measure(Backend& backend, const ChapterInfo& info, Precision precision, const Options& o,
            const Problem& problem, const std::string& yard, CheckResult& check);

}  // namespace gemm

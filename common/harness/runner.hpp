// The loop every chapter binary runs: parse, validate, then for each size check, time and report
// (measure.hpp), or hand over to grading (--grade, --remote: modes.hpp). The CPU and GPU chapters
// differ only in their Backend.
#pragma once

#include "backend.hpp"
#include "chapter.hpp"
#include "problem.hpp"

namespace gemm {

// Returns the exit code: 0 every check passed, 1 a check failed, 2 usage, 77 no usable device.
int run_chapter(int argc, char** argv, const ChapterInfo& info, Precision precision,
                const BackendFactory& make_backend);

}  // namespace gemm

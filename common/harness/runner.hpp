// The loop every chapter binary runs: parse, validate, then for each size check, time and report
// (measure.hpp). The CPU and GPU chapters differ only in their Backend. A chapter's grading binary
// (common/grading/) starts the same way, start_run and print_run_header, and then grades.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "backend.hpp"
#include "chapter.hpp"
#include "options.hpp"
#include "problem.hpp"

namespace gemm {

// Returns the exit code: 0 every check passed, 1 a check failed, 2 usage, 77 no usable device.
int run_chapter(int argc, char** argv, const ChapterInfo& info, Precision precision,
                const BackendFactory& make_backend);

// What a binary built on the harness adds to the shared command line: for a grading binary its
// own options and their --help lines; nothing for a chapter binary.
struct Command {
    std::string about;  // --help: what the binary does ("": a chapter binary's words)
    std::string help;   // --help: the lines of its own options
    MoreOptions more;   // parses them
};

// A run, started: its command line checked, each size's problem made (before any device is asked
// for), the backend made and every size checked to fit in its memory.
struct Started {
    std::string program;  // argv[0]'s file name, for messages
    Options options;
    std::vector<Shape> sizes;       // --sizes, or the chapter's default sizes
    std::vector<Problem> problems;  // one per size
    std::unique_ptr<Backend> backend;
    std::string yardstick;  // the backend's yardstick, "" for none (or --no-baseline)
};

// Parses and validates the command line and makes the backend (`make_backend` gets the options).
// Returns -1 with `run` filled in, or the exit code of a binary that is done: 0 after --help, 2 a
// usage error (or a size that does not fit), 77 no usable device.
int start_run(int argc, char** argv, const ChapterInfo& info, Precision precision,
              const BackendFactory& make_backend, const Command& command, Started& run);

// Prints what the run measures on and how (device, inputs, timing, yardstick, conditions) and
// writes the device's peaks beside the results; returns 0, or 2 when they cannot be written.
int print_run_header(const Started& run, const ChapterInfo& info, Precision precision);

}  // namespace gemm

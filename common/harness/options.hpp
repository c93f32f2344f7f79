// The one command line shared by every chapter binary.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "chapter.hpp"

namespace gemm {

enum class CheckMode { Auto, Full, Sample, Off };

struct Options {
    std::vector<Shape> sizes;  // empty: the chapter's defaults
    int reps = 10;             // timed repetitions per round, each side
    int rounds = 5;            // rounds alternating the chapter and the yardstick
    int warmup = 3;            // untimed runs before the first round
    bool l2_flush = true;      // GPU: write over L2 before every timed run
    float alpha = 1.0f;
    float beta = 0.0f;
    std::uint64_t seed = 2024;  // fixed default: the same inputs on every machine
    CheckMode check = CheckMode::Auto;
    bool baseline = true;  // time the yardstick (cuBLAS or CBLAS) in the same run
    std::string out_dir = "plots/latest";
    int device = 0;
    bool grade = false;  // autograder mode: hidden shapes from --seed, short benchmark
    std::string remote;  // --grade only: the kernel's child process (tools/grading/grade.py)
    int timeout_s = 120;  // --remote: seconds the child may take to answer one request
    bool help = false;
};

// A bad command line: the message says which argument and why. Chapter binaries exit with 2.
struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Parses argv[1..argc). Throws UsageError on anything it does not understand.
Options parse_options(int argc, const char* const* argv);

// Parses one size: "1024" (square) or "MxNxK" such as "1000x1001x999". Throws UsageError.
Shape parse_shape(const std::string& text);

// The --help text, with the chapter's defaults filled in.
std::string usage(const std::string& program, const std::vector<Shape>& default_sizes);

const char* to_string(CheckMode mode);

}  // namespace gemm

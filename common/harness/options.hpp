// The one command line shared by every chapter binary, and by every chapter's grading binary
// (common/grading/), which adds its own options through parse_options' `more`.
#pragma once

#include <cstdint>
#include <functional>
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
    bool help = false;
};

// A bad command line: the message says which argument and why. Chapter binaries exit with 2.
struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Options of a binary beyond the shared ones: called with an argument the shared ones do not know
// ("--remote") and a function that takes its value ("--remote=P" or the next argument); returns
// whether it took the argument. Each takes a value (the shared parser knows no other kind).
using MoreOptions =
    std::function<bool(const std::string& arg, const std::function<std::string()>& value)>;

// Parses argv[1..argc). Throws UsageError on anything that neither it nor `more` understands.
Options parse_options(int argc, const char* const* argv, const MoreOptions& more = nullptr);

// A whole number in [lo, hi] ("--reps", "12"); throws UsageError naming `what` otherwise.
int parse_bounded(const std::string& text, const std::string& what, long long lo, long long hi);

// Parses one size: "1024" (square) or "MxNxK" such as "1000x1001x999". Throws UsageError.
Shape parse_shape(const std::string& text);

// The --help text, with the chapter's defaults filled in. `about` replaces the lines that say what
// a chapter binary does, `more` adds the lines of a binary's own options (a grading binary's).
std::string usage(const std::string& program, const std::vector<Shape>& default_sizes,
                  const std::string& about = "", const std::string& more = "");

const char* to_string(CheckMode mode);

}  // namespace gemm

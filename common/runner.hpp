// The loop every chapter binary runs: parse, validate, then for each size check, time and report.
// The CPU and GPU chapters differ only in their Backend (where inputs live and how time is taken).
#pragma once

#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "chapter.hpp"
#include "gpu_conditions.hpp"
#include "options.hpp"
#include "problem.hpp"
#include "report.hpp"

namespace gemm {

// No device this chapter can run on. The message is one plain sentence; the binary exits with 77.
struct NoDevice : std::runtime_error {
    using std::runtime_error::runtime_error;
};

class Backend {
public:
    virtual Peaks peaks() const { return {}; }  // zeros when unknown (the CPU)
    virtual ~Backend() = default;
    virtual std::string device_name() const = 0;     // goes into the CSV and the chart title
    virtual std::string device_report() const = 0;   // printed before the results
    virtual std::string yardstick_name() const = 0;  // "" when there is none to compare with
    // Throws UsageError when the problem cannot fit in memory.
    virtual void check_fits(const Problem& p) const = 0;
    // Makes these inputs current: the next calls run on them. hp must outlive those calls (the
    // CPU backend works on it in place).
    virtual void load(const HostProblem& hp) = 0;
    // Sets C to c_init, runs the chapter once, returns C (all ldc columns of every row).
    virtual std::vector<float> run_once(const std::vector<float>& c_init) = 0;
    // Milliseconds of each timed repetition (after `warmup` untimed ones).
    virtual std::vector<double> time_chapter(int warmup, int reps) = 0;
    virtual std::vector<double> time_yardstick(int warmup, int reps) = 0;
    // The run's conditions (driver, library versions, power limit); empty where unknown.
    virtual RunEnvironment environment() const { return {}; }
    // Clock, power and throttling sampled around the timed runs of one shape.
    virtual void start_sampling() {}
    virtual Sampled stop_sampling() { return {}; }
    // "yes" when every timed run starts with L2 written over, "no", "" where it does not apply.
    virtual std::string l2_flush() const { return ""; }
    // Ends whatever the chapter's kernel runs in (a --remote child) before the verdict is written.
    virtual void finish() {}
};

using BackendFactory = std::function<std::unique_ptr<Backend>(const Options&)>;

// Returns the exit code: 0 every check passed, 1 a check failed, 2 usage, 77 no usable device.
int run_chapter(int argc, char** argv, const ChapterInfo& info, Precision precision,
                const BackendFactory& make_backend);

// Auto resolves to full up to 2^30 multiply-adds (and 2^26 elements of C), sample above.
CheckMode resolve_check(CheckMode mode, const Shape& s);

// The one path every check takes (chapter runs, --grade, the test suites): load the inputs, run the
// chapter once on the poisoned C, compare. `mode` Auto resolves by size; Off is not a check.
CheckResult load_and_check(Backend& backend, const HostProblem& hp, CheckMode mode);

// Throws UsageError when `bytes` of host memory are more than this machine has available.
void check_host_fits(const Problem& p, unsigned long long bytes);

double median(std::vector<double> v);

// s as the inside of a JSON string: quotes, backslashes and every control character escaped.
std::string json_escape(const std::string& s);

// The shapes --grade checks: fixed awkward ones plus random ones drawn from `seed` (with random
// padded leading dimensions, alpha and beta); `large` adds three around 1000-2200 (GPU chapters).
// Every draw is grading_draw(seed, n) for n = 0, 1, ... in a fixed order, and every problem's
// matrices come from grading_data_seed(seed, its index): a keyed function (SipHash-2-4 with the
// seed as its key), so that neither the shapes nor the matrices a child sees reveal the seed.
std::vector<Problem> grading_problems(std::uint64_t seed, bool large);
std::uint64_t grading_draw(std::uint64_t seed, std::uint64_t n);
std::uint64_t grading_data_seed(std::uint64_t seed, std::uint64_t problem);

// Bytes of host memory this process may still use (MemAvailable), 0 when unknown.
unsigned long long host_available_bytes();

}  // namespace gemm

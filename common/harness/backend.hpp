// Where a chapter runs: the one interface between the harness's loop and a device. The CPU and GPU
// chapters (cpu_runner.cpp, gpu_backend.cu) differ only in their Backend: where inputs live and how
// time is taken; a grading binary's --remote wraps one (common/grading/remote.hpp).
#pragma once

#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

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

}  // namespace gemm

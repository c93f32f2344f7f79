#include "runner.hpp"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "measure.hpp"
#include "report.hpp"

namespace gemm {

namespace {

std::string program_name(const char* argv0) {
    std::string p = argv0 ? argv0 : "chapter";
    std::size_t slash = p.find_last_of('/');
    return slash == std::string::npos ? p : p.substr(slash + 1);
}

Problem problem_for(const Shape& s, const Options& o, Precision precision) {
    Problem p;
    p.shape = s;
    p.alpha = o.alpha;
    p.beta = o.beta;
    p.seed = o.seed;
    p.precision = precision;
    return p;
}

// Everything that can go wrong with the command line is found before the first kernel runs.
// What the command line alone can get wrong (a size past the limits, an --out that cannot be
// made), found before any device is asked for: exit 2 with or without a GPU. Returns the problem
// of each size, made here once for the whole run.
std::vector<Problem> validate_command_line(const std::vector<Shape>& sizes, const Options& o,
                                           Precision precision) {
    std::vector<Problem> problems;
    for (const Shape& s : sizes) {
        problems.push_back(problem_for(s, o, precision));
        try {
            (void)problems.back().resolved();
        } catch (const std::invalid_argument& e) {
            throw UsageError("size " + s.str() + ": " + e.what());
        }
    }
    std::error_code ec;
    std::filesystem::create_directories(o.out_dir, ec);
    if (ec || !std::filesystem::is_directory(o.out_dir))
        throw UsageError("--out " + o.out_dir + ": cannot create this directory (" + ec.message() +
                         ")");
    return problems;
}

// Then what needs the device: that every size fits in its memory (and the host's).
void validate_fits(const std::vector<Problem>& problems, const Backend& backend) {
    for (const Problem& p : problems) backend.check_fits(p.resolved());
}

// One line on what a result was measured under, or nothing where there is nothing to say.
std::string conditions_line(const RunEnvironment& e) {
    if (e.driver.empty() && e.cuda_runtime.empty()) return "";
    std::ostringstream s;
    s << "conditions: driver " << (e.driver.empty() ? "?" : e.driver) << ", CUDA runtime "
      << e.cuda_runtime << ", cuBLAS " << e.cublas;
    if (e.power_limit_w > 0)
        s << ", power limit " << e.power_limit_w
          << " W; SM clock and board power sampled while timing (MHz and W columns)";
    else
        s << "; no NVML (the driver's libnvidia-ml): clocks and power not recorded";
    return s.str() + "\n";
}

}  // namespace

int start_run(int argc, char** argv, const ChapterInfo& info, Precision precision,
              const BackendFactory& make_backend, const Command& command, Started& run) {
    run.program = program_name(argc > 0 ? argv[0] : nullptr);
    const std::string& prog = run.program;
    Options& o = run.options;
    try {
        o = parse_options(argc, argv, command.more);
    } catch (const UsageError& e) {
        std::cerr << prog << ": error: " << e.what() << "\n(run " << prog << " --help for usage)\n";
        return 2;
    }
    if (o.help) {
        std::cout << info.id << ": " << info.title << "\n\n"
                  << usage(prog, info.default_sizes, command.about, command.help);
        return 0;
    }
    run.sizes = o.sizes.empty() ? info.default_sizes : o.sizes;
    try {
        run.problems = validate_command_line(run.sizes, o, precision);
        run.backend = make_backend(o);
        validate_fits(run.problems, *run.backend);
    } catch (const NoDevice& e) {
        std::cout << info.id << ": skipped: " << e.what() << "\n";
        return 77;
    } catch (const UsageError& e) {
        std::cerr << prog << ": error: " << e.what() << "\n";
        return 2;
    }
    run.yardstick = o.baseline ? run.backend->yardstick_name() : std::string();
    return -1;
}

int print_run_header(const Started& run, const ChapterInfo& info, Precision precision) {
    const Options& o = run.options;
    Backend& backend = *run.backend;
    std::cout << "== " << info.id << ": " << info.title << "\n"
              << backend.device_report() << "inputs: uniform in [-1, 1), " << to_string(precision)
              << (precision_info(precision).inputs == Inputs::E4M3Codes
                      ? " codes of 448 u with seeded scales, C bf16"
                      : "")
              << ", seed " << o.seed << "; alpha " << o.alpha << ", beta " << o.beta
              << "\ntiming: " << o.rounds << " rounds alternating the chapter and the yardstick, "
              << o.reps << " timed runs each per round after " << o.warmup << " warm-up runs"
              << (backend.l2_flush() == "yes"  ? "; L2 written over before every timed run"
                  : backend.l2_flush() == "no" ? "; L2 not flushed (--l2-flush off)"
                                               : "")
              << "\nyardstick: " << (run.yardstick.empty() ? std::string("none") : run.yardstick)
              << "\n"
              << conditions_line(backend.environment()) << "\n";
    try {
        const Peaks pk = backend.peaks();
        if (pk.fp32_gflops > 0) write_peaks(o.out_dir + "/peaks.csv", pk);
    } catch (const std::exception& e) {
        std::cerr << run.program << ": error: " << e.what() << "\n";
        return 2;
    }
    return 0;
}

int run_chapter(int argc, char** argv, const ChapterInfo& info, Precision precision,
                const BackendFactory& make_backend) {
    Started run;
    int rc = start_run(argc, argv, info, precision, make_backend, Command{}, run);
    if (rc >= 0) return rc;
    if ((rc = print_run_header(run, info, precision)) != 0) return rc;
    const std::string& prog = run.program;
    const Options& o = run.options;
    const std::vector<Shape>& sizes = run.sizes;
    const std::vector<Problem>& problems = run.problems;
    const std::string& yard = run.yardstick;
    Backend& backend = *run.backend;

    const std::string csv_path = o.out_dir + "/" + info.id + ".csv";
    // One line per size, appended and flushed as it is measured: an interrupted long run keeps
    // what it measured, and a run of many sizes writes each of them once.
    std::ofstream csv(csv_path);
    csv << csv_header() << '\n' << std::flush;
    if (!csv) {
        std::cerr << prog << ": error: cannot write " << csv_path << "\n";
        return 2;
    }
    std::cout << table_header() << std::endl;
    bool all_pass = true;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
        progress(sizes[i].str() + " (" + std::to_string(i + 1) + "/" +
                 std::to_string(sizes.size()) + ")");
        CheckResult check;
        const Row r = measure(backend, info, precision, o, problems[i], yard, check);
        progress_done();
        all_pass = all_pass && check.pass;
        std::cout << table_line(r) << std::endl;
        if (!r.throttle.empty() && r.throttle != "none")
            std::cout << "    clock slowed while timing " << r.shape.str() << ": " << r.throttle
                      << " of the samples (median " << r.sm_clock_mhz << " MHz, " << r.power_w
                      << " W)" << std::endl;
        if (!check.pass)
            std::cout << "    " << problems[i].resolved().str() << ": " << check.summary()
                      << std::endl;
        csv << csv_line(r) << '\n' << std::flush;
        if (!csv) {
            std::cerr << prog << ": error: cannot write " << csv_path << "\n";
            return 2;
        }
    }
    std::cout << "\nwrote " << csv_path << " (tools/reporting/plot.py " << o.out_dir
              << " draws the charts)\n"
              << (all_pass ? "all checks passed" : "SOME CHECKS FAILED") << std::endl;
    return all_pass ? 0 : 1;
}

}  // namespace gemm

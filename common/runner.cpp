#include "runner.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "fp8_problem.hpp"
#include "json.hpp"
#include "measure.hpp"
#include "remote.hpp"
#include "remote_protocol.hpp"
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
// made), found before any device is asked for: exit 2 with or without a GPU.
void validate_command_line(const std::vector<Shape>& sizes, const Options& o,
                           Precision precision) {
    for (const Shape& s : sizes) {
        try {
            (void)problem_for(s, o, precision).resolved();
        } catch (const std::invalid_argument& e) {
            throw UsageError("size " + s.str() + ": " + e.what());
        }
    }
    std::error_code ec;
    std::filesystem::create_directories(o.out_dir, ec);
    if (ec || !std::filesystem::is_directory(o.out_dir))
        throw UsageError("--out " + o.out_dir + ": cannot create this directory (" + ec.message() +
                         ")");
}

// Then what needs the device: that every size fits in its memory (and the host's).
void validate_fits(const std::vector<Shape>& sizes, const Options& o, Precision precision,
                   const Backend& backend) {
    for (const Shape& s : sizes) backend.check_fits(problem_for(s, o, precision).resolved());
}

}  // namespace

namespace {

// "running 4096 (3/6)" on a terminal, so that a long size does not look like a hang.
void progress(const std::string& what) {
    if (isatty(2)) std::cerr << "\r  running " << what << "...\033[K" << std::flush;
}
void progress_done() {
    if (isatty(2)) std::cerr << "\r\033[K" << std::flush;
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

std::uint64_t grading_draw(std::uint64_t seed, std::uint64_t index) {
    remote::SipHash h(seed, 0x6772616465726e67ull);  // the second key half: "graderng"
    h.add(index);
    return h.finish();
}

std::uint64_t grading_data_seed(std::uint64_t seed, std::uint64_t problem) {
    return grading_draw(seed, (1ull << 63) | problem);  // apart from the shapes' draws
}

std::vector<Problem> grading_problems(std::uint64_t seed, bool large) {
    std::vector<Problem> ps;
    auto add = [&](int M, int N, int K, int pa, int pb, int pc, float alpha, float beta) {
        Problem p;
        p.shape = {M, N, K};
        p.lda = pa < 0 ? 0 : K + pa;
        p.ldb = pb < 0 ? 0 : N + pb;
        p.ldc = pc < 0 ? 0 : N + pc;
        p.alpha = alpha;
        p.beta = beta;
        p.seed = grading_data_seed(seed, ps.size());  // the matrices show this, not the seed
        ps.push_back(p);
    };
    // The shapes every kernel must survive, whatever the seed.
    add(1, 1, 1, -1, -1, -1, 1.0f, 0.0f);
    add(0, 7, 5, -1, -1, -1, 1.0f, 0.0f);
    add(7, 0, 5, -1, -1, -1, 1.0f, 0.0f);
    add(9, 11, 0, -1, -1, -1, 1.0f, 0.5f);
    add(17, 33, 65, 3, 1, 5, 1.0f, 0.0f);
    add(127, 1, 129, -1, -1, -1, -0.5f, 1.0f);
    add(1, 127, 129, 1, 2, 3, 1.0f, 0.0f);
    // And shapes the student has not seen: draw n of the keyed function, one statement per draw
    // (the order of a call's arguments is unspecified: GCC and clang would draw them differently).
    std::uint64_t n = 0;
    auto next = [&](int lo, int hi) {
        return lo + int(grading_draw(seed, n++) % std::uint64_t(hi - lo + 1));
    };
    const float alphas[] = {1.0f, -0.5f, 2.25f}, betas[] = {0.0f, 1.0f, -1.5f};
    auto drawn = [&](int lo_mn, int lo_k, int hi) {
        const int M = next(lo_mn, hi);
        const int N = next(lo_mn, hi);
        const int K = next(lo_k, hi);
        const int pa = next(-1, 9);
        const int pb = next(-1, 9);
        const int pc = next(-1, 9);
        const float alpha = alphas[next(0, 2)];
        const float beta = betas[next(0, 2)];
        add(M, N, K, pa, pb, pc, alpha, beta);
    };
    for (int i = 0; i < 8; ++i) drawn(1, 1, 300);
    if (large)
        for (int i = 0; i < 3; ++i) drawn(900, 300, 2200);
    return ps;
}

namespace {

// --grade: correctness on grading_problems(seed) plus a short benchmark; a summary on stdout and
// the same as JSON in <out>/<id>.grade.json. Exit 0 only when every shape passed.
int grade(Backend& backend, const ChapterInfo& info, Precision precision, Options o,
          const std::vector<Shape>& bench_sizes, const std::string& yard, const std::string& prog) {
    const bool large = info.min_cc > 0;
    std::vector<Problem> problems = grading_problems(o.seed, large);
    for (Problem& p : problems) {
        p.precision = precision;
        if (is_fp8(precision)) p = as_fp8(p, precision);  // B is N x K, its padding past K
    }
    std::cout << "grading " << info.id << " on " << problems.size() << " shapes drawn from seed "
              << o.seed << "\n";
    // A child (--remote) chooses what it returns: what is said about a failure names what was
    // wrong, never a number the child chose (a value, an error, which or how many elements).
    const bool blind = !o.remote.empty();
    auto detail = [&](const CheckResult& c) { return blind ? blind_summary(c) : c.summary(); };
    std::ostringstream shapes_json;
    std::string error;  // why a child process (--remote) stopped computing: the first reason
    int passed = 0;
    for (std::size_t i = 0; i < problems.size(); ++i) {
        const Problem p = problems[i].resolved();
        progress(p.shape.str());
        CheckResult c;
        try {
            c = load_and_check(backend, make_inputs(p), CheckMode::Auto);
        } catch (const RemoteError& e) {  // a crash or a hang costs this shape (and the rest)
            c.pass = false;
            c.mode = "none";
            c.reason = e.what();
            if (error.empty()) error = e.what();
        }
        progress_done();
        passed += c.pass;
        std::cout << "  " << (c.pass ? "PASS " : "FAIL ") << p.str()
                  << (c.pass ? "" : "\n       " + detail(c)) << std::endl;
        shapes_json << (i ? ",\n" : "") << "    {\"M\": " << p.shape.M << ", \"N\": " << p.shape.N
                    << ", \"K\": " << p.shape.K << ", \"lda\": " << p.lda << ", \"ldb\": " << p.ldb
                    << ", \"ldc\": " << p.ldc << ", \"alpha\": " << p.alpha
                    << ", \"beta\": " << p.beta << ", \"pass\": " << (c.pass ? "true" : "false")
                    << ", \"check\": \"" << c.mode
                    << "\", \"max_abs_err\": " << (blind ? 0.0 : c.max_abs_err)
                    << ", \"detail\": \"" << json_escape(c.pass ? "" : detail(c)) << "\"}";
    }

    std::cout << "\nbenchmark (" << o.reps << " timed runs, median)\n" << table_header() << "\n";
    std::ostringstream bench_json;
    o.check = CheckMode::Off;  // correctness was graded above; the benchmark only times
    for (std::size_t i = 0; i < bench_sizes.size(); ++i) {
        Problem p;
        p.shape = bench_sizes[i];
        p.seed = grading_data_seed(o.seed, problems.size() + i);
        p.precision = precision;
        CheckResult unused;
        progress(p.shape.str());
        Row r;
        try {
            r = measure(backend, info, precision, o, p, yard, unused);
        } catch (const RemoteError& e) {
            progress_done();
            std::cout << p.shape.str() << ": not timed: " << e.what() << std::endl;
            if (error.empty()) error = e.what();
            continue;
        }
        progress_done();
        std::cout << table_line(r) << std::endl;
        bench_json << (bench_json.tellp() > 0 ? ",\n" : "") << "    {\"shape\": \"" << r.shape.str()
                   << "\", \"ms\": " << r.ms_median << ", \"gflops\": " << r.gflops
                   << ", \"yardstick\": \"" << json_escape(r.yardstick)
                   << "\", \"yardstick_gflops\": " << r.yardstick_gflops
                   << ", \"pct_of_yardstick\": " << r.pct_of_yardstick << "}";
    }

    try {
        backend.finish();  // a --remote child is gone, and left cleanly, before the verdict exists
    } catch (const RemoteError& e) {
        if (error.empty()) error = e.what();
    }
    const bool all = passed == int(problems.size()) && error.empty();
    std::ostringstream json;
    json << "{\n  \"chapter\": \"" << info.id << "\",\n  \"device\": \""
         << json_escape(backend.device_name()) << "\",\n  \"seed\": " << o.seed
         << ",\n  \"shapes_passed\": " << passed << ",\n  \"shapes_total\": " << problems.size()
         << ",\n  \"pass\": " << (all ? "true" : "false") << ",\n  \"error\": \""
         << json_escape(error) << "\",\n  \"shapes\": [\n"
         << shapes_json.str() << "\n  ],\n  \"benchmark\": [\n"
         << bench_json.str() << "\n  ]\n}\n";
    const std::string path = o.out_dir + "/" + info.id + ".grade.json";
    try {
        write_text(path, json.str());
    } catch (const std::exception& e) {
        std::cerr << prog << ": error: " << e.what() << "\n";
        return 2;
    }
    std::cout << "\n"
              << info.id << ": " << passed << "/" << problems.size() << " shapes correct; wrote "
              << path << "\nGRADE: " << (all ? "PASS" : "FAIL") << std::endl;
    // tools/grading/grade.py takes the verdict from that file only, in an --out folder of its own
    // that the --remote child's sandbox does not contain.
    return all ? 0 : 1;
}

}  // namespace

int run_chapter(int argc, char** argv, const ChapterInfo& info, Precision precision,
                const BackendFactory& make_backend) {
    const std::string prog = program_name(argc > 0 ? argv[0] : nullptr);
    Options o;
    try {
        o = parse_options(argc, argv);
    } catch (const UsageError& e) {
        std::cerr << prog << ": error: " << e.what() << "\n(run " << prog << " --help for usage)\n";
        return 2;
    }
    if (o.help) {
        std::cout << info.id << ": " << info.title << "\n\n" << usage(prog, info.default_sizes);
        return 0;
    }
    // --grade benchmarks the largest default size unless --sizes says otherwise.
    std::vector<Shape> sizes = o.sizes.empty() ? info.default_sizes : o.sizes;
    if (o.grade && o.sizes.empty() && !sizes.empty()) sizes = {sizes.back()};

    std::unique_ptr<Backend> backend;
    try {
        validate_command_line(sizes, o, precision);
        // The local backend is the device, the yardstick and the checks, whatever runs the kernel.
        Options local = o;
        local.remote.clear();
        backend = make_backend(local);
        // --remote: the chapter's kernel runs in a child process; this one keeps the verdict.
        if (!o.remote.empty() && o.remote != kRemoteCheckOnly)
            backend = make_remote_backend(std::move(backend), o.remote, o.timeout_s);
        validate_fits(sizes, o, precision, *backend);
    } catch (const NoDevice& e) {
        std::cout << info.id << ": skipped: " << e.what() << "\n";
        return 77;
    } catch (const UsageError& e) {
        std::cerr << prog << ": error: " << e.what() << "\n";
        return 2;
    } catch (const RemoteError& e) {
        std::cerr << prog << ": error: " << e.what() << "\n";
        return 1;
    }

    if (o.remote == kRemoteCheckOnly) {  // tools/grading/grade.py asks before it builds anything
        std::cout << info.id << ": the command line is valid for a grade on this machine\n";
        return 0;
    }
    const std::string yard = o.baseline ? backend->yardstick_name() : std::string();
    std::cout << "== " << info.id << ": " << info.title << "\n"
              << backend->device_report() << "inputs: uniform in [-1, 1), " << to_string(precision)
              << (is_fp8(precision) ? " codes of 448 u with seeded scales, C bf16" : "")
              << ", seed " << o.seed << "; alpha " << o.alpha << ", beta " << o.beta
              << "\ntiming: " << o.rounds << " rounds alternating the chapter and the yardstick, "
              << o.reps << " timed runs each per round after " << o.warmup << " warm-up runs"
              << (backend->l2_flush() == "yes"   ? "; L2 written over before every timed run"
                  : backend->l2_flush() == "no" ? "; L2 not flushed (--l2-flush off)"
                                                : "")
              << "\nyardstick: " << (yard.empty() ? std::string("none") : yard) << "\n"
              << conditions_line(backend->environment()) << "\n";
    try {
        const Peaks pk = backend->peaks();
        if (pk.fp32_gflops > 0) write_peaks(o.out_dir + "/peaks.csv", pk);
    } catch (const std::exception& e) {
        std::cerr << prog << ": error: " << e.what() << "\n";
        return 2;
    }
    if (o.grade) return grade(*backend, info, precision, o, sizes, yard, prog);

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
        const Row r =
            measure(*backend, info, precision, o, problem_for(sizes[i], o, precision), yard, check);
        progress_done();
        all_pass = all_pass && check.pass;
        std::cout << table_line(r) << std::endl;
        if (!r.throttle.empty() && r.throttle != "none")
            std::cout << "    clock slowed while timing " << r.shape.str() << ": " << r.throttle
                      << " of the samples (median " << r.sm_clock_mhz << " MHz, " << r.power_w
                      << " W)" << std::endl;
        if (!check.pass)
            std::cout << "    " << problem_for(sizes[i], o, precision).resolved().str() << ": "
                      << check.summary() << std::endl;
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

#include "runner.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "report.hpp"

namespace gemm {

double median(std::vector<double> v) {
    if (v.empty()) return 0.0;
    std::sort(v.begin(), v.end());
    std::size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

unsigned long long host_available_bytes() {
    std::ifstream f("/proc/meminfo");
    std::string key;
    unsigned long long kb = 0;
    std::string unit;
    while (f >> key >> kb >> unit)
        if (key == "MemAvailable:") return kb * 1024ull;
    return 0;
}

CheckMode resolve_check(CheckMode mode, const Shape& s) {
    if (mode != CheckMode::Auto) return mode;
    const double mnk = double(s.M) * double(s.N) * double(s.K);
    const double mn = double(s.M) * double(s.N);
    return (mnk <= double(1ull << 30) && mn <= double(1ull << 26)) ? CheckMode::Full : CheckMode::Sample;
}

CheckResult check_output(CheckMode mode, const HostProblem& hp, const std::vector<float>& C) {
    return mode == CheckMode::Full ? check_full(hp, C) : check_sampled(hp, C);
}

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
void validate(const std::vector<Shape>& sizes, const Options& o, Precision precision,
              const Backend& backend) {
    for (const Shape& s : sizes) {
        try {
            backend.check_fits(problem_for(s, o, precision).resolved());
        } catch (const std::invalid_argument& e) {
            throw UsageError("size " + s.str() + ": " + e.what());
        }
    }
    std::error_code ec;
    std::filesystem::create_directories(o.out_dir, ec);
    if (ec || !std::filesystem::is_directory(o.out_dir))
        throw UsageError("--out " + o.out_dir + ": cannot create this directory (" + ec.message() + ")");
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
    const std::vector<Shape>& sizes = o.sizes.empty() ? info.default_sizes : o.sizes;

    std::unique_ptr<Backend> backend;
    try {
        backend = make_backend(o);
        validate(sizes, o, precision, *backend);
    } catch (const NoDevice& e) {
        std::cout << info.id << ": skipped: " << e.what() << "\n";
        return 77;
    } catch (const UsageError& e) {
        std::cerr << prog << ": error: " << e.what() << "\n";
        return 2;
    }

    const std::string yard = o.baseline ? backend->yardstick_name() : std::string();
    std::cout << "== " << info.id << ": " << info.title << "\n"
              << backend->device_report() << "inputs: uniform in [-1, 1), " << to_string(precision)
              << ", seed " << o.seed << "; alpha " << o.alpha << ", beta " << o.beta << "; timing: "
              << o.warmup << " warm-up + " << o.reps << " timed runs, median\n"
              << "yardstick: " << (yard.empty() ? std::string("none") : yard) << "\n\n"
              << table_header() << std::endl;

    const std::string csv_path = o.out_dir + "/" + info.id + ".csv";
    const std::string svg_path = o.out_dir + "/" + info.id + ".svg";
    std::vector<Row> rows;
    bool all_pass = true;
    for (const Shape& s : sizes) {
        HostProblem hp = make_inputs(problem_for(s, o, precision));
        backend->load(hp);

        Row r;
        r.device = backend->device_name();
        r.chapter = info.id;
        r.precision = to_string(precision);
        r.shape = s;
        r.alpha = o.alpha;
        r.beta = o.beta;
        r.seed = o.seed;
        r.reps = o.reps;

        const CheckMode mode = resolve_check(o.check, s);
        CheckResult check;
        if (mode != CheckMode::Off) {
            check = check_output(mode, hp, backend->run_once(initial_C(hp)));
            r.check = check.mode;
            r.max_abs_err = check.max_abs_err;
            r.max_rel_err = check.max_rel_err;
            r.bad_elements = check.bad;
            r.pass = check.pass;
            all_pass = all_pass && check.pass;
        }
        std::vector<double> t = backend->time_chapter(o.warmup, o.reps);
        r.ms_median = median(t);
        r.ms_min = *std::min_element(t.begin(), t.end());
        r.gflops = gflops(s, r.ms_median);
        if (!yard.empty()) {
            r.yardstick = yard;
            r.yardstick_ms_median = median(backend->time_yardstick(o.warmup, o.reps));
            r.yardstick_gflops = gflops(s, r.yardstick_ms_median);
            r.pct_of_yardstick = r.yardstick_gflops > 0 ? 100.0 * r.gflops / r.yardstick_gflops : 0.0;
        }
        rows.push_back(r);
        std::cout << table_line(r) << std::endl;
        if (!check.pass) std::cout << "    " << hp.p.str() << ": " << check.summary() << std::endl;

        // Written after every size so that an interrupted long run keeps what it measured.
        try {
            write_csv(csv_path, rows);
            write_text(svg_path, chapter_chart(info.id + " on " + r.device, rows));
        } catch (const std::exception& e) {
            std::cerr << prog << ": error: " << e.what() << "\n";
            return 2;
        }
    }
    std::cout << "\nwrote " << csv_path << " and " << svg_path << "\n"
              << (all_pass ? "all checks passed" : "SOME CHECKS FAILED") << std::endl;
    return all_pass ? 0 : 1;
}

}  // namespace gemm

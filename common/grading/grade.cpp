#include "grade.hpp"

#include <iostream>
#include <string>

#include "fp8_problem.hpp"
#include "json.hpp"
#include "measure.hpp"
#include "remote.hpp"
#include "remote_protocol.hpp"
#include "report.hpp"

namespace gemm {

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

int grade(Backend& backend, const ChapterInfo& info, Precision precision, Options o,
          const std::string& remote, const std::vector<Shape>& bench_sizes, const std::string& yard,
          const std::string& prog) {
    const bool large = info.min_cc > 0;
    std::vector<Problem> problems = grading_problems(o.seed, large);
    for (Problem& p : problems) p = as_precision(p, precision);  // N x K B: its padding past K
    std::cout << "grading " << info.id << " on " << problems.size() << " shapes drawn from seed "
              << o.seed << "\n";
    // A child (--remote) chooses what it returns: what is said about a failure names what was
    // wrong, never a number the child chose (a value, an error, which or how many elements).
    const bool blind = !remote.empty();
    auto detail = [&](const CheckResult& c) { return blind ? blind_summary(c) : c.summary(); };
    std::vector<JsonObject> shapes_json;
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
        shapes_json.push_back(JsonObject()
                                  .add("M", p.shape.M)
                                  .add("N", p.shape.N)
                                  .add("K", p.shape.K)
                                  .add("lda", p.lda)
                                  .add("ldb", p.ldb)
                                  .add("ldc", p.ldc)
                                  .add("alpha", p.alpha)
                                  .add("beta", p.beta)
                                  .add("pass", c.pass)
                                  .add("check", c.mode)
                                  .add("max_abs_err", blind ? 0.0 : c.max_abs_err)
                                  .add("detail", c.pass ? std::string() : detail(c)));
    }

    std::cout << "\nbenchmark (" << o.reps << " timed runs, median)\n" << table_header() << "\n";
    std::vector<JsonObject> bench_json;
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
        bench_json.push_back(JsonObject()
                                 .add("shape", r.shape.str())
                                 .add("ms", r.ms_median)
                                 .add("gflops", r.gflops)
                                 .add("yardstick", r.yardstick)
                                 .add("yardstick_gflops", r.yardstick_gflops)
                                 .add("pct_of_yardstick", r.pct_of_yardstick));
    }

    try {
        backend.finish();  // a --remote child is gone, and left cleanly, before the verdict exists
    } catch (const RemoteError& e) {
        if (error.empty()) error = e.what();
    }
    const bool all = passed == int(problems.size()) && error.empty();
    const std::string json = JsonObject()
                                 .add("chapter", info.id)
                                 .add("device", backend.device_name())
                                 .add("seed", (unsigned long long)o.seed)
                                 .add("shapes_passed", passed)
                                 .add("shapes_total", (unsigned long long)problems.size())
                                 .add("pass", all)
                                 .add("error", error)
                                 .add("shapes", shapes_json)
                                 .add("benchmark", bench_json)
                                 .str("  ") +
                             "\n";
    const std::string path = o.out_dir + "/" + info.id + ".grade.json";
    try {
        write_text(path, json);
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

}  // namespace gemm

#include "measure.hpp"

#include <vector>

#include "stamp.hpp"
#include "stats.hpp"

namespace gemm {

CheckMode resolve_check(CheckMode mode, const Shape& s) {
    if (mode != CheckMode::Auto) return mode;
    const double mnk = double(s.M) * double(s.N) * double(s.K);
    const double mn = double(s.M) * double(s.N);
    return (mnk <= double(1ull << 30) && mn <= double(1ull << 26)) ? CheckMode::Full
                                                                   : CheckMode::Sample;
}

CheckResult load_and_check(Backend& backend, const HostProblem& hp, CheckMode mode) {
    backend.load(hp);
    const std::vector<float> C = backend.run_once(initial_C(hp));
    return resolve_check(mode, hp.p.shape) == CheckMode::Full ? check_full(hp, C)
                                                              : check_sampled(hp, C);
}

Row measure(Backend& backend, const ChapterInfo& info, Precision precision, const Options& o,
            const Problem& problem, const std::string& yard, CheckResult& check) {
    HostProblem hp = make_inputs(problem);

    Row r;
    r.device = backend.device_name();
    r.chapter = info.id;
    r.precision = to_string(precision);
    r.shape = problem.shape;
    r.alpha = problem.alpha;
    r.beta = problem.beta;
    r.seed = problem.seed;
    r.reps = o.reps;

    check = CheckResult();
    if (o.check == CheckMode::Off) {
        backend.load(hp);
    } else {
        check = load_and_check(backend, hp, o.check);
        r.check = check.mode;
        r.max_abs_err = check.max_abs_err;
        r.max_rel_err = check.max_rel_err;
        r.bad_elements = check.bad;
        r.pass = check.pass;
    }
    // Alternating rounds: a slow spell of the GPU (clock, power, a neighbour) lands on both sides
    // of one round's ratio instead of on one side of the only ratio. The order flips every round
    // (A B, B A, A B ...) so that neither side always runs on the other's heat.
    const RunEnvironment env = backend.environment();
    std::vector<double> t_chapter, t_yard, ratios;
    backend.start_sampling();
    for (int round = 0; round < o.rounds; ++round) {
        const int warmup = round == 0 ? o.warmup : 0;
        std::vector<double> tc, ty;
        const bool chapter_first = round % 2 == 0;
        if (chapter_first) tc = backend.time_chapter(warmup, o.reps);
        if (!yard.empty()) ty = backend.time_yardstick(warmup, o.reps);
        if (!chapter_first) tc = backend.time_chapter(warmup, o.reps);
        t_chapter.insert(t_chapter.end(), tc.begin(), tc.end());
        t_yard.insert(t_yard.end(), ty.begin(), ty.end());
        if (!ty.empty() && median(tc) > 0) ratios.push_back(100.0 * median(ty) / median(tc));
    }
    const Sampled seen = backend.stop_sampling();
    r.rounds = o.rounds;
    const Spread chapter = spread(t_chapter);
    r.ms_median = chapter.median;
    r.ms_min = chapter.min;
    r.gflops = gflops(problem.shape, r.ms_median);
    if (!yard.empty() && !t_yard.empty()) {  // empty: the yardstick cannot take this shape
        r.yardstick = yard;
        r.yardstick_ms_median = median(t_yard);
        r.yardstick_gflops = gflops(problem.shape, r.yardstick_ms_median);
        const Spread pct = spread(ratios);  // zeros when no round had both sides
        r.pct_of_yardstick = pct.median;
        r.pct_min = pct.min;
        r.pct_max = pct.max;
    }
    r.driver = env.driver;
    r.cuda_runtime = env.cuda_runtime;
    r.cublas = env.cublas;
    r.power_limit_w = env.power_limit_w;
    r.sm_clock_mhz = seen.sm_clock_mhz;
    r.power_w = seen.power_w;
    r.throttle = seen.throttle;
    r.l2_flush = backend.l2_flush();
    const Stamp stamp = stamp_of(info.id);
    r.commit = stamp.commit;
    r.dirty = stamp.dirty;
    r.source_hash = stamp.source_hash;
    return r;
}

}  // namespace gemm

// The harness itself: the command line, inputs, the reference, the comparison, the CSV.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <climits>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "cpu_checks.hpp"
#include "json.hpp"
#include "measure.hpp"
#include "options.hpp"
#include "problem.hpp"
#include "read_csv.hpp"
#include "report.hpp"
#include "runner.hpp"
#include "shapes.hpp"
#include "stamp.hpp"
#include "stats.hpp"

using namespace gemm;

namespace {

Options parse(std::vector<const char*> args) {
    args.insert(args.begin(), "prog");
    return parse_options(int(args.size()), args.data());
}

// The message of the UsageError that parsing `args` throws ("" if it does not throw).
std::string usage_error(std::vector<const char*> args) {
    try {
        parse(args);
    } catch (const UsageError& e) {
        return e.what();
    }
    return "";
}

// C computed in float by the plain loop, summing k in the order `order` gives.
template <class Order>
std::vector<float> float_gemm(const HostProblem& hp, Order order) {
    const Problem& p = hp.p;
    std::vector<float> C = initial_C(hp);
    for (int i = 0; i < p.shape.M; ++i)
        for (int j = 0; j < p.shape.N; ++j) {
            float acc = 0.0f;
            for (int t = 0; t < p.shape.K; ++t) {
                int k = order(t, p.shape.K);
                acc += hp.A[std::size_t(i) * p.lda + k] * hp.B[std::size_t(k) * p.ldb + j];
            }
            float& c = C[std::size_t(i) * p.ldc + j];
            c = p.beta == 0.0f ? p.alpha * acc
                               : p.alpha * acc + p.beta * hp.C0[std::size_t(i) * p.ldc + j];
        }
    return C;
}
int forward(int t, int) {
    return t;
}
int backward(int t, int K) {
    return K - 1 - t;
}

Problem problem(int M, int N, int K, float alpha = 1.0f, float beta = 0.0f) {
    Problem p;
    p.shape = {M, N, K};
    p.alpha = alpha;
    p.beta = beta;
    return p;
}

// A problem with hand-written inputs (no padding).
HostProblem by_hand(int M, int N, int K, std::vector<float> A, std::vector<float> B,
                    std::vector<float> C0, float alpha, float beta) {
    HostProblem hp;
    hp.p = problem(M, N, K, alpha, beta).resolved();
    hp.A = A;
    hp.B = B;
    hp.C0 = C0;
    return hp;
}

}  // namespace

TEST_SUITE("options") {
    TEST_CASE("defaults") {
        Options o = parse({});
        CHECK(o.sizes.empty());
        CHECK(o.reps == 10);
        CHECK(o.rounds == 5);
        CHECK(o.l2_flush);
        CHECK(o.warmup == 3);
        CHECK(o.alpha == 1.0f);
        CHECK(o.beta == 0.0f);
        CHECK(o.seed == 2024);
        CHECK(o.check == CheckMode::Auto);
        CHECK(o.baseline);
        CHECK(o.out_dir == "plots/latest");
        CHECK(o.device == 0);
        CHECK_FALSE(o.help);
    }

    TEST_CASE("every flag") {
        Options o = parse({"--sizes", "256,1000x1001x999,0x3x4", "--reps", "7", "--warmup=0",
                           "--alpha", "-1.5", "--beta", "0.25", "--seed", "99", "--check", "sample",
                           "--no-baseline", "--out", "/tmp/x", "--device", "1", "--help"});
        REQUIRE(o.sizes.size() == 3);
        CHECK(o.sizes[0] == Shape(256));
        CHECK(o.sizes[1] == Shape(1000, 1001, 999));
        CHECK(o.sizes[2] == Shape(0, 3, 4));
        CHECK(o.reps == 7);
        CHECK(o.warmup == 0);
        CHECK(o.alpha == -1.5f);
        CHECK(o.beta == 0.25f);
        CHECK(o.seed == 99);
        CHECK(o.check == CheckMode::Sample);
        CHECK_FALSE(o.baseline);
        CHECK(o.out_dir == "/tmp/x");
        CHECK(o.device == 1);
        CHECK(o.help);
        CHECK(parse({"--check", "full"}).check == CheckMode::Full);
        CHECK(parse({"--check", "off"}).check == CheckMode::Off);
    }

    TEST_CASE("shape names") {
        CHECK(Shape(1024).str() == "1024");
        CHECK(Shape(1000, 1001, 999).str() == "1000x1001x999");
        CHECK(parse_shape("7x7x7") == Shape(7));
    }

    TEST_CASE("bad input names what is wrong") {
        struct Bad {
            std::vector<const char*> args;
            const char* must_mention;
        };
        const std::vector<Bad> bad = {
            {{"--bogus"}, "unknown argument '--bogus'"},
            {{"-x"}, "unknown argument '-x'"},
            {{"512"}, "unknown argument '512'"},
            {{"--sizes", "0x-1"}, "negative"},
            {{"--sizes", "0x-1x5"}, "negative"},
            {{"--sizes", "12a"}, "'12a'"},
            {{"--sizes", "abc"}, "'abc'"},
            {{"--sizes", "1x2"}, "MxNxK"},
            {{"--sizes", "1x2x3x4"}, "MxNxK"},
            {{"--sizes", "64,,128"}, "empty entry"},
            {{"--sizes", ""}, "--sizes"},
            {{"--sizes", "99999999999"}, "does not fit"},
            {{"--sizes", "99999999999999999999999"}, "out of range"},
            {{"--sizes", "3000000000"}, "does not fit"},
            {{"--sizes", "1e3"}, "'1e3'"},
            {{"--reps", "ten"}, "--reps"},
            {{"--reps", "0"}, "outside [1"},
            {{"--reps", "-3"}, "outside [1"},
            {{"--warmup", "-1"}, "--warmup"},
            {{"--reps"}, "needs a value"},
            {{"--alpha", "x"}, "--alpha"},
            {{"--alpha", "nan"}, "not a finite"},
            {{"--beta", "1e99"}, "not a finite"},
            {{"--beta", "0.5q"}, "--beta"},
            {{"--seed", "-1"}, "--seed"},
            {{"--check", "most"}, "full, sample, off or auto"},
            {{"--device", "x"}, "--device"},
            // Floats take the integers' plain decimal form: no hex, no spaces, no leading '+'.
            {{"--alpha", "0x10"}, "expected a decimal number"},
            {{"--beta", " 1"}, "expected a decimal number"},
            {{"--beta", "1 "}, "expected a decimal number"},
            {{"--alpha", "+1"}, "expected a decimal number"},
            {{"--alpha", "1e"}, "expected a decimal number"},
            {{"--alpha", "."}, "expected a decimal number"},
            {{"--alpha", "-inf"}, "not a finite"},
            {{"--alpha", "1e-50"}, "would become 0"},
            {{"--alpha", "1e-45"}, "is a subnormal float"},  // finite, but no check could pass
            {{"--beta", "-1e-39"}, "is a subnormal float"},
            {{"--reps", "+5"}, "expected a whole number"},
            {{"--seed", "0x10"}, "expected a whole number"},
            {{"--warmup", " 1"}, "expected a whole number"},
            {{"--no-baseline=1"}, "takes no value"},
            {{"--out", ""}, "--out"},
        };
        for (const Bad& b : bad) {
            std::string joined;
            for (const char* a : b.args) joined += std::string(a) + " ";
            CAPTURE(joined);
            std::string msg = usage_error(b.args);
            REQUIRE_FALSE(msg.empty());
            CHECK(msg.find(b.must_mention) != std::string::npos);
        }
    }

    TEST_CASE("floats: the decimal forms, down to the smallest normal float") {
        CHECK(parse({"--alpha", ".5"}).alpha == 0.5f);
        CHECK(parse({"--beta", "-0.5e1"}).beta == -5.0f);
        CHECK(parse({"--alpha", "2E+2"}).alpha == 200.0f);
        CHECK(parse({"--beta", "-0"}).beta == 0.0f);
        CHECK(parse({"--beta", "0e-999"}).beta == 0.0f);  // zero written any way is zero
        CHECK(parse({"--alpha", "1.2e-38"}).alpha == doctest::Approx(1.2e-38));
        CHECK(parse({"--alpha", "3.4e38"}).alpha == doctest::Approx(3.4e38));
    }

    TEST_CASE("auto check: full for small, sampled for large") {
        CHECK(resolve_check(CheckMode::Auto, Shape(1024)) == CheckMode::Full);
        CHECK(resolve_check(CheckMode::Auto, Shape(1025)) == CheckMode::Sample);
        CHECK(resolve_check(CheckMode::Auto, Shape(1 << 14, 1 << 14, 1)) == CheckMode::Sample);
        CHECK(resolve_check(CheckMode::Off, Shape(4)) == CheckMode::Off);
    }
}

TEST_SUITE("inputs") {
    TEST_CASE("seeded, signed, reproducible, padded") {
        Problem p = problem(9, 11, 13);
        p.lda = 16;
        p.ldb = 12;
        p.ldc = 15;
        HostProblem a = make_inputs(p), b = make_inputs(p);
        p.seed = 7;
        HostProblem c = make_inputs(p);
        bool any_negative = false, all_in_range = true, differs = false;
        for (int i = 0; i < 9; ++i)
            for (int k = 0; k < 13; ++k) {
                float v = a.A[i * 16 + k];
                any_negative |= v < 0;
                all_in_range &= v >= -1.0f && v < 1.0f;
                CHECK(v == b.A[i * 16 + k]);
                differs |= v != c.A[i * 16 + k];
            }
        CHECK(any_negative);
        CHECK(all_in_range);
        CHECK(differs);
        CHECK(std::isnan(a.A[13]));  // padding of A
        CHECK(std::isnan(a.B[11]));  // padding of B
        CHECK(a.C0[11] == kPaddingSentinel);
        // The first element does not depend on the shape: same seed, same matrices everywhere.
        CHECK(make_inputs(problem(2, 2, 2)).A[0] == make_inputs(problem(50, 3, 9)).A[0]);
    }

    TEST_CASE("fp16 inputs are exactly representable in half") {
        Problem p = problem(8, 8, 8);
        p.precision = Precision::F16;
        HostProblem hp = make_inputs(p);
        bool some_rounded = false;
        HostProblem f32 = make_inputs(problem(8, 8, 8));
        for (std::size_t i = 0; i < hp.A.size(); ++i) {
            CHECK(round_to_half(hp.A[i]) == hp.A[i]);
            some_rounded |= hp.A[i] != f32.A[i];
        }
        CHECK(some_rounded);
    }

    TEST_CASE("round_to_half: ties to even, subnormals, overflow") {
        CHECK(round_to_half(1.0f) == 1.0f);
        CHECK(round_to_half(1.0f + std::ldexp(1.0f, -11)) == 1.0f);  // tie: to even
        CHECK(round_to_half(1.0f + 3 * std::ldexp(1.0f, -11)) == 1.0f + std::ldexp(1.0f, -9));
        CHECK(round_to_half(-0.333333f) == -0.333251953125f);
        CHECK(round_to_half(65504.0f) == 65504.0f);
        CHECK(std::isinf(round_to_half(65520.0f)));
        CHECK(round_to_half(std::ldexp(1.0f, -24)) == std::ldexp(1.0f, -24));  // smallest subnormal
        CHECK(round_to_half(std::ldexp(1.0f, -25)) == 0.0f);                   // tie: to even (0)
        CHECK(round_to_half(3 * std::ldexp(1.0f, -26)) == std::ldexp(1.0f, -24));
    }

    TEST_CASE("poisoned C: NaN where the kernel must write, sentinel in padding, C0 if beta != 0") {
        Problem p = problem(3, 4, 5);
        p.ldc = 6;
        HostProblem hp = make_inputs(p);
        std::vector<float> C = initial_C(hp);
        CHECK(std::isnan(C[0]));
        CHECK(std::isnan(C[2 * 6 + 3]));
        CHECK(C[4] == kPaddingSentinel);
        p.beta = 0.5f;
        HostProblem hb = make_inputs(p);
        CHECK(initial_C(hb) == hb.C0);
    }

    TEST_CASE("leading dimensions are validated") {
        Problem p = problem(4, 4, 4);
        p.lda = 3;
        CHECK_THROWS_AS(p.resolved(), std::invalid_argument);
        Problem big = problem(50000, 50000, 1);
        CHECK_THROWS_WITH_AS(big.resolved(), doctest::Contains("2^31"), std::invalid_argument);
    }

    TEST_CASE("dimensions stop at 2^30, so that a tile's end k0 + BK cannot overflow int") {
        CHECK(kMaxDimension == 1 << 30);
        CHECK_NOTHROW(problem(1, 1, kMaxDimension).resolved());
        CHECK_THROWS_WITH_AS(problem(1, 1, kMaxDimension + 1).resolved(),
                             doctest::Contains("above 2^30"), std::invalid_argument);
        CHECK_THROWS_WITH_AS(problem(1, 1, INT_MAX).resolved(), doctest::Contains("above 2^30"),
                             std::invalid_argument);
        CHECK_THROWS_AS(problem(kMaxDimension + 1, 1, 1).resolved(), std::invalid_argument);
        CHECK_THROWS_AS(problem(1, kMaxDimension + 1, 1).resolved(), std::invalid_argument);
        Problem wide = problem(1, 1, 1);
        wide.ldc = kMaxDimension + 1;  // a leading dimension too
        CHECK_THROWS_WITH_AS(wide.resolved(), doctest::Contains("above 2^30"),
                             std::invalid_argument);
    }
}

TEST_SUITE("reference") {
    TEST_CASE("hand-computed 2x2x2 with alpha and beta") {
        HostProblem hp = by_hand(2, 2, 2, {1, 2, 3, 4}, {5, 6, 7, 8}, {1, 1, 1, -2}, 2.0f, 0.5f);
        std::vector<double> e, s;
        reference_gemm(hp, e, s);
        CHECK(e == std::vector<double>{2 * 19 + 0.5, 2 * 22 + 0.5, 2 * 43 + 0.5, 2 * 50 - 1.0});
        CHECK(s == std::vector<double>{38.5, 44.5, 86.5, 101.0});
    }

    TEST_CASE("hand-computed non-square 2x3x1 and K = 0") {
        HostProblem hp = by_hand(2, 3, 1, {2, -1}, {1, 2, 3}, {9, 9, 9, 9, 9, 9}, 1.0f, 0.0f);
        std::vector<double> e, s;
        reference_gemm(hp, e, s);
        CHECK(e == std::vector<double>{2, 4, 6, -1, -2, -3});  // beta = 0 ignores C0

        HostProblem k0 = by_hand(1, 2, 0, {}, {}, {3, -4}, 7.0f, 0.5f);
        reference_gemm(k0, e, s);
        CHECK(e == std::vector<double>{1.5, -2.0});
    }
}

TEST_SUITE("compare") {
    TEST_CASE("honest float rounding passes, in any summation order") {
        for (int K : {1, 7, 100, 4096}) {
            CAPTURE(K);
            HostProblem hp = make_inputs(problem(24, 20, K, 1.5f, -0.5f));
            for (auto order : {forward, backward}) {
                CheckResult r = check_full(hp, float_gemm(hp, order));
                CHECK_MESSAGE(r.pass, r.summary());
                CHECK(r.checked == 24u * 20u);
                if (K > 1) CHECK(r.max_abs_err > 0.0);  // float really differs from double
            }
        }
    }

    TEST_CASE("the tolerance grows with K and is tighter for fp32 than for tensor cores") {
        CHECK(tolerance(Precision::F32, 4096, 1.0) > tolerance(Precision::F32, 64, 1.0));
        CHECK(tolerance(Precision::F16, 64, 1.0) > tolerance(Precision::F32, 64, 1.0));
        CHECK(tolerance(Precision::F32, 4096, 1000.0) < 0.02);
    }

    TEST_CASE("one wrong element among a million is found, with its position") {
        HostProblem hp = make_inputs(problem(1024, 1024, 4));
        std::vector<float> C = float_gemm(hp, forward);
        REQUIRE(check_full(hp, C).pass);
        C[std::size_t(700) * 1024 + 333] += 1e-3f;
        CheckResult r = check_full(hp, C);
        CHECK_FALSE(r.pass);
        CHECK(r.bad == 1);
        CHECK(r.bad_row == 700);
        CHECK(r.bad_col == 333);
        CHECK(r.reason == "out of tolerance");
        CHECK(r.summary().find("(row 700, col 333)") != std::string::npos);
    }

    TEST_CASE("NaN and Inf always fail") {
        HostProblem hp = make_inputs(problem(8, 8, 8));
        std::vector<float> C = float_gemm(hp, forward);
        C[9] = std::numeric_limits<float>::quiet_NaN();
        CheckResult r = check_full(hp, C);
        CHECK_FALSE(r.pass);
        CHECK(r.bad_row == 1);
        CHECK(r.bad_col == 1);
        C[9] = std::numeric_limits<float>::infinity();
        CHECK_FALSE(check_full(hp, C).pass);
    }

    TEST_CASE("an element the kernel never wrote keeps its NaN poison and fails") {
        HostProblem hp = make_inputs(problem(16, 16, 16));
        std::vector<float> good = float_gemm(hp, forward);
        std::vector<float> C = initial_C(hp);
        for (std::size_t i = 0; i < C.size(); ++i)
            if (i != 255) C[i] = good[i];  // the last element stays unwritten
        CheckResult r = check_full(hp, C);
        CHECK_FALSE(r.pass);
        CHECK(r.bad_row == 15);
        CHECK(r.bad_col == 15);
        CHECK(r.reason.find("NaN") != std::string::npos);
    }

    TEST_CASE("writing into the padding of C fails") {
        Problem p = problem(5, 6, 7);
        p.ldc = 9;
        HostProblem hp = make_inputs(p);
        std::vector<float> C = float_gemm(hp, forward);
        REQUIRE(check_full(hp, C).pass);
        C[2 * 9 + 7] = 0.0f;
        CheckResult r = check_full(hp, C);
        CHECK_FALSE(r.pass);
        CHECK(r.bad_row == 2);
        CHECK(r.bad_col == 7);
        CHECK(r.reason.find("padding") != std::string::npos);
    }

    TEST_CASE("a result that ignores beta * C fails") {
        HostProblem hp = make_inputs(problem(12, 12, 12, 1.0f, 1.0f));
        Problem no_beta = hp.p;
        no_beta.beta = 0.0f;
        HostProblem wrong = hp;
        wrong.p = no_beta;
        CHECK_FALSE(check_full(hp, float_gemm(wrong, forward)).pass);
    }
}

TEST_SUITE("sampled check") {
    TEST_CASE("passes a right answer and agrees with the full check") {
        HostProblem hp = make_inputs(problem(300, 200, 50, 0.5f, 2.0f));
        std::vector<float> C = float_gemm(hp, backward);
        CheckResult s = check_sampled(hp, C, 500);
        CHECK_MESSAGE(s.pass, s.summary());
        CHECK(s.mode == "sample");
        CHECK(s.checked >= 500);
        CHECK(s.checked < 300u * 200u);
        CHECK(check_full(hp, C).pass);
    }

    TEST_CASE("finds a wrong last row or column (edge tiles)") {
        HostProblem hp = make_inputs(problem(300, 200, 50));
        std::vector<float> C = float_gemm(hp, forward);
        std::vector<float> bad_row = C, bad_col = C;
        for (int j = 0; j < 200; ++j) bad_row[299 * 200 + j] *= 1.01f;
        for (int i = 0; i < 300; ++i) bad_col[i * 200 + 199] += 0.1f;
        CheckResult r = check_sampled(hp, bad_row, 10);
        CHECK_FALSE(r.pass);
        CHECK(r.bad_row == 299);
        CHECK_FALSE(check_sampled(hp, bad_col, 10).pass);
    }

    TEST_CASE("finds one unwritten element anywhere, sampled or not") {
        HostProblem hp = make_inputs(problem(300, 200, 50));
        std::vector<float> C = float_gemm(hp, forward);
        C[123 * 200 + 45] = std::numeric_limits<float>::quiet_NaN();
        CheckResult r = check_sampled(hp, C, 10);
        CHECK_FALSE(r.pass);
        CHECK(r.bad == 1);
        CHECK(r.bad_row == 123);
        CHECK(r.bad_col == 45);
    }

    TEST_CASE("finds a wrong random element with enough samples") {
        HostProblem hp = make_inputs(problem(64, 64, 32));
        std::vector<float> C = float_gemm(hp, forward);
        for (int i = 10; i < 20; ++i)
            for (int j = 10; j < 20; ++j) C[i * 64 + j] = -C[i * 64 + j] + 1.0f;  // a wrong tile
        CHECK_FALSE(check_sampled(hp, C, 2000).pass);
    }
}

TEST_SUITE("output") {
    Row sample_row() {
        Row r;
        r.device = "Test \"GPU\", rev 2";
        r.chapter = "99_test";
        r.precision = "fp32";
        r.shape = Shape(1000, 1001, 999);
        r.alpha = 1.5f;
        r.beta = 0.0f;
        r.seed = 2024;
        r.reps = 20;
        r.ms_median = 1.25;
        r.ms_min = 1.0;
        r.gflops = gflops(r.shape, r.ms_median);
        r.yardstick = "cuBLAS cublasSgemm";
        r.yardstick_ms_median = 1.0;
        r.yardstick_gflops = gflops(r.shape, 1.0);
        r.pct_of_yardstick = 80.0;
        r.check = "full";
        r.max_abs_err = 1e-6;
        r.max_rel_err = 1e-7;
        r.bad_elements = 0;
        r.pass = true;
        r.pct_min = 70.5;
        r.pct_max = 91.25;
        r.rounds = 5;
        r.driver = "580.95.05";
        r.cuda_runtime = "13.0";
        r.cublas = "13.1.0";
        r.power_limit_w = 700;
        r.sm_clock_mhz = 1755;
        r.power_w = 688.5;
        r.throttle = "sw_power_cap 63%; hw_thermal 2%";
        r.l2_flush = "yes";
        r.commit = "0123456789ab";
        r.dirty = "false";
        r.source_hash = "fedcba9876543210";
        return r;
    }

    TEST_CASE("GFLOPS is 2*M*N*K / time") {
        CHECK(gflops(Shape(1000), 2.0) == doctest::Approx(1000.0));
        CHECK(gflops(Shape(0, 5, 5), 1.0) == 0.0);
    }

    TEST_CASE("the CSV schema is fixed") {
        CHECK(csv_header() ==
              "device,chapter,precision,M,N,K,alpha,beta,seed,reps,ms_median,ms_min,gflops,"
              "yardstick,yardstick_ms_median,yardstick_gflops,pct_of_yardstick,pct_min,pct_max,"
              "rounds,check,max_abs_err,max_rel_err,bad_elements,pass,driver,cuda_runtime,cublas,"
              "power_limit_w,sm_clock_mhz,power_w,throttle,l2_flush,commit,dirty,source_hash");
    }

    TEST_CASE("CSV round trip, quoting included") {
        const std::string path = "test_roundtrip.csv";
        Row a = sample_row(), b = sample_row();
        b.shape = Shape(64);
        b.pass = false;
        b.bad_elements = 3;
        b.yardstick = "";
        write_csv(path, {a, b});
        std::vector<Row> back = read_csv(path);
        REQUIRE(back.size() == 2);
        CHECK(back[0].device == a.device);
        CHECK(back[0].shape == a.shape);
        CHECK(back[0].gflops == doctest::Approx(a.gflops));
        CHECK(back[0].alpha == 1.5f);
        CHECK(back[0].pass);
        CHECK(back[0].pct_min == 70.5);
        CHECK(back[0].pct_max == 91.25);
        CHECK(back[0].rounds == 5);
        CHECK(back[0].driver == "580.95.05");
        CHECK(back[0].cublas == "13.1.0");
        CHECK(back[0].power_limit_w == 700);
        CHECK(back[0].sm_clock_mhz == 1755);
        CHECK(back[0].power_w == 688.5);
        CHECK(back[0].throttle == a.throttle);
        CHECK(back[0].l2_flush == "yes");
        CHECK(back[0].commit == "0123456789ab");
        CHECK(back[0].dirty == "false");
        CHECK(back[0].source_hash == "fedcba9876543210");
        CHECK(back[1].shape == Shape(64));
        CHECK_FALSE(back[1].pass);
        CHECK(back[1].bad_elements == 3);
        CHECK(back[1].yardstick.empty());
        std::remove(path.c_str());
    }

    TEST_CASE("a CSV from before the alternating rounds still reads, without them") {
        const std::string old_header =
            "device,chapter,precision,M,N,K,alpha,beta,seed,reps,ms_median,ms_min,gflops,"
            "yardstick,yardstick_ms_median,yardstick_gflops,pct_of_yardstick,check,max_abs_err,"
            "max_rel_err,bad_elements,pass";
        write_text("test_old.csv",
                   old_header +
                       "\nNVIDIA H100,13_x,fp16,4096,4096,4096,1,0,2024,20,0.19,0.18,"
                       "717400,cuBLAS,0.2,696500,103.0,full,1e-4,1e-7,0,true\n");
        const std::vector<Row> rows = read_csv("test_old.csv");
        REQUIRE(rows.size() == 1);
        CHECK(rows[0].pct_of_yardstick == 103.0);
        CHECK(rows[0].rounds == 0);
        CHECK(rows[0].throttle.empty());
        CHECK(rows[0].pass);
        // Without one of the columns every results CSV has, it is not ours.
        write_text("test_old.csv", "device,chapter\nx,y\n");
        CHECK_THROWS_WITH(read_csv("test_old.csv"), doctest::Contains("test_old.csv:1"));
        std::remove("test_old.csv");
    }

    TEST_CASE("reading a CSV that is not ours fails with the file and line") {
        write_text("test_bad.csv", "a,b,c\n1,2,3\n");
        CHECK_THROWS_WITH(read_csv("test_bad.csv"), doctest::Contains("test_bad.csv:1"));
        write_text("test_bad.csv", csv_header() + "\n1,2,3\n");
        CHECK_THROWS_WITH(read_csv("test_bad.csv"), doctest::Contains("test_bad.csv:2"));
        std::remove("test_bad.csv");
        CHECK_THROWS(read_csv("no_such_file.csv"));
        write_text("test_bad.csv", csv_header() + ",extra\n");
        CHECK_THROWS_WITH(read_csv("test_bad.csv"), doctest::Contains("test_bad.csv:1"));
        std::remove("test_bad.csv");
    }

    TEST_CASE("peaks.csv has the columns tools/reporting/plot.py reads, the device quoted") {
        write_peaks("test_peaks.csv", {"GPU, 1", 1.5, 2.5, 3.5});
        std::ifstream f("test_peaks.csv");
        std::stringstream text;
        text << f.rdbuf();
        CHECK(text.str() ==
              "device,fp32_gflops,fp16_tensor_gflops,bandwidth_gbs\n\"GPU, 1\",1.5,2.5,3.5\n");
        std::remove("test_peaks.csv");
    }

    TEST_CASE("JSON strings escape quotes, backslashes and every control character") {
        CHECK(json_escape("plain text, \u00e9") == "plain text, \u00e9");
        CHECK(json_escape("say \"hi\" \\ bye") == "say \\\"hi\\\" \\\\ bye");
        CHECK(json_escape("a\tb\rc\nd\be\ff") == "a\\tb\\rc\\nd\\be\\ff");
        CHECK(json_escape(std::string("\x01\x1f\0", 3)) == "\\u0001\\u001f\\u0000");
        CHECK(json_escape("\x7f") == "\x7f");  // DEL is no control character to JSON
    }

    TEST_CASE("a JSON object: members in order, strings escaped, inf and NaN as null, arrays") {
        JsonObject row;
        row.add("M", 17).add("ok", false).add("err", 0.25).add("why", "a \"b\"\n");
        CHECK(row.str() ==
              "{\"M\": 17, \"ok\": false, \"err\": 0.25, \"why\": \"a \\\"b\\\"\\n\"}");
        JsonObject odd;
        odd.add("inf", std::numeric_limits<double>::infinity()).add("nan", std::nan(""));
        CHECK(odd.str() == "{\"inf\": null, \"nan\": null}");
        const std::string doc = JsonObject()
                                    .add("seed", 18446744073709551615ull)
                                    .add("rows", std::vector<JsonObject>{row, odd})
                                    .add("none", std::vector<JsonObject>{})
                                    .str("  ");
        CHECK(doc == "{\n  \"seed\": 18446744073709551615,\n  \"rows\": [\n    " + row.str() +
                         ",\n    " + odd.str() + "\n  ],\n  \"none\": []\n}");
    }

    TEST_CASE("the table line says PASS, FAIL or unchecked") {
        Row r = sample_row();
        CHECK(table_line(r).find("PASS") != std::string::npos);
        CHECK(table_line(r).find("1000x1001x999") != std::string::npos);
        r.pass = false;
        CHECK(table_line(r).find("FAIL") != std::string::npos);
        r.check = "off";
        CHECK(table_line(r).find("unchecked") != std::string::npos);
    }

    TEST_CASE("table columns stay apart whatever the width of the values") {
        // Seen once: "68.646657.3%" for a kernel that did nothing and timed as nearly free.
        Row r = sample_row();
        r.shape = Shape(123456789, 987654321, 5);
        r.ms_median = 123456789.123;
        r.gflops = 99999999999.9;
        r.yardstick = "cuBLAS";
        r.yardstick_gflops = 68.6;
        r.pct_of_yardstick = 46657.3;
        const std::string line = table_line(r);
        CAPTURE(line);
        CHECK(line.find(" 68.6 ") != std::string::npos);
        CHECK(line.find(" 46657.3% ") != std::string::npos);
        CHECK(line.find("123456789x987654321x5 ") == 0);
        // Each of the 11 columns is separated from the next by at least one space.
        std::istringstream words(line);
        std::vector<std::string> cols;
        for (std::string w; words >> w;) cols.push_back(w);
        CHECK(cols.size() == 11);
        const std::string header = table_header();
        CHECK(table_line(sample_row()).find("PASS") > header.find("result") - 4);
    }
}

TEST_SUITE("shapes") {
    // 132 SMs (H100), 128 x 256 tiles, one block per SM: chapters 10 and 11 on the H100.
    const gemm::TileModel h100{128, 256, 132, 1};

    TEST_CASE("tiles and waves, counted by hand") {
        gemm::TileCount c = gemm::tile_count(h100, 2560, 4096);  // 20 x 16 tiles
        CHECK(c.tiles == 320);
        CHECK(c.waves == 3);  // 132 + 132 + 56
        CHECK(c.last_wave == doctest::Approx(56.0 / 132));
        c = gemm::tile_count(h100, 4096, 4096);  // 32 x 16
        CHECK(c.tiles == 512);
        CHECK(c.waves == 4);  // 3.88 rounds up
        // The guide's projection layer: 33708 and 33712 columns need the same 132 column tiles.
        CHECK(gemm::tile_count(h100, 5120, 33708).tiles == 40 * 132);
        CHECK(gemm::tile_count(h100, 5120, 33712).tiles == 40 * 132);
        CHECK(gemm::tile_count(h100, 5120, 33712).waves == 40);
        CHECK(gemm::tile_count(h100, 5120, 33712).last_wave == doctest::Approx(1.0));
        CHECK(gemm::tile_count(h100, 0, 4096).tiles == 0);
        CHECK(gemm::tile_count(h100, 0, 4096).waves == 0);
        const gemm::TileModel two{128, 128, 80, 2};  // V100-like: 80 SMs, 2 blocks each
        CHECK(gemm::tile_count(two, 2560, 4096).tiles == 640);
        CHECK(gemm::tile_count(two, 2560, 4096).waves == 4);
    }

    TEST_CASE("the steps of a sweep are where a tile row or a wave is added") {
        // N from 128 to 640 with M = 256: a new column of tiles at 257 and 513, one wave.
        std::vector<gemm::Step> st = gemm::quantization_steps(h100, false, 256, 128, 640);
        REQUIRE(st.size() == 2);
        CHECK(st[0].x == 257);
        CHECK(st[0].count.tiles == 4);
        CHECK_FALSE(st[0].new_wave);
        CHECK(st[1].x == 513);
        CHECK(st[1].count.tiles == 6);
        // M from 128 to 8192 with N = 4096: 16 tiles per row of tiles, a second wave at the
        // ninth row (144 > 132 tiles), i.e. from M = 1025.
        st = gemm::quantization_steps(h100, true, 4096, 128, 8192);
        CHECK(st.size() == 63);  // rows 2 .. 64
        long long first_wave = 0;
        for (const gemm::Step& s : st)
            if (s.new_wave && !first_wave) first_wave = s.x;
        CHECK(first_wave == 1025);
        CHECK(st.back().count.waves == 8);  // 64 x 16 = 1024 tiles: 7.76 waves
    }
}

TEST_SUITE("timing protocol") {
    TEST_CASE("median, lowest and highest of the timed runs") {
        CHECK(median({}) == 0.0);
        CHECK(median({3.0, 1.0, 2.0}) == 2.0);
        CHECK(median({4.0, 1.0, 3.0, 2.0}) == 2.5);  // the mean of the two middle ones
        const Spread s = spread({5.0, 1.0, 4.0, 2.0, 3.0});
        CHECK(s.median == 3.0);
        CHECK(s.min == 1.0);
        CHECK(s.max == 5.0);
        const Spread none = spread({});
        CHECK((none.median == 0.0 && none.min == 0.0 && none.max == 0.0));
    }

    // A backend whose times are scripted: the chapter always takes 1 ms, the yardstick takes the
    // next value of `yard_ms` in each round. It records the order of the calls.
    struct ScriptedBackend : gemm::Backend {
        std::vector<double> yard_ms;
        std::string* calls;
        std::vector<int>* warmups;
        int round = 0;
        ScriptedBackend(std::vector<double> y, std::string* log, std::vector<int>* w)
            : yard_ms(std::move(y)), calls(log), warmups(w) {}
        std::string device_name() const override { return "scripted"; }
        std::string device_report() const override { return ""; }
        std::string yardstick_name() const override { return "scripted yardstick"; }
        void check_fits(const Problem&) const override {}
        void load(const HostProblem&) override {}
        std::vector<float> run_once(const std::vector<float>& c) override { return c; }
        std::vector<double> time_chapter(int warmup, int reps) override {
            *calls += 'C';
            warmups->push_back(warmup);
            return std::vector<double>(reps, 1.0);
        }
        std::vector<double> time_yardstick(int warmup, int reps) override {
            *calls += 'Y';
            warmups->push_back(warmup);
            return std::vector<double>(reps, yard_ms.at(round++));
        }
        void start_sampling() override { *calls += '['; }
        Sampled stop_sampling() override {
            *calls += ']';
            Sampled s;
            s.sm_clock_mhz = 1500;
            s.power_w = 650;
            s.throttle = "sw_power_cap 40%";
            return s;
        }
        gemm::RunEnvironment environment() const override {
            gemm::RunEnvironment e;
            e.driver = "999.1";
            e.power_limit_w = 700;
            return e;
        }
        std::string l2_flush() const override { return "yes"; }
    };

    TEST_CASE("rounds alternate, the ratio is the median of the rounds' ratios, conditions kept") {
        std::string calls;
        std::vector<int> warmups;
        const char* argv[] = {"scripted", "--sizes", "64",           "--rounds", "5",
                              "--reps",   "3",       "--warmup",     "2",        "--check",
                              "off",      "--out",   "test_protocol"};
        const gemm::ChapterInfo info{"99_scripted", "scripted", 0, {64}};
        const int rc = gemm::run_chapter(
            13, const_cast<char**>(argv), info, Precision::F32, [&](const Options&) {
                return std::unique_ptr<gemm::Backend>(
                    new ScriptedBackend({1.0, 2.0, 0.5, 1.0, 1.1}, &calls, &warmups));
            });
        REQUIRE(rc == 0);
        // A B, B A, A B, B A, A B: neither side always runs first.
        CHECK(calls == "[CYYCCYYCCY]");
        // Warm-up runs before the first round of each side only.
        CHECK(warmups == std::vector<int>{2, 2, 0, 0, 0, 0, 0, 0, 0, 0});
        const std::vector<Row> rows = read_csv("test_protocol/99_scripted.csv");
        REQUIRE(rows.size() == 1);
        const Row& r = rows[0];
        // Ratios 100, 200, 50, 100, 110 %: median 100, spread 50-200.
        CHECK(r.pct_of_yardstick == doctest::Approx(100.0));
        CHECK(r.pct_min == doctest::Approx(50.0));
        CHECK(r.pct_max == doctest::Approx(200.0));
        CHECK(r.rounds == 5);
        CHECK(r.reps == 3);
        CHECK(r.ms_median == doctest::Approx(1.0));
        CHECK(r.yardstick_ms_median == doctest::Approx(1.0));  // pooled: 1,2,0.5,1,1.1 x3
        CHECK(r.sm_clock_mhz == 1500);
        CHECK(r.power_w == 650);
        CHECK(r.throttle == "sw_power_cap 40%");
        CHECK(r.driver == "999.1");
        CHECK(r.power_limit_w == 700);
        CHECK(r.l2_flush == "yes");
        std::filesystem::remove_all("test_protocol");
    }

    TEST_CASE("every row carries the build's stamps: commit, dirty, the chapter's source hash") {
        std::string calls;
        std::vector<int> warmups;
        const char* argv[] = {"scripted", "--sizes", "64",  "--rounds", "1",          "--reps",
                              "1",        "--check", "off", "--out",    "test_stamps"};
        // A tool's name for a configuration of chapter 02 ("02_scripted") takes chapter 02's hash.
        const gemm::ChapterInfo info{"02_scripted", "scripted", 0, {64}};
        const int rc = gemm::run_chapter(
            11, const_cast<char**>(argv), info, Precision::F32, [&](const Options&) {
                return std::unique_ptr<gemm::Backend>(new ScriptedBackend({1.0}, &calls, &warmups));
            });
        REQUIRE(rc == 0);
        const std::vector<Row> rows = read_csv("test_stamps/02_scripted.csv");
        REQUIRE(rows.size() == 1);
        const gemm::BuildStamps& built = gemm::build_stamps();
        CHECK(rows[0].commit == built.commit);
        CHECK(rows[0].dirty == built.dirty);
        CHECK(rows[0].source_hash == gemm::stamp_of("02_cpu_tiled").source_hash);
        CHECK(rows[0].source_hash.size() == 16);
        std::filesystem::remove_all("test_stamps");
    }

    TEST_CASE("the build's stamps: one hash per chapter of the list, none for an unknown one") {
        const gemm::BuildStamps& built = gemm::build_stamps();
        CHECK(built.source_hashes.size() == gemm::chapter_list().size());
        for (const auto& [id, hash] : built.source_hashes) {
            CAPTURE(id);
            CHECK(hash.size() == 16);
            CHECK(gemm::stamp_of(id).source_hash == hash);
        }
        // Kernels differ, and so do their hashes.
        CHECK(gemm::stamp_of("01_cpu_naive").source_hash !=
              gemm::stamp_of("02_cpu_tiled").source_hash);
        CHECK(gemm::stamp_of("99_scripted").source_hash.empty());
        CHECK(gemm::stamp_of("").source_hash.empty());
        // Built in a git checkout: 12 hex digits and true or false; elsewhere both unknown.
        CHECK((built.commit.size() == 12 || built.commit.empty()));
        CHECK((built.dirty == "true" || built.dirty == "false" || built.dirty.empty()));
    }

    TEST_CASE("throttle summary names the slowdowns and their share, not idle or app clocks") {
        CHECK(gemm::throttle_summary({0x1, 0x2, 0x0}) == "none");
        CHECK(gemm::throttle_summary({0x4, 0x4, 0x0, 0x44}) == "sw_power_cap 75%; hw_thermal 25%");
        CHECK(gemm::throttle_summary({}) == "none");
    }
}

// The CPU yardstick the CPU chapters are measured against computes the same product.
#ifdef GEMM_HAVE_CBLAS
TEST_CASE("the CBLAS yardstick computes the same product") {
    for (const gemm::Problem& p : gemm_tests::small_cases()) {
        CAPTURE(gemm_tests::name(p));
        gemm::CheckResult r =
            gemm::check_cpu_gemm(gemm::cblas_yardstick(), p, gemm::CheckMode::Full);
        CHECK_MESSAGE(r.pass, r.summary());
    }
}
#endif

#include "problem.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "fp8_problem.hpp"  // the e4m3 inputs, a case of make_inputs (it includes nothing of ours)

namespace gemm {

namespace {

std::uint64_t splitmix64(std::uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

// Uniform in [-1, 1) with 24 random bits, a pure function of its arguments.
float uniform(std::uint64_t seed, std::uint64_t matrix, std::uint64_t row, std::uint64_t col) {
    std::uint64_t h = splitmix64(seed ^ splitmix64(matrix ^ splitmix64(row ^ splitmix64(col))));
    return static_cast<float>(h >> 40) * (1.0f / 8388608.0f) - 1.0f;
}

// The value as an element of type e holds it (the uniform values of A, B and C0).
float round_to(Element e, float v) {
    switch (e) {
        case Element::F16:
            return round_to_half(v);
        case Element::BF16:
            return round_to_bf16(v);
        default:  // F32 (e4m3 operands are drawn by fp8_problem.cpp)
            return v;
    }
}

void fill(std::vector<float>& m, int rows, int cols, int ld, std::uint64_t seed, std::uint64_t id,
          Element e, float padding) {
    m.assign(std::size_t(rows) * std::size_t(ld), padding);
#pragma omp parallel for schedule(static)
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) {
            float v = uniform(seed, id, std::uint64_t(r), std::uint64_t(c));
            m[std::size_t(r) * ld + c] = round_to(e, v);
        }
}

bool same_bits(float a, float b) {
    return std::memcmp(&a, &b, sizeof a) == 0;
}

// Running verdict over the elements one thread looked at.
struct Tally {
    std::size_t checked = 0, bad = 0;
    double max_abs = 0.0, max_rel = 0.0;
    std::size_t first_bad = std::numeric_limits<std::size_t>::max();  // row * N + col
    double expected = 0.0, got = 0.0, tol = 0.0;
    const char* reason = "";

    void mark_bad(std::size_t where, double e, double g, double t, const char* why) {
        ++bad;
        if (where < first_bad) {
            first_bad = where;
            expected = e;
            got = g;
            tol = t;
            reason = why;
        }
    }

    void compare(std::size_t where, double e, double scale, float g, Precision p, int K) {
        ++checked;
        double t = tolerance(p, K, scale) + output_tolerance(p, e);
        if (!std::isfinite(g)) {
            mark_bad(where, e, g, t,
                     std::isnan(g) ? "NaN (never written, or NaN computed)" : "Inf");
            return;
        }
        double err = std::fabs(double(g) - e);
        max_abs = std::max(max_abs, err);
        if (scale > 0) max_rel = std::max(max_rel, err / scale);
        if (err > t) mark_bad(where, e, g, t, "out of tolerance");
    }

    void merge(const Tally& o) {
        checked += o.checked;
        bad += o.bad;
        max_abs = std::max(max_abs, o.max_abs);
        max_rel = std::max(max_rel, o.max_rel);
        if (o.first_bad < first_bad) {
            first_bad = o.first_bad;
            expected = o.expected;
            got = o.got;
            tol = o.tol;
            reason = o.reason;
        }
    }
};

// Row i of the reference: expected[j] and scale[j] = |alpha| sum_k |a b| + |beta c|.
void reference_row(const HostProblem& hp, int i, double* expected, double* scale) {
    const Problem& p = hp.p;
    const int N = p.shape.N, K = p.shape.K;
    std::fill(expected, expected + N, 0.0);
    std::fill(scale, scale + N, 0.0);
    const bool b_n_by_k = precision_info(p.precision).b_n_by_k;
    if (b_n_by_k) {  // B is N x K: row j of B is column j of the product's B
        const float* a = &hp.A[std::size_t(i) * p.lda];
        for (int j = 0; j < N; ++j) {
            const float* b = &hp.B[std::size_t(j) * p.ldb];
            for (int k = 0; k < K; ++k) {
                const double ab = double(a[k]) * double(b[k]);
                expected[j] += ab;
                scale[j] += std::fabs(ab);
            }
        }
    }
    for (int k = 0; k < K && !b_n_by_k; ++k) {
        const double a = hp.A[std::size_t(i) * p.lda + k];
        const float* b = &hp.B[std::size_t(k) * p.ldb];
        for (int j = 0; j < N; ++j) {
            const double ab = a * double(b[j]);
            expected[j] += ab;
            scale[j] += std::fabs(ab);
        }
    }
    for (int j = 0; j < N; ++j) {
        // beta == 0 means C is not an input (BLAS semantics): C0 is never read.
        const double c = p.beta == 0.0f ? 0.0 : double(hp.C0[std::size_t(i) * p.ldc + j]);
        expected[j] = double(p.alpha) * expected[j] + double(p.beta) * c;
        scale[j] = std::fabs(double(p.alpha)) * scale[j] + std::fabs(double(p.beta) * c);
    }
}

// Elements outside the M x N region (the padding columns) must still hold the sentinel.
void check_padding(const HostProblem& hp, const std::vector<float>& C, Tally& t) {
    const Problem& p = hp.p;
    for (int i = 0; i < p.shape.M; ++i)
        for (int j = p.shape.N; j < p.ldc; ++j) {
            float g = C[std::size_t(i) * p.ldc + j];
            if (!same_bits(g, padding_sentinel(p.precision)))
                t.mark_bad(std::size_t(i) * p.ldc + j, padding_sentinel(p.precision), g, 0.0,
                           "padding written (column >= N)");
        }
}

CheckResult finish(const Tally& t, const char* mode, std::size_t row_len) {
    CheckResult r;
    r.mode = mode;
    r.checked = t.checked;
    r.bad = t.bad;
    r.pass = t.bad == 0;
    r.max_abs_err = t.max_abs;
    r.max_rel_err = t.max_rel;
    if (t.bad) {
        r.bad_row = int(t.first_bad / row_len);
        r.bad_col = int(t.first_bad % row_len);
        r.expected = t.expected;
        r.got = t.got;
        r.tolerance = t.tol;
        r.reason = t.reason;
    }
    return r;
}

}  // namespace

float padding_sentinel(Precision p) {
    return precision_info(p).c == Element::BF16 ? round_to_bf16(kPaddingSentinel)
                                                : kPaddingSentinel;
}

Problem as_precision(Problem p, Precision to) {
    const bool from_nk = precision_info(p.precision).b_n_by_k, to_nk = precision_info(to).b_n_by_k;
    if (p.ldb != 0 && from_nk != to_nk)
        p.ldb = to_nk ? p.shape.K + (p.ldb - p.shape.N) : p.shape.N + (p.ldb - p.shape.K);
    p.precision = to;
    return p;
}

Problem Problem::resolved() const {
    Problem r = *this;
    const Shape& s = shape;
    if (s.M < 0 || s.N < 0 || s.K < 0)
        throw std::invalid_argument("negative dimension in " + str());
    const int b_row = precision_info(precision).b_n_by_k ? s.K : s.N;  // B: K x N or N x K
    if (r.lda == 0) r.lda = s.K;
    if (r.ldb == 0) r.ldb = b_row;
    if (r.ldc == 0) r.ldc = s.N;
    // A leading dimension of 0 for an empty row is legal in BLAS; keep it at least 1 like BLAS
    // does.
    r.lda = std::max(r.lda, 1);
    r.ldb = std::max(r.ldb, 1);
    r.ldc = std::max(r.ldc, 1);
    if (r.lda < s.K || r.ldb < b_row || r.ldc < s.N)
        throw std::invalid_argument("leading dimension shorter than its row in " + r.str());
    if (std::max({s.M, s.N, s.K, r.lda, r.ldb, r.ldc}) > kMaxDimension)
        throw std::invalid_argument(r.str() + " has a dimension above 2^30 (" +
                                    std::to_string(kMaxDimension) +
                                    "), the largest this tutorial takes");
    const std::size_t limit = std::size_t(INT_MAX);
    if (r.elems_A() > limit || r.elems_B() > limit || r.elems_C() > limit)
        throw std::invalid_argument("a matrix of " + r.str() +
                                    " has 2^31 or more elements; this tutorial indexes with int");
    return r;
}

std::string Problem::str() const {
    std::ostringstream s;
    s << "M=" << shape.M << " N=" << shape.N << " K=" << shape.K << " lda=" << lda << " ldb=" << ldb
      << " ldc=" << ldc << " alpha=" << alpha << " beta=" << beta;
    return s.str();
}

float round_to_half(float x) {
    if (!std::isfinite(x) || x == 0.0f) return x;
    const float ax = std::fabs(x);
    if (ax >= 65520.0f) return std::copysign(std::numeric_limits<float>::infinity(), x);
    int e = 0;
    std::frexp(ax, &e);                     // ax = m * 2^e, m in [0.5, 1)
    const int lead = std::max(e - 1, -14);  // exponent of the leading bit; -14: subnormals
    const float quantum = std::ldexp(1.0f, lead - 10);  // half keeps 10 bits after the leading one
    return std::copysign(std::nearbyint(ax / quantum) * quantum, x);  // ties to even
}

HostProblem make_inputs(const Problem& p_in) {
    HostProblem hp;
    hp.p = p_in.resolved();
    const Problem& p = hp.p;
    const PrecisionInfo& d = precision_info(p.precision);
    const int M = p.shape.M, N = p.shape.N, K = p.shape.K;
    if (d.inputs == Inputs::E4M3Codes) {  // codes, scales and their values (fp8_problem.hpp)
        E4M3Operands o = make_e4m3_operands(p.precision, M, N, K, p.lda, p.ldb, p.seed);
        hp.A8 = std::move(o.A8);
        hp.B8 = std::move(o.B8);
        hp.A = std::move(o.A);
        hp.B = std::move(o.B);
        hp.scale_a = std::move(o.scale_a);
        hp.scale_b = std::move(o.scale_b);
    } else {  // uniform, rounded to A and B's type
        const float nan = std::numeric_limits<float>::quiet_NaN();
        fill(hp.A, M, K, p.lda, p.seed, 1, d.ab, nan);
        fill(hp.B, K, N, p.ldb, p.seed, 2, d.ab, nan);
    }
    fill(hp.C0, M, N, p.ldc, p.seed, 3, d.c, padding_sentinel(p.precision));  // rounded to C's type
    return hp;
}

void make_positive(HostProblem& hp) {
    for (auto* v : {&hp.A8, &hp.B8})
        for (std::uint8_t& c : *v)
            if (c != kE4M3NaN) c &= 0x7F;  // the padding keeps its NaN code (0xFF is NaN too)
    for (auto* v : {&hp.A, &hp.B})
        for (float& x : *v) x = std::fabs(x);
}

std::vector<float> initial_C(const HostProblem& hp) {
    if (hp.p.beta != 0.0f) return hp.C0;
    std::vector<float> C(hp.C0.size(), padding_sentinel(hp.p.precision));
    const float nan = std::numeric_limits<float>::quiet_NaN();
    for (int i = 0; i < hp.p.shape.M; ++i)
        std::fill_n(&C[std::size_t(i) * hp.p.ldc], hp.p.shape.N, nan);
    return C;
}

double tolerance(Precision p, int K, double scale) {
    switch (precision_info(p).sums) {
        case Sums::Fma:
            return std::ldexp(1.0, -24) * (4.0 * std::sqrt(double(K)) + 8.0) * scale;
        case Sums::TensorCore:
            return std::ldexp(1.0, -22) * (4.0 * std::sqrt(double(K)) + 8.0) * scale;
        case Sums::Unpromoted:
            return std::ldexp(1.0, -11) * (double(K) / 32.0 + 8.0) * scale;
        case Sums::Promoted:  // promoted every 128 of K: short chains of 4 steps, then fp32 adds
            return (std::ldexp(1.0, -11) * 8.0 + std::ldexp(1.0, -24) * (double(K) / 128.0 + 8.0)) *
                   scale;
    }
    throw std::logic_error("tolerance: a Sums value without its rule");
}

double output_tolerance(Precision p, double expected) {
    return precision_info(p).c == Element::BF16 ? std::ldexp(std::fabs(expected), -8) : 0.0;
}

void reference_gemm(const HostProblem& hp, std::vector<double>& expected,
                    std::vector<double>& scale) {
    const int M = hp.p.shape.M, N = hp.p.shape.N;
    expected.assign(std::size_t(M) * N, 0.0);
    scale.assign(std::size_t(M) * N, 0.0);
#pragma omp parallel for schedule(dynamic, 4)
    for (int i = 0; i < M; ++i)
        reference_row(hp, i, &expected[std::size_t(i) * N], &scale[std::size_t(i) * N]);
}

CheckResult check_full(const HostProblem& hp, const std::vector<float>& C) {
    const Problem& p = hp.p;
    const int M = p.shape.M, N = p.shape.N;
    Tally total;
#pragma omp parallel
    {
        Tally mine;
        std::vector<double> expected(static_cast<std::size_t>(N)),
            scale(static_cast<std::size_t>(N));
#pragma omp for schedule(dynamic, 4) nowait
        for (int i = 0; i < M; ++i) {
            reference_row(hp, i, expected.data(), scale.data());
            for (int j = 0; j < N; ++j)
                mine.compare(std::size_t(i) * p.ldc + j, expected[j], scale[j],
                             C[std::size_t(i) * p.ldc + j], p.precision, p.shape.K);
        }
#pragma omp critical
        total.merge(mine);
    }
    check_padding(hp, C, total);
    return finish(total, "full", std::size_t(p.ldc));
}

CheckResult check_sampled(const HostProblem& hp, const std::vector<float>& C, int samples) {
    const Problem& p = hp.p;
    const int M = p.shape.M, N = p.shape.N, K = p.shape.K;
    Tally t;
    if (M == 0 || N == 0) return finish(t, "sample", std::size_t(p.ldc));

    // Every element: finite? (An element the kernel never wrote still holds the NaN poison.)
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
            float g = C[std::size_t(i) * p.ldc + j];
            if (!std::isfinite(g))
                t.mark_bad(std::size_t(i) * p.ldc + j, 0.0, g, 0.0,
                           std::isnan(g) ? "NaN (never written, or NaN computed)" : "Inf");
        }
    check_padding(hp, C, t);

    // Positions: the corners, the last row and column (edge tiles), then random ones.
    std::vector<std::size_t> where;
    for (int i : {0, M / 2, M - 1})
        for (int j : {0, N / 2, N - 1}) where.push_back(std::size_t(i) * p.ldc + j);
    for (int s = 0; s < 64; ++s) {
        where.push_back(std::size_t(M - 1) * p.ldc + std::size_t(splitmix64(p.seed + 11 * s) % N));
        where.push_back(std::size_t(splitmix64(p.seed + 13 * s) % M) * p.ldc + (N - 1));
    }
    for (int s = 0; s < samples; ++s) {
        std::uint64_t h = splitmix64(p.seed ^ (0xC0FFEEull + std::uint64_t(s)));
        where.push_back(std::size_t(h % std::uint64_t(M)) * p.ldc + std::size_t((h >> 32) % N));
    }
    std::sort(where.begin(), where.end());
    where.erase(std::unique(where.begin(), where.end()), where.end());

    std::vector<Tally> per(where.size());
#pragma omp parallel for schedule(dynamic, 16)
    for (std::size_t w = 0; w < where.size(); ++w) {
        const std::size_t i = where[w] / p.ldc, j = where[w] % p.ldc;
        if (!std::isfinite(C[where[w]])) {  // already counted by the scan above
            per[w].checked = 1;
            continue;
        }
        double acc = 0.0, sc = 0.0;
        const bool bt = precision_info(p.precision).b_n_by_k;  // B stored N x K
        for (int k = 0; k < K; ++k) {
            const double ab = double(hp.A[i * p.lda + k]) *
                              double(bt ? hp.B[j * p.ldb + k] : hp.B[std::size_t(k) * p.ldb + j]);
            acc += ab;
            sc += std::fabs(ab);
        }
        const double c = p.beta == 0.0f ? 0.0 : double(hp.C0[i * p.ldc + j]);
        const double e = double(p.alpha) * acc + double(p.beta) * c;
        const double scale = std::fabs(double(p.alpha)) * sc + std::fabs(double(p.beta) * c);
        per[w].compare(where[w], e, scale, C[where[w]], p.precision, K);
    }
    for (const Tally& x : per) t.merge(x);
    return finish(t, "sample", std::size_t(p.ldc));
}

std::string CheckResult::summary() const {
    if (!pass && checked == 0 && !reason.empty()) return "FAIL: " + reason;  // nothing came back
    std::ostringstream s;
    s << (pass ? "PASS" : "FAIL") << " (" << mode << " check, " << checked << " elements";
    if (mode != "off") s << ", max abs err " << max_abs_err << ", max rel err " << max_rel_err;
    s << ")";
    if (!pass)
        s << ": " << bad << " bad; first at (row " << bad_row << ", col " << bad_col
          << "): " << reason << ", expected " << expected << ", got " << got << ", tolerance "
          << tolerance;
    return s.str();
}

}  // namespace gemm

// Inputs of one GEMM run, the double-precision reference, and the honest comparison.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "chapter.hpp"
#include "precision.hpp"  // what A, B and C hold, per precision

namespace gemm {

// The largest M, N, K, lda, ldb or ldc the harness takes, 2^30: kernels add a tile to an index
// in int (k0 + BK, i0 + BM), which must not overflow even on the last tile.
constexpr int kMaxDimension = 1 << 30;

struct Problem {
    Shape shape;
    int lda = 0, ldb = 0, ldc = 0;  // 0 means tight: K, N (K when B is N x K), N
    float alpha = 1.0f, beta = 0.0f;
    std::uint64_t seed = 2024;
    Precision precision = Precision::F32;
    // GPU checks only: the matrices start this many elements after their allocation, like a view
    // into a bigger matrix (1 makes every base pointer miss its 16-byte alignment).
    int view_offset = 0;

    // Fills the tight leading dimensions and checks that lda >= K, ldb >= N (>= K when B is N x K,
    // precision.hpp), ldc >= N, that no
    // dimension or leading dimension exceeds kMaxDimension and that every matrix (padding
    // included) has fewer than 2^31 elements, so that int indexing is safe. Throws
    // std::invalid_argument naming the problem.
    Problem resolved() const;
    std::size_t elems_A() const { return std::size_t(shape.M) * std::size_t(lda); }
    std::size_t elems_B() const {
        return std::size_t(precision_info(precision).b_n_by_k ? shape.N : shape.K) *
               std::size_t(ldb);
    }
    std::size_t elems_C() const { return std::size_t(shape.M) * std::size_t(ldc); }
    std::string str() const;  // "M=17 N=33 K=65 lda=68 ldb=33 ldc=40 alpha=1 beta=0"
};

// The value every padding column of C holds before a run; a kernel that changes it fails.
constexpr float kPaddingSentinel = -77777.0f;
// The same, as C of this precision holds it (bf16 C: -77824).
float padding_sentinel(Precision p);

// The same problem in precision `to`. Where B's layout changes (K x N to N x K or back), a padded
// ldb keeps its padding past the row (ldb - N elements past N become as many past K, and back),
// so that the shared awkward shapes of tests/cases.hpp and the grading shapes keep their padded B.
Problem as_precision(Problem p, Precision to);

// Host copies of the inputs exactly as the kernel sees them (F16: already rounded to half and
// stored back as float), with their padding. Padding of A and B holds NaN, so a kernel that lets a
// value beyond the row end into its sums fails; padding of C holds kPaddingSentinel.
struct HostProblem {
    Problem p;
    std::vector<float> A, B, C0;  // C0: C before the run (beta * C0 is part of the answer)
    // The FP8 precisions only: what the kernel reads, the e4m3 codes (padding: the NaN code 0x7F)
    // and the scales (layouts: fp8_problem.hpp). A and B above then hold the dequantized values,
    // code * scale, exact in float, which the reference multiplies; C0 is bf16-exact.
    std::vector<std::uint8_t> A8, B8;
    std::vector<float> scale_a, scale_b;
};

// Deterministic inputs: uniform in [-1, 1), a pure function of (seed, matrix, row, column), so the
// same seed gives the same matrices on every machine and thread count.
HostProblem make_inputs(const Problem& p);

// The same inputs without their signs (codes and dequantized values of A and B): sums that grow
// like K, the case where an unpromoted accumulator loses the most (activations after a ReLU look
// like this). For the e4m3 precisions; on others it drops the signs of A and B's values.
void make_positive(HostProblem& hp);

// Rounds a float to the nearest IEEE half (ties to even) and returns it as float.
float round_to_half(float x);

// C as it must be before a checked run: beta == 0 poisons it with NaN (the kernel must not read it
// and must write every element); otherwise C0. Padding gets the sentinel either way.
std::vector<float> initial_C(const HostProblem& hp);

struct CheckResult {
    std::string mode = "off";  // "full", "sample" or "off"
    bool pass = true;
    std::size_t checked = 0;   // elements compared against the reference
    std::size_t bad = 0;       // elements out of tolerance, non-finite, or padding written
    double max_abs_err = 0.0;  // max |got - expected|
    double max_rel_err = 0.0;  // max |got - expected| / (|alpha| sum|a||b| + |beta c|)
    // The first bad element in row-major order of the elements checked, -1 when none.
    int bad_row = -1, bad_col = -1;
    double expected = 0.0, got = 0.0, tolerance = 0.0;
    std::string reason;           // e.g. "NaN", "out of tolerance", "padding written"
    std::string summary() const;  // one line for logs and test failures
};

// Per-element tolerance: |got - expected| <= u * (4 sqrt(K) + 8) * (|alpha| sum_k |a b| + |beta c|)
// with u the unit roundoff of the accumulation (2^-24 for fp32 FMA; 2^-22 for tensor cores, which
// may truncate inside their adders). The scale term bounds what rounding can do; a wrong index,
// a missing term or a skipped tile is orders of magnitude larger.
// FP8: Hopper's e4m3 wgmma adds in short adders that lose up to about 2^-11 of the running sum per
// 32-deep step (measured: 37% low after 1024 steps of positive terms, chapter 20's README).
// Unpromoted (E4M3Fast) the bound grows linearly with K: 2^-11 * (K / 32 + 8) * scale. Promoted
// every 128 of K (E4M3, E4M3Block) a short chain is 4 steps: 2^-11 * (4 + 4) * scale, plus fp32's
// 2^-24 per promotion, 2^-24 * (K / 128 + 8) * scale. Both plus the bf16 rounding of C,
// output_tolerance().
double tolerance(Precision p, int K, double scale);
// What rounding the result to C's type may add: 0 for float C, 2^-8 |expected| for bf16 C.
// Both read the precision's descriptor (precision.hpp): its Sums and its C.
double output_tolerance(Precision p, double expected);

// Full check: the reference for every element in double (OpenMP), then the comparison.
CheckResult check_full(const HostProblem& hp, const std::vector<float>& C);

// Sampled check for sizes too large for the full reference: `samples` random elements plus the
// corners and the last row and column, each computed in double. Every element of C is still
// scanned for NaN/Inf (an unwritten poisoned element) and every padding column for writes.
CheckResult check_sampled(const HostProblem& hp, const std::vector<float>& C, int samples = 4096);

// Reference in double for all of C (row-major, tight M x N): expected and the error scale.
void reference_gemm(const HostProblem& hp, std::vector<double>& expected,
                    std::vector<double>& scale);

}  // namespace gemm

#include "fp8_problem.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>

namespace gemm {

namespace {

std::uint64_t mix(std::uint64_t x) {  // splitmix64, as problem.cpp draws its inputs
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}
std::uint64_t hash(std::uint64_t seed, std::uint64_t matrix, std::uint64_t row, std::uint64_t col) {
    return mix(seed ^ mix(matrix ^ mix(row ^ mix(col))));
}
// Uniform in [-1, 1) with 24 random bits (the same function as problem.cpp's inputs).
float uniform(std::uint64_t h) {
    return static_cast<float>(h >> 40) * (1.0f / 8388608.0f) - 1.0f;
}
// 2^-e (1 + m / 8) / 448, e in 0..4, m in 0..7: a scale with 4 significant bits.
float scale_value(std::uint64_t h) {
    const int e = int(h % 5), m = int((h >> 8) % 8);
    return std::ldexp(1.0f + float(m) / 8.0f, -e) / 448.0f;
}

// Matrix ids of the draws: 1, 2, 3 are A, B, C as in problem.cpp; 4, 5 the scales of A and B.
void fill_codes(std::vector<std::uint8_t>& codes, std::vector<float>& values, int rows, int cols,
                int ld, std::uint64_t seed, std::uint64_t id) {
    codes.assign(std::size_t(rows) * std::size_t(ld), kE4M3NaN);
    values.assign(codes.size(), std::numeric_limits<float>::quiet_NaN());
#pragma omp parallel for schedule(static)
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c)
            codes[std::size_t(r) * ld + c] =
                float_to_e4m3(448.0f * uniform(hash(seed, id, std::uint64_t(r), std::uint64_t(c))));
}

}  // namespace

float e4m3_to_float(std::uint8_t code) {
    const int e = (code >> 3) & 0xF, m = code & 7;
    if (e == 15 && m == 7) return std::numeric_limits<float>::quiet_NaN();
    const float v = e == 0 ? std::ldexp(float(m), -9) : std::ldexp(1.0f + float(m) / 8.0f, e - 7);
    return code & 0x80 ? -v : v;
}

std::uint8_t float_to_e4m3(float x) {
    if (std::isnan(x)) return kE4M3NaN;
    const std::uint8_t sign = std::signbit(x) ? 0x80 : 0;
    const float a = std::fmin(std::fabs(x), 448.0f);    // satfinite
    if (a < std::ldexp(1.0f, -6)) {                     // subnormal range: steps of 2^-9
        const int m = int(std::nearbyint(a * 512.0f));  // ties to even; 8 is the smallest normal
        return std::uint8_t(sign | m);  // m == 8 encodes 1.000 x 2^-6: the same bits
    }
    int ex = 0;
    std::frexp(a, &ex);                                 // a = f 2^ex, f in [0.5, 1)
    int e = ex - 1;                                     // a in [2^e, 2^(e+1))
    int q = int(std::nearbyint(std::ldexp(a, 3 - e)));  // 8..16: 1.mmm in eighths, ties to even
    if (q == 16) q = 8, ++e;
    return std::uint8_t(sign | (e + 7) << 3 | (q - 8));
}

float round_to_bf16(float x) {
    if (std::isnan(x)) return x;
    std::uint32_t u = 0;
    std::memcpy(&u, &x, sizeof u);
    u += 0x7FFFu + ((u >> 16) & 1u);  // ties to even; a finite value past the largest becomes Inf
    u &= 0xFFFF0000u;
    float r = 0.0f;
    std::memcpy(&r, &u, sizeof r);
    return r;
}

std::size_t fp8_scale_a_count(Precision p, int M, int K) {
    return precision_info(p).scales == Scales::Blocks
               ? std::size_t(fp8_k_blocks(K)) * std::size_t(M)
               : 1;
}
std::size_t fp8_scale_b_count(Precision p, int N, int K) {
    return precision_info(p).scales == Scales::Blocks
               ? std::size_t((N + kFp8Block - 1) / kFp8Block) * std::size_t(fp8_scale_b_ld(K))
               : 1;
}

E4M3Operands make_e4m3_operands(Precision precision, int M, int N, int K, int lda, int ldb,
                                std::uint64_t seed) {
    E4M3Operands o;
    const bool blocks = precision_info(precision).scales == Scales::Blocks;
    fill_codes(o.A8, o.A, M, K, lda, seed, 1);
    fill_codes(o.B8, o.B, N, K, ldb, seed, 2);

    o.scale_a.assign(fp8_scale_a_count(precision, M, K), 0.0f);
    o.scale_b.assign(fp8_scale_b_count(precision, N, K), std::numeric_limits<float>::quiet_NaN());
    const int kb_count = fp8_k_blocks(K), ld_sb = fp8_scale_b_ld(K);
    if (blocks) {
        for (int kb = 0; kb < kb_count; ++kb)
            for (int m = 0; m < M; ++m)
                o.scale_a[std::size_t(kb) * M + m] = scale_value(hash(seed, 4, m, kb));
        for (int nb = 0; nb < (N + kFp8Block - 1) / kFp8Block; ++nb)
            for (int kb = 0; kb < kb_count; ++kb)
                o.scale_b[std::size_t(nb) * ld_sb + kb] = scale_value(hash(seed, 5, nb, kb));
    } else {
        o.scale_a[0] = scale_value(hash(seed, 4, 0, 0));
        o.scale_b[0] = scale_value(hash(seed, 5, 0, 0));
    }
    auto sa = [&](int m, int k) {
        return blocks ? o.scale_a[std::size_t(k / kFp8Block) * M + m] : o.scale_a[0];
    };
    auto sb = [&](int n, int k) {
        return blocks ? o.scale_b[std::size_t(n / kFp8Block) * ld_sb + k / kFp8Block]
                      : o.scale_b[0];
    };
#pragma omp parallel for schedule(static)
    for (int m = 0; m < M; ++m)
        for (int k = 0; k < K; ++k)
            o.A[std::size_t(m) * lda + k] =
                e4m3_to_float(o.A8[std::size_t(m) * lda + k]) * sa(m, k);
#pragma omp parallel for schedule(static)
    for (int n = 0; n < N; ++n)
        for (int k = 0; k < K; ++k)
            o.B[std::size_t(n) * ldb + k] =
                e4m3_to_float(o.B8[std::size_t(n) * ldb + k]) * sb(n, k);
    return o;
}

}  // namespace gemm

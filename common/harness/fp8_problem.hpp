// What the FP8 chapters (20-23) add to the inputs: e4m3 codes, their scales, bf16 rounding.
// problem.cpp's make_inputs calls it for the precisions whose inputs are Inputs::E4M3Codes
// (precision.hpp); it knows nothing of problem.hpp (one way: problem -> fp8_problem).
// The contract (chapters/20_fp8_e4m3/README.md): C (M x N, bf16) = alpha * (sa * A) * (sb * B)^T +
// beta * C with A (M x K) and B (N x K) row-major e4m3 codes, both K-major as FP8 wgmma needs, and
// sa, sb their scales: one float each (Precision::E4M3Fast, E4M3), or one per 1 x 128 block of A
// and per 128 x 128 block of B (Precision::E4M3Block, DeepSeek-V3's granularity).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "precision.hpp"

namespace gemm {

// e4m3 (OCP FP8 E4M3, "e4m3fn"): sign, 4 exponent bits (bias 7), 3 mantissa bits; no infinities,
// S.1111.111 is NaN; the largest value 448, the smallest normal 2^-6, the smallest subnormal 2^-9.
constexpr std::uint8_t kE4M3NaN = 0x7F;
float e4m3_to_float(std::uint8_t code);
// Nearest e4m3 value (ties to even), saturating to +-448 as cvt.satfinite does; NaN gives 0x7F.
std::uint8_t float_to_e4m3(float x);
// Nearest bf16 value (ties to even), returned as float.
float round_to_bf16(float x);

// Scale layouts, the ones cuBLASLt's VEC128_32F (for A) and BLK128x128_32F (for B) read, so that
// one set of buffers serves the chapter and its yardstick:
//   A: scale_a[kb * M + m]        one float per row m and 128-deep block kb of K (rows contiguous)
//   B: scale_b[nb * ld_sb + kb]   one float per 128 x 128 block (nb of N, kb of K); ld_sb is the
//                                  number of K-blocks rounded up to a multiple of 4
// Per-tensor (Precision::E4M3): one float each.
constexpr int kFp8Block = 128;
inline int fp8_k_blocks(int K) {
    return (K + kFp8Block - 1) / kFp8Block;
}
inline int fp8_scale_b_ld(int K) {
    return (fp8_k_blocks(K) + 3) / 4 * 4;
}
std::size_t fp8_scale_a_count(Precision p, int M, int K);
std::size_t fp8_scale_b_count(Precision p, int N, int K);

// The e4m3 operands of one problem: the codes (what the kernel reads; padding the NaN code 0x7F),
// the scales (layouts above), and the dequantized values code * scale (padding NaN), which the
// reference multiplies: 4 + 4 significant bits, exact in float, every product exact in double.
struct E4M3Operands {
    std::vector<std::uint8_t> A8, B8;     // M x lda, N x ldb
    std::vector<float> A, B;              // the same, dequantized
    std::vector<float> scale_a, scale_b;  // the padding of scale_b past the K-blocks is NaN
};
// Codes e4m3(448 u) for u the harness's seeded uniform values in [-1, 1) (matrix ids 1 and 2, as
// problem.cpp draws them), quantized at full range; scales 2^-e (1 + m / 8) / 448 with e in 0..4
// and m in 0..7 drawn per tensor or per block (so a block's scale differs from its neighbour's by
// up to 30x, and a kernel that applies the wrong one fails). `p`: an FP8 precision; B is N x K.
E4M3Operands make_e4m3_operands(Precision p, int M, int N, int K, int lda, int ldb,
                                std::uint64_t seed);

}  // namespace gemm

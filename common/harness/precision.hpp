// Each precision a chapter can have, named once: what A, B and C hold, B's layout, the check's
// tolerance, the inputs and the yardstick. chapters/chapters.txt gives each chapter's (its `list`
// name); everything of the harness that differs between precisions reads it from this table, and
// tools/build/chapters.py holds the same names, bytes and layouts for the tools.
//
// list       CSV name    A, B                C     bytes A,B / C  B      inputs
// fp32       fp32        float               fp32  4 / 4          K x N  uniform in [-1, 1)
// fp16       fp16        half                fp32  2 / 4          K x N  the same, rounded to half
// fp8_fast   e4m3-fast   e4m3, tensor scale  bf16  1 / 2          N x K  e4m3 codes and scales
// fp8        e4m3        e4m3, tensor scale  bf16  1 / 2          N x K  e4m3 codes and scales
// fp8_block  e4m3-block  e4m3, block scales  bf16  1 / 2          N x K  e4m3 codes, block scales
//
// list       sums (the tolerance)                       yardstick (GPU; CPU chapters: CBLAS)
// fp32       fp32 FMA: 2^-24 (4 sqrt K + 8)             cuBLAS cublasSgemm
// fp16       tensor cores: 2^-22 (4 sqrt K + 8)         cuBLAS cublasGemmEx, fp16 in, fp32 out
// fp8_fast   unpromoted: 2^-11 (K / 32 + 8), bf16 C     cuBLASLt FP8, fast accumulation
// fp8        promoted every 128 of K, bf16 C            cuBLASLt FP8, its default
// fp8_block  promoted every 128 of K, bf16 C            cuBLASLt FP8, 1x128 / 128x128 block scales
//
// The tolerance rules are explained where they are computed (problem.hpp, tolerance()); the e4m3
// codes, scales and their layouts in fp8_problem.hpp.
#pragma once

#include <stdexcept>
#include <string>

namespace gemm {

enum class Precision { F32, F16, E4M3, E4M3Block, E4M3Fast };

enum class Element { F32, F16, E4M3, BF16 };
// How the sums are formed, which sets the check's tolerance (tolerance() in problem.cpp).
enum class Sums {
    Fma,         // fp32 FMA: 2^-24 (4 sqrt K + 8)
    TensorCore,  // fp16 tensor cores, which may truncate in their adders: 2^-22 (4 sqrt K + 8)
    Unpromoted,  // e4m3 wgmma's short adders all along K: 2^-11 (K / 32 + 8)
    Promoted,    // the same, promoted to fp32 every 128 of K: 2^-11 8 + 2^-24 (K / 128 + 8)
};
enum class Inputs { Uniform, UniformHalf, E4M3Codes };  // make_inputs()
enum class Scales { None, PerTensor, Blocks };          // of the e4m3 codes (fp8_problem.hpp)
// The library call timed beside the chapter on the GPU (yardsticks.cu).
enum class Yardstick {
    CublasSgemm,
    CublasGemmEx,
    CublasLtFp8,
    CublasLtFp8FastAccum,
    CublasLtFp8Blocks
};

struct PrecisionInfo {
    Precision id;
    const char* list;  // chapters/chapters.txt's precision column
    const char* name;  // the harness's: the CSV's precision column, the report's inputs line
    Element ab, c;     // A and B; C (the accumulation is fp32 in every case)
    int ab_bytes, c_bytes;
    bool b_n_by_k;  // B stored N x K, K-major (C = A B^T), as FP8 wgmma reads it; else K x N
    Scales scales;
    Sums sums;
    Inputs inputs;
    Yardstick yardstick;         // what the GPU backend times beside the chapter
    const char* yardstick_name;  // as the report and the CSV name it
};

// One entry per precision, in the order of enum Precision.
constexpr PrecisionInfo kPrecisions[] = {
    {Precision::F32, "fp32", "fp32", Element::F32, Element::F32, 4, 4, false, Scales::None,
     Sums::Fma, Inputs::Uniform, Yardstick::CublasSgemm, "cuBLAS cublasSgemm"},
    {Precision::F16, "fp16", "fp16", Element::F16, Element::F32, 2, 4, false, Scales::None,
     Sums::TensorCore, Inputs::UniformHalf, Yardstick::CublasGemmEx,
     "cuBLAS cublasGemmEx fp16->fp32"},
    {Precision::E4M3, "fp8", "e4m3", Element::E4M3, Element::BF16, 1, 2, true, Scales::PerTensor,
     Sums::Promoted, Inputs::E4M3Codes, Yardstick::CublasLtFp8,
     "cuBLASLt FP8 e4m3->bf16, per-tensor scales (promoted, its default)"},
    {Precision::E4M3Block, "fp8_block", "e4m3-block", Element::E4M3, Element::BF16, 1, 2, true,
     Scales::Blocks, Sums::Promoted, Inputs::E4M3Codes, Yardstick::CublasLtFp8Blocks,
     "cuBLASLt FP8 e4m3->bf16, 1x128/128x128 block scales"},
    {Precision::E4M3Fast, "fp8_fast", "e4m3-fast", Element::E4M3, Element::BF16, 1, 2, true,
     Scales::PerTensor, Sums::Unpromoted, Inputs::E4M3Codes, Yardstick::CublasLtFp8FastAccum,
     "cuBLASLt FP8 e4m3->bf16, per-tensor scales, fast accumulation (unpromoted)"},
};
constexpr int kPrecisionCount = int(sizeof kPrecisions / sizeof kPrecisions[0]);

constexpr bool in_enum_order() {
    for (int i = 0; i < kPrecisionCount; ++i)
        if (int(kPrecisions[i].id) != i) return false;
    return true;
}
static_assert(in_enum_order(), "kPrecisions: one entry per Precision, in the enum's order");

inline const PrecisionInfo& precision_info(Precision p) {
    return kPrecisions[int(p)];
}
inline const char* to_string(Precision p) {
    return precision_info(p).name;
}
// The precision of chapters/chapters.txt's value `list_value` ("fp8_block"); anything else throws
// std::invalid_argument naming the value and the ones there are.
inline Precision precision_from_list(const std::string& list_value) {
    std::string known;
    for (const PrecisionInfo& p : kPrecisions) {
        if (list_value == p.list) return p.id;
        known += std::string(known.empty() ? "" : ", ") + p.list;
    }
    throw std::invalid_argument("precision '" + list_value + "' is not one of the list's (" +
                                known + ")");
}

}  // namespace gemm

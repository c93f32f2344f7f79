// The FP8 chapters' accuracy experiments (chapter 20's and 23's READMEs), on a 256 x 256 C (bf16).
// 1. Error against K: how far each chapter's C lands from the double-precision product of the same
//    (dequantized) e4m3 inputs as K grows, with cuBLASLt's three modes beside them. Two input
//    distributions: "signed", the harness's inputs (codes of 448 u, u uniform in [-1, 1)), whose
//    sums grow like sqrt(K); "positive", the same codes without their signs, whose sums grow like
//    K, the case where an unpromoted accumulator loses the most (activations after a ReLU).
//    Error: ||C - C_ref||_F / ||C_ref||_F, and the largest |C - C_ref| / |C_ref| of one element.
//    C is bf16, so about 2^-9 of it is the output's own rounding, the floor every curve shares.
// 2. Quantization with per-block magnitudes: float inputs whose rows of A each have a magnitude
//    2^-e, e uniform in 0..16 (the largest rows, outliers, set a per-tensor scale), times 2^-e' per
//    1 x 128 block of A and 128 x 128 block of B, e' in 0..4; quantized to e4m3 with one scale per
//    tensor (amax / 448) or per block, multiplied by chapters 22 and 23 and cuBLASLt; the error is
//    against the product of the float inputs, per row (small rows lose their bits to subnormals
//    under one scale per tensor).
// Writes <out>/fp8_accuracy.csv (tools/reporting/plot.py draws fp8_accuracy.svg from it).
//   build/tools/fp8_accuracy [--out DIR] [--m 256] [--kmax 65536] [--seed 2024]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "20_fp8_e4m3/kernel.cuh"
#include "21_fp8_promoted/kernel.cuh"
#include "22_fp8_persistent/kernel.cuh"
#include "23_fp8_block_scaled/kernel.cuh"
#include "24_fp8_split_k/kernel.cuh"
#include "harness_fp8.cuh"
#include "harness_gpu.cuh"

namespace {

struct Kernel {
    const char* name;
    gemm::Precision scaling;
    gemm::GpuGemmFp8 fn;
    bool cublaslt, fast_accum;
};

const Kernel kKernels[] = {
    // per-tensor ones first, as each table row prints them
    {"20_fp8_e4m3 (unpromoted)", gemm::Precision::E4M3, ch20::gemm, false, false},
    {"21_fp8_promoted", gemm::Precision::E4M3, ch21::gemm, false, false},
    {"22_fp8_persistent", gemm::Precision::E4M3, ch22::gemm, false, false},
    {"cuBLASLt default", gemm::Precision::E4M3, gemm::cublaslt_fp8, true, false},
    {"cuBLASLt fast accumulation", gemm::Precision::E4M3, gemm::cublaslt_fp8_fast_accum, true,
     true},
    {"23_fp8_block_scaled", gemm::Precision::E4M3Block, ch23::gemm, false, false},
    {"24_fp8_split_k", gemm::Precision::E4M3Block, ch24::gemm, false, false},
    {"cuBLASLt block scales", gemm::Precision::E4M3Block, gemm::cublaslt_fp8_blocks, true, false},
};
[[noreturn]] void usage_error(const std::string& what) {
    std::fprintf(stderr,
                 "fp8_accuracy: error: %s\nusage: fp8_accuracy [--out DIR] [--m M] [--kmax K] "
                 "[--seed S]\n",
                 what.c_str());
    std::exit(2);
}

int positive_int(const char* flag, const char* text) {
    char* end = nullptr;
    const long v = std::strtol(text, &end, 10);
    if (!*text || *end || v <= 0 || v > (1 << 20))
        usage_error(std::string(flag) + " " + text + ": expected a whole number from 1 to 2^20");
    return int(v);
}

// ||got - expected|| / ||expected|| over the rows [r0, r1) of an m-column C (row-major, tight).
double relative_error(const std::vector<float>& got, const std::vector<double>& expected, int m,
                      int r0, int r1) {
    double num = 0, den = 0;
    for (std::size_t i = std::size_t(r0) * m; i < std::size_t(r1) * m; ++i) {
        const double d = double(got[i]) - expected[i];
        num += d * d;
        den += expected[i] * expected[i];
    }
    return den > 0 ? std::sqrt(num / den) : 0.0;
}
double max_element_error(const std::vector<float>& got, const std::vector<double>& expected) {
    double worst = 0;
    for (std::size_t i = 0; i < expected.size(); ++i)
        if (expected[i] != 0)
            worst =
                std::fmax(worst, std::fabs(double(got[i]) - expected[i]) / std::fabs(expected[i]));
    return worst;
}

std::uint64_t mix(std::uint64_t x) {  // splitmix64
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}
float uniform(std::uint64_t seed, std::uint64_t id, std::uint64_t r, std::uint64_t c) {
    return float(mix(seed ^ mix(id ^ mix(r ^ mix(c)))) >> 40) * (1.0f / 8388608.0f) - 1.0f;
}

// Experiment 2's inputs: float A (rows x K) with magnitude 2^-(e_row + e_block): e_row uniform in
// 0..row_emax per row (a few rows of outliers set a per-tensor scale), e_block in 0..emax per
// (block_rows, 128) block; quantized with one scale per tensor or one per block into codes and
// scales (the layouts of fp8_problem.hpp); `values` keeps the float inputs.
void quantize(int rows, int K, int block_rows, int row_emax, int emax, std::uint64_t seed,
              std::uint64_t id, bool blocks, std::vector<std::uint8_t>& codes,
              std::vector<float>& scales, std::vector<float>& values, bool is_b) {
    const int kb_count = gemm::fp8_k_blocks(K), ld_sb = gemm::fp8_scale_b_ld(K);
    values.assign(std::size_t(rows) * K, 0.0f);
    for (int r = 0; r < rows; ++r) {
        const int e_row = int(mix(seed ^ mix(id + 7) ^ mix(std::uint64_t(r))) % (row_emax + 1));
        for (int k = 0; k < K; ++k) {
            const std::uint64_t h = mix(seed ^ mix(id + 100 * std::uint64_t(r / block_rows)) ^
                                        mix(std::uint64_t(k / 128)));
            const int e = e_row + int(h % (emax + 1));
            values[std::size_t(r) * K + k] = std::ldexp(uniform(seed, id, r, k), -e);
        }
    }
    auto scale_index = [&](int r, int k) -> std::size_t {
        if (!blocks) return 0;
        return is_b ? std::size_t(r / 128) * ld_sb + k / 128 : std::size_t(k / 128) * rows + r;
    };
    scales.assign(
        blocks ? (is_b ? std::size_t((rows + 127) / 128) * ld_sb : std::size_t(kb_count) * rows)
               : 1,
        0.0f);
    for (int r = 0; r < rows; ++r)  // amax per scale
        for (int k = 0; k < K; ++k) {
            float& a = scales[scale_index(r, k)];
            a = std::fmax(a, std::fabs(values[std::size_t(r) * K + k]));
        }
    for (float& sc : scales) sc = sc > 0 ? sc / 448.0f : 1.0f;
    codes.assign(values.size(), 0);
    for (int r = 0; r < rows; ++r)
        for (int k = 0; k < K; ++k)
            codes[std::size_t(r) * K + k] =
                gemm::float_to_e4m3(values[std::size_t(r) * K + k] / scales[scale_index(r, k)]);
}

}  // namespace

int main(int argc, char** argv) {
    std::string out = "plots/latest";
    int m = 256, kmax = 65536;
    unsigned long long seed = 2024;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (i + 1 >= argc) usage_error(a + " needs a value");
        if (a == "--out")
            out = argv[++i];
        else if (a == "--m")
            m = positive_int("--m", argv[++i]);
        else if (a == "--kmax")
            kmax = positive_int("--kmax", argv[++i]);
        else if (a == "--seed")
            seed = std::strtoull(argv[++i], nullptr, 10);
        else
            usage_error("unknown argument " + a);
    }
    std::string why;
    if (!gemm::cuda_device_available(&why)) {
        std::printf("fp8_accuracy: skipped: %s\n", why.c_str());
        return 77;
    }
    cudaDeviceProp prop{};
    GEMM_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    if (prop.major != 9 || prop.minor != 0) {
        std::printf(
            "fp8_accuracy: skipped: the FP8 chapters' kernels need compute capability 9.0, "
            "device 0 (%s) has %d.%d\n",
            prop.name, prop.major, prop.minor);
        return 77;
    }
    const std::string path = out + "/fp8_accuracy.csv";
    std::error_code ec;
    std::filesystem::create_directories(out, ec);
    std::ofstream csv(path);
    if (!csv) usage_error("--out " + out + ": cannot write " + path);
    csv << "device,dist,M,N,K,kernel,rel_err,max_rel_err\n";
    std::printf(
        "relative error of a %d x %d C (bf16), seed %llu, %s: ||C - C_ref|| / ||C_ref||"
        " (and the largest of one element)\n",
        m, m, seed, prop.name);
    // Runs kernel k on hp, or returns false where cuBLASLt has no algorithm.
    auto run = [&](const Kernel& k, const gemm::HostProblem& hp, std::vector<float>& C) {
        const int K = hp.p.shape.K;
        if (k.cublaslt && !gemm::cublaslt_fp8_supports(k.scaling, k.fast_accum, m, m, K, nullptr, K,
                                                       nullptr, K, nullptr, m))
            return false;
        C = gemm::run_gpu_fp8(k.fn, hp);
        return true;
    };
    auto report = [&](const char* dist, int K, const Kernel& k, double err, double max_err) {
        csv << '"' << prop.name << "\"," << dist << ',' << m << ',' << m << ',' << K << ",\""
            << k.name << "\"," << err << ',' << max_err << '\n';
    };
    for (const char* dist : {"signed", "positive"}) {
        std::printf("\n%s inputs\n%8s", dist, "K");
        for (const Kernel& k : kKernels) std::printf(" | %-20.20s", k.name);
        std::printf("\n");
        for (int K = 1024; K <= kmax; K *= 2) {
            std::printf("%8d", K);
            for (gemm::Precision scaling : {gemm::Precision::E4M3, gemm::Precision::E4M3Block}) {
                gemm::Problem p;  // one set of inputs and one reference per scaling
                p.shape = {m, m, K};
                p.seed = seed;
                p.precision = scaling;
                gemm::HostProblem hp = gemm::make_inputs(p);
                if (std::strcmp(dist, "positive") == 0) gemm::make_positive(hp);
                std::vector<double> expected, scale;
                gemm::reference_gemm(hp, expected, scale);
                for (const Kernel& k : kKernels) {
                    if (k.scaling != scaling) continue;
                    std::vector<float> C;
                    if (!run(k, hp, C)) {
                        std::printf(" | %-20s", "n/a");
                        continue;
                    }
                    const double err = relative_error(C, expected, m, 0, m);
                    const double max_err = max_element_error(C, expected);
                    report(dist, K, k, err, max_err);
                    std::printf(" | %8.2e %8.2e  ", err, max_err);
                }
            }
            std::printf("\n");
            std::fflush(stdout);
        }
    }

    // Experiment 2: block magnitudes, quantized per tensor (chapter 22, cuBLASLt default) or per
    // block (chapter 23, cuBLASLt block scales); error against the float inputs' product, per row.
    const char* dist = "per-block magnitudes (worst row)";
    std::printf("\n%s: largest ||C_i - C_ref,i|| / ||C_ref,i|| over the rows i\n%8s", dist, "K");
    for (const Kernel& k : kKernels)
        if (!k.fast_accum && std::strstr(k.name, "20_") == nullptr)
            std::printf(" | %-20.20s", k.name);
    std::printf("\n");
    for (int K = 1024; K <= std::min(kmax, 16384); K *= 2) {
        std::printf("%8d", K);
        for (gemm::Precision scaling : {gemm::Precision::E4M3, gemm::Precision::E4M3Block}) {
            const bool blocks = scaling == gemm::Precision::E4M3Block;
            gemm::Problem p;
            p.shape = {m, m, K};
            p.seed = seed;
            p.precision = scaling;
            gemm::HostProblem hp;
            hp.p = p.resolved();
            quantize(m, K, 1, 16, 4, seed, 1, blocks, hp.A8, hp.scale_a, hp.A, false);
            quantize(m, K, 128, 0, 4, seed, 2, blocks, hp.B8, hp.scale_b, hp.B, true);
            hp.C0.assign(std::size_t(m) * m, 0.0f);
            std::vector<double> expected, scale;
            gemm::reference_gemm(hp, expected, scale);  // of the float inputs, not the codes
            for (const Kernel& k : kKernels) {
                if (k.scaling != scaling || k.fast_accum || std::strstr(k.name, "20_")) continue;
                std::vector<float> C;
                if (!run(k, hp, C)) {
                    std::printf(" | %-20s", "n/a");
                    continue;
                }
                double worst = 0;
                for (int r = 0; r < m; ++r)
                    worst = std::fmax(worst, relative_error(C, expected, m, r, r + 1));
                report(dist, K, k, worst, max_element_error(C, expected));
                std::printf(" | %-20.2e", worst);
            }
        }
        std::printf("\n");
        std::fflush(stdout);
    }
    std::printf("\nwrote %s (tools/reporting/plot.py %s draws fp8_accuracy.svg)\n", path.c_str(),
                out.c_str());
    return csv ? 0 : 1;
}

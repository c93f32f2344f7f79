// Chapter 17's accuracy experiment: how far each FP8 kernel's C lands from the double-precision
// product of the same (dequantized) e4m3 inputs as K grows, with and without promotion of the
// partial sums to fp32, cuBLASLt beside them. Prints a table and writes <out>/fp8_accuracy.csv
// (tools/plot.py draws fp8_accuracy.svg from it).
//   build/tools/fp8_accuracy [--out DIR] [--m 256] [--kmax 65536] [--seed 2024]
// Two input distributions: "signed", the harness's inputs (codes of 448 u, u uniform in [-1, 1)),
// whose sums grow like sqrt(K); "positive", the same codes without their signs, whose sums grow
// like K, the case where a short accumulator loses the most (activations after a ReLU or a
// softmax are like it). Error: ||C - C_ref||_F / ||C_ref||_F over an m x m C; C is bf16, so about
// 2^-9 of it is the output's own rounding, the floor every curve shares.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "17_fp8/kernel.cuh"
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
    {"per_tensor (never promoted)", gemm::Precision::E4M3, ch17::gemm, false, false},
    {"promote4 (every 512 of K)", gemm::Precision::E4M3, ch17::gemm_cfg<ch17::configs::promote4>,
     false, false},
    {"promote1 (every 128 of K)", gemm::Precision::E4M3, ch17::gemm_cfg<ch17::configs::promote1>,
     false, false},
    {"per_block (1x128 / 128x128 scales)", gemm::Precision::E4M3Block, ch17::gemm_blocks, false,
     false},
    {"cuBLASLt per-tensor", gemm::Precision::E4M3, gemm::cublaslt_fp8, true, false},
    {"cuBLASLt per-tensor, fast accumulation", gemm::Precision::E4M3, gemm::cublaslt_fp8_fast_accum,
     true, true},
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

// ||got - expected|| / ||expected|| over the M x N C (row-major, tight).
double relative_error(const std::vector<float>& got, const std::vector<double>& expected) {
    double num = 0, den = 0;
    for (std::size_t i = 0; i < expected.size(); ++i) {
        const double d = double(got[i]) - expected[i];
        num += d * d;
        den += expected[i] * expected[i];
    }
    return den > 0 ? std::sqrt(num / den) : 0.0;
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
            "fp8_accuracy: skipped: chapter 17's kernels need compute capability 9.0, "
            "device 0 (%s) has %d.%d\n",
            prop.name, prop.major, prop.minor);
        return 77;
    }
    const std::string path = out + "/fp8_accuracy.csv";
    std::error_code ec;
    std::filesystem::create_directories(out, ec);
    std::ofstream csv(path);
    if (!csv) usage_error("--out " + out + ": cannot write " + path);
    csv << "device,dist,M,N,K,kernel,rel_err\n";
    std::printf("relative error ||C - C_ref|| / ||C_ref|| of a %d x %d C (bf16), seed %llu, %s\n",
                m, m, seed, prop.name);
    for (const char* dist : {"signed", "positive"}) {
        std::printf("\n%s inputs\n%8s", dist, "K");
        for (const Kernel& k : kKernels) std::printf(" | %-14.14s", k.name);
        std::printf("\n");
        for (int K = 1024; K <= kmax; K *= 2) {
            double err[sizeof kKernels / sizeof kKernels[0]];
            for (gemm::Precision scaling : {gemm::Precision::E4M3, gemm::Precision::E4M3Block}) {
                gemm::Problem p;  // one set of inputs and one reference per scaling
                p.shape = {m, m, K};
                p.seed = seed;
                p.precision = scaling;
                gemm::HostProblem hp = gemm::make_inputs(p);
                if (std::strcmp(dist, "positive") == 0) {  // drop the signs, keep the magnitudes
                    for (auto* v : {&hp.A8, &hp.B8})
                        for (std::uint8_t& c : *v) c &= 0x7F;
                    for (float& v : hp.A) v = std::fabs(v);
                    for (float& v : hp.B) v = std::fabs(v);
                }
                std::vector<double> expected, scale;
                gemm::reference_gemm(hp, expected, scale);
                gemm::DeviceBuffer<std::uint8_t> dA(hp.A8.size()), dB(hp.B8.size());
                gemm::DeviceBuffer<float> dsa(hp.scale_a.size()), dsb(hp.scale_b.size());
                gemm::DeviceBuffer<__nv_bfloat16> dC(std::size_t(m) * m);
                GEMM_CUDA_CHECK(
                    cudaMemcpy(dA.get(), hp.A8.data(), hp.A8.size(), cudaMemcpyHostToDevice));
                GEMM_CUDA_CHECK(
                    cudaMemcpy(dB.get(), hp.B8.data(), hp.B8.size(), cudaMemcpyHostToDevice));
                GEMM_CUDA_CHECK(cudaMemcpy(dsa.get(), hp.scale_a.data(), 4 * hp.scale_a.size(),
                                           cudaMemcpyHostToDevice));
                GEMM_CUDA_CHECK(cudaMemcpy(dsb.get(), hp.scale_b.data(), 4 * hp.scale_b.size(),
                                           cudaMemcpyHostToDevice));
                for (std::size_t i = 0; i < sizeof kKernels / sizeof kKernels[0]; ++i) {
                    const Kernel& k = kKernels[i];
                    if (k.scaling != scaling) continue;
                    err[i] = -1.0;  // n/a: cuBLASLt has no algorithm
                    if (k.cublaslt &&
                        !gemm::cublaslt_fp8_supports(k.scaling, k.fast_accum, m, m, K, dA.get(), K,
                                                     dB.get(), K, dC.get(), m))
                        continue;
                    k.fn(m, m, K, 1.0f, reinterpret_cast<const __nv_fp8_e4m3*>(dA.get()), K,
                         reinterpret_cast<const __nv_fp8_e4m3*>(dB.get()), K, dsa.get(), dsb.get(),
                         0.0f, dC.get(), m, 0);
                    GEMM_CUDA_CHECK(cudaDeviceSynchronize());
                    std::vector<__nv_bfloat16> c(std::size_t(m) * m);
                    GEMM_CUDA_CHECK(cudaMemcpy(c.data(), dC.get(), c.size() * sizeof(__nv_bfloat16),
                                               cudaMemcpyDeviceToHost));
                    std::vector<float> C(c.size());
                    for (std::size_t j = 0; j < c.size(); ++j) C[j] = __bfloat162float(c[j]);
                    err[i] = relative_error(C, expected);
                    csv << '"' << prop.name << "\"," << dist << ',' << m << ',' << m << ',' << K
                        << ",\"" << k.name << "\"," << err[i] << '\n';
                }
            }
            std::printf("%8d", K);
            for (double e : err) {
                if (e < 0)
                    std::printf(" | %-14s", "n/a");
                else
                    std::printf(" | %-14.3e", e);
            }
            std::printf("\n");
            std::fflush(stdout);
        }
    }
    std::printf("\nwrote %s (tools/plot.py %s draws fp8_accuracy.svg)\n", path.c_str(),
                out.c_str());
    return csv ? 0 : 1;
}

// The ceilings a README, a doc or the roofline cites, measured on the GPU at hand:
//   copy_bandwidth         device-to-device copy of buffers far larger than L2, bytes read +
//                          written: cudaMemcpyAsync and a 16-byte copy kernel, the better of two
//   mma_sync_f16f32        register-only mma.sync m16n8k16 (fp16 in, fp32 accumulate), every SM
//   wgmma_f16f32           wgmma m64n256k16 from shared memory (sm_90a, compute capability 9.0)
//   cublas_gemmex_f16f32   cublasGemmEx fp16 in, fp32 compute and C, 4096^3 and 8192^3: the better
//   cublas_sgemm           cublasSgemm at 8192^3
// Each one: warm-up, then the median (and min, max) of timed repetitions, with the median SM clock
// and board power NVML reports meanwhile. The tensor-core kernels first compute a known product
// (exit 1 if they do not). Prints a table and writes <out>/ceilings.csv. docs/introduction.md.
//   build/tools/ceilings [--out DIR] [--device N] [--quick]
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "ceilings.cuh"
#include "device/sm80.cuh"
#include "gpu_conditions.hpp"
#include "gpu_timing.cuh"
#include "harness_gpu.cuh"
#include "stats.hpp"

namespace {

const char* const kUsage =
    "Usage: ceilings [--out DIR] [--device N] [--quick] [--help]\n"
    "Measures the ceilings of the GPU at hand: device copy bandwidth, the register-only mma.sync\n"
    "rate, the wgmma rate from shared memory (compute capability 9.0), cuBLAS GemmEx fp16->fp32\n"
    "and SGEMM. Prints a table and writes DIR/ceilings.csv.\n"
    "  --out DIR    where ceilings.csv goes (default plots/latest)\n"
    "  --device N   the CUDA device to measure (default 0)\n"
    "  --quick      small sizes and short runs: a smoke test, not a measurement\n"
    "Exit: 0 measured, 1 a self-check or CUDA call failed, 2 usage error, 77 no usable GPU.\n";

struct Options {
    std::string out = "plots/latest";
    int device = 0;
    bool quick = false;
    bool help = false;
};

Options parse(int argc, char** argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) throw gemm::UsageError(a + " needs a value");
            return argv[++i];
        };
        if (a == "--help" || a == "-h") {
            o.help = true;
        } else if (a == "--quick") {
            o.quick = true;
        } else if (a == "--out") {
            o.out = value();
            if (o.out.empty()) throw gemm::UsageError("--out needs a directory, not ''");
        } else if (a == "--device") {
            const std::string v = value();
            std::size_t used = 0;
            int n = -1;
            try {
                n = std::stoi(v, &used);
            } catch (const std::exception&) {
                used = 0;
            }
            if (used != v.size() || n < 0)
                throw gemm::UsageError("--device '" + v + "': expected a device number, 0 or more");
            o.device = n;
        } else {
            throw gemm::UsageError("unknown option '" + a + "'");
        }
    }
    return o;
}

// SM clock and board power while a measurement runs: the harness's sampler
// (common/harness/gpu_conditions.cpp), which reads NVML when the driver has it.
using Sampler = gemm::ConditionsSampler;

// ---- one measurement ----------------------------------------------------------------------------

struct Ceiling {
    Ceiling() = default;
    Ceiling(std::string id_, std::string what_, std::string unit_, double peak_)
        : id(std::move(id_)), what(std::move(what_)), unit(std::move(unit_)), peak(peak_) {}
    std::string id;    // the CSV's ceiling column; empty for a line of the table only
    std::string what;  // the table's first column
    std::string unit;  // GB/s or GFLOPS
    double peak = 0;   // the theoretical peak to compare with (device_peaks), 0 = none
    bool measured = false;
    double value = 0, min = 0, max = 0;  // work / median time, work / slowest, work / fastest
    double clock_mhz = NAN, power_w = NAN;
    std::string method;  // how: for the table and the CSV
};

struct Timing {
    double warm_s, timed_s;  // seconds of warm-up, then of timed repetitions (about)
    int min_reps;
};

// Runs `launch` (work units each: bytes or FLOP) for about t.warm_s, then times about t.timed_s of
// repetitions with CUDA events while sampling clock and power; fills c's value, range and method.
template <class Fn>
void measure(Ceiling& c, double work, const std::string& how, const Timing& t, Sampler& sampler,
             cudaStream_t stream, Fn launch) {
    launch();  // first launch: module load, cuBLAS heuristics, page mapping
    GEMM_CUDA_CHECK(cudaStreamSynchronize(stream));
    const double one_ms = gemm::time_on_stream(stream, 0, 1, launch).front();
    const int warm = std::min(100000, int(std::ceil(t.warm_s * 1e3 / std::max(one_ms, 1e-3))));
    const int reps =
        std::clamp(int(std::ceil(t.timed_s * 1e3 / std::max(one_ms, 1e-3))), t.min_reps, 100000);
    for (int i = 0; i < warm; ++i) launch();
    GEMM_CUDA_CHECK(cudaStreamSynchronize(stream));
    sampler.start();
    const std::vector<double> ms = gemm::time_on_stream(stream, 0, reps, launch);
    const gemm::Sampled seen = sampler.stop();
    const double med = gemm::median(ms);
    const double fast = *std::min_element(ms.begin(), ms.end());
    const double slow = *std::max_element(ms.begin(), ms.end());
    const double scale = 1e-9;  // bytes/s -> GB/s, FLOP/s -> GFLOPS
    c.measured = true;
    c.value = work / (med * 1e-3) * scale;
    c.min = work / (slow * 1e-3) * scale;
    c.max = work / (fast * 1e-3) * scale;
    c.clock_mhz = seen.samples ? seen.sm_clock_mhz : NAN;
    c.power_w = seen.samples ? seen.power_w : NAN;
    std::ostringstream m;
    m << how << "; median of " << reps << " reps after " << warm << " warm-up";
    c.method = m.str();
}

// ---- kernels ------------------------------------------------------------------------------------

using ceilings::mix;

__global__ void fill_words(uint32_t* p, std::size_t n, uint32_t seed) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
         i += std::size_t(gridDim.x) * blockDim.x)
        p[i] = mix(uint32_t(i) ^ seed) ^ uint32_t(i >> 32);
}

template <class T>
__global__ void fill_unit(T* p, std::size_t n, uint32_t seed) {  // values in [-1, 1)
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
         i += std::size_t(gridDim.x) * blockDim.x)
        p[i] = T(ceilings::unit_value(uint32_t(i) * 0x9E3779B9u ^ seed));
}

// Counts the words where a and b differ.
__global__ void count_differences(const uint32_t* a, const uint32_t* b, std::size_t n,
                                  unsigned long long* count) {
    unsigned long long mine = 0;
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
         i += std::size_t(gridDim.x) * blockDim.x)
        mine += a[i] != b[i];
    if (mine) atomicAdd(count, mine);
}

// dst = src in 16-byte words: four independent loads in flight per thread before their stores.
__global__ void copy_kernel(const int4* __restrict__ src, int4* __restrict__ dst, std::size_t n) {
    const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
    std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    for (; i + 3 * stride < n; i += 4 * stride) {
        const int4 v0 = src[i], v1 = src[i + stride], v2 = src[i + 2 * stride],
                   v3 = src[i + 3 * stride];
        dst[i] = v0, dst[i + stride] = v1, dst[i + 2 * stride] = v2, dst[i + 3 * stride] = v3;
    }
    for (; i < n; i += stride) dst[i] = src[i];
}

// Register-only mma.sync: each warp runs MMA_CHAINS independent accumulator tiles (16, 8), `iters`
// times each, on operand fragments that never leave registers. Two A and two B fragments alternate
// between the chains so that the tensor cores do not see one operand pair only. ones: every operand
// 1.0, so every accumulator ends at 16 * iters (the self-check). Each thread writes the sum of its
// accumulators: the results are used, so the loop is real work.
constexpr int MMA_THREADS = 256, MMA_CHAINS = 8;
constexpr double MMA_FLOP = 2.0 * 16 * 8 * 16;  // one m16n8k16

__global__ void __launch_bounds__(MMA_THREADS) mma_sync_rate(int iters, int ones, float* sums) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    const uint32_t t = blockIdx.x * MMA_THREADS + threadIdx.x;
    uint32_t a[2][4], b[2][2];  // fragments: A (16, 16) row-major, B (16, 8) column-major
    for (int f = 0; f < 2; ++f) {
        for (int r = 0; r < 4; ++r) {
            const uint32_t bits = mix(t * 16 + f * 8 + r);
            a[f][r] = ones ? 0x3C003C00u : bits & 0xBBFFBBFFu;  // 1.0 pairs, or |x| < 1.0
        }
        for (int r = 0; r < 2; ++r) {
            const uint32_t bits = mix(t * 16 + f * 8 + 4 + r);
            b[f][r] = ones ? 0x3C003C00u : bits & 0xBBFFBBFFu;
        }
    }
    float acc[MMA_CHAINS][4] = {};
#pragma unroll 1
    for (int it = 0; it < iters; ++it) {
#pragma unroll
        for (int c = 0; c < MMA_CHAINS; ++c) {
            const uint32_t(&x)[4] = a[c % 2];
            const uint32_t(&y)[2] = b[(c / 2) % 2];
            gemm::dev::mma_16816(acc[c], x, y);
        }
    }
    float s = 0.0f;
#pragma unroll
    for (int c = 0; c < MMA_CHAINS; ++c) s += acc[c][0] + acc[c][1] + acc[c][2] + acc[c][3];
    sums[t] = s;
#else
    (void)iters, (void)ones, (void)sums;
#endif
}

// ---- the ceilings -------------------------------------------------------------------------------

struct Context {
    int device = 0, cc = 0, sms = 0;
    bool quick = false;
    Timing timing{};
    gemm::Peaks peaks;
    cudaStream_t stream = nullptr;
};

[[noreturn]] void self_check_failed(const std::string& what) {
    std::cerr << "ceilings: " << what << "\n";
    std::exit(1);
}

int blocks_per_sm(const void* kernel, int threads) {
    int n = 0;
    GEMM_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kernel, threads, 0));
    return n;
}

std::vector<Ceiling> copy_bandwidth(const Context& ctx, Sampler& sampler) {
    // Two buffers of 1 GiB (256 MiB with --quick): each many times the L2, so every byte comes
    // from and goes to DRAM. Smaller when the GPU has less free memory.
    std::size_t bytes = ctx.quick ? (256ull << 20) : (1ull << 30);
    std::size_t free_b = 0, total_b = 0;
    GEMM_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    bytes = std::min(bytes, (free_b / 4) & ~((std::size_t(1) << 20) - 1));
    const std::size_t words = bytes / 4;
    gemm::DeviceBuffer<uint32_t> src(words), dst(words);
    gemm::DeviceBuffer<unsigned long long> diff(1);
    fill_words<<<4 * ctx.sms, 256, 0, ctx.stream>>>(src.get(), words, 12345u);
    GEMM_CUDA_CHECK_LAUNCH();
    const int blocks = ctx.sms * blocks_per_sm(reinterpret_cast<const void*>(copy_kernel), 256);
    auto memcpy_once = [&] {
        GEMM_CUDA_CHECK(
            cudaMemcpyAsync(dst.get(), src.get(), bytes, cudaMemcpyDeviceToDevice, ctx.stream));
    };
    auto kernel_once = [&] {
        copy_kernel<<<blocks, 256, 0, ctx.stream>>>(reinterpret_cast<const int4*>(src.get()),
                                                    reinterpret_cast<int4*>(dst.get()), bytes / 16);
        GEMM_CUDA_CHECK_LAUNCH();
    };
    // Each way once on a cleared destination, compared word by word with the source.
    auto check = [&](const char* name, auto once) {
        GEMM_CUDA_CHECK(cudaMemsetAsync(dst.get(), 0, bytes, ctx.stream));
        GEMM_CUDA_CHECK(cudaMemsetAsync(diff.get(), 0, sizeof(unsigned long long), ctx.stream));
        once();
        count_differences<<<4 * ctx.sms, 256, 0, ctx.stream>>>(src.get(), dst.get(), words,
                                                               diff.get());
        GEMM_CUDA_CHECK_LAUNCH();
        unsigned long long n = 0;
        GEMM_CUDA_CHECK(cudaMemcpy(&n, diff.get(), sizeof n, cudaMemcpyDeviceToHost));
        if (n)
            self_check_failed(std::string(name) + ": the copy differs from its source in " +
                              std::to_string(n) + " of " + std::to_string(words) + " words");
    };
    check("cudaMemcpyAsync", memcpy_once);
    check("copy kernel", kernel_once);

    const std::string size = std::to_string(bytes >> 20) + " MiB";
    Ceiling by_memcpy{"", "device copy, cudaMemcpyAsync", "GB/s", ctx.peaks.bandwidth_gbs};
    measure(by_memcpy, 2.0 * bytes,
            "cudaMemcpyAsync device to device of " + size + "; bytes read + written", ctx.timing,
            sampler, ctx.stream, memcpy_once);
    Ceiling by_kernel{"", "device copy, 16-byte copy kernel", "GB/s", ctx.peaks.bandwidth_gbs};
    measure(by_kernel, 2.0 * bytes,
            "copy kernel (16-byte loads and stores; " + std::to_string(blocks) +
                " blocks x 256 threads) of " + size + "; bytes read + written",
            ctx.timing, sampler, ctx.stream, kernel_once);
    Ceiling best = by_memcpy.value >= by_kernel.value ? by_memcpy : by_kernel;
    best.id = "copy_bandwidth";
    best.what = "copy_bandwidth (the better)";
    return {by_memcpy, by_kernel, best};
}

Ceiling mma_sync_rate_ceiling(const Context& ctx, Sampler& sampler) {
    Ceiling c{"mma_sync_f16f32", "mma.sync m16n8k16, registers only", "GFLOPS",
              ctx.peaks.fp16_tensor_gflops};
    if (ctx.cc < 80) {
        c.method = "not measured: m16n8k16 needs compute capability 8.0";
        return c;
    }
    const int blocks = ctx.sms * blocks_per_sm(reinterpret_cast<const void*>(mma_sync_rate),
                                               MMA_THREADS);  // one full wave
    const long long threads = static_cast<long long>(blocks) * MMA_THREADS;
    gemm::DeviceBuffer<float> sums(threads);

    const int check_iters = 64;  // every accumulator 16 * 64, every thread's sum 32 times that
    mma_sync_rate<<<blocks, MMA_THREADS, 0, ctx.stream>>>(check_iters, 1, sums.get());
    GEMM_CUDA_CHECK_LAUNCH();
    std::vector<float> host(threads);
    GEMM_CUDA_CHECK(
        cudaMemcpy(host.data(), sums.get(), threads * sizeof(float), cudaMemcpyDeviceToHost));
    const float want = 16.0f * check_iters * 4 * MMA_CHAINS;
    for (long long t = 0; t < threads; ++t)
        if (host[t] != want)
            self_check_failed("mma.sync self-check: thread " + std::to_string(t) +
                              " summed its accumulators to " + std::to_string(host[t]) +
                              ", expected " + std::to_string(want));

    const int iters = ctx.quick ? 4096 : 65536;
    const double flop = double(threads / 32) * MMA_CHAINS * iters * MMA_FLOP;
    measure(c, flop,
            "mma.sync.m16n8k16 f16 x f16 + f32 with operands and accumulators in registers; " +
                std::to_string(blocks) + " blocks x " + std::to_string(MMA_THREADS / 32) +
                " warps x " + std::to_string(MMA_CHAINS) + " independent accumulators x " +
                std::to_string(iters) + " steps",
            ctx.timing, sampler, ctx.stream, [&] {
                mma_sync_rate<<<blocks, MMA_THREADS, 0, ctx.stream>>>(iters, 0, sums.get());
                GEMM_CUDA_CHECK_LAUNCH();
            });
    return c;
}

Ceiling wgmma_rate_ceiling(const Context& ctx, Sampler& sampler) {
    Ceiling c{"wgmma_f16f32", "wgmma m64n256k16, A and B from shared memory", "GFLOPS",
              ctx.peaks.fp16_tensor_gflops};
#ifdef GEMM_CEILINGS_WGMMA
    if (ctx.cc != 90) {
        c.method = "not measured: needs compute capability 9.0";
        return c;
    }
    const int blocks = ctx.sms * ceilings::wgmma_blocks_per_sm();
    const std::string problem = ceilings::wgmma_self_check(blocks);
    if (!problem.empty()) self_check_failed(problem);
    gemm::DeviceBuffer<float> sums(static_cast<std::size_t>(blocks) * ceilings::wgmma_threads());
    const int iters = ctx.quick ? 2048 : 32768;
    measure(c, ceilings::wgmma_flop(blocks, iters), ceilings::wgmma_method(blocks, iters),
            ctx.timing, sampler, ctx.stream,
            [&] { ceilings::wgmma_launch(blocks, iters, sums.get(), ctx.stream); });
#else
    (void)sampler;
    c.method = ctx.cc == 90 ? "not measured: built without sm_90a (gpu_archs does not list 90)"
                            : "not measured: needs compute capability 9.0";
#endif
    return c;
}

std::vector<Ceiling> cublas_ceilings(const Context& ctx, Sampler& sampler) {
    std::vector<Ceiling> out;
    // fp16 in, fp32 compute and C: the yardstick of the tensor-core chapters.
    Ceiling best_h;
    for (int n : ctx.quick ? std::vector<int>{2048} : std::vector<int>{4096, 8192}) {
        const std::size_t nn = std::size_t(n) * n;
        gemm::DeviceBuffer<__half> A(nn), B(nn);
        gemm::DeviceBuffer<float> C(nn);
        fill_unit<<<4 * ctx.sms, 256, 0, ctx.stream>>>(A.get(), nn, 1u);
        fill_unit<<<4 * ctx.sms, 256, 0, ctx.stream>>>(B.get(), nn, 2u);
        GEMM_CUDA_CHECK_LAUNCH();
        Ceiling c{"", "cublasGemmEx fp16->fp32 " + std::to_string(n) + "^3", "GFLOPS",
                  ctx.peaks.fp16_tensor_gflops};
        std::string how = "cublasGemmEx via cublas_hgemm of common/harness/yardsticks.cu; ";
        how += "fp16 A and B; fp32 compute and C; " + std::to_string(n) + "^3";
        measure(c, 2.0 * n * nn, how, ctx.timing, sampler, ctx.stream, [&] {
            gemm::cublas_hgemm(n, n, n, 1.0f, A.get(), n, B.get(), n, 0.0f, C.get(), n, ctx.stream);
        });
        out.push_back(c);
        if (!best_h.measured || c.value > best_h.value) best_h = c;
    }
    best_h.id = "cublas_gemmex_f16f32";
    best_h.what = "cublas_gemmex_f16f32 (the better)";
    out.push_back(best_h);

    const int n = ctx.quick ? 2048 : 8192;
    const std::size_t nn = std::size_t(n) * n;
    gemm::DeviceBuffer<float> A(nn), B(nn), C(nn);
    fill_unit<<<4 * ctx.sms, 256, 0, ctx.stream>>>(A.get(), nn, 3u);
    fill_unit<<<4 * ctx.sms, 256, 0, ctx.stream>>>(B.get(), nn, 4u);
    GEMM_CUDA_CHECK_LAUNCH();
    Ceiling s{"cublas_sgemm", "cublasSgemm " + std::to_string(n) + "^3", "GFLOPS",
              ctx.peaks.fp32_gflops};
    measure(s, 2.0 * n * nn,
            "cublasSgemm via cublas_sgemm of common/harness/yardsticks.cu; fp32; " +
                std::to_string(n) + "^3",
            ctx.timing, sampler, ctx.stream, [&] {
                gemm::cublas_sgemm(n, n, n, 1.0f, A.get(), n, B.get(), n, 0.0f, C.get(), n,
                                   ctx.stream);
            });
    out.push_back(s);
    return out;
}

// ---- output -------------------------------------------------------------------------------------

std::string csv_field(const std::string& s) {
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string q = "\"";
    for (char ch : s) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
    return q + "\"";
}

std::string number(double v, int decimals = 1) {
    if (!std::isfinite(v)) return "";
    std::ostringstream s;
    s.setf(std::ios::fixed);
    s.precision(decimals);
    s << v;
    return s.str();
}

void print_table(const std::vector<Ceiling>& rows) {
    std::printf("\n%-44s %10s %-6s %23s %10s %6s %7s %6s\n", "what", "median", "unit", "min - max",
                "theory", "%", "SM MHz", "W");
    for (const Ceiling& c : rows) {
        if (!c.measured) {
            std::printf("%-44s %s\n", c.what.c_str(), c.method.c_str());
            continue;
        }
        const std::string range = number(c.min) + " - " + number(c.max);
        const std::string pct = c.peak > 0 ? number(100.0 * c.value / c.peak, 0) + "%" : "";
        std::printf("%-44s %10.1f %-6s %23s %10s %6s %7s %6s\n", c.what.c_str(), c.value,
                    c.unit.c_str(), range.c_str(), c.peak > 0 ? number(c.peak, 0).c_str() : "",
                    pct.c_str(), number(c.clock_mhz, 0).c_str(), number(c.power_w, 0).c_str());
    }
    std::printf("\nhow each was measured:\n");
    for (const Ceiling& c : rows)
        if (c.measured) std::printf("  %s: %s\n", c.what.c_str(), c.method.c_str());
    std::printf(
        "theory: device_peaks() of common/harness/device_facts.cu at the boost clock (bandwidth from "
        "the memory clock and bus width); SM MHz and W: medians of NVML samples during the timed "
        "repetitions\n");
}

void write_csv(const std::string& path, const std::string& device,
               const std::vector<Ceiling>& rows) {
    std::ofstream f(path);
    f << "device,ceiling,value,unit,method,min,max,sm_clock_mhz,board_power_w\n";
    for (const Ceiling& c : rows) {
        if (c.id.empty()) continue;
        f << csv_field(device) << ',' << c.id << ',' << (c.measured ? number(c.value) : "") << ','
          << c.unit << ',' << csv_field(c.method) << ',' << (c.measured ? number(c.min) : "") << ','
          << (c.measured ? number(c.max) : "") << ',' << number(c.clock_mhz, 0) << ','
          << number(c.power_w, 0) << '\n';
    }
    f.close();
    if (!f) {
        std::cerr << "ceilings: cannot write " << path << "\n";
        std::exit(1);
    }
}

}  // namespace

int main(int argc, char** argv) {
    Options o;
    try {
        o = parse(argc, argv);
    } catch (const gemm::UsageError& e) {
        std::cerr << "ceilings: error: " << e.what() << "\n(run ceilings --help for usage)\n";
        return 2;
    }
    if (o.help) {
        std::cout << kUsage;
        return 0;
    }
    std::string why;
    if (!gemm::cuda_device_available(&why)) {
        std::cout << "ceilings: skipped: " << why << "\n";
        return 77;
    }
    int count = 0;
    GEMM_CUDA_CHECK(cudaGetDeviceCount(&count));
    if (o.device >= count) {
        std::cerr << "ceilings: error: --device " << o.device << ": this machine has " << count
                  << " CUDA device(s), numbered from 0\n";
        return 2;
    }
    std::error_code ec;
    std::filesystem::create_directories(o.out, ec);
    if (ec) {
        std::cerr << "ceilings: error: --out " << o.out << ": cannot create this directory ("
                  << ec.message() << ")\n";
        return 2;
    }
    GEMM_CUDA_CHECK(cudaSetDevice(o.device));

    Context ctx;
    ctx.device = o.device;
    ctx.quick = o.quick;
    cudaDeviceProp prop{};
    GEMM_CUDA_CHECK(cudaGetDeviceProperties(&prop, o.device));
    ctx.cc = 10 * prop.major + prop.minor;
    ctx.sms = prop.multiProcessorCount;
    ctx.peaks = gemm::device_peaks(o.device);
    // Full: a second of warm-up (clocks and temperature settle; the driver's power average fills)
    // and about two seconds timed per ceiling. Quick: enough to see that everything runs.
    ctx.timing = o.quick ? Timing{0.02, 0.05, 3} : Timing{1.0, 2.0, 10};
    GEMM_CUDA_CHECK(cudaStreamCreate(&ctx.stream));
    std::cout << gemm::device_report(o.device);
    char bus[32] = {};
    GEMM_CUDA_CHECK(cudaDeviceGetPCIBusId(bus, sizeof bus, o.device));
    Sampler sampler(bus);
    if (!sampler.available())
        std::cout << "SM clock and board power: not sampled (no NVML: the driver's libnvidia-ml)\n";
    if (o.quick) std::cout << "--quick: small sizes and short runs, not a measurement\n";

    std::vector<Ceiling> rows = copy_bandwidth(ctx, sampler);
    rows.push_back(mma_sync_rate_ceiling(ctx, sampler));
    rows.push_back(wgmma_rate_ceiling(ctx, sampler));
    for (const Ceiling& c : cublas_ceilings(ctx, sampler)) rows.push_back(c);
    GEMM_CUDA_CHECK(cudaStreamDestroy(ctx.stream));

    print_table(rows);
    const std::string path = (std::filesystem::path(o.out) / "ceilings.csv").string();
    write_csv(path, prop.name, rows);
    std::cout << "wrote " << path << "\n";
    return 0;
}

#include <cublas_v2.h>

#include <cstdio>
#include <cstdlib>
#include <iomanip>
#include <sstream>
#include <vector>

#include "gpu_backend.cuh"
#include "gpu_timing.cuh"
#include "harness_gpu.cuh"
#include "runner.hpp"

namespace gemm {

namespace {

#define GEMM_CUBLAS_CHECK(call)                                                       \
    do {                                                                              \
        cublasStatus_t gemm_st_ = (call);                                             \
        if (gemm_st_ != CUBLAS_STATUS_SUCCESS) {                                      \
            std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, \
                         cublasGetStatusString(gemm_st_));                            \
            std::exit(1);                                                             \
        }                                                                             \
    } while (0)

// One handle per device, made on first use (outside any timed region: the warm-up calls make it).
cublasHandle_t handle() {
    static cublasHandle_t handles[64] = {};
    int dev = 0;
    GEMM_CUDA_CHECK(cudaGetDevice(&dev));
    if (dev >= 64) {
        std::fprintf(stderr, "device %d: this harness supports 64 devices\n", dev);
        std::exit(1);
    }
    if (!handles[dev]) GEMM_CUBLAS_CHECK(cublasCreate(&handles[dev]));
    return handles[dev];
}

int attribute(cudaDeviceAttr a, int device) {
    int v = 0;
    GEMM_CUDA_CHECK(cudaDeviceGetAttribute(&v, a, device));
    return v;
}

std::string pci_bus_id(int device) {
    char id[32] = {};
    GEMM_CUDA_CHECK(cudaDeviceGetPCIBusId(id, sizeof id, device));
    return id;
}

std::string cublas_version() {
    int major = 0, minor = 0, patch = 0;
    GEMM_CUBLAS_CHECK(cublasGetProperty(MAJOR_VERSION, &major));
    GEMM_CUBLAS_CHECK(cublasGetProperty(MINOR_VERSION, &minor));
    GEMM_CUBLAS_CHECK(cublasGetProperty(PATCH_LEVEL, &patch));
    return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

// FP32 lanes per SM: 64 on Turing (7.5) and A100 (8.0), 128 from 8.6 on.
int fp32_lanes_per_sm(int cc) {
    return cc >= 86 ? 128 : 64;
}

// Dense fp16-input, fp32-accumulate tensor-core FLOP per SM per clock, from the datasheets of the
// data-centre parts of each generation (GeForce parts of 8.6 and 8.9 run fp32 accumulation at half
// this rate). 0 when unknown.
int tensor_flop_per_sm_clock(int cc) {
    switch (cc) {
        case 75:
            return 1024;  // T4
        case 80:
            return 2048;  // A100
        case 86:
            return 512;  // A10, A40, RTX A6000
        case 87:
            return 1024;  // Jetson Orin
        case 89:
            return 512;  // L4, L40
        case 90:
            return 4096;  // H100, H200 (wgmma; mma.sync reaches about two thirds)
        case 100:
            return 8192;  // B200
        case 120:
            return 512;  // RTX PRO Blackwell
        default:
            return 0;
    }
}

template <class T>
using GpuGemm = void (*)(int, int, int, float, const T*, int, const T*, int, float, float*, int,
                         cudaStream_t);

}  // namespace

DeviceBackend::DeviceBackend(int device, const char* yardstick_name, bool l2_flush)
    : device_(device), yardstick_name_(yardstick_name), sampler_(pci_bus_id(device)) {
    GEMM_CUDA_CHECK(cudaStreamCreate(&stream_));
    // Twice the L2, written before every timed run, leaves none of the operands there: each
    // run starts as a GEMM after other work would, and the chapter and cuBLAS alike.
    if (l2_flush)
        flush_ = DeviceBuffer<char>(2 * std::size_t(attribute(cudaDevAttrL2CacheSize, device)));
}
DeviceBackend::~DeviceBackend() {
    cudaStreamDestroy(stream_);
}
std::string DeviceBackend::device_name() const {
    cudaDeviceProp prop{};
    GEMM_CUDA_CHECK(cudaGetDeviceProperties(&prop, device_));
    return prop.name;
}
std::string DeviceBackend::device_report() const {
    return gemm::device_report(device_);
}
Peaks DeviceBackend::peaks() const {
    return device_peaks(device_);
}
RunEnvironment DeviceBackend::environment() const {
    RunEnvironment e;
    int v = 0;
    GEMM_CUDA_CHECK(cudaRuntimeGetVersion(&v));
    e.cuda_runtime = std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
    e.driver = sampler_.driver_version();
    if (e.driver.empty()) {  // no NVML: the CUDA version the driver supports
        GEMM_CUDA_CHECK(cudaDriverGetVersion(&v));
        e.driver = "CUDA " + std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
    }
    e.cublas = cublas_version();
    e.power_limit_w = sampler_.power_limit_w();
    return e;
}
void DeviceBackend::start_sampling() {
    sampler_.start();
}
Sampled DeviceBackend::stop_sampling() {
    return sampler_.stop();
}
std::string DeviceBackend::l2_flush() const {
    return flush_.size() ? "yes" : "no";
}
void DeviceBackend::flush() {
    if (flush_.size())
        GEMM_CUDA_CHECK(cudaMemsetAsync(flush_.get(), ++flushes_, flush_.size(), stream_));
}

namespace {

template <class T>
class GpuBackend : public DeviceBackend {
public:
    GpuBackend(int device, GpuGemm<T> chapter, GpuGemm<T> yardstick, const char* yardstick_name,
               bool l2_flush = false)
        : DeviceBackend(device, yardstick_name, l2_flush),
          chapter_(chapter),
          yardstick_(yardstick) {}

    void check_fits(const Problem& p) const override {
        std::size_t free_b = 0, total_b = 0;
        GEMM_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
        // The fp16 upload stages through a float copy; cuBLAS keeps a workspace (64 MiB margin).
        const unsigned long long in_bytes = sizeof(T) * (p.elems_A() + p.elems_B());
        const unsigned long long stage =
            sizeof(T) == 4 ? 0 : 4ull * std::max(p.elems_A(), p.elems_B());
        const unsigned long long need = in_bytes + stage + 4ull * p.elems_C() + (64ull << 20);
        if (need > free_b)
            throw UsageError("size " + p.shape.str() + " needs " + std::to_string(need >> 20) +
                             " MiB of GPU memory, only " + std::to_string(free_b >> 20) +
                             " MiB free on device " + std::to_string(device_));
        // Host: A, B and C0 as floats, the initial C, the C handed back, the upload staging.
        check_host_fits(p, 4ull * (p.elems_A() + p.elems_B() + 4 * p.elems_C()));
    }

    void load(const HostProblem& hp) override {
        p_ = hp.p;
        dA_ = DeviceBuffer<T>();  // free the previous size first
        dB_ = DeviceBuffer<T>();
        dC_ = DeviceBuffer<float>();
        off_ = std::size_t(p_.view_offset);
        upload(hp.A, dA_, off_);
        upload(hp.B, dB_, off_);
        upload(initial_C(hp), dC_, off_);
    }

    std::vector<float> run_once(const std::vector<float>& c_init) override {
        if (!c_init.empty())
            GEMM_CUDA_CHECK(cudaMemcpy(dC_.get() + off_, c_init.data(),
                                       c_init.size() * sizeof(float), cudaMemcpyHostToDevice));
        call(chapter_);
        GEMM_CUDA_CHECK(cudaStreamSynchronize(stream_));
        std::vector<float> C(dC_.size() - off_);
        if (!C.empty())
            GEMM_CUDA_CHECK(cudaMemcpy(C.data(), dC_.get() + off_, C.size() * sizeof(float),
                                       cudaMemcpyDeviceToHost));
        return C;
    }

    std::vector<double> time_chapter(int warmup, int reps) override {
        return time(warmup, reps, [&] { call(chapter_); });
    }
    std::vector<double> time_yardstick(int warmup, int reps) override {
        return time(warmup, reps, [&] { call(yardstick_); });
    }

private:
    void call(GpuGemm<T> fn) {
        fn(p_.shape.M, p_.shape.N, p_.shape.K, p_.alpha, dA_.get() + off_, p_.lda, dB_.get() + off_,
           p_.ldb, p_.beta, dC_.get() + off_, p_.ldc, stream_);
        GEMM_CUDA_CHECK(cudaGetLastError());
    }

    GpuGemm<T> chapter_, yardstick_;
    Problem p_;
    std::size_t off_ = 0;  // Problem::view_offset
    DeviceBuffer<T> dA_, dB_;
    DeviceBuffer<float> dC_;
};

}  // namespace

int select_device(const Options& o, const ChapterInfo& info) {
    std::string why;
    if (!cuda_device_available(&why)) throw NoDevice(why);
    int count = 0;
    GEMM_CUDA_CHECK(cudaGetDeviceCount(&count));
    if (o.device >= count)
        throw UsageError("--device " + std::to_string(o.device) + ": this machine has " +
                         std::to_string(count) + " CUDA device(s), numbered from 0");
    GEMM_CUDA_CHECK(cudaSetDevice(o.device));
    const int cc = 10 * attribute(cudaDevAttrComputeCapabilityMajor, o.device) +
                   attribute(cudaDevAttrComputeCapabilityMinor, o.device);
    if (cc < info.min_cc || (info.max_cc > 0 && cc > info.max_cc)) {
        cudaDeviceProp prop{};
        GEMM_CUDA_CHECK(cudaGetDeviceProperties(&prop, o.device));
        std::ostringstream s;
        s << "this chapter needs a GPU of compute capability " << info.min_cc / 10 << "."
          << info.min_cc % 10;
        if (info.max_cc == info.min_cc)
            s << " exactly (its sm_" << info.min_cc << "a code runs on that generation only)";
        else if (info.max_cc > 0)
            s << " to " << info.max_cc / 10 << "." << info.max_cc % 10;
        else
            s << " or newer";
        s << ", and device " << o.device << " (" << prop.name << ") has " << cc / 10 << "."
          << cc % 10 << ".";
        throw NoDevice(s.str());
    }
    return o.device;
}

namespace {

template <class T>
int run_gpu(int argc, char** argv, const ChapterInfo& info, GpuGemm<T> gemm, GpuGemm<T> yardstick,
            const char* yardstick_name, Precision precision) {
    return run_chapter(argc, argv, info, precision, [&](const Options& o) {
        int dev = select_device(o, info);
        return std::unique_ptr<Backend>(
            new GpuBackend<T>(dev, gemm, yardstick, yardstick_name, o.l2_flush));
    });
}

template <class T>
CheckResult check_gpu(GpuGemm<T> gemm, const Problem& p, CheckMode mode, Precision precision) {
    Problem q = p;
    q.precision = precision;
    int dev = 0;
    GEMM_CUDA_CHECK(cudaGetDevice(&dev));
    GpuBackend<T> backend(dev, gemm, nullptr, "");
    return load_and_check(backend, make_inputs(q), mode);
}

}  // namespace

// Row-major through a column-major library: a row-major M x N matrix with leading dimension ld is,
// byte for byte, the column-major N x M matrix of its transpose with the same ld. So row-major
// C = A * B is column-major C^T = B^T * A^T: ask cuBLAS for an N x M result with the operands
// swapped (B first, then A) and no transposes. Nothing is copied or transposed.
void cublas_sgemm(int M, int N, int K, float alpha, const float* A, int lda, const float* B,
                  int ldb, float beta, float* C, int ldc, cudaStream_t stream) {
    if (M == 0 || N == 0) return;
    cublasHandle_t h = handle();
    GEMM_CUBLAS_CHECK(cublasSetStream(h, stream));
    GEMM_CUBLAS_CHECK(
        cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &alpha, B, ldb, A, lda, &beta, C, ldc));
}

void cublas_hgemm(int M, int N, int K, float alpha, const __half* A, int lda, const __half* B,
                  int ldb, float beta, float* C, int ldc, cudaStream_t stream) {
    if (M == 0 || N == 0) return;
    cublasHandle_t h = handle();
    GEMM_CUBLAS_CHECK(cublasSetStream(h, stream));
    // fp16 inputs, fp32 accumulation and fp32 C: the same computation as the WMMA chapters.
    GEMM_CUBLAS_CHECK(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &alpha, B, CUDA_R_16F, ldb,
                                   A, CUDA_R_16F, lda, &beta, C, CUDA_R_32F, ldc,
                                   CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

bool cuda_device_available(std::string* why) {
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess) {
        // Without a GPU (or its driver) the runtime reports an old driver or no device.
        const bool absent = err == cudaErrorInsufficientDriver || err == cudaErrorNoDevice;
        if (why)
            *why =
                std::string(absent ? "no NVIDIA GPU with a driver for CUDA " +
                                         std::to_string(CUDART_VERSION / 1000) + " on this machine"
                                   : "no usable CUDA device on this machine") +
                " (cudaGetDeviceCount: " + cudaGetErrorString(err) + ").";
        cudaGetLastError();  // clear the sticky error
        return false;
    }
    if (count == 0) {
        if (why) *why = "no CUDA device on this machine.";
        return false;
    }
    return true;
}

Peaks device_peaks(int device) {
    cudaDeviceProp prop{};
    GEMM_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
    const int cc = 10 * prop.major + prop.minor;
    const double clock_ghz = attribute(cudaDevAttrClockRate, device) * 1e-6;
    const double mem_ghz = attribute(cudaDevAttrMemoryClockRate, device) * 1e-6;
    const int bus_bits = attribute(cudaDevAttrGlobalMemoryBusWidth, device);
    Peaks p;
    p.device = prop.name;
    p.fp32_gflops = double(prop.multiProcessorCount) * fp32_lanes_per_sm(cc) * 2.0 * clock_ghz;
    p.fp16_tensor_gflops =
        double(prop.multiProcessorCount) * tensor_flop_per_sm_clock(cc) * clock_ghz;
    p.bandwidth_gbs = 2.0 * mem_ghz * bus_bits / 8.0;  // double data rate
    return p;
}

std::string device_report(int device) {
    cudaDeviceProp prop{};
    GEMM_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
    const Peaks pk = device_peaks(device);
    std::ostringstream s;
    s << std::fixed << std::setprecision(1);
    s << "device " << device << ": " << prop.name << ", compute capability " << prop.major << "."
      << prop.minor << ", " << prop.multiProcessorCount << " SMs at up to "
      << attribute(cudaDevAttrClockRate, device) / 1000.0 << " MHz\n"
      << "memory: " << double(prop.totalGlobalMem) / (1 << 30) << " GiB, "
      << attribute(cudaDevAttrGlobalMemoryBusWidth, device) << "-bit bus at "
      << attribute(cudaDevAttrMemoryClockRate, device) / 1000.0 << " MHz, peak " << pk.bandwidth_gbs
      << " GB/s; L2 " << prop.l2CacheSize / (1 << 20) << " MiB; shared memory per block up to "
      << prop.sharedMemPerBlockOptin / 1024 << " KiB\n"
      << "peaks (theoretical, at the boost clock): fp32 CUDA cores " << pk.fp32_gflops
      << " GFLOP/s; ";
    if (pk.fp16_tensor_gflops > 0)
        s << "fp16 tensor cores (fp32 accumulate, dense) about " << pk.fp16_tensor_gflops
          << " GFLOP/s\n";
    else
        s << "fp16 tensor cores: unknown for this architecture\n";
    return s.str();
}

int run_gpu_chapter(int argc, char** argv, const ChapterInfo& info, GpuGemmF32 gemm) {
    return run_gpu<float>(argc, argv, info, gemm, cublas_sgemm,
                          precision_info(Precision::F32).yardstick_name, Precision::F32);
}

int run_gpu_chapter(int argc, char** argv, const ChapterInfo& info, GpuGemmF16 gemm) {
    return run_gpu<__half>(argc, argv, info, gemm, cublas_hgemm,
                           precision_info(Precision::F16).yardstick_name, Precision::F16);
}

CheckResult check_gpu_gemm(GpuGemmF32 gemm, const Problem& p, CheckMode mode) {
    return check_gpu<float>(gemm, p, mode, Precision::F32);
}

CheckResult check_gpu_gemm(GpuGemmF16 gemm, const Problem& p, CheckMode mode) {
    return check_gpu<__half>(gemm, p, mode, Precision::F16);
}

}  // namespace gemm

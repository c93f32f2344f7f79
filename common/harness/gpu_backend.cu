// The one GPU backend, for every precision (precision.hpp): device memory of the precision's types,
// the chapter and its yardstick (yardsticks.cu) behind one signature, timed with CUDA events after
// an L2 flush; the device it runs on is device_facts.cu's. The entry points of the GPU chapters
// (run_gpu_chapter, run_fp8_chapter) and the factories of their backends.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <stdexcept>
#include <vector>

#include "device_facts.cuh"
#include "gpu_backend.cuh"
#include "gpu_timing.cuh"
#include "harness_fp8.cuh"
#include "harness_gpu.cuh"
#include "runner.hpp"

namespace gemm {

namespace {

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
        flush_ =
            DeviceBuffer<char>(2 * std::size_t(device_attribute(cudaDevAttrL2CacheSize, device)));
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

// What the backend hands a kernel, whatever the precision (precision.hpp): device pointers to A
// and B (float, __half or e4m3 codes), to their scales (e4m3 only, else null) and to C (float or
// bf16).
struct Operands {
    const void* A;
    const void* B;
    const float* scale_a;
    const float* scale_b;
    void* C;
};
// A chapter's gemm() or a yardstick behind one signature: wrap() adapts each precision's contract
// (harness_gpu.cuh, harness_fp8.cuh).
using Call = std::function<void(const Problem&, const Operands&, cudaStream_t)>;

template <class T>
Call wrap(GpuGemm<T> fn) {
    if (!fn) return nullptr;
    return [fn](const Problem& p, const Operands& o, cudaStream_t s) {
        fn(p.shape.M, p.shape.N, p.shape.K, p.alpha, static_cast<const T*>(o.A), p.lda,
           static_cast<const T*>(o.B), p.ldb, p.beta, static_cast<float*>(o.C), p.ldc, s);
    };
}
Call wrap(GpuGemmFp8 fn) {
    if (!fn) return nullptr;
    return [fn](const Problem& p, const Operands& o, cudaStream_t s) {
        fn(p.shape.M, p.shape.N, p.shape.K, p.alpha, static_cast<const __nv_fp8_e4m3*>(o.A), p.lda,
           static_cast<const __nv_fp8_e4m3*>(o.B), p.ldb, o.scale_a, o.scale_b, p.beta,
           static_cast<__nv_bfloat16*>(o.C), p.ldc, s);
    };
}

// The yardstick the precision names (precision.hpp), behind the same signature.
Call yardstick_call(Precision precision) {
    switch (precision_info(precision).yardstick) {
        case Yardstick::CublasSgemm:
            return wrap<float>(cublas_sgemm);
        case Yardstick::CublasGemmEx:
            return wrap<__half>(cublas_hgemm);
        case Yardstick::CublasLtFp8:
            return wrap(cublaslt_fp8);
        case Yardstick::CublasLtFp8FastAccum:
            return wrap(cublaslt_fp8_fast_accum);
        case Yardstick::CublasLtFp8Blocks:
            return wrap(cublaslt_fp8_blocks);
    }
    return nullptr;
}

// Whether the yardstick takes this problem: cuBLASLt's FP8 modes refuse odd K, leading dimensions
// and alignments (the report then shows no yardstick for that size); cuBLAS takes every one.
bool yardstick_takes(const Problem& p, const Operands& o) {
    switch (precision_info(p.precision).yardstick) {
        case Yardstick::CublasSgemm:
        case Yardstick::CublasGemmEx:
            return true;
        default:
            return cublaslt_fp8_supports(p.precision, false, p.shape.M, p.shape.N, p.shape.K, o.A,
                                         p.lda, o.B, p.ldb, o.C, p.ldc);
    }
}

// Host floats, or codes, to device memory holding `n` elements of `bytes` each after `offset`
// elements. Floats go to the element type `e`: the values are representable in it already
// (make_inputs rounds them; NaN padding stays NaN), so the conversion is exact.
void to_device(const void* host, std::size_t n, Element e, DeviceBuffer<unsigned char>& dev,
               std::size_t offset) {
    const std::size_t bytes = e == Element::F32 ? 4 : e == Element::E4M3 ? 1 : 2;
    if (dev.size() != (n + offset) * bytes) dev = DeviceBuffer<unsigned char>((n + offset) * bytes);
    if (n == 0) return;
    unsigned char* at = dev.get() + offset * bytes;
    const float* f = static_cast<const float*>(host);
    switch (e) {
        case Element::F32:
        case Element::E4M3:  // the codes as they are
            GEMM_CUDA_CHECK(cudaMemcpy(at, host, n * bytes, cudaMemcpyHostToDevice));
            return;
        case Element::F16: {  // converted on the device, from a float copy
            DeviceBuffer<float> tmp(n);
            GEMM_CUDA_CHECK(cudaMemcpy(tmp.get(), f, n * sizeof(float), cudaMemcpyHostToDevice));
            convert_kernel<<<1024, 256>>>(tmp.get(), reinterpret_cast<__half*>(at), n);
            GEMM_CUDA_CHECK_LAUNCH();
            GEMM_CUDA_CHECK(cudaDeviceSynchronize());
            return;
        }
        case Element::BF16: {  // converted on the host
            std::vector<__nv_bfloat16> tmp(n);
            for (std::size_t i = 0; i < n; ++i) tmp[i] = __float2bfloat16(f[i]);
            GEMM_CUDA_CHECK(cudaMemcpy(at, tmp.data(), n * bytes, cudaMemcpyHostToDevice));
            return;
        }
    }
}

// C back as floats (bf16 C: exactly, every bf16 value is a float).
std::vector<float> from_device(const unsigned char* at, std::size_t n, Element e) {
    std::vector<float> C(n);
    if (n == 0) return C;
    if (e == Element::F32) {
        GEMM_CUDA_CHECK(cudaMemcpy(C.data(), at, n * sizeof(float), cudaMemcpyDeviceToHost));
    } else {
        std::vector<__nv_bfloat16> c(n);
        GEMM_CUDA_CHECK(
            cudaMemcpy(c.data(), at, n * sizeof(__nv_bfloat16), cudaMemcpyDeviceToHost));
        for (std::size_t i = 0; i < n; ++i) C[i] = __bfloat162float(c[i]);
    }
    return C;
}

// The one GPU backend: the operands of the precision of each problem it loads (precision.hpp),
// the chapter and the yardstick behind one signature.
class GpuBackend : public DeviceBackend {
public:
    GpuBackend(int device, Call chapter, Call yardstick, const char* yardstick_name,
               bool l2_flush = false)
        : DeviceBackend(device, yardstick_name, l2_flush),
          chapter_(std::move(chapter)),
          yardstick_(std::move(yardstick)) {}

    void check_fits(const Problem& p) const override {
        const PrecisionInfo& d = precision_info(p.precision);
        const bool codes = d.inputs == Inputs::E4M3Codes;
        std::size_t free_b = 0, total_b = 0;
        GEMM_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
        const unsigned long long ab = p.elems_A() + p.elems_B();
        // Beside A, B and C: e4m3 codes get a scratch copy when unaligned (aligned_operands.cuh)
        // and their scales; fp16 stages through a float copy; cuBLAS(Lt) keeps a workspace.
        const unsigned long long stage = codes ? 1ull * ab
                                         : d.ab_bytes < 4
                                             ? 4ull * std::max(p.elems_A(), p.elems_B())
                                             : 0;
        const unsigned long long scales =
            d.scales == Scales::None
                ? 0
                : 4ull * (fp8_scale_a_count(p.precision, p.shape.M, p.shape.K) +
                          fp8_scale_b_count(p.precision, p.shape.N, p.shape.K));
        const unsigned long long need = d.ab_bytes * ab + stage + d.c_bytes * p.elems_C() + scales +
                                        ((codes ? 96ull : 64ull) << 20);
        if (need > free_b)
            throw UsageError("size " + p.shape.str() + " needs " + std::to_string(need >> 20) +
                             " MiB of GPU memory, only " + std::to_string(free_b >> 20) +
                             " MiB free on device " + std::to_string(device_));
        // Host: A, B and C0 as floats (and the codes), the initial C, the C handed back, the
        // upload staging (and C's in bf16).
        check_host_fits(p, 4ull * ab + (codes ? ab : 0) + 16ull * p.elems_C() +
                               (d.c_bytes < 4 ? d.c_bytes * p.elems_C() : 0));
    }

    void load(const HostProblem& hp) override {
        p_ = hp.p;
        const PrecisionInfo& d = precision_info(p_.precision);
        dA_ = DeviceBuffer<unsigned char>();  // free the previous size first
        dB_ = DeviceBuffer<unsigned char>();
        dC_ = DeviceBuffer<unsigned char>();
        off_ = std::size_t(p_.view_offset);
        if (d.inputs == Inputs::E4M3Codes) {
            to_device(hp.A8.data(), hp.A8.size(), d.ab, dA_, off_);
            to_device(hp.B8.data(), hp.B8.size(), d.ab, dB_, off_);
        } else {
            to_device(hp.A.data(), hp.A.size(), d.ab, dA_, off_);
            to_device(hp.B.data(), hp.B.size(), d.ab, dB_, off_);
        }
        upload_scales(hp.scale_a, dsa_);
        upload_scales(hp.scale_b, dsb_);
        const std::vector<float> c = initial_C(hp);
        to_device(c.data(), c.size(), d.c, dC_, off_);
        c_count_ = c.size();
    }

    std::vector<float> run_once(const std::vector<float>& c_init) override {
        const PrecisionInfo& d = precision_info(p_.precision);
        if (!c_init.empty()) to_device(c_init.data(), c_init.size(), d.c, dC_, off_);
        chapter_(p_, operands(), stream_);
        GEMM_CUDA_CHECK(cudaGetLastError());
        GEMM_CUDA_CHECK(cudaStreamSynchronize(stream_));
        return from_device(dC_.get() + off_ * d.c_bytes, c_count_, d.c);
    }

    std::vector<double> time_chapter(int warmup, int reps) override {
        const Operands o = operands();
        return time(warmup, reps, [&] { call(chapter_, o); });
    }
    // Empty where the yardstick does not take the shape: the report then shows none for that size.
    std::vector<double> time_yardstick(int warmup, int reps) override {
        const Operands o = operands();
        if (!yardstick_takes(p_, o)) return {};
        return time(warmup, reps, [&] { call(yardstick_, o); });
    }

private:
    static void upload_scales(const std::vector<float>& host, DeviceBuffer<float>& dev) {
        dev = DeviceBuffer<float>(host.size());
        if (!host.empty())
            GEMM_CUDA_CHECK(cudaMemcpy(dev.get(), host.data(), host.size() * sizeof(float),
                                       cudaMemcpyHostToDevice));
    }
    Operands operands() const {
        const PrecisionInfo& d = precision_info(p_.precision);
        return {dA_.get() + off_ * d.ab_bytes, dB_.get() + off_ * d.ab_bytes, dsa_.get(),
                dsb_.get(), dC_.get() + off_ * d.c_bytes};
    }
    void call(const Call& fn, const Operands& o) {
        fn(p_, o, stream_);
        GEMM_CUDA_CHECK(cudaGetLastError());
    }

    Call chapter_, yardstick_;
    Problem p_;
    std::size_t off_ = 0;      // Problem::view_offset, in elements of each matrix
    std::size_t c_count_ = 0;  // elements of C past the offset, padding included
    DeviceBuffer<unsigned char> dA_, dB_, dC_;
    DeviceBuffer<float> dsa_, dsb_;  // e4m3 only: the scales (empty otherwise)
};

}  // namespace

namespace {

// The chapter's gemm() for `precision`, timed beside the yardstick that precision names
// (precision.hpp), on the device the options name.
BackendFactory make_factory(const ChapterInfo& info, Precision precision, Call gemm) {
    return [info, precision, gemm](const Options& o) {
        const int dev = select_device(o, info);
        return std::unique_ptr<Backend>(new GpuBackend(dev, gemm, yardstick_call(precision),
                                                       precision_info(precision).yardstick_name,
                                                       o.l2_flush));
    };
}

GpuBackend current_device_backend(Call gemm) {
    int dev = 0;
    GEMM_CUDA_CHECK(cudaGetDevice(&dev));
    return GpuBackend(dev, std::move(gemm), nullptr, "");
}

}  // namespace

BackendFactory gpu_backend(const ChapterInfo& info, GpuGemmF32 gemm) {
    return make_factory(info, Precision::F32, wrap<float>(gemm));
}

BackendFactory gpu_backend(const ChapterInfo& info, GpuGemmF16 gemm) {
    return make_factory(info, Precision::F16, wrap<__half>(gemm));
}

BackendFactory gpu_backend(const ChapterInfo& info, Precision precision, GpuGemmFp8 gemm) {
    return make_factory(info, precision, wrap(gemm));
}

Precision fp8_precision(const ChapterInfo& info) {
    Precision precision = Precision::E4M3;
    try {
        precision = precision_from_list(info.precision);
    } catch (const std::invalid_argument& e) {
        throw std::invalid_argument(info.id + ": " + e.what() + " (chapters/chapters.txt)");
    }
    if (precision_info(precision).inputs != Inputs::E4M3Codes)
        throw std::invalid_argument(info.id + ": precision " + info.precision +
                                    " has no e4m3 inputs");
    return precision;
}

int run_gpu_chapter(int argc, char** argv, const ChapterInfo& info, GpuGemmF32 gemm) {
    return run_chapter(argc, argv, info, Precision::F32, gpu_backend(info, gemm));
}

int run_gpu_chapter(int argc, char** argv, const ChapterInfo& info, GpuGemmF16 gemm) {
    return run_chapter(argc, argv, info, Precision::F16, gpu_backend(info, gemm));
}

int run_fp8_chapter(int argc, char** argv, const ChapterInfo& info, GpuGemmFp8 gemm) {
    Precision precision = Precision::E4M3;
    try {
        precision = fp8_precision(info);
    } catch (const std::invalid_argument& e) {
        std::fprintf(stderr, "run_fp8_chapter: %s\n", e.what());
        return 2;
    }
    return run_chapter(argc, argv, info, precision, gpu_backend(info, precision, gemm));
}

CheckResult check_gpu_gemm(GpuGemmF32 gemm, const Problem& p, CheckMode mode) {
    GpuBackend backend = current_device_backend(wrap<float>(gemm));
    return load_and_check(backend, make_inputs(as_precision(p, Precision::F32)), mode);
}

CheckResult check_gpu_gemm(GpuGemmF16 gemm, const Problem& p, CheckMode mode) {
    GpuBackend backend = current_device_backend(wrap<__half>(gemm));
    return load_and_check(backend, make_inputs(as_precision(p, Precision::F16)), mode);
}

CheckResult check_gpu_fp8(GpuGemmFp8 gemm, const Problem& p, CheckMode mode) {
    GpuBackend backend = current_device_backend(wrap(gemm));
    return load_and_check(backend, make_inputs(p), mode);
}

std::vector<float> run_gpu_fp8(GpuGemmFp8 gemm, const HostProblem& hp) {
    GpuBackend backend = current_device_backend(wrap(gemm));
    backend.load(hp);
    return backend.run_once(initial_C(hp));
}

}  // namespace gemm

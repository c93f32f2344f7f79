// What the harness knows about a GPU: whether there is one to use, which one the options name and
// whether the chapter runs on it, its properties, its theoretical peaks and the report printed
// above every run's table. No cuBLAS here (the yardsticks: yardsticks.cu), no backend
// (gpu_backend.cu).
#include <iomanip>
#include <sstream>
#include <string>

#include "backend.hpp"  // NoDevice
#include "cuda_check.cuh"
#include "device_facts.cuh"

namespace gemm {

int device_attribute(cudaDeviceAttr a, int device) {
    int v = 0;
    GEMM_CUDA_CHECK(cudaDeviceGetAttribute(&v, a, device));
    return v;
}

std::string pci_bus_id(int device) {
    char id[32] = {};
    GEMM_CUDA_CHECK(cudaDeviceGetPCIBusId(id, sizeof id, device));
    return id;
}

namespace {

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

}  // namespace

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
    const double clock_ghz = device_attribute(cudaDevAttrClockRate, device) * 1e-6;
    const double mem_ghz = device_attribute(cudaDevAttrMemoryClockRate, device) * 1e-6;
    const int bus_bits = device_attribute(cudaDevAttrGlobalMemoryBusWidth, device);
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
      << device_attribute(cudaDevAttrClockRate, device) / 1000.0 << " MHz\n"
      << "memory: " << double(prop.totalGlobalMem) / (1 << 30) << " GiB, "
      << device_attribute(cudaDevAttrGlobalMemoryBusWidth, device) << "-bit bus at "
      << device_attribute(cudaDevAttrMemoryClockRate, device) / 1000.0 << " MHz, peak "
      << pk.bandwidth_gbs << " GB/s; L2 " << prop.l2CacheSize / (1 << 20)
      << " MiB; shared memory per block up to " << prop.sharedMemPerBlockOptin / 1024 << " KiB\n"
      << "peaks (theoretical, at the boost clock): fp32 CUDA cores " << pk.fp32_gflops
      << " GFLOP/s; ";
    if (pk.fp16_tensor_gflops > 0)
        s << "fp16 tensor cores (fp32 accumulate, dense) about " << pk.fp16_tensor_gflops
          << " GFLOP/s\n";
    else
        s << "fp16 tensor cores: unknown for this architecture\n";
    return s.str();
}

int select_device(const Options& o, const ChapterInfo& info) {
    std::string why;
    if (!cuda_device_available(&why)) throw NoDevice(why);
    int count = 0;
    GEMM_CUDA_CHECK(cudaGetDeviceCount(&count));
    if (o.device >= count)
        throw UsageError("--device " + std::to_string(o.device) + ": this machine has " +
                         std::to_string(count) + " CUDA device(s), numbered from 0");
    GEMM_CUDA_CHECK(cudaSetDevice(o.device));
    const int cc = 10 * device_attribute(cudaDevAttrComputeCapabilityMajor, o.device) +
                   device_attribute(cudaDevAttrComputeCapabilityMinor, o.device);
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

}  // namespace gemm

// What the GPU backend does whatever its operands' type: the device, its stream, the L2 flush
// before timed runs, the conditions sampler. gpu_backend.cu derives the one backend of every
// precision from it (its operands: precision.hpp).
#pragma once

#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "gpu_conditions.hpp"
#include "gpu_timing.cuh"
#include "harness_gpu.cuh"
#include "host_memory.hpp"  // check_host_fits, for check_fits
#include "measure.hpp"      // load_and_check, for check_gpu_gemm
#include "runner.hpp"       // run_chapter, which each backend's entry point calls

namespace gemm {

class DeviceBackend : public Backend {
public:
    DeviceBackend(int device, const char* yardstick_name, bool l2_flush);
    ~DeviceBackend() override;
    std::string device_name() const override;
    std::string device_report() const override;
    Peaks peaks() const override;
    std::string yardstick_name() const override { return yardstick_name_; }
    RunEnvironment environment() const override;
    void start_sampling() override;
    Sampled stop_sampling() override;
    std::string l2_flush() const override;

protected:
    // CUDA-event times of `reps` calls on the stream, each after an L2 flush (when on).
    template <class Fn>
    std::vector<double> time(int warmup, int reps, Fn&& call) {
        return time_on_stream(stream_, warmup, reps, call, [&] { flush(); });
    }
    void flush();

    int device_;
    const char* yardstick_name_;
    cudaStream_t stream_ = nullptr;
    DeviceBuffer<char> flush_;  // empty: no flush (--l2-flush off)
    unsigned char flushes_ = 0;
    ConditionsSampler sampler_;
};

}  // namespace gemm

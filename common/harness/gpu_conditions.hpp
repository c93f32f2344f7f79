// The conditions a GPU result was measured under: driver, library versions, power limit, and the SM
// clock, board power and throttle reasons sampled while the timed runs ran. Read through NVML,
// loaded at run time (dlopen), so that a binary built without the driver still starts.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace gemm {

// What stays the same for a whole run.
struct RunEnvironment {
    std::string driver;        // "580.95.05" (NVML), or the CUDA driver API version "13.0"
    std::string cuda_runtime;  // "13.0"
    std::string cublas;        // "13.1.0"
    double power_limit_w = 0;  // the enforced board power limit; 0 when unknown
};

// What the sampler saw while one shape was timed.
struct Sampled {
    int samples = 0;
    double sm_clock_mhz = 0;    // median
    double power_w = 0;         // median
    double temperature_c = 0;   // maximum
    std::string throttle = "";  // "sw_power_cap 63%; hw_thermal 2%" or "none"; "" when not sampled
};

// Samples NVML every few milliseconds on a thread of its own between start() and stop().
class ConditionsSampler {
public:
    // `pci_bus_id` names the GPU as cudaDeviceGetPCIBusId does. Without NVML (no driver library),
    // available() is false and stop() returns an empty Sampled.
    explicit ConditionsSampler(const std::string& pci_bus_id);
    ~ConditionsSampler();
    ConditionsSampler(const ConditionsSampler&) = delete;
    ConditionsSampler& operator=(const ConditionsSampler&) = delete;

    bool available() const { return device_ != nullptr; }
    std::string driver_version() const;  // "" when unknown
    double power_limit_w() const;        // 0 when unknown
    void start();
    Sampled stop();

private:
    struct Sample {
        unsigned clock_mhz, power_mw, temperature_c;
        unsigned long long reasons;
    };
    void loop();

    void* device_ = nullptr;  // nvmlDevice_t
    std::thread thread_;
    std::atomic<bool> running_{false};
    std::vector<Sample> samples_;
};

// The reasons (NVML clock-event bits, one word per sample) that slowed the clock down, each with
// the share of samples it was active in: "sw_power_cap 63%; hw_thermal 2%". Idle and
// application-clock bits are not slowdowns. "none" when no sample had one.
std::string throttle_summary(const std::vector<unsigned long long>& reasons);

}  // namespace gemm

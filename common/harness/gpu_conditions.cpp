#include "gpu_conditions.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>

#include "stats.hpp"

namespace gemm {

namespace {

// The few NVML entry points the sampler uses, declared by hand: the toolkit does not always ship
// nvml.h, and the library comes with the driver, not the toolkit. Types and values from NVML's
// public API (nvmlReturn_t is an int enum, 0 = NVML_SUCCESS).
using nvmlDevice = void*;
// nvmlFieldValue_t, for the instantaneous board power (NVML_FI_DEV_POWER_INSTANT = 186, in mW):
// nvmlDeviceGetPowerUsage averages over about a second on Hopper, longer than many timed sizes.
struct FieldValue {
    unsigned field_id, scope_id;
    long long timestamp, latency_us;
    unsigned value_type, status;
    union {
        double d;
        unsigned ui;
        unsigned long ul;
        unsigned long long ull;
        long long sll;
        int si;
    } value;
};
constexpr unsigned kPowerInstant = 186;
struct Nvml {
    int (*init)() = nullptr;
    int (*by_pci)(const char*, nvmlDevice*) = nullptr;
    int (*clock)(nvmlDevice, int, unsigned*) = nullptr;           // nvmlDeviceGetClockInfo
    int (*power)(nvmlDevice, unsigned*) = nullptr;                // milliwatts
    int (*limit)(nvmlDevice, unsigned*) = nullptr;                // milliwatts
    int (*temperature)(nvmlDevice, int, unsigned*) = nullptr;     // degrees C
    int (*reasons)(nvmlDevice, unsigned long long*) = nullptr;    // clock-event reason bits
    int (*driver)(char*, unsigned) = nullptr;
    int (*fields)(nvmlDevice, int, FieldValue*) = nullptr;  // nvmlDeviceGetFieldValues
    bool ok = false;
};
constexpr int kClockSm = 1;         // NVML_CLOCK_SM
constexpr int kTemperatureGpu = 0;  // NVML_TEMPERATURE_GPU

template <class F>
void bind(void* lib, F& f, const char* name) {
    f = reinterpret_cast<F>(dlsym(lib, name));
}

const Nvml& nvml() {
    static const Nvml n = [] {
        Nvml n;
        void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
        if (!lib) return n;
        bind(lib, n.init, "nvmlInit_v2");
        bind(lib, n.by_pci, "nvmlDeviceGetHandleByPciBusId_v2");
        bind(lib, n.clock, "nvmlDeviceGetClockInfo");
        bind(lib, n.power, "nvmlDeviceGetPowerUsage");
        bind(lib, n.limit, "nvmlDeviceGetEnforcedPowerLimit");
        bind(lib, n.temperature, "nvmlDeviceGetTemperature");
        // Renamed in newer drivers; the old name is still exported.
        bind(lib, n.reasons, "nvmlDeviceGetCurrentClocksEventReasons");
        if (!n.reasons) bind(lib, n.reasons, "nvmlDeviceGetCurrentClocksThrottleReasons");
        bind(lib, n.driver, "nvmlSystemGetDriverVersion");
        bind(lib, n.fields, "nvmlDeviceGetFieldValues");
        n.ok = n.init && n.by_pci && n.clock && n.power && n.reasons && n.init() == 0;
        return n;
    }();
    return n;
}


}  // namespace

std::string throttle_summary(const std::vector<unsigned long long>& reasons) {
    // NVML's clock-event reason bits that mean "slower than it could be".
    static const struct {
        unsigned long long bit;
        const char* name;
    } kinds[] = {{0x4, "sw_power_cap"},   {0x8, "hw_slowdown"},  {0x20, "sw_thermal"},
                 {0x40, "hw_thermal"},    {0x80, "hw_power_brake"}};
    std::string out;
    for (const auto& k : kinds) {
        const auto n = std::count_if(reasons.begin(), reasons.end(),
                                     [&](unsigned long long r) { return (r & k.bit) != 0; });
        if (n == 0) continue;
        const int pct = int(100.0 * double(n) / double(reasons.size()) + 0.5);
        out += (out.empty() ? "" : "; ") + std::string(k.name) + " " + std::to_string(pct) + "%";
    }
    return out.empty() ? "none" : out;
}

ConditionsSampler::ConditionsSampler(const std::string& pci_bus_id) {
    const Nvml& n = nvml();
    nvmlDevice dev = nullptr;
    if (n.ok && n.by_pci(pci_bus_id.c_str(), &dev) == 0) device_ = dev;
}

ConditionsSampler::~ConditionsSampler() {
    if (running_) stop();
}

std::string ConditionsSampler::driver_version() const {
    char v[96] = {};
    if (!nvml().ok || !nvml().driver || nvml().driver(v, sizeof v) != 0) return "";
    return v;
}

double ConditionsSampler::power_limit_w() const {
    unsigned mw = 0;
    if (!device_ || !nvml().limit || nvml().limit(device_, &mw) != 0) return 0;
    return mw / 1000.0;
}

void ConditionsSampler::start() {
    if (!device_ || running_) return;
    samples_.clear();
    running_ = true;
    thread_ = std::thread([this] { loop(); });
}

void ConditionsSampler::loop() {
    const Nvml& n = nvml();
    do {  // at least one sample, however short the series
        Sample s{};
        n.clock(device_, kClockSm, &s.clock_mhz);
        FieldValue f{};
        f.field_id = kPowerInstant;
        if (n.fields && n.fields(device_, 1, &f) == 0 && f.status == 0 && f.value_type == 1)
            s.power_mw = f.value.ui;  // NVML_VALUE_TYPE_UNSIGNED_INT
        else
            n.power(device_, &s.power_mw);  // drivers without the field: the 1-second average
        if (n.temperature) n.temperature(device_, kTemperatureGpu, &s.temperature_c);
        n.reasons(device_, &s.reasons);
        samples_.push_back(s);
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    } while (running_);
}

Sampled ConditionsSampler::stop() {
    Sampled out;
    if (!running_) return out;
    running_ = false;
    thread_.join();
    std::vector<double> clock, power;
    std::vector<unsigned long long> reasons;
    for (const Sample& s : samples_) {
        clock.push_back(s.clock_mhz);
        power.push_back(s.power_mw / 1000.0);
        reasons.push_back(s.reasons);
        out.temperature_c = std::max(out.temperature_c, double(s.temperature_c));
    }
    out.samples = int(samples_.size());
    if (out.samples == 0) return out;
    out.sm_clock_mhz = median(clock);
    out.power_w = median(power);
    out.throttle = throttle_summary(reasons);
    return out;
}

}  // namespace gemm

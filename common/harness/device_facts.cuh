// What the harness knows about a GPU (device_facts.cu): whether one can be used, which one a run
// uses, its properties, theoretical peaks and the report printed above a run's table.
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "chapter.hpp"
#include "options.hpp"
#include "report.hpp"

namespace gemm {

// True when a CUDA device can be used; otherwise *why says why in one sentence.
bool cuda_device_available(std::string* why);

// Picks the device the options name; throws NoDevice when the chapter cannot run on it (none, or
// not of a compute capability it runs on), UsageError when there is no such device.
int select_device(const Options& o, const ChapterInfo& info);

// Device name, compute capability, SMs, clocks, memory and theoretical peaks, one item per line.
std::string device_report(int device);
Peaks device_peaks(int device);

int device_attribute(cudaDeviceAttr a, int device);
std::string pci_bus_id(int device);  // as NVML names the device (the conditions sampler)

}  // namespace gemm

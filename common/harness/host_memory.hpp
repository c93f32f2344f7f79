// Whether a problem fits in host memory: what each Backend's check_fits asks before anything is
// allocated, so that a size too large stops the run with exit 2 instead of the OOM killer.
#pragma once

#include "problem.hpp"

namespace gemm {

// Bytes of host memory this process may still use (MemAvailable), 0 when unknown.
unsigned long long host_available_bytes();

// Throws UsageError when `bytes` of host memory are more than this machine has available.
void check_host_fits(const Problem& p, unsigned long long bytes);

}  // namespace gemm

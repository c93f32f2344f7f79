#include "host_memory.hpp"

#include <fstream>
#include <string>

#include "options.hpp"  // UsageError

namespace gemm {

unsigned long long host_available_bytes() {
    std::ifstream f("/proc/meminfo");
    std::string key;
    unsigned long long kb = 0;
    std::string unit;
    while (f >> key >> kb >> unit)
        if (key == "MemAvailable:") return kb * 1024ull;
    return 0;
}

void check_host_fits(const Problem& p, unsigned long long bytes) {
    const unsigned long long have = host_available_bytes();
    if (have && bytes > have)
        throw UsageError("size " + p.shape.str() + " needs " + std::to_string(bytes >> 20) +
                         " MiB of host memory, only " + std::to_string(have >> 20) +
                         " MiB available");
}

}  // namespace gemm

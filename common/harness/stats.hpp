// The statistics of timed runs: the median that every reported time and ratio is, and the lowest
// and highest beside it (docs/harness.md, "Timing").
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace gemm {

// The middle value (the mean of the two middle ones for an even count); 0 for none.
inline double median(std::vector<double> v) {
    if (v.empty()) return 0.0;
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

struct Spread {
    double median = 0, min = 0, max = 0;
};

// Median, lowest and highest of v; zeros for none.
inline Spread spread(const std::vector<double>& v) {
    if (v.empty()) return {};
    const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
    return {median(v), *lo, *hi};
}

}  // namespace gemm

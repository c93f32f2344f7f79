// The CPU timing loop of the harness's CPU backend. (A graded kernel's child is timed by the grade
// itself, on its own clock: common/remote.cpp.)
#pragma once

#include <chrono>
#include <thread>
#include <vector>

namespace gemm {

// Milliseconds of each of `reps` calls, after `warmup` untimed ones.
template <class Fn>
std::vector<double> time_on_cpu(int warmup, int reps, Fn&& call) {
    // Worker threads of the previous series (OpenMP's or OpenBLAS's, in this process or in the
    // grade that started it) spin for a while after their last call before they sleep; on a
    // small machine they would steal cores from this series. Give them time to go to sleep.
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    for (int i = 0; i < warmup; ++i) call();
    std::vector<double> ms;
    for (int i = 0; i < reps; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        call();
        const auto t1 = std::chrono::steady_clock::now();
        ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    }
    return ms;
}

}  // namespace gemm

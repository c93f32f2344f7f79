// The CPU timing loop of the harness's CPU backend. (A graded kernel's child is timed by the grade
// itself, on its own clock: common/grading/remote.cpp.)
#pragma once

#include <dirent.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace gemm {

// Whether a thread of this process other than the caller, or of the process that started it, is
// running (state R in /proc/<pid>/task/<tid>/stat). False where /proc cannot tell.
inline bool other_threads_running() {
    const std::string self = std::to_string(::syscall(SYS_gettid));
    for (const std::string& pid : {std::string("self"), std::to_string(::getppid())}) {
        const std::string tasks = "/proc/" + pid + "/task/";
        DIR* dir = ::opendir(tasks.c_str());
        if (!dir) continue;
        bool running = false;
        while (const dirent* t = ::readdir(dir)) {
            if (t->d_name[0] == '.' || (pid == "self" && self == t->d_name)) continue;
            std::ifstream f(tasks + t->d_name + "/stat");
            std::string stat;
            std::getline(f, stat);  // "tid (name) S ...": the name may hold spaces and ')'
            const std::size_t name_end = stat.rfind(')');
            if (name_end != std::string::npos && stat.compare(name_end, 3, ") R") == 0) {
                running = true;
                break;
            }
        }
        ::closedir(dir);
        if (running) return true;
    }
    return false;
}

// Worker threads of the previous series (OpenBLAS's spin about 2^28 cycles, ~0.1 s, after their
// last call; OpenMP's 300,000 turns of a loop), in this process or in the grade that started it,
// would steal cores from the next series on a small machine. Waits until none is running, then as
// long again (a thread woken right after spinning can stall a parallel call for a scheduler tick:
// docs/harness.md, "Timing"), 200 ms at most; not at all when they sleep already.
inline void wait_for_idle_workers() {
    const auto start = std::chrono::steady_clock::now();
    const auto give_up = start + std::chrono::milliseconds(200);
    while (other_threads_running() && std::chrono::steady_clock::now() < give_up)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    const auto now = std::chrono::steady_clock::now();
    std::this_thread::sleep_for(std::min(now - start, give_up - now));
}

// Milliseconds of each of `reps` calls, after `warmup` untimed ones.
template <class Fn>
std::vector<double> time_on_cpu(int warmup, int reps, Fn&& call) {
    wait_for_idle_workers();
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

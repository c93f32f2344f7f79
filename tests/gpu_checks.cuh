// What the GPU test suites check a kernel with (any function with the chapter contract), and their
// common main() (a chapter's test.cu: chapter_test_main): without a GPU a suite reports SKIP (exit
// 77) unless GEMM_REQUIRE_GPU=1, which turns a missing GPU into a failure; a suite for sm_90a code
// skips on other GPUs.
#pragma once

#include <doctest/doctest.h>

#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "cases.hpp"
#include "harness_gpu.cuh"

namespace gemm_tests {

template <class Fn>
void check_all(Fn fn, bool include_large) {
    std::vector<gemm::Problem> cases = small_cases();
    if (include_large)
        for (const gemm::Problem& p : large_cases()) cases.push_back(p);
    for (const gemm::Problem& p : cases) {
        CAPTURE(name(p));
        gemm::CheckResult r = gemm::check_gpu_gemm(fn, p);
        CHECK_MESSAGE(r.pass, r.summary());
    }
}

// A view into a bigger matrix: base pointers one element past a 16-byte boundary, with leading
// dimensions that are multiples of 8 (so only the pointers betray the misalignment) and odd ones.
template <class Fn>
void check_misaligned_views(Fn fn) {
    for (gemm::Problem p :
         {make(96, 128, 64, 64, 128, 128, 1.0f, 0.5f),
          make(97, 101, 103, 105, 107, 109, 1.0f, 0.5f), make(300, 260, 270, 280, 264, 272)}) {
        p.view_offset = 1;
        CAPTURE(name(p));
        gemm::CheckResult r = gemm::check_gpu_gemm(fn, p);
        CHECK_MESSAGE(r.pass, r.summary());
    }
}

// Shapes that take the TMA path itself (leading dimensions multiples of 8) with partial tiles,
// several persistent rounds, a long K and alpha/beta; the awkward ones of cases.hpp take the padded
// copy.
template <class Fn>
void check_tma_paths(Fn fn) {
    for (const gemm::Problem& p :
         {make(1000, 1000, 1000), make(2000, 3000, 520, 0, 0, 0, 1.5f, -0.5f), make(4096, 4096, 64),
          make(136, 264, 8200), make(200, 72, 16, 24, 80, 75, 1.0f, 1.0f),
          make(300, 200, 40, 48, 208, 204, 0.5f, 0.0f)}) {  // C by TMA, padded ldc
        CAPTURE(name(p));
        gemm::CheckResult r = gemm::check_gpu_gemm(fn, p);
        CHECK_MESSAGE(r.pass, r.summary());
    }
}

// Everything a chapter (or one of its named configurations) must get right; the sm_90a ones also
// on the shapes that take their TMA paths.
template <class Fn>
void check_chapter(Fn fn, bool hopper) {
    check_all(fn, true);
    check_misaligned_views(fn);
    if (hopper) check_tma_paths(fn);
}

inline int gpu_test_main(int argc, char** argv, bool hopper) {
    std::string why;
    if (!gemm::cuda_device_available(&why)) {
        const char* req = std::getenv("GEMM_REQUIRE_GPU");
        if (req && std::strcmp(req, "0") != 0 && *req) {
            std::cerr << "GEMM_REQUIRE_GPU is set but " << why << "\n";
            return 1;
        }
        std::cout << "skipped: " << why << "\n";
        return 77;
    }
    if (hopper) {
        int dev = 0, major = 0, minor = 0;
        GEMM_CUDA_CHECK(cudaGetDevice(&dev));
        GEMM_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
        GEMM_CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev));
        if (major != 9 || minor != 0) {  // not a failure: sm_90a code is for Hopper alone
            std::cout << "skipped: sm_90a code needs compute capability 9.0, device " << dev
                      << " has " << major << "." << minor << "\n";
            return 77;
        }
    }
    doctest::Context ctx(argc, argv);
    return ctx.run();
}

// The main of a chapter's test.cu (chapters/meson.build runs it twice): with --host, its
// TEST_SUITE("host") alone, checks of the host code that need no GPU (host_<chapter>, on any
// machine); without, everything else, on the GPU as gpu_test_main does (gpu_<chapter>).
inline int chapter_test_main(int argc, char** argv, bool hopper) {
    std::vector<char*> args;
    bool host = false;
    for (int i = 0; i < argc; ++i) {
        if (std::strcmp(argv[i], "--host") == 0)
            host = true;
        else
            args.push_back(argv[i]);
    }
    if (!host) {
        args.push_back(const_cast<char*>("--test-suite-exclude=host"));
        return gpu_test_main(static_cast<int>(args.size()), args.data(), hopper);
    }
    doctest::Context ctx(static_cast<int>(args.size()), args.data());
    ctx.addFilter("test-suite", "host");
    return ctx.run();
}

}  // namespace gemm_tests

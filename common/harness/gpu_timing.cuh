// Device-side helpers of the harness: the timing loop, and the upload of host inputs, which the
// grading child process (tools/grading/grade_child.cu) shares. Nothing here needs cuBLAS.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <type_traits>
#include <vector>

#include "harness_gpu.cuh"

namespace gemm {

// The timing loop for both the chapter and cuBLAS: CUDA events around each call, on one stream.
// `before` runs ahead of every call, outside the timed region (the L2 flush).
template <class Fn, class Before>
inline std::vector<double> time_on_stream(cudaStream_t stream, int warmup, int reps, Fn&& call,
                                          Before&& before) {
    for (int i = 0; i < warmup; ++i) before(), call();
    GEMM_CUDA_CHECK(cudaStreamSynchronize(stream));
    cudaEvent_t start, stop;
    GEMM_CUDA_CHECK(cudaEventCreate(&start));
    GEMM_CUDA_CHECK(cudaEventCreate(&stop));
    std::vector<double> ms;
    for (int i = 0; i < reps; ++i) {
        before();
        GEMM_CUDA_CHECK(cudaEventRecord(start, stream));
        call();
        GEMM_CUDA_CHECK(cudaEventRecord(stop, stream));
        GEMM_CUDA_CHECK(cudaEventSynchronize(stop));
        float t = 0;
        GEMM_CUDA_CHECK(cudaEventElapsedTime(&t, start, stop));
        ms.push_back(t);
    }
    GEMM_CUDA_CHECK(cudaEventDestroy(start));
    GEMM_CUDA_CHECK(cudaEventDestroy(stop));
    return ms;
}
template <class Fn>
inline std::vector<double> time_on_stream(cudaStream_t stream, int warmup, int reps, Fn&& call) {
    return time_on_stream(stream, warmup, reps, call, [] {});
}

template <class T>
__global__ void convert_kernel(const float* in, T* out, std::size_t n) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
         i += std::size_t(gridDim.x) * blockDim.x)
        out[i] = T(in[i]);
}

// Copies a host float matrix (padding included) into device memory of type T, `offset` elements
// after the start of the allocation. The values are already representable in T (make_inputs
// rounds fp16 inputs), so the conversion is exact; NaN padding stays NaN.
template <class T>
inline void upload(const std::vector<float>& host, DeviceBuffer<T>& dev, std::size_t offset) {
    dev = DeviceBuffer<T>(host.size() + offset);
    if (host.empty()) return;
    if constexpr (std::is_same<T, float>::value) {
        GEMM_CUDA_CHECK(cudaMemcpy(dev.get() + offset, host.data(), host.size() * sizeof(float),
                                   cudaMemcpyHostToDevice));
    } else {
        DeviceBuffer<float> tmp(host.size());
        GEMM_CUDA_CHECK(cudaMemcpy(tmp.get(), host.data(), host.size() * sizeof(float),
                                   cudaMemcpyHostToDevice));
        convert_kernel<<<1024, 256>>>(tmp.get(), dev.get() + offset, host.size());
        GEMM_CUDA_CHECK_LAUNCH();
        GEMM_CUDA_CHECK(cudaDeviceSynchronize());
    }
}

}  // namespace gemm

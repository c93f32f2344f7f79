// Host-side launch resources of the chapters that keep partial sums between kernels (16-18): a
// scratch buffer per stream, the GPU's SM count, and how many blocks fit on it. Launch code, like
// aligned_operands.cuh, here because kernel files include it.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <map>
#include <mutex>
#include <utility>

#include "cuda_check.cuh"

namespace launch {

// A workspace of `bytes` per (device, stream) and element type, allocated on first use and grown,
// never freed (no allocation in a timed call), zeroed when allocated: a counter starts at 0 and the
// kernel that uses it puts it back. Calls on one stream run one after the other (a second kernel
// included); calls on two streams use two workspaces; the mutex covers several host threads.
template <class T>
inline T* workspace_for(std::size_t bytes, cudaStream_t stream) {
    static std::mutex mutex;
    static std::map<std::pair<int, cudaStream_t>, std::pair<T*, std::size_t>> all;
    int dev = 0;
    GEMM_CUDA_CHECK(cudaGetDevice(&dev));
    const std::lock_guard<std::mutex> lock(mutex);
    std::pair<T*, std::size_t>& w = all[{dev, stream}];
    if (bytes > w.second) {
        // The old buffer may still be in use by this stream's previous kernel: freed after it.
        if (w.first) GEMM_CUDA_CHECK(cudaFreeAsync(w.first, stream));
        GEMM_CUDA_CHECK(cudaMallocAsync(&w.first, bytes, stream));
        GEMM_CUDA_CHECK(cudaMemsetAsync(w.first, 0, bytes, stream));
        w.second = bytes;
    }
    return w.first;
}

// The current device's SM count, looked up once.
inline int sm_count() {
    static const int sms = [] {
        int dev = 0, n = 0;
        GEMM_CUDA_CHECK(cudaGetDevice(&dev));
        GEMM_CUDA_CHECK(cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev));
        return n;
    }();
    return sms;
}

// How many blocks of `threads` fit on the GPU at once, after the shared-memory opt-in (for
// kernels without clusters: chapter 15's resident_clusters counts clusters).
template <class Kernel>
inline int resident_blocks(Kernel kernel, int threads, int smem_bytes) {
    GEMM_CUDA_CHECK(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_bytes));
    int n = 0;
    GEMM_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kernel, threads, smem_bytes));
    return n * sm_count();
}

}  // namespace launch

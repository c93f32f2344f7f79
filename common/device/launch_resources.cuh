// Host-side launch resources of the chapters that keep partial sums between kernels (16-18): a
// scratch buffer per stream, the GPU's SM count, and how many blocks fit on it. Launch code, like
// aligned_operands.cuh, here because kernel files include it.
#pragma once

#include <cuda.h>
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

// The SMs the kernels of `stream` may run on: its green context's share when it belongs to one,
// else its context's (the whole GPU, or MPS's share of it); 0 when the driver cannot say (before
// CUDA 12.5: cuStreamGetCtx_v2). The driver's entry points are looked up once (the program does
// not link against libcuda); the query runs per call (a green context is per stream).
inline int stream_sms(cudaStream_t stream) {
#if CUDART_VERSION >= 12050
    using GetCtx = CUresult (*)(CUstream, CUcontext*, CUgreenCtx*);
    using GreenRes = CUresult (*)(CUgreenCtx, CUdevResource*, CUdevResourceType);
    using CtxRes = CUresult (*)(CUcontext, CUdevResource*, CUdevResourceType);
    auto lookup = [](const char* name, int version) {
        void* fn = nullptr;
        cudaDriverEntryPointQueryResult q{};
        if (cudaGetDriverEntryPointByVersion(name, &fn, version, cudaEnableDefault, &q) !=
                cudaSuccess ||
            q != cudaDriverEntryPointSuccess)
            fn = nullptr, (void)cudaGetLastError();  // not found: no error left for the launch
        return fn;
    };
    static const auto get_ctx = reinterpret_cast<GetCtx>(lookup("cuStreamGetCtx", 12050));
    static const auto green_res =
        reinterpret_cast<GreenRes>(lookup("cuGreenCtxGetDevResource", 12040));
    static const auto ctx_res = reinterpret_cast<CtxRes>(lookup("cuCtxGetDevResource", 12040));
    CUcontext ctx = nullptr;
    CUgreenCtx green = nullptr;
    if (!get_ctx || !green_res || !ctx_res || get_ctx(stream, &ctx, &green) != CUDA_SUCCESS)
        return 0;
    CUdevResource sms{};
    const CUresult e = green ? green_res(green, &sms, CU_DEV_RESOURCE_TYPE_SM)
                             : ctx_res(ctx, &sms, CU_DEV_RESOURCE_TYPE_SM);
    return e == CUDA_SUCCESS ? static_cast<int>(sms.sm.smCount) : 0;
#else
    (void)stream;
    return 0;
#endif
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

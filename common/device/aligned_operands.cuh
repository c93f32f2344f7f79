// The general-shape layer of the Hopper chapters (12 on): what runs before their fast path so that
// every shape meets the contract, kept out of the kernel files. Host-side launch code (scratch
// buffers, copies, a cache of them), not device code: it is in the kernels' room because kernel
// files include it.
// - The kernels copy A and B in 16-byte pieces (chapter 12's cp.async chunks, the TMA boxes of 13
//   on), which needs every row 16-byte aligned: a 16-byte aligned base and ld % 8 == 0 (halves).
//   An operand that misses it is first copied into a scratch buffer whose leading dimension is
//   rounded up to a multiple of 8 (the padding is zero): one read and one write of the operand.
//   The FP8 chapters (20 on) have one-byte elements: ld % 16 == 0 there (AlignedByteOperands).
// - K == 0: C = beta * C, with no product (and a tensor map cannot have an empty dimension).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <mutex>

#include "cuda_check.cuh"

namespace sm90 {

// Every row of a row-major fp16 matrix at p with leading dimension ld starts on 16 bytes.
inline bool rows_aligned16(const void* p, int ld) {
    return reinterpret_cast<std::uintptr_t>(p) % 16 == 0 && ld % 8 == 0;
}

// C = beta * C for a (M, N) C; C is not read when beta == 0.
static __global__ void scale_kernel(int M, int N, float beta, float* C, int ldc) {
    const long long i = blockIdx.x * 256LL + threadIdx.x;
    if (i >= static_cast<long long>(M) * N) return;
    float* p = C + (i / N) * ldc + i % N;
    *p = beta == 0.0f ? 0.0f : beta * *p;
}
inline void scale_c(int M, int N, float beta, float* C, int ldc, cudaStream_t stream) {
    const long long count = static_cast<long long>(M) * N;
    scale_kernel<<<unsigned((count + 255) / 256), 256, 0, stream>>>(M, N, beta, C, ldc);
    GEMM_CUDA_CHECK_LAUNCH();
}
// The same for the FP8 chapters' bf16 C (20 on).
static __global__ void scale_kernel(int M, int N, float beta, __nv_bfloat16* C, int ldc) {
    const long long i = blockIdx.x * 256LL + threadIdx.x;
    if (i >= static_cast<long long>(M) * N) return;
    __nv_bfloat16* p = C + (i / N) * ldc + i % N;
    *p = __float2bfloat16(beta == 0.0f ? 0.0f : beta * __bfloat162float(*p));
}
inline void scale_c(int M, int N, float beta, __nv_bfloat16* C, int ldc, cudaStream_t stream) {
    const long long count = static_cast<long long>(M) * N;
    scale_kernel<<<unsigned((count + 255) / 256), 256, 0, stream>>>(M, N, beta, C, ldc);
    GEMM_CUDA_CHECK_LAUNCH();
}

// Copies a (rows, cols) matrix into a buffer with leading dimension ld_dst (a multiple of 8),
// zeros in the padding columns. Each thread writes 8 halves of a row with one 16-byte store (the
// buffer is 16-byte aligned and ld_dst % 8 == 0), from 8 reads of 2 bytes (the source rows are not
// aligned: why this copy exists); rows along y, strided past the grid's 65535. One half per thread
// with a 64-bit division for its row copied at 0.6 TB/s on the H200 (ncu, 127 x 5001 x 3333).
static __global__ void pad_kernel(const __half* src, int ld_src, __half* dst, int ld_dst, int rows,
                                  int cols) {
    const int c0 = (static_cast<int>(blockIdx.x) * 256 + static_cast<int>(threadIdx.x)) * 8;
    if (c0 >= ld_dst) return;
    for (int r = static_cast<int>(blockIdx.y); r < rows; r += static_cast<int>(gridDim.y)) {
        const __half* s = src + static_cast<long long>(r) * ld_src;
        __align__(16) __half v[8];
#pragma unroll
        for (int e = 0; e < 8; ++e) v[e] = c0 + e < cols ? s[c0 + e] : __half(0.0f);
        *reinterpret_cast<uint4*>(dst + static_cast<long long>(r) * ld_dst + c0) =
            *reinterpret_cast<const uint4*>(v);
    }
}

// One memory pool per device for the scratch buffers, which keeps what it holds (release
// threshold: everything): a call's buffer is reused by the next call without going back to the
// driver. Stream-ordered allocation makes the buffers safe for concurrent calls on different
// streams: each call has its own, freed in its stream's order after its kernel.
inline cudaMemPool_t scratch_pool() {
    static std::mutex mutex;
    static std::map<int, cudaMemPool_t> pools;
    int device = 0;
    GEMM_CUDA_CHECK(cudaGetDevice(&device));
    const std::lock_guard<std::mutex> lock(mutex);
    cudaMemPool_t& pool = pools[device];
    if (!pool) {
        cudaMemPoolProps props = {};
        props.allocType = cudaMemAllocationTypePinned;
        props.location.type = cudaMemLocationTypeDevice;
        props.location.id = device;
        GEMM_CUDA_CHECK(cudaMemPoolCreate(&pool, &props));
        std::uint64_t keep = UINT64_MAX;
        GEMM_CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
    }
    return pool;
}

struct Operand {  // a row-major fp16 matrix as the kernel reads it
    const __half* p;
    int ld;
};

// A (M, K) and B (K, N) as the kernel may read them: each itself when its rows are 16-byte
// aligned, else a padded copy made on `stream`. The copies are freed, in the stream's order, when
// this object goes out of scope: construct it before the launch, let it go after.
class AlignedOperands {
public:
    Operand a, b;
    AlignedOperands(const __half* A, int lda, const __half* B, int ldb, int M, int N, int K,
                    cudaStream_t stream)
        : stream_(stream) {
        a = ready(A, M, K, lda, scratch_[0]);
        b = ready(B, K, N, ldb, scratch_[1]);
    }
    ~AlignedOperands() {
        for (__half* p : scratch_)
            if (p) GEMM_CUDA_CHECK(cudaFreeAsync(p, stream_));
    }
    AlignedOperands(const AlignedOperands&) = delete;
    AlignedOperands& operator=(const AlignedOperands&) = delete;

private:
    cudaStream_t stream_;
    __half* scratch_[2] = {nullptr, nullptr};

    Operand ready(const __half* p, int rows, int cols, int ld, __half*& scratch) {
        if (rows_aligned16(p, ld) || rows == 0 || cols == 0) return {p, ld};  // 0: nothing read
        const int ld_pad = (cols + 7) / 8 * 8;
        const long long count = static_cast<long long>(rows) * ld_pad;
        GEMM_CUDA_CHECK(cudaMallocFromPoolAsync(reinterpret_cast<void**>(&scratch),
                                                count * sizeof(__half), scratch_pool(), stream_));
        const dim3 grid((ld_pad / 8 + 255) / 256, std::min(rows, 65535));
        pad_kernel<<<grid, 256, 0, stream_>>>(p, ld, scratch, ld_pad, rows, cols);
        GEMM_CUDA_CHECK_LAUNCH();
        return {scratch, ld_pad};
    }
};

// ---- one-byte elements (the FP8 chapters, 20 on) ------------------------------------------------
// The same copy for e4m3 codes, handled as bytes: a row starts on 16 bytes when the base does and
// ld % 16 == 0; a thread writes 16 bytes of a row from 16 one-byte reads.
static __global__ void pad_bytes_kernel(const unsigned char* src, int ld_src, unsigned char* dst,
                                        int ld_dst, int rows, int cols) {
    const int c0 = (static_cast<int>(blockIdx.x) * 256 + static_cast<int>(threadIdx.x)) * 16;
    if (c0 >= ld_dst) return;
    for (int r = static_cast<int>(blockIdx.y); r < rows; r += static_cast<int>(gridDim.y)) {
        const unsigned char* s = src + static_cast<long long>(r) * ld_src;
        __align__(16) unsigned char v[16];
#pragma unroll
        for (int e = 0; e < 16; ++e) v[e] = c0 + e < cols ? s[c0 + e] : 0;
        *reinterpret_cast<uint4*>(dst + static_cast<long long>(r) * ld_dst + c0) =
            *reinterpret_cast<const uint4*>(v);
    }
}

struct ByteOperand {  // a row-major matrix of one-byte elements as the kernel reads it
    const unsigned char* p;
    int ld;
};

// A (M, K) and B (N, K) of one-byte elements (both K-major, as FP8 wgmma reads them): each itself
// when its rows start on 16 bytes, else a padded copy made on `stream` from the same pool, freed in
// the stream's order when this object goes out of scope (as AlignedOperands above).
class AlignedByteOperands {
public:
    ByteOperand a, b;
    AlignedByteOperands(const void* A, int lda, const void* B, int ldb, int M, int N, int K,
                        cudaStream_t stream)
        : stream_(stream) {
        a = ready(static_cast<const unsigned char*>(A), M, K, lda, scratch_[0]);
        b = ready(static_cast<const unsigned char*>(B), N, K, ldb, scratch_[1]);
    }
    ~AlignedByteOperands() {
        for (unsigned char* p : scratch_)
            if (p) GEMM_CUDA_CHECK(cudaFreeAsync(p, stream_));
    }
    AlignedByteOperands(const AlignedByteOperands&) = delete;
    AlignedByteOperands& operator=(const AlignedByteOperands&) = delete;

private:
    cudaStream_t stream_;
    unsigned char* scratch_[2] = {nullptr, nullptr};

    ByteOperand ready(const unsigned char* p, int rows, int cols, int ld, unsigned char*& scratch) {
        const bool aligned = reinterpret_cast<std::uintptr_t>(p) % 16 == 0 && ld % 16 == 0;
        if (aligned || rows == 0 || cols == 0) return {p, ld};  // 0: nothing read
        const int ld_pad = (cols + 15) / 16 * 16;
        const long long count = static_cast<long long>(rows) * ld_pad;
        GEMM_CUDA_CHECK(cudaMallocFromPoolAsync(reinterpret_cast<void**>(&scratch), count,
                                                scratch_pool(), stream_));
        const dim3 grid((ld_pad / 16 + 255) / 256, std::min(rows, 65535));
        pad_bytes_kernel<<<grid, 256, 0, stream_>>>(p, ld, scratch, ld_pad, rows, cols);
        GEMM_CUDA_CHECK_LAUNCH();
        return {scratch, ld_pad};
    }
};

}  // namespace sm90

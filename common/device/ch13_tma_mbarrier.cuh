// PTX wrappers taught in chapter 13: mbarriers (init, arrive, arrive with expected transaction
// bytes, wait on a phase's parity), TMA loads (cp.async.bulk.tensor, completing on an mbarrier),
// and the host side of TMA, the tensor maps (make_map).
#pragma once

#include <cuda.h>  // CUtensorMap and its enums (types only: the driver is reached at run time)
#include <cudaTypedefs.h>  // PFN_cuTensorMapEncodeTiled
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "cuda_check.cuh"
#include "device/ch12_wgmma.cuh"  // smem_u32

namespace sm90 {

__device__ inline void mbar_init(uint64_t* bar, unsigned count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_u32(bar)), "r"(count));
}
// Makes this thread's initialised barriers visible to the copy engine (the async proxy) and to
// the other blocks of a cluster.
__device__ inline void fence_barrier_init() {
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}
// Arrives once and tells the barrier that `bytes` more will land through TMA copies.
__device__ inline void mbar_arrive_expect_tx(uint64_t* bar, unsigned bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_u32(bar)),
                 "r"(bytes)
                 : "memory");
}
__device__ inline void mbar_arrive(uint64_t* bar) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem_u32(bar)) : "memory");
}
// Returns once the barrier's phase with this parity has completed.
__device__ inline void mbar_wait(uint64_t* bar, unsigned parity) {
    asm volatile(
        "{\n .reg .pred done;\n"
        "WAIT_%=:\n"
        " mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
        " @!done bra WAIT_%=;\n}" ::"r"(smem_u32(bar)),
        "r"(parity)
        : "memory");
}

// One TMA copy: the box of `map` whose first element is (x = column, y = row) into dst; the bytes
// are counted on `bar` as they land.
__device__ inline void tma_load(void* dst, const CUtensorMap* map, int x, int y, uint64_t* bar) {
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
        " [%0], [%1, {%2, %3}], [%4];" ::"r"(smem_u32(dst)),
        "l"(map), "r"(x), "r"(y), "r"(smem_u32(bar))
        : "memory");
}

// cuTensorMapEncodeTiled lives in the driver library. The runtime hands out its address, so the
// program needs no link against libcuda (a build machine without a GPU driver has none).
// Asking for its 12.0 signature by name takes cudaGetDriverEntryPointByVersion, new in CUDA 12.5;
// CUDA 12.0-12.4 (Ubuntu 24.04 packages 12.0) have only cudaGetDriverEntryPoint, which returns
// the version matching the runtime's own: 12.0 or later, the same signature. CI compiles that path
// on a newer toolkit too, with GEMM_FORCE_DRIVER_ENTRY_POINT_FALLBACK (tests/meson.build).
#if CUDART_VERSION >= 12050 && !defined(GEMM_FORCE_DRIVER_ENTRY_POINT_FALLBACK)
#define SM90_ENTRY_POINT_BY_VERSION 1
#endif
inline PFN_cuTensorMapEncodeTiled_v12000 encode_tiled() {
    static const PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
        void* p = nullptr;
        cudaDriverEntryPointQueryResult found{};
#ifdef SM90_ENTRY_POINT_BY_VERSION
        GEMM_CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000,
                                                         cudaEnableDefault, &found));
#else
        GEMM_CUDA_CHECK(
            cudaGetDriverEntryPoint("cuTensorMapEncodeTiled", &p, cudaEnableDefault, &found));
#endif
        if (found != cudaDriverEntryPointSuccess || !p) {
            std::fprintf(stderr, "cuTensorMapEncodeTiled: not found in the CUDA driver\n");
            std::exit(1);
        }
        return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(p);
    }();
    return fn;
}

// A tensor map for a row-major (rows, cols) matrix of T (__half; the C of chapters 15 and 22, fp32
// and bf16; one-byte e4m3 codes, copied as uint8, for the FP8 chapters 20-23) with
// leading dimension ld, copied in boxes of (box_rows, box_cols) with the 128-byte swizzle.
// Out-of-range elements of a box read as zero (and are not written by a store).
template <class T>
inline CUtensorMap make_map(const T* p, int rows, int cols, int ld, int box_rows, int box_cols) {
    static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4, "fp8, fp16 or fp32");
    CUtensorMap map;
    const cuuint64_t dims[2] = {cuuint64_t(cols), cuuint64_t(rows)};  // innermost first
    const cuuint64_t strides[1] = {cuuint64_t(ld) * sizeof(T)};       // bytes from row to row
    const cuuint32_t box[2] = {cuuint32_t(box_cols), cuuint32_t(box_rows)};
    const cuuint32_t elem_strides[2] = {1, 1};
    const CUresult res =
        encode_tiled()(&map,
                       sizeof(T) == 1   ? CU_TENSOR_MAP_DATA_TYPE_UINT8
                       : sizeof(T) == 2 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16
                                        : CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
                       2, const_cast<T*>(p), dims, strides, box, elem_strides,
                       CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                       CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (res != CUDA_SUCCESS) {
        std::fprintf(stderr,
                     "cuTensorMapEncodeTiled failed (error %d) for a %d x %d fp%d matrix, ld %d, "
                     "box %d x %d\n",
                     int(res), rows, cols, int(8 * sizeof(T)), ld, box_rows, box_cols);
        std::exit(1);
    }
    return map;
}

}  // namespace sm90

// The Hopper (sm_90a) instructions the chapters from 12 on use, one thin wrapper per PTX
// instruction, and the host side of TMA (tensor maps). Each is taught in the chapter named beside
// it: 12 wgmma and its descriptors, 13 TMA and mbarriers, 14 setmaxnreg, 15 clusters, multicast and
// TMA stores. Shapes and layouts: the chapters' READMEs.
#pragma once

#include <cuda.h>  // CUtensorMap and its enums (types only: the driver is reached at run time)
#include <cudaTypedefs.h>  // PFN_cuTensorMapEncodeTiled
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "cuda_check.cuh"

// wgmma and setmaxnreg exist in code built for exactly sm_90a (meson.build's hopper_arch_args); a
// device pass for any other target would assemble nothing useful, so it stops here, loudly.
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
#error "common/device/sm90.cuh is sm_90a code: build with -gencode=arch=compute_90a,code=sm_90a"
#endif

namespace sm90 {

__device__ inline unsigned smem_u32(const void* p) {
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// ---- wgmma (chapter 12) -------------------------------------------------------------------------

// A wgmma shared-memory matrix descriptor (PTX ISA, "Matrix Descriptor Format"): start address,
// leading- and stride-dimension byte offsets (all >> 4) and the swizzle mode (1 = 128 bytes).
__device__ inline uint64_t smem_desc(const void* p, unsigned lbo_bytes, unsigned sbo_bytes) {
    return uint64_t((smem_u32(p) & 0x3FFFF) >> 4) | uint64_t(lbo_bytes >> 4) << 16 |
           uint64_t(sbo_bytes >> 4) << 32 | uint64_t(1) << 62;
}

// Orders this warpgroup's register accesses (the accumulators) before the wgmmas that follow.
__device__ inline void wgmma_fence() {
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
}
// Closes the group of wgmmas issued since the last commit.
__device__ inline void wgmma_commit() {
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}
// Waits until at most PENDING of this warpgroup's committed groups are still running.
template <int PENDING>
__device__ inline void wgmma_wait() {
    asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(PENDING) : "memory");
}

// Generic-proxy writes to shared memory (ordinary stores, cp.async) become visible to the async
// proxy (wgmma's operand reads, TMA stores) of the same block.
__device__ inline void fence_proxy_async() {
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

constexpr int WGMMA_ACC = 128;  // fp32 accumulators per thread of m64n256k16: (64, 256) / 128

#define SM90_D8(i)                                                                              \
    "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]), \
        "+f"(d[i + 6]), "+f"(d[i + 7])

// d (64, 256) += A (64, 16) * B (16, 256), both from shared memory. A is K-major (row-major A: a
// row's 16 k are contiguous); B is MN-major (row-major B: a k-row's n are contiguous), which the
// last immediate (transpose B = 1) says. d is this thread's 128 accumulators (layout:
// wgmma_epilogue.cuh and chapter 12's README).
__device__ inline void wgmma_m64n256k16(float (&d)[WGMMA_ACC], uint64_t desc_a, uint64_t desc_b) {
    asm volatile(
        "{\n .reg .pred acc;\n setp.ne.b32 acc, %130, 0;\n"  // scale-d: 1 adds to d, 0 overwrites
        "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15,"
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31,"
        "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47,"
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63,"
        "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79,"
        "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95,"
        "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110,"
        "%111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124,"
        "%125, %126, %127},"
        " %128, %129, acc, 1, 1, 0, 1;\n}"  // scale A, B by 1; transpose A: no, B: yes
        : SM90_D8(0), SM90_D8(8), SM90_D8(16), SM90_D8(24), SM90_D8(32), SM90_D8(40), SM90_D8(48),
          SM90_D8(56), SM90_D8(64), SM90_D8(72), SM90_D8(80), SM90_D8(88), SM90_D8(96),
          SM90_D8(104), SM90_D8(112), SM90_D8(120)
        : "l"(desc_a), "l"(desc_b), "r"(1));
}

// The narrower tiles of chapter 16: the same instruction with N = 128 or 64 columns (64 or 32
// accumulators per thread, the same layout cut short), for outputs with few tiles.
__device__ inline void wgmma_m64n128k16(float (&d)[64], uint64_t desc_a, uint64_t desc_b) {
    asm volatile(
        "{\n .reg .pred acc;\n setp.ne.b32 acc, %66, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15,"
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31,"
        "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47,"
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63},"
        " %64, %65, acc, 1, 1, 0, 1;\n}"
        : SM90_D8(0), SM90_D8(8), SM90_D8(16), SM90_D8(24), SM90_D8(32), SM90_D8(40), SM90_D8(48),
          SM90_D8(56)
        : "l"(desc_a), "l"(desc_b), "r"(1));
}
__device__ inline void wgmma_m64n64k16(float (&d)[32], uint64_t desc_a, uint64_t desc_b) {
    asm volatile(
        "{\n .reg .pred acc;\n setp.ne.b32 acc, %34, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15,"
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31},"
        " %32, %33, acc, 1, 1, 0, 1;\n}"
        : SM90_D8(0), SM90_D8(8), SM90_D8(16), SM90_D8(24)
        : "l"(desc_a), "l"(desc_b), "r"(1));
}
// One name for the three widths, picked by the accumulator array: wgmma_m64k16(d, a, b) with
// float d[128], d[64] or d[32] issues m64n256k16, m64n128k16 or m64n64k16.
__device__ inline void wgmma_m64k16(float (&d)[128], uint64_t a, uint64_t b) {
    wgmma_m64n256k16(d, a, b);
}
__device__ inline void wgmma_m64k16(float (&d)[64], uint64_t a, uint64_t b) {
    wgmma_m64n128k16(d, a, b);
}
__device__ inline void wgmma_m64k16(float (&d)[32], uint64_t a, uint64_t b) {
    wgmma_m64n64k16(d, a, b);
}
#undef SM90_D8

// ---- mbarriers and TMA loads (chapter 13) -------------------------------------------------------

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

// ---- setmaxnreg (chapter 14) --------------------------------------------------------------------

// The warpgroup's registers per thread rise to, or fall to, REGS (a multiple of 8, 24..256).
template <int REGS>
__device__ inline void setmaxnreg_inc() {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(REGS));
}
template <int REGS>
__device__ inline void setmaxnreg_dec() {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(REGS));
}

// ---- clusters, multicast, TMA stores (chapter 15) -----------------------------------------------

__device__ inline unsigned cluster_rank() {
    unsigned r = 0;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    return r;
}
// Every thread of every block of the cluster gets here before any goes on: release/acquire
// orders the shared-memory writes (barrier initialisation, remote arrivals) around it.
__device__ inline void cluster_sync() {
    asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;" ::
                     : "memory");
}
// Arrives on the barrier at the same shared-memory offset in block `rank` of this cluster.
__device__ inline void mbar_arrive_cluster(uint64_t* bar, unsigned rank) {
    asm volatile(
        "{\n .reg .b32 remote;\n mapa.shared::cluster.u32 remote, %0, %1;\n"
        " mbarrier.arrive.shared::cluster.b64 _, [remote];\n}" ::"r"(smem_u32(bar)),
        "r"(rank)
        : "memory");
}
// A TMA copy whose box lands at the same offset in every block of `mask` and is counted on each
// one's barrier at the offset of `bar`.
__device__ inline void tma_load_multicast(void* dst, const CUtensorMap* map, int x, int y,
                                          uint64_t* bar, uint16_t mask) {
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
        ".multicast::cluster [%0], [%1, {%2, %3}], [%4], %5;" ::"r"(smem_u32(dst)),
        "l"(map), "r"(x), "r"(y), "r"(smem_u32(bar)), "h"(mask)
        : "memory");
}
// The TMA store of one box of C from shared memory, into the bulk-async group of this thread.
__device__ inline void tma_store(const CUtensorMap* map, const void* src, int x, int y) {
    asm volatile(
        "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];" ::"l"(map),
        "r"(x), "r"(y), "r"(smem_u32(src))
        : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}
// Waits until at most PENDING of this thread's TMA stores may still read shared memory
// (READ_ONLY) or may still be writing global memory.
template <int PENDING, bool READ_ONLY>
__device__ inline void tma_store_wait() {
    if constexpr (READ_ONLY)
        asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(PENDING) : "memory");
    else
        asm volatile("cp.async.bulk.wait_group %0;" ::"n"(PENDING) : "memory");
}
// A barrier for the `count` threads that use barrier number `id` (1..15; 0 is __syncthreads).
__device__ inline void named_sync(int id, int count) {
    asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(count) : "memory");
}

// ---- host side: tensor maps (chapter 13) --------------------------------------------------------

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

// A tensor map for a row-major (rows, cols) matrix of T (__half; float for chapter 15's C; one-byte
// e4m3 codes, copied as uint8, for chapter 17) with
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
    const CUresult res = encode_tiled()(
        &map,
        sizeof(T) == 1   ? CU_TENSOR_MAP_DATA_TYPE_UINT8
        : sizeof(T) == 2 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16
                         : CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
        2,
        const_cast<T*>(p), dims, strides, box, elem_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
        CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
        CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
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

// Chapter 12: Hopper's own tensor-core path: TMA copies, mbarrier pipelines, wgmma from shared memory.
// New vs chapter 11: one thread asks the Tensor Memory Accelerator for a whole (BM, BK) or (BK, 64)
// tile (`cp.async.bulk.tensor`, 128-byte swizzle, zeros outside the matrix); "full" and "empty"
// mbarriers per stage replace __syncthreads; a producer warpgroup only copies, two consumer
// warpgroups only compute, with `wgmma.mma_async` m64n256k16 reading A and B straight from shared
// memory (no ldmatrix, no fragments in registers but the accumulators); `setmaxnreg` moves registers
// from the producer to the consumers. Block tile 128x256x64, 4 stages (192 KB).
// Napkin math: same 128x256 tile as chapter 10, so the same 1.6 GB of L2 -> SM traffic at 4096^3;
// what changes is who works: 5 copy instructions per k-tile, no ldmatrix, 4 wgmma per warpgroup.
// Preconditions: compute capability 9.0 (sm_90a). TMA needs 16-byte aligned A and B and lda, ldb
// multiples of 8: otherwise the operand is first copied into an aligned, padded scratch buffer.
#pragma once

#include <cuda.h>  // CUtensorMap and its enums (types only: the driver is reached at run time)
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <cudaTypedefs.h>  // PFN_cuTensorMapEncodeTiled

#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "cuda_check.cuh"

namespace ch12 {

constexpr int BM = 128, BN = 256, BK = 64;  // block tile; BK halves = 128 bytes = one swizzle row
constexpr int STAGES = 4;                   // tiles in flight
constexpr int CONSUMERS = 2;                // warpgroups that compute, 64 rows of the tile each
constexpr int WG = 128;                     // threads per warpgroup
constexpr int THREADS = WG * (1 + CONSUMERS);
constexpr int WGMMA_M = 64, WGMMA_K = 16;  // one wgmma: (64, 16) x (16, BN)
constexpr int B_BOX = 64;                  // columns of B per TMA box: 64 halves = 128 bytes
constexpr int GROUP_M = 8;                 // block rows walked together, for L2 reuse
constexpr int A_STAGE = BM * BK, B_STAGE = BK * BN;  // halves per stage
constexpr int STAGE_BYTES = (A_STAGE + B_STAGE) * int(sizeof(__half));
constexpr int SMEM_BYTES = STAGES * STAGE_BYTES + 1024;  // + slack to align the tiles to 1024 bytes
constexpr int ACC = BN / 2;  // fp32 accumulators per consumer thread: (64, BN) / 128 threads
static_assert(BM == CONSUMERS * WGMMA_M, "each consumer warpgroup owns 64 rows of the tile");
static_assert(BK * int(sizeof(__half)) == 128, "a K-row of A is one 128-byte swizzle row");
static_assert(BN % B_BOX == 0 && BK % WGMMA_K == 0, "whole boxes and whole wgmma steps");

inline bool aligned16(const void* p) {
    return reinterpret_cast<std::uintptr_t>(p) % 16 == 0;
}

// ---- device helpers: thin wrappers over one PTX instruction each --------------------------------
// The sm_90a-only instructions exist in the sm_90a compilation pass alone; this file is built for
// that target only (see meson.build), the guard keeps a stray other pass from failing to assemble.
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define CH12_SM90A 1
#endif

__device__ inline unsigned smem_u32(const void* p) {
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

__device__ inline void mbar_init(uint64_t* bar, unsigned count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_u32(bar)), "r"(count));
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

// A wgmma shared-memory matrix descriptor (PTX ISA, "Matrix Descriptor Format"): start address,
// leading- and stride-dimension byte offsets (all >> 4) and the swizzle mode (1 = 128 bytes).
__device__ inline uint64_t smem_desc(const __half* p, unsigned lbo_bytes, unsigned sbo_bytes) {
    return uint64_t((smem_u32(p) & 0x3FFFF) >> 4) | uint64_t(lbo_bytes >> 4) << 16 |
           uint64_t(sbo_bytes >> 4) << 32 | uint64_t(1) << 62;
}

__device__ inline void wgmma_fence() {
#ifdef CH12_SM90A
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#endif
}
__device__ inline void wgmma_commit() {
#ifdef CH12_SM90A
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
#endif
}
template <int PENDING>
__device__ inline void wgmma_wait() {
#ifdef CH12_SM90A
    asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(PENDING) : "memory");
#endif
}
template <int REGS>
__device__ inline void setmaxnreg_inc() {
#ifdef CH12_SM90A
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(REGS));
#endif
}
template <int REGS>
__device__ inline void setmaxnreg_dec() {
#ifdef CH12_SM90A
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(REGS));
#endif
}

#define CH12_D8(i)                                                                              \
    "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]), \
        "+f"(d[i + 6]), "+f"(d[i + 7])

// d (64, 256) += A (64, 16) * B (16, 256), both from shared memory. A is K-major (row-major A: a
// row's 16 k are contiguous); B is MN-major (row-major B: a k-row's n are contiguous), which the
// last immediate (transpose B = 1) says. d is this thread's 128 accumulators (layout: README).
__device__ inline void wgmma_m64n256k16(float (&d)[ACC], uint64_t desc_a, uint64_t desc_b) {
#ifdef CH12_SM90A
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
        : CH12_D8(0), CH12_D8(8), CH12_D8(16), CH12_D8(24), CH12_D8(32), CH12_D8(40), CH12_D8(48),
          CH12_D8(56), CH12_D8(64), CH12_D8(72), CH12_D8(80), CH12_D8(88), CH12_D8(96),
          CH12_D8(104), CH12_D8(112), CH12_D8(120)
        : "l"(desc_a), "l"(desc_b), "r"(1));
#else
    (void)d, (void)desc_a, (void)desc_b;
#endif
}
#undef CH12_D8

// The epilogue: C = alpha * d + beta * C, C not read when beta == 0. Thread t of a warpgroup holds
// rows r and r + 8 (r = 16 * warp + lane / 4 of its 64) and, for every 8 columns j, the pair of
// columns 8j + 2 * (lane % 4) and + 1: d[4j], d[4j+1] on row r, d[4j+2], d[4j+3] on row r + 8.
// fast: the whole (64, BN) tile lies inside C and pairs of floats are 8-byte aligned.
__device__ inline void store_tile(const float (&d)[ACC], float* C, int ldc, int M, int N, int r,
                                  int n0, int lane, float alpha, float beta, bool fast) {
    // BEGIN SOLUTION: write the accumulators to C with alpha, beta and bounds checks
#pragma unroll
    for (int j = 0; j < BN / 8; ++j) {
        const int c = n0 + 8 * j + 2 * (lane % 4);
#pragma unroll
        for (int h = 0; h < 2; ++h) {  // rows r and r + 8
            const int row = r + 8 * h;
            float v0 = alpha * d[4 * j + 2 * h], v1 = alpha * d[4 * j + 2 * h + 1];
            float* p = C + static_cast<long long>(row) * ldc + c;
            if (fast) {  // (row, c) and (row, c + 1) inside C, 8-byte aligned
                if (beta != 0.0f) {
                    const float2 old = *reinterpret_cast<const float2*>(p);
                    v0 += beta * old.x, v1 += beta * old.y;
                }
                *reinterpret_cast<float2*>(p) = make_float2(v0, v1);
                continue;
            }
            if (row >= M) continue;
            if (c < N) p[0] = beta == 0.0f ? v0 : v0 + beta * p[0];
            if (c + 1 < N) p[1] = beta == 0.0f ? v1 : v1 + beta * p[1];
        }
    }
    // END SOLUTION
}

// ---- the kernel ---------------------------------------------------------------------------------

static __global__ void __launch_bounds__(THREADS, 1)
    wgmma_tma_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                     int M, int N, int K, float alpha, float beta, float* C, int ldc, bool vec_c) {
#ifdef CH12_SM90A
    extern __shared__ unsigned char smem_raw[];
    // 128-byte swizzled tiles must start on a 1024-byte boundary (the swizzle pattern repeats every
    // 8 rows of 128 bytes, and TMA and wgmma compute it from address bits).
    unsigned char* smem = reinterpret_cast<unsigned char*>(
        (reinterpret_cast<std::uintptr_t>(smem_raw) + 1023) & ~std::uintptr_t(1023));
    __half* As = reinterpret_cast<__half*>(smem);  // (STAGES, BM, BK), swizzled
    __half* Bs = As + STAGES * A_STAGE;            // (STAGES, BN / 64, BK, 64), swizzled
    __shared__ uint64_t full[STAGES];   // stage s holds tile kt: its copies have landed
    __shared__ uint64_t empty[STAGES];  // stage s may be overwritten: the consumers are done with it

    const int wg = threadIdx.x / WG, tid = threadIdx.x % WG;  // warpgroup 0 produces, 1.. consume
    const int tiles_m = (M + BM - 1) / BM, tiles_n = (N + BN - 1) / BN;
    const int group = blockIdx.x / (GROUP_M * tiles_n);
    const int in_group = blockIdx.x % (GROUP_M * tiles_n);
    const int group_rows = min(tiles_m - group * GROUP_M, GROUP_M);
    const int m0 = (group * GROUP_M + in_group % group_rows) * BM;  // first row of the block tile
    const int n0 = (in_group / group_rows) * BN;                    // first column
    const int KT = (K + BK - 1) / BK;                               // k-tiles

    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; ++s) {
            mbar_init(&full[s], 1);               // the producer's arrive (+ the TMA bytes)
            mbar_init(&empty[s], CONSUMERS * 4);  // one arrive per consumer warp
        }
        // Make the initialised barriers visible to the copy engine (the async proxy) too.
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();  // the barriers exist before anyone waits on them

    if (wg == 0) {
        setmaxnreg_dec<40>();  // the producer needs few registers: give them to the consumers
        if (tid == 0) {
            for (int kt = 0; kt < KT; ++kt) {
                const int s = kt % STAGES;
                // The stage's previous tile (kt - STAGES) must have been consumed; its phase is
                // the (kt / STAGES - 1)-th completion of empty[s].
                if (kt >= STAGES) mbar_wait(&empty[s], (kt / STAGES - 1) & 1);
                mbar_arrive_expect_tx(&full[s], STAGE_BYTES);  // whole boxes: zeros count too
                tma_load(As + s * A_STAGE, &map_a, kt * BK, m0, &full[s]);  // (BM, BK) of A
#pragma unroll
                for (int j = 0; j < BN / B_BOX; ++j)  // (BK, 64) of B, four times
                    tma_load(Bs + s * B_STAGE + j * BK * B_BOX, &map_b, n0 + j * B_BOX, kt * BK,
                             &full[s]);
            }
        }
    } else {
        setmaxnreg_inc<232>();
        float d[ACC];  // (64, BN) of C: this warpgroup's rows, in wgmma's register layout
#pragma unroll
        for (int i = 0; i < ACC; ++i) d[i] = 0.0f;
        const int row0 = (wg - 1) * WGMMA_M;  // this warpgroup's first row in the block tile

        for (int kt = 0; kt < KT; ++kt) {
            const int s = kt % STAGES;
            mbar_wait(&full[s], (kt / STAGES) & 1);  // tile kt has landed in stage s
            const __half* a = As + s * A_STAGE + row0 * BK;  // (64, BK) K-major
            const __half* b = Bs + s * B_STAGE;              // (BN / 64, BK, 64) MN-major
            wgmma_fence();  // the accumulators were written by ordinary instructions before
            // BEGIN SOLUTION: four wgmmas over the stage's 64-deep tile, from descriptors of As, Bs
#pragma unroll
            for (int kk = 0; kk < BK / WGMMA_K; ++kk) {
                // A: rows of 128 bytes, 8-row groups 1024 bytes apart (SBO); a 16-deep step is 32
                // bytes further along the (swizzled) row. B: 8 k-rows per 1024 bytes (SBO), the
                // next 64 columns one box (BK * 128 bytes) further (LBO); a step is 16 k-rows.
                wgmma_m64n256k16(d, smem_desc(a + kk * WGMMA_K, 16, 1024),
                                 smem_desc(b + kk * WGMMA_K * B_BOX, BK * 128, 1024));
            }
            // END SOLUTION
            wgmma_commit();
            wgmma_wait<0>();  // this tile's wgmmas are done reading stage s: it may be refilled
            if (tid % 32 == 0) mbar_arrive(&empty[s]);
        }

        // Epilogue: this warp's 16 rows of the warpgroup's 64, straight from the accumulators.
        const int warp = tid / 32, lane = tid % 32;
        store_tile(d, C, ldc, M, N, m0 + row0 + 16 * warp + lane / 4, n0, lane, alpha, beta,
                   m0 + BM <= M && n0 + BN <= N && vec_c);
    }
#else
    (void)map_a, (void)map_b, (void)M, (void)N, (void)K, (void)alpha, (void)beta, (void)C,
        (void)ldc, (void)vec_c;
#endif
}

// C = beta * C (K == 0: there is no product, and a tensor map cannot have an empty dimension).
static __global__ void scale_kernel(int M, int N, float beta, float* C, int ldc) {
    const long long i = blockIdx.x * 256LL + threadIdx.x;
    if (i >= static_cast<long long>(M) * N) return;
    float* p = C + (i / N) * ldc + i % N;
    *p = beta == 0.0f ? 0.0f : beta * *p;
}

// Copies a (rows, cols) matrix into a buffer with leading dimension ld_dst (a multiple of 8).
static __global__ void pad_kernel(const __half* src, int ld_src, __half* dst, int ld_dst, int rows,
                                  int cols) {
    const long long i = blockIdx.x * 256LL + threadIdx.x;
    if (i >= static_cast<long long>(rows) * ld_dst) return;
    const long long r = i / ld_dst, c = i % ld_dst;
    dst[i] = c < cols ? src[r * ld_src + c] : __half(0.0f);
}

// ---- host side ----------------------------------------------------------------------------------

// cuTensorMapEncodeTiled lives in the driver library. The runtime hands out its address, so the
// program needs no link against libcuda (a build machine without a GPU driver has none).
// Asking for its 12.0 signature by name takes cudaGetDriverEntryPointByVersion, new in CUDA 12.5;
// CUDA 12.0-12.4 (Ubuntu 24.04 packages 12.0) have only cudaGetDriverEntryPoint, which returns
// the version matching the runtime's own: 12.0 or later, the same signature. CI compiles that path
// on a newer toolkit too, with GEMM_FORCE_DRIVER_ENTRY_POINT_FALLBACK (tests/meson.build).
#if CUDART_VERSION >= 12050 && !defined(GEMM_FORCE_DRIVER_ENTRY_POINT_FALLBACK)
#define CH12_ENTRY_POINT_BY_VERSION 1
#endif
inline PFN_cuTensorMapEncodeTiled_v12000 encode_tiled() {
    static const PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
        void* p = nullptr;
        cudaDriverEntryPointQueryResult found{};
#ifdef CH12_ENTRY_POINT_BY_VERSION
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

// A tensor map for a row-major (rows, cols) matrix of T (__half, or float for chapter 13's C) with
// leading dimension ld, copied in boxes of (box_rows, box_cols) with the 128-byte swizzle.
// Out-of-range elements of a box read as zero (and are not written by a store).
template <class T>
inline CUtensorMap make_map(const T* p, int rows, int cols, int ld, int box_rows, int box_cols) {
    static_assert(sizeof(T) == 2 || sizeof(T) == 4, "fp16 or fp32");
    CUtensorMap map;
    const cuuint64_t dims[2] = {cuuint64_t(cols), cuuint64_t(rows)};  // innermost first
    const cuuint64_t strides[1] = {cuuint64_t(ld) * sizeof(T)};     // bytes from row to row
    const cuuint32_t box[2] = {cuuint32_t(box_cols), cuuint32_t(box_rows)};
    const cuuint32_t elem_strides[2] = {1, 1};
    const CUresult res = encode_tiled()(
        &map, sizeof(T) == 2 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2,
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

// An operand TMA can read: itself when aligned, else a padded copy in a scratch buffer that is
// kept (and grown) between calls.
struct Operand {
    const __half* p;
    int ld;
};
inline Operand tma_ready(const __half* p, int rows, int cols, int ld, int which,
                         cudaStream_t stream) {
    if (ld % 8 == 0 && aligned16(p)) return {p, ld};
    static __half* scratch[2] = {nullptr, nullptr};
    static size_t capacity[2] = {0, 0};
    const int ld_pad = (cols + 7) / 8 * 8;
    const size_t count = size_t(rows) * ld_pad;
    if (count > capacity[which]) {
        if (scratch[which]) GEMM_CUDA_CHECK(cudaFree(scratch[which]));
        GEMM_CUDA_CHECK(cudaMalloc(&scratch[which], count * sizeof(__half)));
        capacity[which] = count;
    }
    pad_kernel<<<unsigned((count + 255) / 256), 256, 0, stream>>>(p, ld, scratch[which], ld_pad,
                                                                  rows, cols);
    GEMM_CUDA_CHECK_LAUNCH();
    return {scratch[which], ld_pad};
}

inline void gemm(int M, int N, int K, float alpha, const __half* A, int lda, const __half* B,
                 int ldb, float beta, float* C, int ldc, cudaStream_t stream = 0) {
    if (M == 0 || N == 0) return;  // nothing to write
    if (K == 0) {
        const long long count = static_cast<long long>(M) * N;
        scale_kernel<<<unsigned((count + 255) / 256), 256, 0, stream>>>(M, N, beta, C, ldc);
        GEMM_CUDA_CHECK_LAUNCH();
        return;
    }
    static const bool opted_in = [] {  // more than 48 KB of shared memory must be asked for
        GEMM_CUDA_CHECK(cudaFuncSetAttribute(
            wgmma_tma_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_BYTES));
        return true;
    }();
    (void)opted_in;
    const Operand a = tma_ready(A, M, K, lda, 0, stream);
    const Operand b = tma_ready(B, K, N, ldb, 1, stream);
    const CUtensorMap map_a = make_map(a.p, M, K, a.ld, BM, BK);     // boxes (128, 64) of A
    const CUtensorMap map_b = make_map(b.p, K, N, b.ld, BK, B_BOX);  // boxes (64, 64) of B
    const bool vec_c = ldc % 2 == 0 && reinterpret_cast<std::uintptr_t>(C) % 8 == 0;
    const int blocks = ((M + BM - 1) / BM) * ((N + BN - 1) / BN);
    wgmma_tma_kernel<<<blocks, THREADS, SMEM_BYTES, stream>>>(map_a, map_b, M, N, K, alpha, beta,
                                                              C, ldc, vec_c);
    GEMM_CUDA_CHECK_LAUNCH();
}

}  // namespace ch12

// Chapter 15's skeleton, for the chapters built on it (16, 17, 18, 22, 23): the warp-specialized
// pipeline's configuration and barriers, the release of a stage across a cluster, the producer's
// copy of one stage (A, and B's boxes multicast to the cluster), the grouped tile order, and on the
// host the resident-cluster count and the tensor maps. Chapter 15 teaches it (its step in
// docs/reading-order.md counts this file whole; its kernel keeps the tile order, its exercise, and
// its named configurations); the chapters after it include this header and keep only their idea.
#pragma once

#include <cuda.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda_check.cuh"
#include "device/aligned_operands.cuh"
#include "device/ch13_tma_mbarrier.cuh"
#include "device/ch15_cluster_multicast.cuh"

namespace pipeline {

using namespace sm90;

constexpr int BK = 64;                     // block tile depth; BM and BN are the Config's
constexpr int STAGES = 4;                  // tiles in flight
constexpr int WG = 128;                    // threads per warpgroup
constexpr int WGMMA_M = 64, WGMMA_K = 16;  // one wgmma: (64, 16) x (16, BN)
constexpr int B_BOX = 64;                  // columns of B per TMA box: 64 halves = 128 bytes
static_assert(BK * int(sizeof(__half)) == 128, "a K-row of A is one 128-byte swizzle row");

// CLUSTER: blocks per cluster, stacked along M, sharing one B tile. BN: the tile's columns, wgmma's
// N (256; 128 or 64 from chapter 16 on). PERSISTENT: one block per SM looping over tiles (else one
// block per tile, as in chapter 14). STORE_TMA: the epilogue writes C through shared memory and TMA
// stores (else straight from registers, as in chapter 14). Two consumer warpgroups of 64 rows
// make the block tile BM = 128 high (three, 192-row tiles, take 512 threads, which start with 128
// registers each: ptxas cannot fit wgmma's 128 accumulators in that). GROUP_M: cluster rows walked
// together. IN_FLIGHT: k-tiles of wgmmas a consumer leaves running (1; 0 is chapter 14's loop).
template <int CLUSTER_, int BN_ = 256, bool PERSISTENT_ = true, bool STORE_TMA_ = true,
          int GROUP_M_ = 8, int IN_FLIGHT_ = 1>
struct Config {
    static constexpr int CLUSTER = CLUSTER_, BN = BN_, CONSUMERS = 2, GROUP_M = GROUP_M_;
    static constexpr int IN_FLIGHT = IN_FLIGHT_;
    static constexpr bool PERSISTENT = PERSISTENT_, STORE_TMA = STORE_TMA_;
    static constexpr int BM = WGMMA_M * CONSUMERS, THREADS = WG * (1 + CONSUMERS);
    static constexpr int ACC = BN / 2;  // fp32 accumulators per consumer thread: (64, BN) / 128
    static constexpr int A_STAGE = BM * BK, B_STAGE = BK * BN;  // halves
    static constexpr int STAGE_BYTES = (A_STAGE + B_STAGE) * int(sizeof(__half));
    // C goes out in TMA boxes of (64, 32) floats (32 floats: one 128-byte swizzle row), through two
    // buffers per consumer.
    static constexpr int C_BOX = 32, C_CHUNK_BYTES = 2 * 64 * C_BOX * int(sizeof(float));
    static constexpr int SMEM_BYTES =
        STAGES * STAGE_BYTES + (STORE_TMA ? CONSUMERS * C_CHUNK_BYTES : 0) + 1024;
    // Registers per thread after setmaxnreg: the consumers take what the producer gives up, within
    // the 64K of the SM (multiples of 8).
    static constexpr int PRODUCER_REGS = 40, CONSUMER_REGS = 232;
    static_assert(BN == 256 || BN == 128 || BN == 64, "wgmma m64nBNk16: 256, 128 or 64 columns");
    static constexpr int B_PART = BN / B_BOX / CLUSTER;  // B boxes each block copies
    static_assert(CLUSTER >= 1 && (BN / B_BOX) % CLUSTER == 0,
                  "the cluster's blocks split B's boxes evenly");
    static_assert(WG * (PRODUCER_REGS + CONSUMERS * CONSUMER_REGS) <= 65536, "the register file");
    static_assert(IN_FLIGHT == 0 || IN_FLIGHT == 1, "all done, or one k-tile left running");
};

// The tile scheduler. Cluster tile t covers CLUSTER * BM rows and BN columns of C; the tiles are
// walked in grouped order (GROUP_M cluster rows at a time, column by column) so that the tiles in
// flight together share their rows of A and columns of B in L2 (chapter 15's TileOrder).
template <class Cfg>
struct TileOrder {
    int tiles_m, tiles_n;  // cluster tiles down and across C
    __host__ __device__ static TileOrder of(int M, int N) {
        return {(M + Cfg::CLUSTER * Cfg::BM - 1) / (Cfg::CLUSTER * Cfg::BM),
                (N + Cfg::BN - 1) / Cfg::BN};
    }
    __host__ __device__ int tiles() const { return tiles_m * tiles_n; }
    // The first row and column of C that the block of cluster rank `rank` computes in tile t.
    __device__ void origin(int t, unsigned rank, int& m0, int& n0) const {
        const int group = t / (Cfg::GROUP_M * tiles_n), in_group = t % (Cfg::GROUP_M * tiles_n);
        const int group_rows = min(tiles_m - group * Cfg::GROUP_M, Cfg::GROUP_M);
        const int tm = group * Cfg::GROUP_M + in_group % group_rows, tn = in_group / group_rows;
        m0 = (tm * Cfg::CLUSTER + int(rank)) * Cfg::BM;
        n0 = tn * Cfg::BN;
    }
};

// The cluster tiles of an M x N product.
template <class Cfg>
__host__ __device__ inline int tile_count(int M, int N) {
    return TileOrder<Cfg>::of(M, N).tiles();
}

// The dynamic shared memory, from its first 1024-byte boundary: 128-byte swizzled tiles must start
// there (the swizzle pattern repeats every 8 rows of 128 bytes, and TMA and wgmma compute it from
// address bits).
__device__ inline unsigned char* swizzle_aligned(unsigned char* smem_raw) {
    return reinterpret_cast<unsigned char*>((reinterpret_cast<std::uintptr_t>(smem_raw) + 1023) &
                                            ~std::uintptr_t(1023));
}

// The pipeline's barriers, by thread 0: full[s] waits for the producer's arrive (+ the TMA bytes),
// empty[s] for `releases` arrivals (every consumer warp of the cluster). Then every block of the
// cluster has them before anyone copies into or arrives on them.
template <int STAGES_, int CLUSTER>
__device__ inline void init_barriers(uint64_t (&full)[STAGES_], uint64_t (&empty)[STAGES_],
                                     int releases) {
    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES_; ++s) {
            mbar_init(&full[s], 1);
            mbar_init(&empty[s], releases);
        }
        fence_barrier_init();  // the copy engine and the cluster's other blocks see them
    }
    if constexpr (CLUSTER > 1)
        cluster_sync();
    else
        __syncthreads();
}

// A consumer warp is done with stage s: its lane 0 arrives on the stage's "empty" barrier in every
// block of the cluster (their producers' copies landed in this block's stage too).
template <int CLUSTER>
__device__ inline void release(uint64_t* empty, int lane) {
    if (lane != 0) return;
    if constexpr (CLUSTER > 1) {
#pragma unroll
        for (int c = 0; c < CLUSTER; ++c) mbar_arrive_cluster(empty, c);
    } else {
        mbar_arrive(empty);
    }
}

// The producer fills stage s with k-tile kt: its (BM, BK) box of A, and all of B's (BK, 64)
// boxes, its own share (B_PART of them, multicast to the cluster) and those its partners multicast.
template <class Cfg>
__device__ inline void load_stage(const CUtensorMap* map_a, const CUtensorMap* map_b, __half* As,
                                  __half* Bs, uint64_t* full, int s, int kt, int m0, int n0,
                                  unsigned rank) {
    mbar_arrive_expect_tx(&full[s], Cfg::STAGE_BYTES);
    tma_load(As + s * Cfg::A_STAGE, map_a, kt * BK, m0, &full[s]);
#pragma unroll
    for (int p = 0; p < Cfg::B_PART; ++p) {  // this block's share of B's boxes
        const int j = int(rank) * Cfg::B_PART + p;
        __half* dst = Bs + s * Cfg::B_STAGE + j * BK * B_BOX;
        if constexpr (Cfg::CLUSTER > 1)
            tma_load_multicast(dst, map_b, n0 + j * B_BOX, kt * BK, &full[s],
                               uint16_t((1u << Cfg::CLUSTER) - 1));
        else
            tma_load(dst, map_b, n0 + j * B_BOX, kt * BK, &full[s]);
    }
}

// How many clusters of `cluster` blocks fit on the GPU at once, after the shared-memory opt-in.
template <class Kernel>
inline int resident_clusters(Kernel kernel, int cluster, int threads, int smem_bytes) {
    GEMM_CUDA_CHECK(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_bytes));
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(cluster * 1024);
    cfg.blockDim = dim3(threads);
    cfg.dynamicSmemBytes = smem_bytes;
    cudaLaunchAttribute attr;
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = cluster, attr.val.clusterDim.y = 1, attr.val.clusterDim.z = 1;
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
    int n = 0;
    GEMM_CUDA_CHECK(cudaOccupancyMaxActiveClusters(&n, kernel, &cfg));
    return n;
}

// The fp16 operands' tensor maps (A in (BM, BK) boxes, B in (BK, 64)), and C's way out: pairs of
// columns at once (vec_c), and TMA stores (tma_c, map_c) where they may write C. Keep it alive
// until the kernel is launched: the padded copies of A and B are freed with it.
template <class Cfg>
struct TensorMaps {
    const AlignedOperands ops;  // A and B themselves, or padded copies where a row is not on 16 B
    const CUtensorMap a, b;
    const bool vec_c, tma_c;
    const CUtensorMap c;
    TensorMaps(const __half* A, int lda, const __half* B, int ldb, float beta, float* C, int ldc,
               int M, int N, int K, cudaStream_t stream)
        : ops(A, lda, B, ldb, M, N, K, stream),
          a(make_map(ops.a.p, M, K, ops.a.ld, Cfg::BM, BK)),
          b(make_map(ops.b.p, K, N, ops.b.ld, BK, B_BOX)),
          vec_c(ldc % 2 == 0 && reinterpret_cast<std::uintptr_t>(C) % 8 == 0),
          // TMA stores overwrite C (beta == 0 only) and need the same alignment as the loads. On
          // the H200 they wrote one float past N into C's padding at N = 155, ldc = 160 (as if a
          // row's last 16 bytes went out whole), so N % 4 == 0 too.
          tma_c(Cfg::STORE_TMA && beta == 0.0f && ldc % 4 == 0 && N % 4 == 0 &&
                reinterpret_cast<std::uintptr_t>(C) % 16 == 0),
          c(tma_c ? make_map(C, M, N, ldc, 64, Cfg::C_BOX) : a) {}
};

}  // namespace pipeline

// Chapter 15: chapter 14's pipeline made persistent and clustered, to go past cuBLAS on the H100.
// New vs chapter 14: one block per SM walks many output tiles (persistent), so the producer loads
// the next tile while the consumers finish this one; clusters of two blocks share the B tile, each
// copying half of it with TMA multicast into both blocks' shared memory (the "empty" barriers
// count both blocks' consumers); C leaves through shared memory and TMA stores, so its writes
// overlap the next tile's math; one k-tile of wgmmas stays in flight (wait_group 1).
// Napkin math: L2 -> SM bytes 2*M*N*K*(1/BN + 1/(2*BM)) = 1.07 GB at 4096^3, a third under chapter
// 14's 1.61 GB (B is two thirds of it, and halved); the register epilogue, 128 KB of C per tile,
// cost 6-11% of the time (measured, README).
// Preconditions: as chapter 14 (compute capability 9.0; unaligned operands are padded first).
#pragma once

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "cuda_check.cuh"
#include "device/aligned_operands.cuh"
#include "device/ch12_wgmma.cuh"
#include "device/ch13_tma_mbarrier.cuh"
#include "device/ch14_setmaxnreg.cuh"
#include "device/ch15_cluster_multicast.cuh"
#include "device/timeline.cuh"  // GEMM_MARK: nothing unless built with -DGEMM_TIMELINE
#include "device/wgmma_epilogue.cuh"

namespace ch15 {

using namespace sm90;

constexpr int BN = 256, BK = 64;           // block tile columns and depth; BM is the Config's
constexpr int STAGES = 4;                  // tiles in flight
constexpr int WG = 128;                    // threads per warpgroup
constexpr int WGMMA_M = 64, WGMMA_K = 16;  // one wgmma: (64, 16) x (16, BN)
constexpr int B_BOX = 64;                  // columns of B per TMA box: 64 halves = 128 bytes
constexpr int B_STAGE = BK * BN;           // halves of B per stage
constexpr int ACC = WGMMA_ACC;  // fp32 accumulators per consumer thread: (64, BN) / 128 threads
static_assert(BK * int(sizeof(__half)) == 128, "a K-row of A is one 128-byte swizzle row");
static_assert(BN == 256 && BK % WGMMA_K == 0, "one m64n256k16 per 16-deep step");

// CLUSTER: blocks per cluster, stacked along M, sharing one B tile. PERSISTENT: one block per SM
// looping over tiles (else one block per tile, as in chapter 14). STORE_TMA: the epilogue writes C
// through shared memory and TMA stores (else straight from registers, as in chapter 14). CONSUMERS
// warpgroups of 64 rows make the block tile BM = 64 * CONSUMERS high. GROUP_M: cluster rows walked
// together. IN_FLIGHT: k-tiles of wgmmas a consumer leaves running (1; 0 is chapter 14's loop).
template <int CLUSTER_, bool PERSISTENT_, bool STORE_TMA_, int CONSUMERS_ = 2, int GROUP_M_ = 8,
          int IN_FLIGHT_ = 1>
struct Config {
    static constexpr int CLUSTER = CLUSTER_, CONSUMERS = CONSUMERS_, GROUP_M = GROUP_M_;
    static constexpr int IN_FLIGHT = IN_FLIGHT_;
    static constexpr bool PERSISTENT = PERSISTENT_, STORE_TMA = STORE_TMA_;
    static constexpr int BM = WGMMA_M * CONSUMERS, THREADS = WG * (1 + CONSUMERS);
    static constexpr int A_STAGE = BM * BK;  // halves
    static constexpr int STAGE_BYTES = (A_STAGE + B_STAGE) * int(sizeof(__half));
    // C goes out in TMA boxes of (64, 32) floats (32 floats: one 128-byte swizzle row), through two
    // buffers per consumer.
    static constexpr int C_BOX = 32, C_CHUNK_BYTES = 2 * 64 * C_BOX * int(sizeof(float));
    static constexpr int SMEM_BYTES =
        STAGES * STAGE_BYTES + (STORE_TMA ? CONSUMERS * C_CHUNK_BYTES : 0) + 1024;
    // Registers per thread after setmaxnreg: the consumers take what the producer gives up, within
    // the 64K of the SM (multiples of 8).
    static constexpr int PRODUCER_REGS = 40, CONSUMER_REGS = 232;
    static_assert(
        CONSUMERS == 2,
        "three consumers (192-row tiles) take 512 threads, which start with 128 registers "
        "each: ptxas cannot fit wgmma's 128 accumulators in that");
    static constexpr int B_PART = BN / B_BOX / CLUSTER;  // B boxes each block copies
    static_assert(CLUSTER >= 1 && (BN / B_BOX) % CLUSTER == 0,
                  "the cluster's blocks split B's boxes evenly");
    static_assert(WG * (PRODUCER_REGS + CONSUMERS * CONSUMER_REGS) <= 65536, "the register file");
    static_assert(IN_FLIGHT == 0 || IN_FLIGHT == 1, "all done, or one k-tile left running");
};
namespace configs {                                  // the steps of the README's table
using single = Config<1, false, false>;              // chapter 14's schedule
using persistent = Config<1, true, false>;           // one block per SM
using cluster2 = Config<2, false, false>;            // B multicast to a pair, a block per tile
using persistent_cluster2 = Config<2, true, false>;  // both
using best = Config<2, true, true>;                  // both, and C through TMA stores
// Not a step: `single` with chapter 14's consumer loop (wait_group 0, release at once), to tell
// what `single` loses against chapter 14 (README).
using single_wait0 = Config<1, false, false, 2, 8, 0>;
}  // namespace configs

// The tile scheduler. Cluster tile t covers CLUSTER * BM rows and BN columns of C; the tiles are
// walked in grouped order (GROUP_M cluster rows at a time, column by column) so that the tiles in
// flight together share their rows of A and columns of B in L2.
template <class Cfg>
struct TileOrder {
    int tiles_m, tiles_n;  // cluster tiles down and across C
    // The first row and column of C that the block of cluster rank `rank` computes in tile t.
    __device__ void origin(int t, unsigned rank, int& m0, int& n0) const {
        m0 = 0, n0 = 0;
        // BEGIN SOLUTION: the grouped order, then this block's BM rows within the cluster tile
        const int group = t / (Cfg::GROUP_M * tiles_n), in_group = t % (Cfg::GROUP_M * tiles_n);
        const int group_rows = min(tiles_m - group * Cfg::GROUP_M, Cfg::GROUP_M);
        const int tm = group * Cfg::GROUP_M + in_group % group_rows, tn = in_group / group_rows;
        m0 = (tm * Cfg::CLUSTER + int(rank)) * Cfg::BM;
        n0 = tn * BN;
        // END SOLUTION
    }
};

template <class Cfg>
static __global__ void __cluster_dims__(Cfg::CLUSTER, 1, 1) __launch_bounds__(Cfg::THREADS, 1)
    persistent_kernel(const __grid_constant__ CUtensorMap map_a,
                      const __grid_constant__ CUtensorMap map_b,
                      const __grid_constant__ CUtensorMap map_c, int M, int N, int K, float alpha,
                      float beta, float* C, int ldc, bool vec_c, bool tma_c) {
    constexpr int CLUSTER = Cfg::CLUSTER, CONSUMERS = Cfg::CONSUMERS, BM = Cfg::BM;
    constexpr int A_STAGE = Cfg::A_STAGE;
    extern __shared__ unsigned char smem_raw[];
    // 128-byte swizzled tiles must start on a 1024-byte boundary (the swizzle pattern repeats every
    // 8 rows of 128 bytes, and TMA and wgmma compute it from address bits).
    unsigned char* smem = reinterpret_cast<unsigned char*>(
        (reinterpret_cast<std::uintptr_t>(smem_raw) + 1023) & ~std::uintptr_t(1023));
    __half* As = reinterpret_cast<__half*>(smem);  // (STAGES, BM, BK), swizzled
    __half* Bs = As + STAGES * A_STAGE;            // (STAGES, BN / 64, BK, 64), swizzled
    __shared__ uint64_t full[STAGES];   // stage s holds its tile: A and all of B have landed
    __shared__ uint64_t empty[STAGES];  // every consumer of the cluster is done with stage s

    const int wg = threadIdx.x / WG, tid = threadIdx.x % WG;
    const unsigned rank = CLUSTER > 1 ? cluster_rank() : 0;  // this block's place in its cluster
    const TileOrder<Cfg> order{(M + CLUSTER * BM - 1) / (CLUSTER * BM), (N + BN - 1) / BN};
    const int tiles = order.tiles_m * order.tiles_n;
    const int cluster_id = blockIdx.x / CLUSTER, clusters = gridDim.x / CLUSTER;
    const int first = cluster_id;                         // this cluster's first tile
    const int step = Cfg::PERSISTENT ? clusters : tiles;  // then every clusters-th (persistent)
    const int KT = (K + BK - 1) / BK;
    GEMM_MARK(threadIdx.x == 0, block_begin, first, 0);

    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; ++s) {
            mbar_init(&full[s], 1);  // the producer's arrive (+ the TMA bytes)
            mbar_init(&empty[s], CONSUMERS * 4 * CLUSTER);  // every consumer warp of the cluster
        }
        fence_barrier_init();  // the copy engine and the cluster's other block see them
    }
    // The barriers of every block of the cluster exist before anyone copies into or arrives on
    // them.
    if constexpr (CLUSTER > 1)
        cluster_sync();
    else
        __syncthreads();

    if (wg == 0) {
        setmaxnreg_dec<Cfg::PRODUCER_REGS>();
        if (tid == 0) {
            // The producer walks the same tiles as the consumers; its k-tile count `it` runs on
            // across tiles, and with it the stages and their phases.
            int it = 0;
            for (int t = first; t < tiles; t += step) {
                int m0, n0;
                order.origin(t, rank, m0, n0);
                GEMM_MARK(true, load_begin, t, 0);
                for (int kt = 0; kt < KT; ++kt, ++it) {
                    const int s = it % STAGES;
                    if (it >= STAGES) mbar_wait(&empty[s], (it / STAGES - 1) & 1);
                    // Its A, and all of B's boxes, its own and those its partner multicasts.
                    mbar_arrive_expect_tx(&full[s], Cfg::STAGE_BYTES);
                    tma_load(As + s * A_STAGE, &map_a, kt * BK, m0, &full[s]);
#pragma unroll
                    for (int p = 0; p < Cfg::B_PART; ++p) {  // this block's share of B's boxes
                        const int j = int(rank) * Cfg::B_PART + p;
                        __half* dst = Bs + s * B_STAGE + j * BK * B_BOX;
                        if constexpr (CLUSTER > 1)
                            tma_load_multicast(dst, &map_b, n0 + j * B_BOX, kt * BK, &full[s],
                                               uint16_t((1u << CLUSTER) - 1));
                        else
                            tma_load(dst, &map_b, n0 + j * B_BOX, kt * BK, &full[s]);
                    }
                }
                GEMM_MARK(true, load_end, t, 0);
            }
        }
        __syncwarp();  // lane 0 rejoins its warp before the cluster barrier at the end
    } else {
        setmaxnreg_inc<Cfg::CONSUMER_REGS>();
        const int row0 = (wg - 1) * WGMMA_M;  // this warpgroup's first row in the block tile
        const int warp = tid / 32, lane = tid % 32;
        // Stage s is free again once every consumer warp of the cluster says so: its copies came
        // from every block's producer.
        auto release = [&](int s) {
            if (lane != 0) return;
            if constexpr (CLUSTER > 1) {
#pragma unroll
                for (int c = 0; c < CLUSTER; ++c) mbar_arrive_cluster(&empty[s], c);
            } else {
                mbar_arrive(&empty[s]);
            }
        };
        int it = 0;
        for (int t = first; t < tiles; t += step) {
            int m0, n0;
            order.origin(t, rank, m0, n0);
            float d[ACC];  // (64, BN) of C: this warpgroup's rows, in wgmma's register layout
#pragma unroll
            for (int i = 0; i < ACC; ++i) d[i] = 0.0f;
            for (int kt = 0; kt < KT; ++kt, ++it) {
                const int s = it % STAGES;
                mbar_wait(&full[s], (it / STAGES) & 1);  // k-tile kt has landed in stage s
                GEMM_MARK(kt == 0 && tid == 0, math_begin, t, wg);
                const __half* a = As + s * A_STAGE + row0 * BK;  // (64, BK) K-major
                const __half* b = Bs + s * B_STAGE;              // (BN / 64, BK, 64) MN-major
                wgmma_fence();  // the accumulators were written by ordinary instructions before
#pragma unroll
                for (int kk = 0; kk < BK / WGMMA_K; ++kk)
                    wgmma_m64n256k16(d, smem_desc(a + kk * WGMMA_K, 16, 1024),
                                     smem_desc(b + kk * WGMMA_K * B_BOX, BK * 128, 1024));
                wgmma_commit();
                if constexpr (Cfg::IN_FLIGHT == 0) {  // chapter 14's loop
                    wgmma_wait<0>();
                    release(s);
                    continue;
                }
                // Unlike chapter 14, one k-tile of wgmmas stays in flight: once the previous
                // k-tile's are done, its stage is released while this one's run.
                wgmma_wait<1>();
                if (kt > 0) release((it + STAGES - 1) % STAGES);
            }
            wgmma_wait<0>();
            // The tile's last stage (already released when nothing was left in flight).
            if (Cfg::IN_FLIGHT > 0 && KT > 0) release((it + STAGES - 1) % STAGES);
            GEMM_MARK(tid == 0, math_end, t, wg);
            // Epilogue, as in chapter 14; meanwhile the producer is already loading the next tile.
            if constexpr (Cfg::STORE_TMA) {
                if (tma_c) {
                    float* Cs = reinterpret_cast<float*>(smem + STAGES * Cfg::STAGE_BYTES +
                                                         (wg - 1) * Cfg::C_CHUNK_BYTES);
                    store_tile_tma<Cfg>(d, Cs, &map_c, m0 + row0, n0, alpha, wg, tid);
                    GEMM_MARK(tid == 0, store_end, t, wg);
                    continue;
                }
            }
            store_tile(d, C, ldc, M, N, m0 + row0 + 16 * warp + lane / 4, n0, lane, alpha, beta,
                       m0 + BM <= M && n0 + BN <= N && vec_c);
            GEMM_MARK(tid == 0, store_end, t, wg);
        }
        if (Cfg::STORE_TMA && tid == 0) tma_store_wait<0, false>();  // C is written before exit
    }
    // No block may leave while another block of its cluster can still arrive on its barriers.
    if constexpr (CLUSTER > 1) cluster_sync();
}

template <class Cfg>
inline void gemm_cfg(int M, int N, int K, float alpha, const __half* A, int lda, const __half* B,
                     int ldb, float beta, float* C, int ldc, cudaStream_t stream = 0) {
    if (M == 0 || N == 0) return;                            // nothing to write
    if (K == 0) return scale_c(M, N, beta, C, ldc, stream);  // no product: C = beta * C
    auto kernel = persistent_kernel<Cfg>;
    // Looked up once: the shared-memory opt-in, and how many clusters fit on the GPU at once.
    static const int resident_clusters = [&] {
        GEMM_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             Cfg::SMEM_BYTES));
        cudaLaunchConfig_t cfg = {};
        cfg.gridDim = dim3(Cfg::CLUSTER * 1024);
        cfg.blockDim = dim3(Cfg::THREADS);
        cfg.dynamicSmemBytes = Cfg::SMEM_BYTES;
        cudaLaunchAttribute attr;
        attr.id = cudaLaunchAttributeClusterDimension;
        attr.val.clusterDim.x = Cfg::CLUSTER, attr.val.clusterDim.y = 1, attr.val.clusterDim.z = 1;
        cfg.attrs = &attr;
        cfg.numAttrs = 1;
        int n = 0;
        GEMM_CUDA_CHECK(cudaOccupancyMaxActiveClusters(&n, kernel, &cfg));
        return n;
    }();
    // A and B themselves, or padded copies where a row does not start on 16 bytes.
    const AlignedOperands ops(A, lda, B, ldb, M, N, K, stream);
    const CUtensorMap map_a = make_map(ops.a.p, M, K, ops.a.ld, Cfg::BM, BK);
    const CUtensorMap map_b = make_map(ops.b.p, K, N, ops.b.ld, BK, B_BOX);
    const bool vec_c = ldc % 2 == 0 && reinterpret_cast<std::uintptr_t>(C) % 8 == 0;
    // TMA stores overwrite C (beta == 0 only) and need the same alignment as the loads. On the H200
    // they wrote one float past N into C's padding at N = 155, ldc = 160 (as if a row's last 16
    // bytes went out whole), so N % 4 == 0 too.
    const bool tma_c = Cfg::STORE_TMA && beta == 0.0f && ldc % 4 == 0 && N % 4 == 0 &&
                       reinterpret_cast<std::uintptr_t>(C) % 16 == 0;
    const CUtensorMap map_c = tma_c ? make_map(C, M, N, ldc, 64, Cfg::C_BOX) : map_a;
    const int tiles =
        ((M + Cfg::CLUSTER * Cfg::BM - 1) / (Cfg::CLUSTER * Cfg::BM)) * ((N + BN - 1) / BN);
    const int clusters = Cfg::PERSISTENT ? std::min(tiles, resident_clusters) : tiles;
    kernel<<<clusters * Cfg::CLUSTER, Cfg::THREADS, Cfg::SMEM_BYTES, stream>>>(
        map_a, map_b, map_c, M, N, K, alpha, beta, C, ldc, vec_c, tma_c);
    GEMM_CUDA_CHECK_LAUNCH();
}

inline void gemm(int M, int N, int K, float alpha, const __half* A, int lda, const __half* B,
                 int ldb, float beta, float* C, int ldc, cudaStream_t stream = 0) {
    gemm_cfg<configs::best>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, stream);
}

}  // namespace ch15

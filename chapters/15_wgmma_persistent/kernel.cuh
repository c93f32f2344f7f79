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
#include "device/ch12_wgmma.cuh"
#include "device/ch14_setmaxnreg.cuh"
#include "device/ch15_cluster_multicast.cuh"
#include "device/ch15_persistent.cuh"  // chapter 15's pipeline: Config, TileOrder, barriers, maps
#include "device/timeline.cuh"         // GEMM_MARK: nothing unless built with -DGEMM_TIMELINE
#include "device/wgmma_epilogue.cuh"

namespace ch15 {

using namespace sm90;
using namespace pipeline;  // Config, BK, STAGES, WG, WGMMA_M, WGMMA_K, B_BOX (chapter 15)

namespace configs {                                       // the steps of the README's table
using single = Config<1, 256, false, false>;              // chapter 14's schedule
using persistent = Config<1, 256, true, false>;           // one block per SM
using cluster2 = Config<2, 256, false, false>;            // B multicast to a pair, a block per tile
using persistent_cluster2 = Config<2, 256, true, false>;  // both
using best = Config<2, 256, true, true>;                  // both, and C through TMA stores
// Not a step: `single` with chapter 14's consumer loop (wait_group 0, release at once), to tell
// what `single` loses against chapter 14 (README).
using single_wait0 = Config<1, 256, false, false, 8, 0>;
}  // namespace configs

// The tile scheduler. Cluster tile t covers CLUSTER * BM rows and BN columns of C; the tiles are
// walked in grouped order (GROUP_M cluster rows at a time, column by column) so that the tiles in
// flight together share their rows of A and columns of B in L2 (the exercise of this chapter; the
// chapters after it use ch15_persistent.cuh's).
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
        n0 = tn * Cfg::BN;
        // END SOLUTION
    }
};

template <class Cfg>
static __global__ void __cluster_dims__(Cfg::CLUSTER, 1, 1) __launch_bounds__(Cfg::THREADS, 1)
    persistent_kernel(const __grid_constant__ CUtensorMap map_a,
                      const __grid_constant__ CUtensorMap map_b,
                      const __grid_constant__ CUtensorMap map_c, int M, int N, int K, float alpha,
                      float beta, float* C, int ldc, bool vec_c, bool tma_c) {
    constexpr int CLUSTER = Cfg::CLUSTER, CONSUMERS = Cfg::CONSUMERS, BM = Cfg::BM, BN = Cfg::BN;
    constexpr int A_STAGE = Cfg::A_STAGE, B_STAGE = Cfg::B_STAGE, ACC = Cfg::ACC;
    extern __shared__ unsigned char smem_raw[];
    unsigned char* smem = swizzle_aligned(smem_raw);
    __half* As = reinterpret_cast<__half*>(smem);  // (STAGES, BM, BK), swizzled
    __half* Bs = As + STAGES * A_STAGE;            // (STAGES, BN / 64, BK, 64), swizzled
    __shared__ uint64_t full[STAGES];   // stage s holds its tile: A and all of B have landed
    __shared__ uint64_t empty[STAGES];  // every consumer of the cluster is done with stage s

    const int wg = threadIdx.x / WG, tid = threadIdx.x % WG;
    const unsigned rank = CLUSTER > 1 ? cluster_rank() : 0;  // this block's place in its cluster
    const TileOrder<Cfg> order{(M + CLUSTER * BM - 1) / (CLUSTER * BM), (N + BN - 1) / BN};
    const int tiles = order.tiles_m * order.tiles_n;
    const int first = blockIdx.x / CLUSTER;                          // this cluster's first tile
    const int step = Cfg::PERSISTENT ? gridDim.x / CLUSTER : tiles;  // then every clusters-th
    const int KT = (K + BK - 1) / BK;
    GEMM_MARK(threadIdx.x == 0, block_begin, first, 0);

    init_barriers<STAGES, CLUSTER>(full, empty, CONSUMERS * 4 * CLUSTER);  // every consumer warp

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
                    load_stage<Cfg>(&map_a, &map_b, As, Bs, full, s, kt, m0, n0, rank);
                }
                GEMM_MARK(true, load_end, t, 0);
            }
        }
        __syncwarp();  // lane 0 rejoins its warp before the cluster barrier at the end
    } else {
        setmaxnreg_inc<Cfg::CONSUMER_REGS>();
        const int row0 = (wg - 1) * WGMMA_M;  // this warpgroup's first row in the block tile
        const int warp = tid / 32, lane = tid % 32;
        // Stage s is free again once every consumer warp of the cluster says so.
        auto release_stage = [&](int s) { release<CLUSTER>(&empty[s], lane); };
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
                    release_stage(s);
                    continue;
                }
                // Unlike chapter 14, one k-tile of wgmmas stays in flight: once the previous
                // k-tile's are done, its stage is released while this one's run.
                wgmma_wait<1>();
                if (kt > 0) release_stage((it + STAGES - 1) % STAGES);
            }
            wgmma_wait<0>();
            // The tile's last stage (already released when nothing was left in flight).
            if (Cfg::IN_FLIGHT > 0 && KT > 0) release_stage((it + STAGES - 1) % STAGES);
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
    static const int resident =
        resident_clusters(kernel, Cfg::CLUSTER, Cfg::THREADS, Cfg::SMEM_BYTES);
    const TensorMaps<Cfg> maps(A, lda, B, ldb, beta, C, ldc, M, N, K, stream);
    const int tiles = tile_count<Cfg>(M, N);
    const int clusters = Cfg::PERSISTENT ? std::min(tiles, resident) : tiles;
    kernel<<<clusters * Cfg::CLUSTER, Cfg::THREADS, Cfg::SMEM_BYTES, stream>>>(
        maps.a, maps.b, maps.c, M, N, K, alpha, beta, C, ldc, maps.vec_c, maps.tma_c);
    GEMM_CUDA_CHECK_LAUNCH();
}

inline void gemm(int M, int N, int K, float alpha, const __half* A, int lda, const __half* B,
                 int ldb, float beta, float* C, int ldc, cudaStream_t stream = 0) {
    gemm_cfg<configs::best>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, stream);
}

}  // namespace ch15

// Chapter 16: split-K. New vs chapter 15: when an output has fewer tiles than the GPU has workers
// (clusters), K is cut into `splits` slices and every (slice, tile) pair is a unit of work: a
// worker computes one slice of one tile, leaves its fp32 partial sums in a workspace, and a second
// kernel (reduce_splits) adds the slices and applies alpha and beta once. The split comes from K
// and the tile count (choose_splits); tiles of 128 x 128 and 128 x 64 are named configurations.
// Napkin math: 128 x 8192 x 8192 is 32 tiles of (128, 256) for 132 SMs; 4 slices of 32 k-tiles
// keep 128 busy. The price: each slice writes M * N fp32 and the reduction reads them all back,
// 2 * 4 * 4 MB = 32 MB through L2, against the 134 MB of A and B every split reads.
// Preconditions: as chapter 15 (compute capability 9.0; unaligned operands are padded first).
#pragma once

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "cuda_check.cuh"
#include "device/ch15_persistent.cuh"  // chapter 15's pipeline: Config, TileOrder, barriers, maps
#include "device/ch16_split_k.cuh"     // SplitK, choose_splits, reduce_splits
#include "device/launch_resources.cuh"
#include "device/sm90.cuh"
#include "device/wgmma_epilogue.cuh"

namespace ch16 {

using namespace sm90;
using namespace pipeline;  // Config, BK, STAGES, WG, WGMMA_M, WGMMA_K, B_BOX (chapter 15)
using namespace split_k;   // SplitK, MIN_SLICE, choose_splits, reduce_splits (chapter 16)
using namespace launch;    // workspace_for: a scratch buffer per stream (common/device)

namespace configs {           // the steps of the README's table
using cluster2 = Config<2>;   // chapter 15's tile: pairs of (128, 256) sharing B
using rows128 = Config<1>;    // (128, 256), no cluster: M <= 128 leaves half a pair empty
using n128 = Config<1, 128>;  // (128, 128): twice the tiles of rows128
using n64 = Config<1, 64>;    // (128, 64): four times
}  // namespace configs

template <class Cfg>
static __global__ void __cluster_dims__(Cfg::CLUSTER, 1, 1) __launch_bounds__(Cfg::THREADS, 1)
    persistent_kernel(const __grid_constant__ CUtensorMap map_a,
                      const __grid_constant__ CUtensorMap map_b,
                      const __grid_constant__ CUtensorMap map_c, const SplitK split, int M, int N,
                      float alpha, float beta, float* C, int ldc, bool vec_c, bool tma_c,
                      float* partials, int ldp) {
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
    const TileOrder<Cfg> order = TileOrder<Cfg>::of(M, N);
    const int first = blockIdx.x / CLUSTER;  // this cluster's first unit
    const int step = gridDim.x / CLUSTER;    // then every clusters-th

    init_barriers<STAGES, CLUSTER>(full, empty, CONSUMERS * 4 * CLUSTER);  // every consumer warp

    if (wg == 0) {
        setmaxnreg_dec<Cfg::PRODUCER_REGS>();
        if (tid == 0) {
            // The producer walks the same units as the consumers; its k-tile count `it` runs on
            // across units, and with it the stages and their phases.
            int it = 0;
            for (int u = first; u < split.units(); u += step) {
                int m0, n0;
                order.origin(split.tile(u), rank, m0, n0);
                const int kb = split.k_begin(split.slice(u)),
                          ke = split.k_begin(split.slice(u) + 1);
                for (int kt = kb; kt < ke; ++kt, ++it) {
                    const int s = it % STAGES;
                    if (it >= STAGES) mbar_wait(&empty[s], (it / STAGES - 1) & 1);
                    load_stage<Cfg>(&map_a, &map_b, As, Bs, full, s, kt, m0, n0, rank);
                }
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
        for (int u = first; u < split.units(); u += step) {
            int m0, n0;
            order.origin(split.tile(u), rank, m0, n0);
            const int slice = split.slice(u),
                      depth = split.k_begin(slice + 1) - split.k_begin(slice);
            float d[ACC];  // (64, BN) of C: this warpgroup's rows, in wgmma's register layout
#pragma unroll
            for (int i = 0; i < ACC; ++i) d[i] = 0.0f;
            // Counted from 0, not from the unit's first k-tile: ptxas then sees the loop's first
            // wgmma and does not serialize them (warning C7515).
            for (int kt = 0; kt < depth; ++kt, ++it) {
                const int s = it % STAGES;
                mbar_wait(&full[s], (it / STAGES) & 1);          // k-tile kt has landed in stage s
                const __half* a = As + s * A_STAGE + row0 * BK;  // (64, BK) K-major
                const __half* b = Bs + s * B_STAGE;              // (BN / 64, BK, 64) MN-major
                wgmma_fence();  // the accumulators were written by ordinary instructions before
#pragma unroll
                for (int kk = 0; kk < BK / WGMMA_K; ++kk)
                    wgmma_m64k16(d, smem_desc(a + kk * WGMMA_K, 16, 1024),
                                 smem_desc(b + kk * WGMMA_K * B_BOX, BK * 128, 1024));
                wgmma_commit();
                // One k-tile of wgmmas stays in flight: once the previous k-tile's are done, its
                // stage is released while this one's run.
                wgmma_wait<1>();
                if (kt > 0) release_stage((it + STAGES - 1) % STAGES);
            }
            wgmma_wait<0>();
            // The unit's last stage (a unit is never empty).
            release_stage((it + STAGES - 1) % STAGES);
            const int r = m0 + row0 + 16 * warp + lane / 4;  // this thread's first row of C
            const bool whole = m0 + BM <= M && n0 + BN <= N;
            // BEGIN SOLUTION: slices leave partials; whole tiles go to C as in chapter 15
            if (split.splits > 1) {  // (splits, M, ldp) fp32: slice-major, then C's layout
                float* P = partials + static_cast<std::size_t>(slice) * M * ldp;
                store_tile(d, P, ldp, M, N, r, n0, lane, 1.0f, 0.0f, whole);
                continue;
            }
            // Epilogue, as in chapter 15; meanwhile the producer is already loading the next tile.
            if (tma_c) {
                float* Cs = reinterpret_cast<float*>(smem + STAGES * Cfg::STAGE_BYTES +
                                                     (wg - 1) * Cfg::C_CHUNK_BYTES);
                store_tile_tma<Cfg>(d, Cs, &map_c, m0 + row0, n0, alpha, wg, tid);
                continue;
            }
            store_tile(d, C, ldc, M, N, r, n0, lane, alpha, beta, whole && vec_c);
            // END SOLUTION
        }
        if (Cfg::STORE_TMA && tid == 0) tma_store_wait<0, false>();  // C is written before exit
    }
    // No block may leave while another block of its cluster can still arrive on its barriers.
    if constexpr (CLUSTER > 1) cluster_sync();
}

// SPLIT false: whole tiles only, chapter 15's schedule (a step of the README's table).
template <class Cfg, bool SPLIT = true>
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
    const int KT = (K + BK - 1) / BK;
    const SplitK split{tiles, KT, SPLIT ? choose_splits(tiles, KT, resident) : 1};
    // The partials: (splits, M, ldp) floats, rows padded to 16 bytes for the reduction's float4s.
    const int ldp = (N + 3) / 4 * 4;
    float* partials =
        split.splits > 1
            ? workspace_for<float>(std::size_t(split.splits) * M * ldp * sizeof(float), stream)
            : nullptr;
    const int clusters = std::min(split.units(), resident);
    kernel<<<clusters * Cfg::CLUSTER, Cfg::THREADS, Cfg::SMEM_BYTES, stream>>>(
        maps.a, maps.b, maps.c, split, M, N, alpha, beta, C, ldc, maps.vec_c, maps.tma_c, partials,
        ldp);
    GEMM_CUDA_CHECK_LAUNCH();
    if (split.splits == 1) return;  // C written by the kernel's epilogue
    // Every partial is written: the reduction runs after the kernel, on the same stream.
    const int quads = M * (ldp / 4);
    reduce_splits<<<(quads + 255) / 256, 256, 0, stream>>>(partials, ldp, split.splits, M, N, alpha,
                                                           beta, C, ldc);
    GEMM_CUDA_CHECK_LAUNCH();
}

// Few rows (M <= 128): 128-row tiles alone; a cluster pair would compute a second block of rows
// that lie wholly past M.
inline void gemm(int M, int N, int K, float alpha, const __half* A, int lda, const __half* B,
                 int ldb, float beta, float* C, int ldc, cudaStream_t stream = 0) {
    if (M <= 128)
        return gemm_cfg<configs::rows128>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, stream);
    gemm_cfg<configs::cluster2>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, stream);
}

}  // namespace ch16

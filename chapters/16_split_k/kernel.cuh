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
#include <map>
#include <mutex>
#include <utility>

#include "cuda_check.cuh"
#include "device/aligned_operands.cuh"
#include "device/sm90.cuh"
#include "device/wgmma_epilogue.cuh"

namespace ch16 {

using namespace sm90;

constexpr int BK = 64;                     // block tile depth; BM and BN are the Config's
constexpr int STAGES = 4;                  // tiles in flight
constexpr int WG = 128;                    // threads per warpgroup
constexpr int WGMMA_M = 64, WGMMA_K = 16;  // one wgmma: (64, 16) x (16, BN)
constexpr int B_BOX = 64;                  // columns of B per TMA box: 64 halves = 128 bytes
static_assert(BK * int(sizeof(__half)) == 128, "a K-row of A is one 128-byte swizzle row");

// CLUSTER: blocks per cluster, stacked along M, sharing one B tile (chapter 15). BN: the tile's
// columns, wgmma's N (256, 128 or 64). Two consumer warpgroups of 64 rows: BM = 128. GROUP_M:
// cluster rows walked together. Persistent, TMA stores, one k-tile in flight: chapter 15's best.
template <int CLUSTER_, int BN_ = 256, int GROUP_M_ = 8>
struct Config {
    static constexpr int CLUSTER = CLUSTER_, BN = BN_, CONSUMERS = 2, GROUP_M = GROUP_M_;
    static constexpr int BM = WGMMA_M * CONSUMERS, THREADS = WG * (1 + CONSUMERS);
    static constexpr int ACC = BN / 2;  // fp32 accumulators per consumer thread: (64, BN) / 128
    static constexpr int A_STAGE = BM * BK, B_STAGE = BK * BN;  // halves
    static constexpr int STAGE_BYTES = (A_STAGE + B_STAGE) * int(sizeof(__half));
    // C goes out in TMA boxes of (64, 32) floats (32 floats: one 128-byte swizzle row), through two
    // buffers per consumer.
    static constexpr int C_BOX = 32, C_CHUNK_BYTES = 2 * 64 * C_BOX * int(sizeof(float));
    static constexpr int SMEM_BYTES = STAGES * STAGE_BYTES + CONSUMERS * C_CHUNK_BYTES + 1024;
    // Registers per thread after setmaxnreg: the consumers take what the producer gives up, within
    // the 64K of the SM (multiples of 8).
    static constexpr int PRODUCER_REGS = 40, CONSUMER_REGS = 232;
    static_assert(BN == 256 || BN == 128 || BN == 64, "wgmma m64nBNk16: 256, 128 or 64 columns");
    static constexpr int B_PART = BN / B_BOX / CLUSTER;  // B boxes each block copies
    static_assert(CLUSTER >= 1 && (BN / B_BOX) % CLUSTER == 0,
                  "the cluster's blocks split B's boxes evenly");
    static_assert(WG * (PRODUCER_REGS + CONSUMERS * CONSUMER_REGS) <= 65536, "the register file");
};
namespace configs {           // the steps of the README's table
using cluster2 = Config<2>;   // chapter 15's tile: pairs of (128, 256) sharing B
using rows128 = Config<1>;    // (128, 256), no cluster: M <= 128 leaves half a pair empty
using n128 = Config<1, 128>;  // (128, 128): twice the tiles of rows128
using n64 = Config<1, 64>;    // (128, 64): four times
}  // namespace configs

// The split: K's KT k-tiles cut into `splits` slices of nearly equal depth (the first KT % splits
// one k-tile deeper). Unit u is slice u / tiles of tile u % tiles: the units in flight together
// are one slice of neighbouring tiles, which read the same k-slices of A and B from L2. Pure
// integer arithmetic (int: no 64-bit division on the GPU), the same on the host and the device
// (tests/chapters/test_schedule.cu checks it).
struct SplitK {
    int tiles, KT, splits;
    __host__ __device__ int units() const { return tiles * splits; }
    __host__ __device__ int tile(int u) const { return u % tiles; }
    __host__ __device__ int slice(int u) const { return u / tiles; }
    // The first k-tile of slice s (s == splits: KT).
    __host__ __device__ int k_begin(int s) const {
        int first = 0;
        // BEGIN SOLUTION: an even cut, the remainder spread over the first slices
        const int q = KT / splits, r = KT % splits;
        first = q * s + (s < r ? s : r);
        // END SOLUTION
        return first;
    }
};

// How many slices: none while the tiles fill the workers; else enough to fill them, each slice
// at least MIN_SLICE k-tiles deep. A (128, 256) partial, written and read again, moves the bytes of
// about 5.3 k-tiles of loads (the README's arithmetic); 8 was set on an estimate of 2 and kept.
constexpr int MIN_SLICE = 8;
inline int choose_splits(long long tiles, int KT, int workers) {
    if (tiles >= workers) return 1;
    const long long by_workers = workers / tiles, by_depth = KT / MIN_SLICE;
    return static_cast<int>(std::max<long long>(1, std::min(by_workers, by_depth)));
}

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
        n0 = tn * Cfg::BN;
        // END SOLUTION
    }
};

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
    const int first = blockIdx.x / CLUSTER;  // this cluster's first unit
    const int step = gridDim.x / CLUSTER;    // then every clusters-th

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
        for (int u = first; u < split.units(); u += step) {
            int m0, n0;
            order.origin(split.tile(u), rank, m0, n0);
            const int slice = split.slice(u),
                      depth = split.k_begin(slice + 1) - split.k_begin(slice);
            float d[ACC];  // (64, BN) of C: this warpgroup's rows, in wgmma's register layout
#pragma unroll
            for (int i = 0; i < ACC; ++i) d[i] = 0.0f;
            // Counted from 0, not from the slice's first k-tile: ptxas then sees the loop's first
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
                if (kt > 0) release((it + STAGES - 1) % STAGES);
            }
            wgmma_wait<0>();
            release((it + STAGES - 1) % STAGES);  // the unit's last stage (a slice is never empty)
            const int r = m0 + row0 + 16 * warp + lane / 4;  // this thread's first row of C
            const bool whole = m0 + BM <= M && n0 + BN <= N;
            // BEGIN SOLUTION: a slice of a split product leaves its partial sums, unscaled
            if (split.splits > 1) {  // (splits, M, ldp) fp32: slice-major, then C's layout
                float* P = partials + static_cast<std::size_t>(slice) * M * ldp;
                store_tile(d, P, ldp, M, N, r, n0, lane, 1.0f, 0.0f, whole);
                continue;
            }
            // END SOLUTION
            // Epilogue, as in chapter 15; meanwhile the producer is already loading the next tile.
            if (tma_c) {
                float* Cs = reinterpret_cast<float*>(smem + STAGES * Cfg::STAGE_BYTES +
                                                     (wg - 1) * Cfg::C_CHUNK_BYTES);
                store_tile_tma<Cfg>(d, Cs, &map_c, m0 + row0, n0, alpha, wg, tid);
                continue;
            }
            store_tile(d, C, ldc, M, N, r, n0, lane, alpha, beta, whole && vec_c);
        }
        if (tid == 0) tma_store_wait<0, false>();  // C is written before exit
    }
    // No block may leave while another block of its cluster can still arrive on its barriers.
    if constexpr (CLUSTER > 1) cluster_sync();
}

// The reduction: C = alpha * (the sum of the slices' partials) + beta * C, C not read when beta
// == 0. One thread per 4 columns of a row: (M, ldp / 4) float4s of each slice, read once from L2
// (ld.global.cg: written by the other kernel, never cached in this SM's L1).
static __global__ void __launch_bounds__(256)
    reduce_splits(const float* partials, int ldp, int splits, int M, int N, float alpha, float beta,
                  float* C, int ldc) {
    const int quads = ldp / 4, q = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    if (q >= M * quads) return;  // M * ldp < 2^31: a split product fits in one wave of tiles
    const int row = q / quads, col = 4 * (q % quads);
    const std::size_t slice = static_cast<std::size_t>(M) * ldp;  // floats per slice
    const float* p = partials + static_cast<std::size_t>(row) * ldp + col;
    float4 sum = __ldcg(reinterpret_cast<const float4*>(p));
    for (int s = 1; s < splits; ++s) {
        const float4 v = __ldcg(reinterpret_cast<const float4*>(p + s * slice));
        sum.x += v.x, sum.y += v.y, sum.z += v.z, sum.w += v.w;
    }
    const float v[4] = {sum.x, sum.y, sum.z, sum.w};
    float* c = C + static_cast<long long>(row) * ldc + col;
    for (int e = 0; e < 4 && col + e < N; ++e)
        c[e] = beta == 0.0f ? alpha * v[e] : alpha * v[e] + beta * c[e];
}

// The partials' workspace, one per (device, stream), allocated on first use and grown, never freed
// (no allocation in a timed call). Calls on one stream run one after the other (the reduction
// included); calls on two streams use two workspaces; the mutex covers several host threads.
inline float* workspace_for(std::size_t bytes, cudaStream_t stream) {
    static std::mutex mutex;
    static std::map<std::pair<int, cudaStream_t>, std::pair<float*, std::size_t>> all;
    int dev = 0;
    GEMM_CUDA_CHECK(cudaGetDevice(&dev));
    const std::lock_guard<std::mutex> lock(mutex);
    std::pair<float*, std::size_t>& w = all[{dev, stream}];
    if (bytes > w.second) {
        // The old buffer may still be in use by this stream's previous kernel: freed after it.
        if (w.first) GEMM_CUDA_CHECK(cudaFreeAsync(w.first, stream));
        GEMM_CUDA_CHECK(cudaMallocAsync(&w.first, bytes, stream));
        w.second = bytes;
    }
    return w.first;
}

// SPLIT false: whole tiles only, chapter 15's schedule (a step of the README's table).
template <class Cfg, bool SPLIT = true>
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
    const bool tma_c =
        beta == 0.0f && ldc % 4 == 0 && N % 4 == 0 && reinterpret_cast<std::uintptr_t>(C) % 16 == 0;
    const CUtensorMap map_c = tma_c ? make_map(C, M, N, ldc, 64, Cfg::C_BOX) : map_a;
    const int tiles = ((M + Cfg::CLUSTER * Cfg::BM - 1) / (Cfg::CLUSTER * Cfg::BM)) *
                      ((N + Cfg::BN - 1) / Cfg::BN);
    const int KT = (K + BK - 1) / BK;
    const SplitK split{tiles, KT, SPLIT ? choose_splits(tiles, KT, resident_clusters) : 1};
    // The partials: (splits, M, ldp) floats, rows padded to 16 bytes for the reduction's float4s.
    const int ldp = (N + 3) / 4 * 4;
    float* partials =
        split.splits > 1
            ? workspace_for(std::size_t(split.splits) * M * ldp * sizeof(float), stream)
            : nullptr;
    const int clusters = std::min(split.units(), resident_clusters);
    kernel<<<clusters * Cfg::CLUSTER, Cfg::THREADS, Cfg::SMEM_BYTES, stream>>>(
        map_a, map_b, map_c, split, M, N, alpha, beta, C, ldc, vec_c, tma_c, partials, ldp);
    GEMM_CUDA_CHECK_LAUNCH();
    if (split.splits == 1) return;  // C written by the kernel's epilogue
    // Every slice is written: the reduction runs after the kernel, on the same stream.
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

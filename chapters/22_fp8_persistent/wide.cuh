// Chapter 22, wide (EXPERIMENTAL, issue 38 step 2; tune candidates 22_fp8_persistent_wide*, not yet
// a chapter): 256-row tiles whose A a 1 x 2 pair shares. Contract: as chapter 22's gemm().
// New vs chapter 22's kernel: the block tile is 256 x 128; each consumer warpgroup owns 128 rows,
// computed as two 64-row waves (DeepGEMM's WAVE_BLOCK_M) that take turns with ONE set of partial
// sums: d holds both waves' fp32 sums (2 x 64 registers), the set 64 more. The pair sits along N:
// both blocks read the same 256 rows of A, each copies half of them and multicasts it, B is its
// own. OVERLAP picks who covers the promotion: false, the other consumer warpgroup (CUTLASS's
// fp8_accumulation.hpp, K_PIPE_MMAS = 1); true, chapter 21's two sets (256 registers of sums).
// Napkin math (4096^3): L2 -> SM bytes M N K (1/(CLUSTER BN) + 1/BM) = 0.54 GB with pairs (chapter
// 22: 0.8; cuBLASLt measured 0.73); C by TMA stores as chapter 22. Preconditions: as chapter 20.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "cuda_check.cuh"
#include "device/aligned_operands.cuh"
#include "device/ch15_persistent.cuh"  // chapter 15's barriers, release and resident clusters
#include "device/ch20_fp8_e4m3.cuh"    // the e4m3 wgmma shapes (chapter 20)
#include "device/sm90.cuh"
#include "device/wgmma_epilogue.cuh"

namespace ch22::wide {

using namespace sm90;

constexpr int BM = 256, BN = 128, BK = 128;  // block tile; BK bytes = one 128-byte swizzle row
constexpr int STAGES = 4;                    // tiles in flight: 4 x 48 KB
constexpr int CONSUMERS = 2;                 // warpgroups that compute, 128 rows of the tile each
constexpr int WG = 128;                      // threads per warpgroup
constexpr int THREADS = WG * (1 + CONSUMERS);
constexpr int WGMMA_M = 64, WGMMA_K = 32;            // one wgmma: (64, 32) x (BN, 32)^T
constexpr int WAVES = BM / CONSUMERS / WGMMA_M;      // 64-row waves per consumer: 2
constexpr int GROUP_M = 8;                           // tile rows walked together, for L2 reuse
constexpr int A_STAGE = BM * BK, B_STAGE = BN * BK;  // bytes per stage: 32 KB + 16 KB
constexpr int STAGE_BYTES = A_STAGE + B_STAGE;
constexpr int SMEM_BYTES = STAGES * STAGE_BYTES + 1024;  // + slack to align the tiles to 1024 bytes
constexpr int ACC = BN / 2;  // fp32 sums per thread and wave: (64, BN) / 128 threads
// With STORE_TMA, C leaves by TMA as in chapter 22, in boxes of (64, C_BOX) bf16, each consumer's
// waves in turn through one (64, BN) buffer of its own: 2 x 16 KB beside 4 stages (225 KB). A
// buffer for the whole (256, 128) tile, 64 KB, would leave room for 3 stages only.
constexpr int C_BOX = 64, C_BYTES = WGMMA_M * BN * 2;  // per consumer: 16 KB
static_assert(SMEM_BYTES + CONSUMERS * C_BYTES + 2 * STAGES * 8 <= 227 * 1024,
              "4 stages, the C buffers and the barriers fit in the 227 KB a block may have");
static_assert(BM == CONSUMERS * WAVES * WGMMA_M, "each consumer owns WAVES waves of 64 rows");
static_assert(BK == 128 && BN == 128 && BK % WGMMA_K == 0,
              "one m64n128k32 per 32-deep step; a K-row of A or B is one 128-byte swizzle row");

// CLUSTER: blocks per cluster, side by side along N, sharing the A tile (1: no multicast).
// OVERLAP: two sets of partial sums in turn (the next wave's wgmmas run while this wave's sums are
// promoted: 2 x 64 + 2 x 64 registers of sums, over the 232 a consumer can have, so ptxas spills
// some of them to local memory) or one set, each wave waiting for its own wgmmas (the other
// warpgroup's keep the tensor cores busy meanwhile). CHUNK: k-tiles per straight-line chunk with
// OVERLAP (chapter 21). STORE_TMA: C through shared memory and TMA stores where tma_c says it may
// (else store_tile).
template <int CLUSTER, bool OVERLAP, int CHUNK, bool STORE_TMA>
static __global__ void __cluster_dims__(CLUSTER, 1, 1) __launch_bounds__(THREADS, 1)
    wide_kernel(const __grid_constant__ CUtensorMap map_a,
                const __grid_constant__ CUtensorMap map_b,
                const __grid_constant__ CUtensorMap map_c, int M, int N, int K, float alpha,
                const float* scale_a, const float* scale_b, float beta, __nv_bfloat16* C, int ldc,
                bool vec_c, bool tma_c) {
    extern __shared__ unsigned char smem_raw[];
    unsigned char* smem = pipeline::swizzle_aligned(smem_raw);
    unsigned char* As = smem;                   // (STAGES, BM, BK) e4m3, swizzled
    unsigned char* Bs = As + STAGES * A_STAGE;  // (STAGES, BN, BK) e4m3, swizzled
    __shared__ uint64_t full[STAGES];   // stage s holds its tile: all of A and B have landed
    __shared__ uint64_t empty[STAGES];  // every consumer warp of the cluster is done with stage s

    const int wg = threadIdx.x / WG, tid = threadIdx.x % WG;  // warpgroup 0 produces, 1.. consume
    const unsigned rank = CLUSTER > 1 ? cluster_rank() : 0;   // this block's place in its cluster
    const int tiles_m = (M + BM - 1) / BM, tiles_n = (N + CLUSTER * BN - 1) / (CLUSTER * BN);
    const int tiles = tiles_m * tiles_n;                                 // cluster tiles
    const int first = blockIdx.x / CLUSTER, step = gridDim.x / CLUSTER;  // then every step-th
    const int KT = (K + BK - 1) / BK;                                    // k-tiles
    // Chapter 22's grouped order; a cluster tile is BM rows and CLUSTER * BN columns, this block's
    // BN of them at rank * BN.
    auto origin = [&](int t, int& m0, int& n0) {
        const int group = t / (GROUP_M * tiles_n), in_group = t % (GROUP_M * tiles_n);
        const int group_rows = min(tiles_m - group * GROUP_M, GROUP_M);
        m0 = (group * GROUP_M + in_group % group_rows) * BM;
        n0 = ((in_group / group_rows) * CLUSTER + int(rank)) * BN;
    };

    // full: the producer's arrive (+ the TMA bytes); empty: every consumer warp of the cluster, as
    // the partner's half of A lands in this block's stage (and this block's in the partner's).
    pipeline::init_barriers<STAGES, CLUSTER>(full, empty, CONSUMERS * 4 * CLUSTER);

    if (wg == 0) {
        setmaxnreg_dec<40>();  // the producer needs few registers: give them to the consumers
        if (tid == 0) {
            int it = 0;  // k-tiles loaded, across tiles: the stage and its phase
            for (int t = first; t < tiles; t += step) {
                int m0, n0;
                origin(t, m0, n0);
                for (int kt = 0; kt < KT; ++kt, ++it) {
                    const int s = it % STAGES;
                    // The whole cluster must be done with the stage's previous tile (it - STAGES).
                    if (it >= STAGES) mbar_wait(&empty[s], (it / STAGES - 1) & 1);
                    mbar_arrive_expect_tx(&full[s], STAGE_BYTES);  // whole boxes: zeros count
                    // (BM / CLUSTER, BK) of A: this block's share, multicast to the cluster.
                    const int part = int(rank) * (BM / CLUSTER);
                    unsigned char* a = As + s * A_STAGE + part * BK;
                    if constexpr (CLUSTER > 1)
                        tma_load_multicast(a, &map_a, kt * BK, m0 + part, &full[s],
                                           uint16_t((1u << CLUSTER) - 1));
                    else
                        tma_load(a, &map_a, kt * BK, m0, &full[s]);
                    tma_load(Bs + s * B_STAGE, &map_b, kt * BK, n0, &full[s]);  // (BN, BK) of B
                }
            }
        }
        __syncwarp();  // lane 0 rejoins its warp before the cluster barrier
        // No block may leave while a partner can still arrive on its barriers or multicast into it.
        if constexpr (CLUSTER > 1) cluster_sync();
        return;
    }
    setmaxnreg_inc<232>();  // the consumers: 3 (OVERLAP: 4) x 64 registers of sums each
    const int row0 = (wg - 1) * WAVES * WGMMA_M;  // this warpgroup's first row in the block tile
    const int warp = tid / 32, lane = tid % 32;
    float d[WAVES][ACC];  // (WAVES, 64, BN) of C in fp32: this warpgroup's rows, wgmma's layout
    // Wave w of k-tile number i (counted across tiles) into p, in flight; w == 0 first waits for
    // the stage to be full.
    auto issue = [&](float(&p)[ACC], int i, int w) {
        const int s = i % STAGES;
        if (w == 0) mbar_wait(&full[s], (i / STAGES) & 1);
        const unsigned char* a = As + s * A_STAGE + (row0 + w * WGMMA_M) * BK;  // (64, BK)
        const unsigned char* b = Bs + s * B_STAGE;                              // (BN, BK)
        wgmma_fence();  // p was read by ordinary instructions (its last promotion)
#pragma unroll
        for (int kk = 0; kk < BK / WGMMA_K; ++kk)  // the first overwrites p (scale-d 0)
            wgmma_m64n128k32_e4m3(p, smem_desc(a + kk * WGMMA_K, 16, 1024),
                                  smem_desc(b + kk * WGMMA_K, 16, 1024), kk > 0);
        wgmma_commit();
    };
    // After a wait that finished wave w of k-tile number i: the last wave frees the stage.
    auto promote = [&](float(&p)[ACC], int i, int w) {
        if (w == WAVES - 1) pipeline::release<CLUSTER>(&empty[i % STAGES], lane);
#pragma unroll
        for (int e = 0; e < ACC; ++e) {
            fence_operand(p[e]);  // read only after the wait that finished them
            d[w][e] += p[e];
        }
    };

    int it = 0;  // k-tiles consumed, across tiles: the stage and its phase
    for (int t = first; t < tiles; t += step) {
        int m0, n0;
        origin(t, m0, n0);
#pragma unroll
        for (int w = 0; w < WAVES; ++w)
#pragma unroll
            for (int e = 0; e < ACC; ++e) d[w][e] = 0.0f;
        int kt = 0;
        if constexpr (OVERLAP) {
            // Chapter 21's chunks over waves: unit u is wave u % WAVES of k-tile u / WAVES.
            float part[2][ACC];
            constexpr int U = CHUNK * WAVES;
            for (; kt + CHUNK <= KT; kt += CHUNK, it += CHUNK) {
                issue(part[0], it, 0);
#pragma unroll
                for (int u = 1; u <= U; ++u) {
                    if (u < U) {
                        issue(part[u % 2], it + u / WAVES, u % WAVES);
                        wgmma_wait<1>();
                    } else {
                        wgmma_wait<0>();
                    }
                    promote(part[(u - 1) % 2], it + (u - 1) / WAVES, (u - 1) % WAVES);
                }
            }
        }
        float p[ACC];  // one set of partial sums, the waves in turn
        for (; kt < KT; ++kt, ++it) {
#pragma unroll
            for (int w = 0; w < WAVES; ++w) {
                issue(p, it, w);
                wgmma_wait<0>();
                promote(p, it, w);
            }
        }

        // The epilogue, wave by wave; meanwhile the producer is already loading the next tile.
        const float scale = alpha * __ldg(scale_a) * __ldg(scale_b);
#pragma unroll
        for (int w = 0; w < WAVES; ++w) {
            const int r = m0 + row0 + w * WGMMA_M;  // the wave's first row in C
            if (!(STORE_TMA && tma_c)) {
                store_tile(d[w], C, ldc, M, N, r + 16 * warp + lane / 4, n0, lane, scale, beta,
                           r + WGMMA_M <= M && n0 + BN <= N && vec_c);
                continue;
            }
            // Chapter 22's TMA stores: the buffer is written again once the copy engine has read
            // what it held (the other wave's boxes, or the last tile's: that wait comes a tile
            // late).
            unsigned char* Cs = Bs + STAGES * B_STAGE + (wg - 1) * C_BYTES;  // (BN / 64, 64, 64)
            if (tid == 0) tma_store_wait<0, true>();
            named_sync(wg, WG);  // the warpgroup, after thread 0's wait
#pragma unroll
            for (int j = 0; j < ACC / 4; ++j) {
                const int c = 8 * j + 2 * (lane % 4);  // this thread's pair of columns (store_tile)
#pragma unroll
                for (int h = 0; h < 2; ++h) {  // rows i and i + 8, at their swizzled place
                    const int i = 16 * warp + lane / 4 + 8 * h;
                    const int at = (c / C_BOX) * WGMMA_M * 128 + i * 128 + 2 * (c % C_BOX);
                    store_pair(reinterpret_cast<__nv_bfloat16*>(Cs + swizzle128(at)),
                               scale * d[w][4 * j + 2 * h], scale * d[w][4 * j + 2 * h + 1]);
                }
            }
            fence_proxy_async();  // each thread's writes, before the copy engine reads them
            named_sync(wg, WG);   // all of them, before thread 0 hands the boxes over
            if (tid == 0)
                for (int q = 0; q < BN / C_BOX; ++q)  // rows past M, columns past N: not written
                    tma_store(&map_c, Cs + q * WGMMA_M * 128, n0 + q * C_BOX, r);
        }
    }
    if (STORE_TMA && tid == 0) tma_store_wait<0, false>();  // C is written before the block exits
    if constexpr (CLUSTER > 1) cluster_sync();              // the producers' cluster barrier, above
}

// The wide tile's launcher: CLUSTER blocks along N share A; OVERLAP, CHUNK, STORE_TMA as above.
template <int CLUSTER, bool OVERLAP = false, int CHUNK = 4, bool STORE_TMA = true>
void gemm_wide(int M, int N, int K, float alpha, const __nv_fp8_e4m3* A, int lda,
               const __nv_fp8_e4m3* B, int ldb, const float* scale_a, const float* scale_b,
               float beta, __nv_bfloat16* C, int ldc, cudaStream_t stream = 0) {
    if (M == 0 || N == 0) return;                            // nothing to write
    if (K == 0) return scale_c(M, N, beta, C, ldc, stream);  // no product: C = beta * C
    auto kernel = wide_kernel<CLUSTER, OVERLAP, CHUNK, STORE_TMA>;
    constexpr int smem = SMEM_BYTES + (STORE_TMA ? CONSUMERS * C_BYTES : 0);
    // Looked up once: the shared-memory opt-in, and how many clusters fit on the GPU at once.
    static const int resident_clusters =
        pipeline::resident_clusters(kernel, CLUSTER, THREADS, smem);
    const AlignedByteOperands ops(A, lda, B, ldb, M, N, K, stream);
    // Boxes (BM / CLUSTER, 128) of A: in a cluster, each block copies its share of A's rows.
    const CUtensorMap map_a = make_map(ops.a.p, M, K, ops.a.ld, BM / CLUSTER, BK);
    const CUtensorMap map_b = make_map(ops.b.p, N, K, ops.b.ld, BN, BK);  // boxes (128, 128)
    const bool vec_c = ldc % 2 == 0 && reinterpret_cast<std::uintptr_t>(C) % 4 == 0;
    // TMA stores where chapter 22's gemm_cfg takes them: beta == 0, 16-byte rows, N % 8 == 0.
    const bool tma_c = STORE_TMA && beta == 0.0f && ldc % 8 == 0 && N % 8 == 0 &&
                       reinterpret_cast<std::uintptr_t>(C) % 16 == 0;
    const CUtensorMap map_c = tma_c ? make_map(C, M, N, ldc, WGMMA_M, C_BOX) : map_a;
    const int tiles = ((M + BM - 1) / BM) * ((N + CLUSTER * BN - 1) / (CLUSTER * BN));
    const int clusters = std::min(tiles, std::max(resident_clusters, 1));
    kernel<<<clusters * CLUSTER, THREADS, smem, stream>>>(
        map_a, map_b, map_c, M, N, K, alpha, scale_a, scale_b, beta, C, ldc, vec_c, tma_c);
    GEMM_CUDA_CHECK_LAUNCH();
}

}  // namespace ch22::wide

namespace ch22 {
using wide::gemm_wide;  // ch22::gemm_wide<CLUSTER, OVERLAP>, beside chapter 22's gemm_cfg
}  // namespace ch22

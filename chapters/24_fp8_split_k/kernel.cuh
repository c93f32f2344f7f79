// Chapter 24: chapter 23's block-scaled FP8 with K split for few tiles (chapter 16's idea).
// Contract: chapter 23's (C bf16 = alpha * (sa A) (sb B)^T + beta * C, B N x K, block scales).
// New vs chapter 23: the units of work are (tile, slice of K in whole k-tiles), walked by the
// persistent blocks; a slice's promoted, block-scaled fp32 sums go to a workspace as a partial, and
// chapter 16's reduce_splits adds the slices in order, applies alpha and beta and writes bf16 C.
// One slice is chapter 23's path (its TMA-store epilogue). The number of slices: a small cost.
// Napkin math (64 x 2112 x 7168): 17 tiles of 56 k-tiles for 132 SMs; 7 slices of 8 k-tiles are
// 119 units in one wave, for 7 x 64 x 2112 x 4 = 3.8 MB of partials written and read back.
// Preconditions: as chapter 23 (compute capability 9.0; unaligned operands are padded first).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "cuda_check.cuh"
#include "device/aligned_operands.cuh"
#include "device/ch15_persistent.cuh"  // chapter 15's barriers, release and resident clusters
#include "device/ch16_split_k.cuh"     // SplitK, reduce_splits (chapter 16)
#include "device/ch20_fp8_e4m3.cuh"    // the e4m3 wgmma shapes (chapter 20)
#include "device/launch_resources.cuh"
#include "device/sm90.cuh"
#include "device/wgmma_epilogue.cuh"

namespace ch24 {

using namespace sm90;
using launch::workspace_for;   // a scratch buffer per stream (common/device)
using split_k::reduce_splits;  // the second kernel: adds the slices, alpha, beta (now into bf16)
using split_k::SplitK;         // the units: (tile, slice of K), chapter 16

constexpr int BM = 128, BN = 128, BK = 128;  // block tile; BK bytes = one 128-byte swizzle row
constexpr int STAGES = 6;                    // tiles in flight: 6 x 32 KB
constexpr int CONSUMERS = 2;                 // warpgroups that compute, 64 rows of the tile each
constexpr int WG = 128;                      // threads per warpgroup
constexpr int THREADS = WG * (1 + CONSUMERS);
constexpr int WGMMA_M = 64, WGMMA_K = 32;  // one wgmma: (64, 32) x (BN, 32)^T
constexpr int SCALE_BLOCK = 128;           // the block scales' granularity along K, M and N
constexpr int GROUP_M = 8;                 // cluster rows walked together, for L2 reuse
constexpr int A_STAGE = BM * BK, B_STAGE = BN * BK;  // bytes per stage
constexpr int STAGE_BYTES = A_STAGE + B_STAGE;
constexpr int SMEM_BYTES = STAGES * STAGE_BYTES + 1024;  // + slack to align the tiles to 1024 bytes
constexpr int ACC = BN / 2;  // fp32 accumulators per consumer thread: (64, BN) / 128 threads
// With STORE_TMA, C leaves in TMA boxes of (64, C_BOX) bf16 (64: one 128-byte swizzle row), each
// consumer's (64, BN) through a buffer of its own after the stages.
constexpr int C_BOX = TMA_BF16_BOX, C_BYTES = WGMMA_M * BN * 2;  // per consumer: 16 KB
static_assert(
    SMEM_BYTES + CONSUMERS * C_BYTES + 2 * STAGES * 8 <= 227 * 1024,
    "6 stages, the C buffers and the barriers fit in the 227 KB a block may have: 225 KB");
static_assert(BM == CONSUMERS * WGMMA_M, "each consumer warpgroup owns 64 rows of the tile");
static_assert(BK == 128, "a K-row of A or B is one 128-byte swizzle row");
static_assert(BK == SCALE_BLOCK && BN == SCALE_BLOCK,
              "a k-tile of the block tile sees one scale of B and one of A per row");
static_assert(BN == 128 && BK % WGMMA_K == 0,
              "one m64n128k32 per 32-deep step: two sets of (64, 256) partial sums and the "
              "accumulators would take 384 registers a thread (max 232)");

// CLUSTER: blocks per cluster, stacked along M, sharing one B tile (1: no multicast). CHUNK:
// k-tiles per straight-line chunk of the consumers' loop, as in chapter 21 (1: no overlap).
// STORE_TMA: the epilogue writes C through shared memory and TMA stores where tma_c says it may.
template <int CLUSTER, int CHUNK, bool STORE_TMA>
static __global__ void __cluster_dims__(CLUSTER, 1, 1) __launch_bounds__(THREADS, 1)
    fp8_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
               const __grid_constant__ CUtensorMap map_c, const SplitK split, int M, int N, int K,
               float alpha, const float* scale_a, const float* scale_b, float beta,
               __nv_bfloat16* C, int ldc, bool vec_c, bool tma_c, float* partials, int ldp) {
    extern __shared__ unsigned char smem_raw[];
    // From the first 1024-byte boundary: 128-byte swizzled tiles start there (chapter 15).
    unsigned char* smem = pipeline::swizzle_aligned(smem_raw);
    unsigned char* As = smem;                   // (STAGES, BM, BK) e4m3, swizzled
    unsigned char* Bs = As + STAGES * A_STAGE;  // (STAGES, BN, BK) e4m3, swizzled
    __shared__ uint64_t full[STAGES];   // stage s holds its tile: A and all of B have landed
    __shared__ uint64_t empty[STAGES];  // every consumer warp of the cluster is done with stage s

    // warpgroup 0 produces, 1.. consume; wg from lane 0, as chapter 22 (uniform registers)
    const int wg = __shfl_sync(0xffffffffu, int(threadIdx.x) / WG, 0), tid = threadIdx.x % WG;
    const unsigned rank = CLUSTER > 1 ? cluster_rank() : 0;   // this block's place in its cluster
    const int tiles_m = (M + CLUSTER * BM - 1) / (CLUSTER * BM), tiles_n = (N + BN - 1) / BN;
    const int first = blockIdx.x / CLUSTER, step = gridDim.x / CLUSTER;  // then every step-th unit
    const int KT = (K + BK - 1) / BK;                                    // k-tiles
    // The grouped order (GROUP_M cluster rows at a time, column by column, for L2 reuse): the first
    // row and column of C that this block computes in cluster tile t.
    auto origin = [&](int t, int& m0, int& n0) {
        const int group = t / (GROUP_M * tiles_n), in_group = t % (GROUP_M * tiles_n);
        const int group_rows = min(tiles_m - group * GROUP_M, GROUP_M);
        m0 = ((group * GROUP_M + in_group % group_rows) * CLUSTER + int(rank)) * BM;
        n0 = (in_group / group_rows) * BN;
    };

    // full: the producer's arrive (+ the TMA bytes); empty: every consumer warp of the cluster.
    pipeline::init_barriers<STAGES, CLUSTER>(full, empty, CONSUMERS * 4 * CLUSTER);

    if (wg == 0) {
        setmaxnreg_dec<40>();  // the producer needs few registers: give them to the consumers
        if (tid == 0) {
            // The k-tile count `it` runs on across tiles, and with it the stages and phases.
            int it = 0;
            for (int u = first; u < split.units(); u += step) {
                int m0, n0;
                origin(split.tile(u), m0, n0);
                const int ke = split.k_begin(split.slice(u) + 1);  // the unit's k-tiles
                for (int kt = split.k_begin(split.slice(u)); kt < ke; ++kt, ++it) {
                    const int s = it % STAGES;
                    // The stage's previous tile (it - STAGES) must have been consumed, by the
                    // whole cluster: this block's rows of B land in its partners' stage too.
                    if (it >= STAGES) mbar_wait(&empty[s], (it / STAGES - 1) & 1);
                    mbar_arrive_expect_tx(&full[s], STAGE_BYTES);  // whole boxes: zeros count
                    tma_load(As + s * A_STAGE, &map_a, kt * BK, m0, &full[s]);  // (BM, BK) of A
                    // (BN / CLUSTER, BK) of B: this block's share, multicast to the cluster.
                    const int part = int(rank) * (BN / CLUSTER);
                    unsigned char* b = Bs + s * B_STAGE + part * BK;
                    if constexpr (CLUSTER > 1)
                        tma_load_multicast(b, &map_b, kt * BK, n0 + part, &full[s],
                                           uint16_t((1u << CLUSTER) - 1));
                    else
                        tma_load(b, &map_b, kt * BK, n0, &full[s]);
                }
            }
        }
        __syncwarp();  // lane 0 rejoins its warp before the cluster barrier
        // No block may leave while another block of its cluster can still arrive on its barriers
        // or multicast into its shared memory: the producer waits here for the cluster's consumers.
        if constexpr (CLUSTER > 1) cluster_sync();
        return;
    }
    setmaxnreg_inc<232>();  // the consumers: 3 x 64 registers of sums each, and the producer's
    const int row0 = (wg - 1) * WGMMA_M;  // this warpgroup's first row in the block tile
    const int warp = tid / 32, lane = tid % 32;
    // Stage s is free again once every consumer warp of the cluster says so: its copies came from
    // every block's producer.
    auto release = [&](int s) { pipeline::release<CLUSTER>(&empty[s], lane); };
    float d[ACC];        // (64, BN) of C in fp32: this warpgroup's rows, in wgmma's register layout
    float part[2][ACC];  // two sets of the tensor cores' sums of one k-tile, as in chapter 21
    float sc[2][2];      // each set's scales, sa * sb, for this thread's rows r and r + 8
    const int ld_sb = (KT + 3) / 4 * 4;  // scale_b's row: the K-blocks, padded to 4
    int m0, n0, r;                       // the tile's origin; this thread's first row of C
    // Chapter 22's descriptors by addition and running stage counters.
    const uint64_t desc_a = smem_desc(As + row0 * BK, 16, 1024);  // (64, BK) K-major, stage 0
    const uint64_t desc_b = smem_desc(Bs, 16, 1024);              // (BN, BK) K-major, stage 0
    int issue_s = 0, release_s = 0;
    unsigned phase = 0;  // of issue_s's full barrier
    // k-tile kt (the next counted across units: the stage and its phase) into p, in flight.
    auto issue = [&](float(&p)[ACC], float(&s2)[2], int kt) {
        // This k-tile's scales (sa * sb, once per row), loaded before the wait: they overlap it.
        const float sb = __ldg(scale_b + (n0 / SCALE_BLOCK) * ld_sb + kt);
        const long long ka = static_cast<long long>(kt) * M;
        s2[0] = r < M ? sb * __ldg(scale_a + ka + r) : 0.0f;
        s2[1] = r + 8 < M ? sb * __ldg(scale_a + ka + r + 8) : 0.0f;
        mbar_wait(&full[issue_s], phase);  // the k-tile is in stage issue_s
        const uint64_t a = desc_a + uint64_t(issue_s * (A_STAGE >> 4)),
                       b = desc_b + uint64_t(issue_s * (B_STAGE >> 4));
        wgmma_fence();  // p was read by ordinary instructions (its last promotion)
#pragma unroll
        for (int kk = 0; kk < BK / WGMMA_K; ++kk)  // the first overwrites p (scale-d 0)
            wgmma_m64n128k32_e4m3(p, a + kk * (WGMMA_K >> 4), b + kk * (WGMMA_K >> 4), kk > 0);
        wgmma_commit();
        if (++issue_s == STAGES) issue_s = 0, phase ^= 1;
    };
    // The promotion, now scaled: d[4j], d[4j+1] are on row r, d[4j+2], d[4j+3] on r + 8.
    auto promote = [&](float(&p)[ACC], const float(&s2)[2]) {  // the oldest k-tile issued
        release(release_s);
        if (++release_s == STAGES) release_s = 0;
#pragma unroll
        for (int e = 0; e < ACC; ++e) {
            fence_operand(p[e]);  // read only after the wait that finished them
            d[e] = fmaf(p[e], e % 4 < 2 ? s2[0] : s2[1], d[e]);
        }
    };
    for (int u = first; u < split.units(); u += step) {
        origin(split.tile(u), m0, n0);
        r = m0 + row0 + 16 * warp + lane / 4;
#pragma unroll
        for (int i = 0; i < ACC; ++i) d[i] = 0.0f;
        const int slice = split.slice(u), ke = split.k_begin(slice + 1);  // the unit's k-tiles
        int kt = split.k_begin(slice);  // chapter 22's chunks, from the slice's first k-tile
        for (; kt + CHUNK <= ke; kt += CHUNK) {
            issue(part[0], sc[0], kt);
#pragma unroll
            for (int j = 1; j <= CHUNK; ++j) {
                if (j < CHUNK) {
                    issue(part[j % 2], sc[j % 2], kt + j);
                    wgmma_wait<1>();
                } else {
                    wgmma_wait<0>();
                }
                promote(part[(j - 1) % 2], sc[(j - 1) % 2]);
            }
        }
        for (; kt < ke; ++kt) {
            issue(part[0], sc[0], kt);
            wgmma_wait<0>();
            promote(part[0], sc[0]);
        }

        // BEGIN SOLUTION: a slice leaves its fp32 sums as a partial; one slice writes C as 23 does
        if (split.splits > 1) {  // (splits, M, ldp) fp32: slice-major, then C's layout
            float* P = partials + static_cast<std::size_t>(slice) * M * ldp;
            store_tile(d, P, ldp, M, N, r, n0, lane, 1.0f, 0.0f, m0 + BM <= M && n0 + BN <= N);
            continue;
        }
        // Epilogue as in chapter 22, alpha alone: the scales are in d already.
        if (STORE_TMA && tma_c) {
            // Chapter 15's TMA stores, in bf16 (store_tile_tma_bf16): this warpgroup's (64, BN)
            // through a buffer of its own after the stages, the wait for them deferred a tile.
            unsigned char* Cs = Bs + STAGES * B_STAGE + (wg - 1) * C_BYTES;  // (BN / 64, 64, 64)
            store_tile_tma_bf16<BN>(d, Cs, &map_c, m0 + row0, n0, alpha, wg, tid);
            continue;
        }
        store_tile(d, C, ldc, M, N, r, n0, lane, alpha, beta,
                   m0 + BM <= M && n0 + BN <= N && vec_c);
        // END SOLUTION
    }
    if (STORE_TMA && tid == 0) tma_store_wait<0, false>();  // C is written before the block exits
    if constexpr (CLUSTER > 1) cluster_sync();              // the producers' cluster barrier, above
}

// How many slices. None while the tiles fill the workers (blocks, or clusters); else the count of
// least cost, in k-tile times of one worker: the waves of units times a unit's depth in k-tiles
// plus its partial (PARTIAL: a (128, 128) fp32 partial written and read back is 128 KB, four
// k-tiles of A and B's 32 KB), and the second launch (SPLIT_FIXED). SPLIT_FIXED = 10: the least
// that keeps 512 x 2112 x 7168 whole, where one slice measured ahead of every split (README).
constexpr int PARTIAL = 4, SPLIT_FIXED = 10;
inline int choose_slices(int tiles, int KT, int workers) {
    if (tiles >= workers) return 1;
    int best = 1;
    long long best_cost = KT;  // one wave of whole tiles
    for (int s = 2; s <= std::min(KT, workers); ++s) {
        const long long waves = (1LL * tiles * s + workers - 1) / workers, depth = (KT + s - 1) / s;
        const long long cost = waves * (depth + PARTIAL) + SPLIT_FIXED;
        if (cost < best_cost) best = s, best_cost = cost;  // ties: fewer slices
    }
    return best;
}

// SPLITS: the slices (0: choose_slices; more than K's k-tiles: one per k-tile).
template <int CLUSTER, int CHUNK = 8, bool STORE_TMA = false, int SPLITS = 0>
void gemm_cfg(int M, int N, int K, float alpha, const __nv_fp8_e4m3* A, int lda,
              const __nv_fp8_e4m3* B, int ldb, const float* scale_a, const float* scale_b,
              float beta, __nv_bfloat16* C, int ldc, cudaStream_t stream = 0) {
    if (M == 0 || N == 0) return;                            // nothing to write
    if (K == 0) return scale_c(M, N, beta, C, ldc, stream);  // no product: C = beta * C
    auto kernel = fp8_kernel<CLUSTER, CHUNK, STORE_TMA>;
    constexpr int smem = SMEM_BYTES + (STORE_TMA ? CONSUMERS * C_BYTES : 0);
    // Looked up once: the shared-memory opt-in, and how many clusters fit on the GPU at once.
    static const int resident_clusters =
        pipeline::resident_clusters(kernel, CLUSTER, THREADS, smem);
    // A and B themselves, or padded copies where a row does not start on 16 bytes.
    const AlignedByteOperands ops(A, lda, B, ldb, M, N, K, stream);
    const CUtensorMap map_a = make_map(ops.a.p, M, K, ops.a.ld, BM, BK);  // boxes (128, 128) of A
    // Boxes (BN / CLUSTER, 128) of B: in a cluster, each block copies its share of B's rows.
    const CUtensorMap map_b = make_map(ops.b.p, N, K, ops.b.ld, BN / CLUSTER, BK);
    const bool vec_c = ldc % 2 == 0 && reinterpret_cast<std::uintptr_t>(C) % 4 == 0;
    // TMA stores overwrite C (beta == 0 only) and need 16-byte rows; N % 8 == 0 as chapter 15's
    // N % 4 == 0 (its stores wrote a row's last 16 bytes whole, into C's padding, on the H200).
    const bool tma_c = STORE_TMA && beta == 0.0f && ldc % 8 == 0 && N % 8 == 0 &&
                       reinterpret_cast<std::uintptr_t>(C) % 16 == 0;
    const CUtensorMap map_c = tma_c ? make_map(C, M, N, ldc, WGMMA_M, C_BOX) : map_a;
    const int tiles = ((M + CLUSTER * BM - 1) / (CLUSTER * BM)) * ((N + BN - 1) / BN);
    const int KT = (K + BK - 1) / BK, workers = std::max(resident_clusters, 1);
    const SplitK split{tiles, KT,
                       SPLITS > 0 ? std::min(SPLITS, KT) : choose_slices(tiles, KT, workers)};
    // The partials: (splits, M, ldp) floats, rows padded to 16 bytes for the reduction's float4s.
    const int ldp = (N + 3) / 4 * 4;
    float* partials =
        split.splits > 1
            ? workspace_for<float>(std::size_t(split.splits) * M * ldp * sizeof(float), stream)
            : nullptr;
    const int clusters = std::min(split.units(), workers);
    kernel<<<clusters * CLUSTER, THREADS, smem, stream>>>(map_a, map_b, map_c, split, M, N, K,
                                                          alpha, scale_a, scale_b, beta, C, ldc,
                                                          vec_c, tma_c, partials, ldp);
    GEMM_CUDA_CHECK_LAUNCH();
    if (split.splits == 1) return;  // C written by the kernel's epilogue
    // Every partial is written: the reduction runs after the kernel, on the same stream.
    const int quads = M * (ldp / 4);
    reduce_splits<<<(quads + 255) / 256, 256, 0, stream>>>(partials, ldp, split.splits, M, N, alpha,
                                                           beta, C, ldc);
    GEMM_CUDA_CHECK_LAUNCH();
}

// The chapter: chapter 23's gemm() (chunks of 8, C through TMA stores, pairs sharing B from
// PAIRS_MIN_M rows where the tiles fill the SMs, one block elsewhere), K split by choose_slices
// where the tiles are few (one block then: the pairs' shapes have tiles enough).
constexpr int PAIRS_MIN_M = 1024;  // as chapter 23's
inline void gemm(int M, int N, int K, float alpha, const __nv_fp8_e4m3* A, int lda,
                 const __nv_fp8_e4m3* B, int ldb, const float* scale_a, const float* scale_b,
                 float beta, __nv_bfloat16* C, int ldc, cudaStream_t stream = 0) {
    const long long tiles = static_cast<long long>((M + BM - 1) / BM) * ((N + BN - 1) / BN);
    if (M >= PAIRS_MIN_M && tiles >= launch::sm_count())
        return gemm_cfg<2, 8, true>(M, N, K, alpha, A, lda, B, ldb, scale_a, scale_b, beta, C, ldc,
                                    stream);
    gemm_cfg<1, 8, true>(M, N, K, alpha, A, lda, B, ldb, scale_a, scale_b, beta, C, ldc, stream);
}

}  // namespace ch24

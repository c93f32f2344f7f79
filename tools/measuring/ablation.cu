// Where chapter 11's time goes: its kernel with one part after another switched off, each probe
// timed like a chapter (same harness, cuBLAS in the same run). Every probe but `full` computes
// the wrong product on purpose, so run it with --check off:
//
//   build/tools/ablation --sizes 4096,8192 --check off --out results/ablation
//   GEMM_ABLATION_ONLY=no_copies build/tools/ablation ...     (one probe)
//
// The probes, each one part less than the one before (docs/tuning.md and the chapter 11 README
// give the measured table):
//   full         chapter 11's kernel as it is (ch11::gemm_cfg<b128x256_k64_s3>)
//   same_ktile   every copy reads k-tile 0 again: the same bytes move from L2 to shared memory,
//                but they stay in L2, so DRAM is out of the picture
//   no_copies    no copies after the prologue: ldmatrix and mma.sync on the first tiles
//   no_ldmatrix  nor ldmatrix: mma.sync on the first step's fragments, barriers kept
//   mma_only     nor barriers: the mma.syncs of the kernel and its epilogue, nothing else
// Whole tiles only (M % 128, N % 256, K % 64 == 0, aligned operands): the probes keep the kernel's
// fast path and nothing else.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "11_mma_ldmatrix/kernel.cuh"
#include "harness_gpu.cuh"

namespace {

using Cfg = ch11::configs::b128x256_k64_s3;
enum Probe { kSameKtile, kNoCopies, kNoLdmatrix, kMmaOnly };

// Chapter 11's kFull kernel loop with the parts that `P` switches off left out. Epilogue: alpha *
// acc only (beta is 0 in every probe run), so that the mma.syncs are not dead code.
template <int P>
__global__ void __launch_bounds__(Cfg::THREADS, 1)
    probe_kernel(int M, int N, int K, float alpha, const __half* A, int lda, const __half* B,
                 int ldb, float* C, int ldc) {
    using namespace ch11;
    constexpr int BM = Cfg::BM, BN = Cfg::BN, BK = Cfg::BK, THREADS = Cfg::THREADS;
    constexpr int STAGES = Cfg::STAGES, KSTEPS = BK / MMA_K, PARTS = KSTEPS;
    constexpr uint32_t A_STAGE_BYTES = 2 * Cfg::A_STAGE, B_STAGE_BYTES = 2 * Cfg::B_STAGE;
    extern __shared__ __align__(128) unsigned char smem[];
    const uint32_t As_s = static_cast<uint32_t>(__cvta_generic_to_shared(smem));
    const uint32_t Bs_s = As_s + STAGES * A_STAGE_BYTES;
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int wm = warp / Cfg::WARPS_N, wn = warp % Cfg::WARPS_N;
    // The chapter's block order (GROUP_M tile rows walked together).
    const gemm::dev::TileOrigin tile = gemm::dev::grouped_tile(blockIdx.x, M, N, BM, BN, GROUP_M);
    const int m0 = tile.m0, n0 = tile.n0;
    const int KT = K / BK;
    auto copy = [&](int s, int kt, int part) {
        const int k0 = (P == kSameKtile ? 0 : min(kt, KT - 1)) * BK;
        tile_cp_async<BM, BK, THREADS, PARTS, true>(As_s + s * A_STAGE_BYTES, A, lda, M, K, m0, k0,
                                                    tid, part, kt < KT);
        tile_cp_async<BK, BN, THREADS, PARTS, true>(Bs_s + s * B_STAGE_BYTES, B, ldb, K, N, k0, n0,
                                                    tid, part, kt < KT);
    };
    float acc[Cfg::FM][Cfg::FN][4] = {};
    for (int s = 0; s < STAGES - 1; ++s) {
        for (int part = 0; part < PARTS; ++part) copy(s, s, part);
        cp_async_commit();
    }
    uint32_t a[2][Cfg::FM][4], b[2][Cfg::FN][2];
    cp_async_wait<STAGES - 2>();
    __syncthreads();
    load_frags<Cfg>(a[0], b[0], As_s, Bs_s, 0, wm, wn, lane);
    if constexpr (P >= kNoLdmatrix) load_frags<Cfg>(a[1], b[1], As_s, Bs_s, 1, wm, wn, lane);
    for (int kt = 0, rs = 0, ws = STAGES - 1; kt < KT;
         ++kt, ws = rs, rs = rs + 1 < STAGES ? rs + 1 : 0) {
#pragma unroll
        for (int ks = 0; ks < KSTEPS; ++ks) {
            if constexpr (P == kSameKtile) {
                copy(ws, kt + STAGES - 1, ks);
                if (ks == KSTEPS - 1) cp_async_commit();
            }
            int stage = rs, kk = ks + 1;
            if (ks == KSTEPS - 1) {
                if constexpr (P != kMmaOnly) {
                    if constexpr (P == kSameKtile) cp_async_wait<STAGES - 2>();
                    __syncthreads();
                }
                stage = rs + 1 < STAGES ? rs + 1 : 0, kk = 0;
            }
            if constexpr (P < kNoLdmatrix) {
                if (ks < KSTEPS - 1 || kt + 1 < KT)
                    load_frags<Cfg>(a[(ks + 1) % 2], b[(ks + 1) % 2], As_s + stage * A_STAGE_BYTES,
                                    Bs_s + stage * B_STAGE_BYTES, kk, wm, wn, lane);
            }
            mma_frags<Cfg>(acc, a[ks % 2], b[ks % 2]);
        }
    }
    cp_async_wait<0>();
    const int g = lane / 4, t = lane % 4;
#pragma unroll
    for (int i = 0; i < Cfg::FM; ++i)
#pragma unroll
        for (int j = 0; j < Cfg::FN; ++j)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const int r = m0 + wm * Cfg::WM + i * MMA_M + g + 8 * h;
                const int c = n0 + wn * Cfg::WN + j * MMA_N + 2 * t;
                *reinterpret_cast<float2*>(&C[r * ldc + c]) =
                    make_float2(alpha * acc[i][j][2 * h], alpha * acc[i][j][2 * h + 1]);
            }
}

template <int P>
void probe_gemm(int M, int N, int K, float alpha, const __half* A, int lda, const __half* B,
                int ldb, float beta, float* C, int ldc, cudaStream_t stream) {
    const bool whole = M > 0 && N > 0 && K > 0 && M % Cfg::BM == 0 && N % Cfg::BN == 0 &&
                       K % Cfg::BK == 0 && lda % 8 == 0 && ldb % 8 == 0 && ldc % 2 == 0 &&
                       gemm::dev::aligned16(A) && gemm::dev::aligned16(B) &&
                       gemm::dev::aligned(C, 8);
    if (!whole || beta != 0.0f) {
        std::fprintf(stderr,
                     "ablation: shape %dx%dx%d: the probes take whole 128x256x64 tiles, aligned "
                     "operands and beta = 0 only\n",
                     M, N, K);
        std::exit(2);
    }
    static const bool opted_in = [] {
        GEMM_CUDA_CHECK(cudaFuncSetAttribute(
            probe_kernel<P>, cudaFuncAttributeMaxDynamicSharedMemorySize, Cfg::SMEM_BYTES));
        return true;
    }();
    (void)opted_in;
    probe_kernel<P><<<(M / Cfg::BM) * (N / Cfg::BN), Cfg::THREADS, Cfg::SMEM_BYTES, stream>>>(
        M, N, K, alpha, A, lda, B, ldb, C, ldc);
    GEMM_CUDA_CHECK_LAUNCH();
}

int worst = 0;

template <class Fn>
void probe(int argc, char** argv, const std::string& id, Fn fn) {
    const char* only = std::getenv("GEMM_ABLATION_ONLY");
    if (only && id != only) return;
    int rc = gemm::run_gpu_chapter(argc, argv, {"ablation_" + id, "chapter 11 ablation", 80, {4096}},
                                   fn);
    if (rc == 2 || rc == 77) std::exit(rc);  // the same for every probe: stop at once
    worst = std::max(worst, rc);
}

}  // namespace

int main(int argc, char** argv) {
    probe(argc, argv, "full", ch11::gemm_cfg<Cfg>);
    probe(argc, argv, "same_ktile", probe_gemm<kSameKtile>);
    probe(argc, argv, "no_copies", probe_gemm<kNoCopies>);
    probe(argc, argv, "no_ldmatrix", probe_gemm<kNoLdmatrix>);
    probe(argc, argv, "mma_only", probe_gemm<kMmaOnly>);
    return worst;
}

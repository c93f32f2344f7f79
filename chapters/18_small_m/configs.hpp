// Chapter 18's facts for the tools, owned here beside its kernel: its traffic model. Read by
// tools/reporting/plot.py. Not included by the kernel (its code and source hash stay as they are);
// docs/tuning.md describes the format. `napkin` is the traffic model of tools/reporting/plot.py's
// roofline (read by tools/build/chapter_facts.py, checked against the kernel's constants below):
// rows {largest M (0: any), BM, BN}, the first row with M <= largest M applies; global traffic = e
// * (M * K * ceil(N / BN) + K * N * ceil(M / BM)) + C's bytes, plus, when K is split into S slices,
// 2 * S * M * N * 4 bytes of fp32 partials (written, then read back by the reduction) -- not
// counted here: S comes from the SM count (choose_splits), which a results CSV does not record, so
// the napkin is the tiles' traffic alone (a lower bound).
#pragma once

#include "18_small_m/kernel.cuh"

namespace ch18::facts {

inline constexpr int napkin[][3] = {{8, 8, 64}, {16, 16, 64}, {32, 32, 64}, {0, 64, 64}};
// gemm(): the narrowest MT of m8, m16, m32 that holds M, else m64 (several tile rows).
static_assert(napkin[0][1] == configs::m8::BM && napkin[1][1] == configs::m16::BM &&
                  napkin[2][1] == configs::m32::BM && napkin[3][1] == configs::m64::BM,
              "napkin: the MT gemm() picks");
static_assert(napkin[0][2] == configs::m8::BN && napkin[3][2] == configs::m64::BN,
              "napkin: 64 columns");

// Named configurations of the kernel that tools/measuring/tune.cu does not time
// (tests/tools/test_facts.py checks that every name of the kernel's `configs` is here or a
// candidate): gemm() takes one by M: a rule, not a tuning choice.
inline constexpr const char* not_tuned[] = {"m8", "m16", "m32", "m64"};

// EXPERIMENT (issue 39, item 2): B read in place by the producer's threads. B_MODE 1: where its rows
// are off 16 bytes (else TMA); 2: always (what the loads cost on an aligned B). The chapter's
// choice of MT by M, as gemm().
template <int B_MODE>
void gemm_b(int M, int N, int K, float alpha, const __half* A, int lda, const __half* B, int ldb,
            float beta, float* C, int ldc, cudaStream_t stream) {
    if (M <= 8) return gemm_cfg<configs::m8, 0, true, B_MODE>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, stream);
    if (M <= 16) return gemm_cfg<configs::m16, 0, false, B_MODE>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, stream);
    if (M <= 32) return gemm_cfg<configs::m32, 0, false, B_MODE>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, stream);
    gemm_cfg<configs::m64, 0, false, B_MODE>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, stream);
}
template <class F>
void for_each_candidate(F&& f) {
    f("18_small_m", ch18::gemm);
    f("18_small_m_b_in_place", gemm_b<1>);
    f("18_small_m_b_loads", gemm_b<2>);
}

}  // namespace ch18::facts

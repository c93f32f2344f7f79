// Chapter 21's facts for the tools, owned here beside its kernel: its candidate and traffic model
// (e = 1: e4m3; C bf16). Read by tools/measuring/tune.cu (tune_hopper) and tools/reporting/plot.py.
// Not included by the kernel (its code and source hash stay as they are); docs/tuning.md describes
// the format. `napkin` is the traffic model of tools/reporting/plot.py's roofline (read by
// tools/build/chapter_facts.py, checked against the kernel's constants below): rows {largest M (0:
// any), BM, BN}, the first row with M <= largest M applies; global traffic = e * (M * K * ceil(N /
// BN) + K * N * ceil(M / BM)) + C's bytes.
#pragma once

#include "21_fp8_promoted/kernel.cuh"

namespace ch21::facts {

inline constexpr int napkin[][3] = {{0, 128, 128}};
static_assert(napkin[0][1] == BM && napkin[0][2] == BN, "napkin: the kernel's tile");

// The candidate configurations; tools/measuring/tune.cu times every candidate: f(name, gemm
// function); chunk 1 is the promotion without overlap, 8 the chapter's gemm().
template <class F>
void for_each_candidate(F&& f) {
    f("21_fp8_promoted_chunk1", ch21::gemm_cfg<1>);
    f("21_fp8_promoted_chunk2", ch21::gemm_cfg<2>);
    f("21_fp8_promoted_chunk8", ch21::gemm_cfg<8>);
}

}  // namespace ch21::facts

// Entry point of every CPU chapter: parse the command line, check, time against CBLAS, report.
#pragma once

#include "backend.hpp"
#include "chapter.hpp"
#include "options.hpp"
#include "problem.hpp"

namespace gemm {

// The kernel contract for CPU chapters (host pointers, row-major, C = alpha*A*B + beta*C).
using CpuGemmF32 = void (*)(int M, int N, int K, float alpha, const float* A, int lda,
                            const float* B, int ldb, float beta, float* C, int ldc);

// Runs a chapter binary; returns its exit code (0 pass, 1 a check failed, 2 usage).
int run_cpu_chapter(int argc, char** argv, const ChapterInfo& info, CpuGemmF32 gemm);

// The backend run_cpu_chapter measures `gemm` on, for the chapter's grading binary.
BackendFactory cpu_backend(CpuGemmF32 gemm);

// Runs `gemm` once on the inputs of `p` (padding and poison included) and checks its output
// against the double-precision reference: full check, or sampled when `mode` says so.
CheckResult check_cpu_gemm(CpuGemmF32 gemm, const Problem& p, CheckMode mode = CheckMode::Auto);

// The CPU yardstick with the chapter signature, or nullptr when the build found no CBLAS.
CpuGemmF32 cblas_yardstick();
const char* cblas_name();  // "OpenBLAS cblas_sgemm", or "" without CBLAS

}  // namespace gemm

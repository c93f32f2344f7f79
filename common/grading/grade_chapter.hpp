// A chapter's grading binary (build/chapters/grade_NN_slug, from grade_main.cpp or grade_main.cu
// and the chapter's own kernel file): the chapter binary's command line and start (runner.hpp),
// plus --remote and --timeout, then the grade (grade.hpp) instead of the table. The chapter
// binaries link none of this.
#pragma once

#include "backend.hpp"
#include "chapter.hpp"
#include "harness_cpu.hpp"
#include "precision.hpp"

namespace gemm {

// Grades the kernel `make_backend` runs: the grading shapes drawn from --seed, then a benchmark of
// the largest default size (or --sizes); with --remote PROG the kernel runs in the child PROG. Exit
// code: 0 every shape passed, 1 a shape failed (or the child failed), 2 usage, 77 no usable device.
int grade_chapter(int argc, char** argv, const ChapterInfo& info, Precision precision,
                  const BackendFactory& make_backend);

// The grading binary of a CPU chapter (grade_gpu.cuh: of a GPU chapter).
int grade_cpu_chapter(int argc, char** argv, const ChapterInfo& info, CpuGemmF32 gemm);

}  // namespace gemm

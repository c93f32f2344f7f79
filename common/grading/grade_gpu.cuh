// The grading binary of a GPU chapter (grade_main.cu): its kernel's contract picks the overload,
// as run_gpu_chapter's and run_fp8_chapter's do for the chapter binary.
#pragma once

#include "grade_chapter.hpp"
#include "harness_fp8.cuh"
#include "harness_gpu.cuh"

namespace gemm {

int grade_gpu_chapter(int argc, char** argv, const ChapterInfo& info, GpuGemmF32 gemm);
int grade_gpu_chapter(int argc, char** argv, const ChapterInfo& info, GpuGemmF16 gemm);
int grade_gpu_chapter(int argc, char** argv, const ChapterInfo& info, GpuGemmFp8 gemm);

}  // namespace gemm

#include <cstdio>
#include <stdexcept>

#include "grade_gpu.cuh"

namespace gemm {

int grade_gpu_chapter(int argc, char** argv, const ChapterInfo& info, GpuGemmF32 gemm) {
    return grade_chapter(argc, argv, info, Precision::F32, gpu_backend(info, gemm));
}

int grade_gpu_chapter(int argc, char** argv, const ChapterInfo& info, GpuGemmF16 gemm) {
    return grade_chapter(argc, argv, info, Precision::F16, gpu_backend(info, gemm));
}

int grade_gpu_chapter(int argc, char** argv, const ChapterInfo& info, GpuGemmFp8 gemm) {
    Precision precision = Precision::E4M3;
    try {
        precision = fp8_precision(info);
    } catch (const std::invalid_argument& e) {
        std::fprintf(stderr, "grade_gpu_chapter: %s\n", e.what());
        return 2;
    }
    return grade_chapter(argc, argv, info, precision, gpu_backend(info, precision, gemm));
}

}  // namespace gemm

// The main of every CPU chapter's grading binary, build/chapters/grade_NN_slug: the chapter's own
// kernel file, named by the build (chapters/meson.build: GEMM_KERNEL, GEMM_CHAPTER_ID and
// GEMM_CHAPTER_NS), handed to the grader. The GPU chapters': grade_main.cu.
#include "grade_chapter.hpp"
#include GEMM_KERNEL

int main(int argc, char** argv) {
    return gemm::grade_cpu_chapter(argc, argv, gemm::chapter_info(GEMM_CHAPTER_ID),
                                   GEMM_CHAPTER_NS::gemm);
}

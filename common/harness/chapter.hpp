// What a chapter hands to the harness: its name, its title, the GPU it needs and its default sizes,
// all read from the one list of chapters, chapters/chapters.txt.
#pragma once

#include <string>
#include <vector>

namespace gemm {

// One GEMM problem: C (M x N) = alpha * A (M x K) * B (K x N) + beta * C.
struct Shape {
    int M = 0, N = 0, K = 0;
    Shape() = default;
    Shape(int square) : M(square), N(square), K(square) {}  // NOLINT: `{256, 512}` reads well
    Shape(int m, int n, int k) : M(m), N(n), K(k) {}
    bool operator==(const Shape& o) const { return M == o.M && N == o.N && K == o.K; }
    std::string str() const;  // "1024" for squares, "1000x1001x999" otherwise
};

struct ChapterInfo {
    std::string id;     // "03_cuda_naive": names the CSV, the chart and the table
    std::string title;  // one line: the idea of the chapter
    int min_cc = 0;     // lowest compute capability as 10*major+minor (75 = 7.5); 0 = CPU
    std::vector<Shape> default_sizes;  // what runs without --sizes
    int max_cc = 0;  // highest compute capability, 0 = no limit (90: sm_90a code runs on 9.0 only)
    std::string kind{};       // "cpu", "cuda" or "hopper" (sm_90a code), as chapters/chapters.txt
    std::string precision{};  // "fp32", "fp16", or FP8: "fp8_fast", "fp8", "fp8_block"
};

// Every chapter of chapters/chapters.txt in reading order (a table meson generates from the list).
const std::vector<ChapterInfo>& chapter_list();
// The chapter `id` ("03_cuda_naive") of that list; throws std::logic_error naming the id and the
// list when it is not there (a chapter folder whose line is missing).
const ChapterInfo& chapter_info(const std::string& id);

}  // namespace gemm

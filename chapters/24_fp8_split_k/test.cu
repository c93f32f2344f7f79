// Chapter 24's tests. On the GPU (gpu_24_fp8_split_k; SKIP without one, and on GPUs other than
// compute capability 9.0): its gemm() on chapter 23's shapes (tests/fp8_checks.cuh), which split
// where the tiles are few (1000 x 1000 x 8191: 2 slices); fixed slice counts (1: chapter 23's
// path, 2, 3, many, more than the k-tiles) on shapes that take every path of a split, with the
// workspace poisoned with NaN before each call (a partial not written shows); the same bits on
// every call; and the accuracy contract at deep K (within 1% at every element, positive inputs),
// split and not. On the host alone (TEST_SUITE "host", host_24_fp8_split_k): choose_slices' worked
// examples of the README and of the kernel's header, and no split where the tiles fill the GPU.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "fp8_checks.cuh"
#include "kernel.cuh"

using gemm_tests::check_fp8;
using gemm_tests::deep_k_max_rel_err;
using gemm_tests::list_precision;
using gemm_tests::make;

namespace {

// gemm_cfg<1, 8, true, SPLITS> (the chapter's configuration, SPLITS slices) after filling the
// stream's workspace with NaN (bytes 0xFF), as much of it as this call's partials take (SPLITS,
// at most one slice per k-tile): a partial the kernel does not write reaches C as NaN.
template <int SPLITS>
void poisoned(int M, int N, int K, float alpha, const __nv_fp8_e4m3* A, int lda,
              const __nv_fp8_e4m3* B, int ldb, const float* scale_a, const float* scale_b,
              float beta, __nv_bfloat16* C, int ldc, cudaStream_t stream) {
    const int slices = std::min(SPLITS, std::max((K + ch24::BK - 1) / ch24::BK, 1));
    const std::size_t bytes =
        std::size_t(slices) * std::max(M, 1) * ((std::max(N, 1) + 3) / 4 * 4) * sizeof(float);
    float* w = launch::workspace_for<float>(bytes, stream);
    GEMM_CUDA_CHECK(cudaMemsetAsync(w, 0xFF, bytes, stream));
    ch24::gemm_cfg<1, 8, true, SPLITS>(M, N, K, alpha, A, lda, B, ldb, scale_a, scale_b, beta, C,
                                       ldc, stream);
}

// Shapes for a split: few tiles with K of several slices, K not a multiple of 128 (a partial last
// k-tile in the last slice), K < 128 (one k-tile: at most one slice), M not a multiple of 4 and N
// odd (the partials' padded rows, C's edge elements), odd leading dimensions (padded copies),
// misaligned views, beta != 0 (added once, by the reduction), alpha != 1, 16-byte rows with beta
// 0 (where one slice stores C by TMA), as many tiles as the H200's blocks.
std::vector<gemm::Problem> split_cases() {
    std::vector<gemm::Problem> cases = {
        make(64, 2112, 7168),
        make(130, 520, 3000, 0, 0, 0, 1.5f, -0.5f),
        make(37, 1000, 5003),
        make(97, 101, 1037, 1041, 1039, 105, -2.0f, 0.25f),
        make(200, 264, 100),  // K < 128: one k-tile
        make(5, 7, 129, 0, 0, 0, 1.0f, 1.0f),
        make(256, 512, 1664, 0, 0, 528),  // beta 0, C's rows on 16 bytes, padded
        make(1, 128, 2048, 0, 0, 0, 0.5f, 2.0f),
        make(1300, 1500, 1000),  // 132 tiles: fixed splits take several waves of units
    };
    for (gemm::Problem p : {make(70, 300, 2000, 0, 0, 0, 1.0f, 0.5f), make(129, 131, 1100)}) {
        p.view_offset = 1;
        cases.push_back(p);
    }
    return cases;
}

void check_split(gemm::GpuGemmFp8 fn) {
    for (const gemm::Problem& q : split_cases()) {
        const gemm::Problem p = gemm::as_precision(q, gemm::Precision::E4M3Block);
        CAPTURE(gemm_tests::name(p));
        CAPTURE(p.view_offset);
        gemm::CheckResult r = gemm::check_gpu_fp8(fn, p);
        CHECK_MESSAGE(r.pass, r.summary());
    }
}

}  // namespace

TEST_CASE("the list gives 24_fp8_split_k chapter 23's arithmetic") {
    CHECK(list_precision("24_fp8_split_k") == gemm::Precision::E4M3Block);
}

TEST_CASE("24_fp8_split_k") {
    check_fp8(ch24::gemm, list_precision("24_fp8_split_k"));
    check_split(ch24::gemm);
}

TEST_CASE("24_fp8_split_k, fixed slice counts, the workspace poisoned with NaN") {
    check_split(poisoned<1>);  // chapter 23's path: no partials
    check_split(poisoned<2>);
    check_split(poisoned<3>);
    check_split(poisoned<16>);
    check_split(poisoned<1000>);  // more than any case's k-tiles: one slice per k-tile
}

TEST_CASE("24_fp8_split_k, 2 slices on chapter 23's shapes") {
    check_fp8(poisoned<2>, list_precision("24_fp8_split_k"));
}

TEST_CASE("24_fp8_split_k, pairs sharing B, split (gemm() runs none)") {
    check_split(ch24::gemm_cfg<2, 8, true, 3>);
    check_split(ch24::gemm_cfg<2, 3, false, 5>);
}

// The slices are added in a fixed order by one kernel: a split gives the same bits every call.
TEST_CASE("24_fp8_split_k: the same bits every call") {
    gemm::Problem p = make(64, 2112, 7168, 0, 0, 0, 1.0f, 0.5f);
    p.precision = gemm::Precision::E4M3Block;
    const gemm::HostProblem hp = gemm::make_inputs(p);
    const std::vector<float> first = gemm::run_gpu_fp8(poisoned<7>, hp);
    for (int round = 0; round < 3; ++round) {
        const std::vector<float> again = gemm::run_gpu_fp8(poisoned<7>, hp);
        CHECK(std::memcmp(again.data(), first.data(), first.size() * sizeof(float)) == 0);
    }
}

// 256 x 256 x 32768: 4 tiles of 256 k-tiles; gemm() cuts 32 slices of 8.
TEST_CASE("24_fp8_split_k at deep K: within 1%, split and not") {
    CHECK(deep_k_max_rel_err(ch24::gemm, gemm::Precision::E4M3Block) <= 0.01);
    CHECK(deep_k_max_rel_err(poisoned<1>, gemm::Precision::E4M3Block) <= 0.01);
    CHECK(deep_k_max_rel_err(poisoned<3>, gemm::Precision::E4M3Block) <= 0.01);
}

TEST_SUITE("host") {
    // The README's worked examples and the kernel header's: (tiles, k-tiles, workers) -> slices.
    TEST_CASE("24_fp8_split_k: choose_slices' worked examples") {
        struct Example {
            const char* shape;
            int tiles, KT, workers, slices;
        };
        const Example table[] = {
            {"64 x 2112 x 7168", 17, 56, 132, 7},
            {"128 x 2112 x 7168", 17, 56, 132, 7},
            {"256 x 2112 x 7168", 34, 56, 132, 3},
            {"64 x 4096 x 7168", 32, 56, 132, 4},
            {"64 x 7168 x 16384", 56, 128, 132, 2},
            {"256 x 256 x 32768 (the deep-K test)", 4, 256, 132, 32},
            {"1024 x 1024 x 1024", 64, 8, 132, 1},
            {"512 x 2112 x 7168 (3 slices would make two waves)", 68, 56, 132, 1},
            {"4096 x 4096 x 4096", 1024, 32, 132, 1},
        };
        for (const Example& e : table) {
            CAPTURE(e.shape);
            const int slices = ch24::choose_slices(e.tiles, e.KT, e.workers);
            MESSAGE(std::string(e.shape) << ": " << e.tiles << " tiles, " << e.KT << " k-tiles, "
                                         << e.workers << " workers -> " << slices << " slices");
            CHECK(slices == e.slices);
        }
    }

    TEST_CASE(
        "24_fp8_split_k: no split where the tiles fill the workers; a split fits the k-tiles") {
        for (int workers : {1, 2, 66, 132})
            for (int tiles : {1, 2, 17, 33, 66, 131, 132, 133, 1024})
                for (int KT : {1, 2, 8, 56, 57, 128, 512}) {
                    CAPTURE(workers);
                    CAPTURE(tiles);
                    CAPTURE(KT);
                    const int s = ch24::choose_slices(tiles, KT, workers);
                    CHECK(s >= 1);
                    CHECK(s <= KT);
                    if (tiles >= workers) CHECK(s == 1);
                }
    }
}

int main(int argc, char** argv) {
    return gemm_tests::chapter_test_main(argc, argv, true);
}

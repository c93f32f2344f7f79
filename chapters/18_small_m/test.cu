// Chapter 18's tests. On the GPU (gpu_18_small_m; SKIP without one), beyond the contract shapes
// every chapter passes: every M from 1 to 64 with N not a multiple of 8, each wgmma width at its
// edges, misaligned views, alpha and beta, deep K with many splits, every named configuration with
// a forced split, and the split reduction's promises: the same bits on every call (the sum in split
// order) and on two streams at once (a workspace each). On the host alone (TEST_SUITE "host", run
// as host_18_small_m on any machine): its configurations' stages and blocks per SM, the slices of
// a tile's k-tiles (every k-tile in exactly one unit, no slice empty), and the split chosen for
// the README's shapes on the H200's 132 SMs.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstring>
#include <vector>

#include "gpu_checks.cuh"
#include "kernel.cuh"

TEST_CASE("18_small_m") {
    gemm_tests::check_chapter(ch18::gemm, true);
}

namespace {

using gemm_tests::make;

void check(gemm::GpuGemmF16 fn, const gemm::Problem& p) {
    CAPTURE(gemm_tests::name(p));
    CAPTURE(p.view_offset);
    const gemm::CheckResult r = gemm::check_gpu_gemm(fn, p, gemm::CheckMode::Full);
    CHECK_MESSAGE(r.pass, r.summary());
}

}  // namespace

TEST_CASE("every M from 1 to 64, N not a multiple of 8, alpha and beta") {
    for (int M = 1; M <= 64; ++M) {
        const float beta = M % 3 == 0 ? 0.0f : M % 3 == 1 ? 1.0f : -0.5f;
        check(ch18::gemm, make(M, 203, 517, 0, 0, 0, M % 2 ? 1.0f : -1.25f, beta));
    }
}

TEST_CASE("each tile width across its edges, and past 64 rows") {
    for (int M : {7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 129})
        for (int N : {1, 7, 64, 65, 1000}) check(ch18::gemm, make(M, N, 200, 0, 0, 0, 1.0f, 0.5f));
}

TEST_CASE("misaligned views and odd leading dimensions") {
    for (gemm::Problem p :
         {make(1, 4096, 1024), make(5, 333, 777, 781, 339, 341, 0.75f, -1.0f),
          make(32, 1030, 2048, 2056, 1032, 1034, 1.0f, 1.0f), make(64, 520, 136, 137, 521, 523)}) {
        for (int offset : {0, 1}) {
            p.view_offset = offset;
            check(ch18::gemm, p);
        }
    }
}

// EXPERIMENT (issue 39, item 2): B read in place by the producer's threads, where B's rows are off
// 16 bytes (B_MODE 1) and always (2), on the views above, every tile width, edges in N and K.
TEST_CASE("B read in place by the producer's threads") {
    auto each = [](const gemm::Problem& p) {
        check(ch18::gemm_cfg<ch18::configs::m8, 0, true, 1>, p);
        check(ch18::gemm_cfg<ch18::configs::m16, 3, false, 2>, p);
        check(ch18::gemm_cfg<ch18::configs::m32, 0, false, 2>, p);
        check(ch18::gemm_cfg<ch18::configs::m64, 2, true, 1>, p);
        check(ch18::gemm_cfg<ch18::configs::m64, 0, false, 2>, p);
    };
    for (gemm::Problem p :
         {make(1, 4096, 1024), make(5, 333, 777, 781, 339, 341, 0.75f, -1.0f),
          make(32, 1030, 2048, 2056, 1032, 1034, 1.0f, 1.0f), make(64, 520, 136, 137, 521, 523),
          make(16, 8191, 700), make(3, 65, 65), make(8, 1, 129), make(100, 63, 200)}) {
        for (int offset : {0, 1}) {
            p.view_offset = offset;
            each(p);
        }
    }
}

TEST_CASE("deep K: many splits, partial k-tiles") {
    check(ch18::gemm, make(8, 128, 65536 + 37, 0, 0, 0, 1.0f, -1.0f));
    check(ch18::gemm, make(1, 64, 262144));
    check(ch18::gemm, make(33, 200, 20000 + 3, 20008, 0, 0, 0.5f, 0.25f));
}

TEST_CASE("the named configurations, each split forced") {
    // Split counts past KT are cut to KT; 32 splits of 41 k-tiles leave one or two k-tiles each.
    const gemm::Problem p = make(13, 300, 2560 + 5, 0, 0, 0, 1.5f, 0.5f);
    check(ch18::gemm_cfg<ch18::configs::m8, 1>, p);
    check(ch18::gemm_cfg<ch18::configs::m8, 3>, p);
    check(ch18::gemm_cfg<ch18::configs::m8, 3, false>, p);  // chapter 16's reduce_splits
    check(ch18::gemm_cfg<ch18::configs::m16, 2, true>, p);  // the last slice adds, wider tiles
    check(ch18::gemm_cfg<ch18::configs::m32, 4, true>, p);
    check(ch18::gemm_cfg<ch18::configs::m16, 2>, p);
    check(ch18::gemm_cfg<ch18::configs::m16, 7>, p);
    check(ch18::gemm_cfg<ch18::configs::m32, 4>, p);
    check(ch18::gemm_cfg<ch18::configs::m32, 32>, p);
    check(ch18::gemm_cfg<ch18::configs::m64, 5>, p);
    check(ch18::gemm_cfg<ch18::configs::m64, 5, true>, p);
    check(ch18::gemm_cfg<ch18::configs::m64, 32>, make(100, 300, 64 * 3 + 1));  // cut to KT = 4
    // More units than resident blocks: a block walks several, split ones among them.
    check(ch18::gemm_cfg<ch18::configs::m8, 2>, make(8, 64 * 300, 640, 0, 0, 0, 1.0f, 1.0f));
    check(ch18::gemm_cfg<ch18::configs::m64, 3>, make(200, 64 * 100, 1000));
    check(ch18::gemm_cfg<ch18::configs::m64, 3, true>, make(200, 64 * 100, 1000));
}

namespace {

// C of ch18::gemm for fixed inputs, on `stream`, beta == 0.
struct Run {
    int M, N, K;
    gemm::DeviceBuffer<__half> A, B;
    gemm::DeviceBuffer<float> C;
    Run(int m, int n, int k)
        : M(m), N(n), K(k), A(size_t(m) * k), B(size_t(k) * n), C(size_t(m) * n) {
        std::vector<__half> a(A.size()), b(B.size());
        for (size_t i = 0; i < a.size(); ++i) a[i] = __float2half(float(int(i * 7 % 19) - 9) / 8);
        for (size_t i = 0; i < b.size(); ++i) b[i] = __float2half(float(int(i * 5 % 23) - 11) / 16);
        GEMM_CUDA_CHECK(cudaMemcpy(A.get(), a.data(), a.size() * 2, cudaMemcpyHostToDevice));
        GEMM_CUDA_CHECK(cudaMemcpy(B.get(), b.data(), b.size() * 2, cudaMemcpyHostToDevice));
    }
    void launch(cudaStream_t s) {
        ch18::gemm_cfg<ch18::configs::m8, 7>(M, N, K, 1.0f, A.get(), K, B.get(), N, 0.0f, C.get(),
                                             N, s);
    }
    std::vector<float> result() {
        std::vector<float> c(C.size());
        GEMM_CUDA_CHECK(cudaMemcpy(c.data(), C.get(), c.size() * 4, cudaMemcpyDeviceToHost));
        return c;
    }
};

}  // namespace

TEST_CASE("split sums: the same bits every call, and on two streams at once") {
    Run one(8, 4096, 8192), two(8, 4096, 8192);
    one.launch(0);
    GEMM_CUDA_CHECK(cudaDeviceSynchronize());
    const std::vector<float> first = one.result();
    cudaStream_t s1, s2;
    GEMM_CUDA_CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    GEMM_CUDA_CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    for (int round = 0; round < 5; ++round) {
        GEMM_CUDA_CHECK(cudaMemset(one.C.get(), 0xFF, one.C.size() * 4));  // NaN
        GEMM_CUDA_CHECK(cudaMemset(two.C.get(), 0xFF, two.C.size() * 4));
        one.launch(s1);  // the two calls overlap: each stream has its own workspace and counters
        two.launch(s2);
        GEMM_CUDA_CHECK(cudaStreamSynchronize(s1));
        GEMM_CUDA_CHECK(cudaStreamSynchronize(s2));
        CAPTURE(round);
        const std::vector<float> a = one.result(), b = two.result();
        CHECK(std::memcmp(a.data(), first.data(), a.size() * 4) == 0);
        CHECK(std::memcmp(b.data(), first.data(), b.size() * 4) == 0);
    }
    GEMM_CUDA_CHECK(cudaStreamDestroy(s1));
    GEMM_CUDA_CHECK(cudaStreamDestroy(s2));
    // And right: the same product through the checked path.
    check(ch18::gemm_cfg<ch18::configs::m8, 7>, make(8, 4096, 8192));
}

TEST_SUITE("host") {
    TEST_CASE("the configurations: stages, blocks per SM, shared memory") {
        // 64 KB of B in flight per SM: one block for M <= 32, two for the 64-row tile.
        CHECK(ch18::configs::m8::STAGES == 10);
        CHECK(ch18::configs::m8::PER_SM == 1);
        CHECK(ch18::configs::m16::STAGES == 9);
        CHECK(ch18::configs::m16::PER_SM == 1);
        CHECK(ch18::configs::m32::STAGES == 8);
        CHECK(ch18::configs::m32::PER_SM == 1);
        CHECK(ch18::configs::m64::STAGES == 6);
        CHECK(ch18::configs::m64::PER_SM == 2);
    }

    TEST_CASE("SplitK: every k-tile of every tile in exactly one unit, no slice empty") {
        for (int KT : {1, 2, 3, 7, 64, 65, 224, 1000, (1 << 25) - 1})
            for (int splits = 1; splits <= std::min(KT, 64); ++splits) {
                CAPTURE(KT);
                CAPTURE(splits);
                const ch18::SplitK split{5, KT, splits};
                REQUIRE(split.k_begin(0) == 0);
                REQUIRE(split.k_begin(splits) == KT);
                for (int s = 0; s < splits; ++s) {
                    const int depth = split.k_begin(s + 1) - split.k_begin(s);
                    CHECK(depth >= KT / splits);  // evenly cut, none empty
                    CHECK(depth <= (KT + splits - 1) / splits);
                }
                std::vector<int> seen(5, 0);  // units per tile: one per slice
                for (int u = 0; u < split.units(); ++u) {
                    REQUIRE(split.tile(u) < 5);
                    CHECK(split.slice(u) == u / 5);
                    ++seen[split.tile(u)];
                }
                for (int t = 0; t < 5; ++t) CHECK(seen[t] == splits);
            }
    }

    // The README's table: the decode shapes on the H200's 132 SMs (tiles of 64 columns; M <= 32 one
    // block per SM, the 64-row tile two).
    TEST_CASE("the README's worked examples") {
        struct Row {
            int M, N, K, per_sm, splits;
        };
        for (const Row& r :
             {Row{1, 4096, 4096, 1, 2}, Row{8, 4096, 4096, 1, 2}, Row{32, 4096, 4096, 1, 2},
              Row{8, 6144, 4096, 1, 1}, Row{32, 14336, 4096, 1, 1}, Row{8, 4096, 14336, 1, 2},
              Row{1, 8192, 8192, 1, 1}, Row{64, 4096, 4096, 2, 4}, Row{64, 4096, 14336, 2, 4},
              Row{64, 8192, 8192, 2, 2}, Row{64, 3584, 18944, 2, 4}, Row{128, 4096, 4096, 2, 2},
              Row{4096, 4096, 4096, 2, 1}}) {
            CAPTURE(r.M);
            CAPTURE(r.N);
            CAPTURE(r.K);
            const int mt = r.M <= 8 ? 8 : r.M <= 16 ? 16 : r.M <= 32 ? 32 : 64;
            const long long tiles = 1LL * ((r.M + mt - 1) / mt) * ((r.N + 63) / 64);
            CHECK(ch18::choose_splits(tiles, (r.K + 63) / 64, 132 * r.per_sm) == r.splits);
        }
    }

    TEST_CASE("choose_splits: within its bounds for every size") {
        for (long long tiles : {1LL, 2LL, 31LL, 64LL, 132LL, 224LL, 264LL, 1000LL, 100000LL})
            for (int KT : {1, 3, 4, 8, 9, 64, 224, 4096, 1 << 20})
                for (int workers : {16, 78, 132, 264}) {
                    CAPTURE(tiles);
                    CAPTURE(KT);
                    CAPTURE(workers);
                    const int s = ch18::choose_splits(tiles, KT, workers);
                    CHECK(s >= 1);
                    if (s > 1) {
                        CHECK(KT / s >= ch18::MIN_SLICE);  // slices deep enough
                        CHECK(tiles * s <= workers);       // never more units than workers
                    }
                    if (tiles >= workers) CHECK(s == 1);  // a wave of whole tiles: no split
                }
    }
}

int main(int argc, char** argv) {
    return gemm_tests::chapter_test_main(argc, argv, true);
}

// What the grade and its child must compute alike (grading/remote_protocol.hpp): the keyed row
// permutation is a permutation, SipHash-2-4 matches its authors' test vectors, and a block's
// digest changes with any bit of the block, its order or its key. And the grading shapes
// (common/harness/runner.cpp): keyed draws in a fixed order, matrices that do not show the seed.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "remote_protocol.hpp"
#include "grade.hpp"

namespace rp = gemm::remote;

TEST_CASE("permute_row is a bijection of [0, K) that depends on the key") {
    for (std::uint32_t K : {0u, 1u, 2u, 3u, 7u, 64u, 65u, 1000u, 4097u}) {
        for (std::uint64_t key : {0ull, 1ull, 0xDEADBEEFCAFEF00Dull}) {
            std::vector<int> seen(K, 0);
            for (std::uint32_t k = 0; k < K; ++k) {
                const std::uint32_t to = rp::permute_row(k, K, key);
                REQUIRE_MESSAGE(to < K, "K=" << K << " k=" << k << " -> " << to);
                ++seen[to];
            }
            for (std::uint32_t k = 0; k < K; ++k)
                REQUIRE_MESSAGE(seen[k] == 1, "K=" << K << " row " << k);
        }
    }
    // Two keys give two permutations that agree almost nowhere: a cached product is no help.
    const std::uint32_t K = 4096;
    int same = 0;
    for (std::uint32_t k = 0; k < K; ++k)
        same += rp::permute_row(k, K, 11) == rp::permute_row(k, K, 12);
    CHECK(same < 16);
}

TEST_CASE("SipHash-2-4 gives the reference digests") {
    const std::uint64_t k0 = 0x0706050403020100ull, k1 = 0x0F0E0D0C0B0A0908ull;
    rp::SipHash empty(k0, k1);
    CHECK(empty.finish() == 0x726FDB47DD0E0E31ull);  // message of 0 bytes
    rp::SipHash eight(k0, k1);
    eight.add(0x0706050403020100ull);  // bytes 00 01 ... 07
    CHECK(eight.finish() == 0x93F5F5799A932462ull);
}

TEST_CASE("a block's digest sees every bit, the order of the floats, the block and the key") {
    std::vector<float> C(3 * 517);  // three rows, an odd count of floats
    for (std::size_t i = 0; i < C.size(); ++i) C[i] = float(i) * 0.25f - 17.0f;
    const rp::SlotKeys key = rp::slot_keys(42, 0);
    const std::uint64_t d = rp::digest_block(key, 5, C.data(), C.size());
    CHECK(rp::digest_block(key, 5, C.data(), C.size()) == d);
    CHECK(rp::digest_block(key, 6, C.data(), C.size()) != d);
    CHECK(rp::digest_block(rp::slot_keys(42, 1), 5, C.data(), C.size()) != d);
    CHECK(rp::digest_block(rp::slot_keys(43, 0), 5, C.data(), C.size()) != d);
    for (std::size_t at : {std::size_t(0), std::size_t(256), C.size() - 1}) {
        std::vector<float> D = C;
        std::uint32_t bits = 0;
        std::memcpy(&bits, &D[at], sizeof bits);
        bits ^= 1u;  // the lowest bit of the mantissa
        std::memcpy(&D[at], &bits, sizeof bits);
        CHECK_MESSAGE(rp::digest_block(key, 5, D.data(), D.size()) != d, "element " << at);
    }
    std::vector<float> swapped = C;
    std::swap(swapped[3], swapped[4]);
    CHECK(rp::digest_block(key, 5, swapped.data(), swapped.size()) != d);
    CHECK(rp::digest_block(key, 5, C.data(), C.size() - 1) != d);
}

TEST_CASE("digest blocks cover every row once") {
    for (int M : {0, 1, 5, 255, 256, 257, 1000, 1023, 1024, 1025, 4096}) {
        const int blocks = rp::digest_blocks(M);
        CHECK(blocks == (M < rp::kMaxDigestBlocks ? M : rp::kMaxDigestBlocks));
        int rows = 0;
        for (int b = 0; b < blocks; ++b) {
            const int first = rp::block_first_row(b, M, blocks),
                      end = rp::block_first_row(b + 1, M, blocks);
            CHECK(end > first);
            rows += end - first;
        }
        CHECK(rows == M);
        if (blocks) CHECK(rp::block_first_row(blocks, M, blocks) == M);
    }
}

TEST_CASE("grading shapes: keyed draws in a fixed order, data seeds that are not the seed") {
    const std::uint64_t seed = 918273645;
    const std::vector<gemm::Problem> ps = gemm::grading_problems(seed, true);
    REQUIRE(ps.size() == 7 + 8 + 3);
    // Each drawn shape takes eight draws in the order M, N, K, the three paddings, alpha, beta: one
    // statement each, so every compiler draws the same (a call's arguments have no set order).
    for (int i = 0; i < 8; ++i) {
        const gemm::Problem& p = ps[std::size_t(7 + i)];
        const std::uint64_t n = std::uint64_t(8 * i);
        CHECK(p.shape.M == 1 + int(gemm::grading_draw(seed, n) % 300));
        CHECK(p.shape.N == 1 + int(gemm::grading_draw(seed, n + 1) % 300));
        CHECK(p.shape.K == 1 + int(gemm::grading_draw(seed, n + 2) % 300));
        const int pa = -1 + int(gemm::grading_draw(seed, n + 3) % 11);
        CHECK(p.lda == (pa < 0 ? 0 : p.shape.K + pa));
    }
    // The draws are SipHash-2-4 keyed by the seed: the same function as the digests'.
    rp::SipHash h(seed, 0x6772616465726e67ull);
    h.add(5);
    CHECK(gemm::grading_draw(seed, 5) == h.finish());
    // The matrices come from data seeds, none of them the seed, all different; a neighbouring seed
    // draws other shapes.
    const std::vector<gemm::Problem> next = gemm::grading_problems(seed + 1, true);
    int same = 0;
    for (std::size_t i = 0; i < ps.size(); ++i) {
        CHECK(ps[i].seed != seed);
        for (std::size_t j = 0; j < i; ++j) CHECK(ps[i].seed != ps[j].seed);
        if (i >= 7) same += ps[i].shape.M == next[i].shape.M && ps[i].shape.N == next[i].shape.N;
    }
    CHECK(same < 3);
}

// What the grade and its child must compute alike (common/remote_protocol.hpp): the keyed row
// permutation is a permutation, SipHash-2-4 matches its authors' test vectors, and a block's
// digest changes with any bit of the block, its order or its key.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "remote_protocol.hpp"

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

// Chapter 12's tests: its gemm() against the double-precision reference on every shape of
// tests/cases.hpp, misaligned views and the shapes of its TMA paths (tests/gpu_checks.cuh), as
// gpu_12_wgmma: SKIP without a GPU; and on the host alone (TEST_SUITE "host", run as host_12_wgmma
// on any machine): its copies put every element of A and B where its wgmma descriptors read it,
// the panel layout is the 128-byte swizzle TMA writes (chapter 13), and the descriptor's fields
// hold what was encoded.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <set>
#include <utility>

#include "gpu_checks.cuh"
#include "kernel.cuh"

TEST_CASE("12_wgmma") {
    gemm_tests::check_chapter(ch12::gemm, true);
}

TEST_SUITE("host") {
    // Where chapter 12's copy puts element (r, c) of a (ROWS, COLS) tile, in bytes.
    template <int ROWS, int COLS>
    uint32_t stored(int r, int c) {
        return ch12::chunk_offset<ROWS, COLS>(r, c / 8) + 2 * (c % 8);
    }

    TEST_CASE("chapter 12: the panel layout is TMA's 128-byte swizzle, box by box") {
        for (int r = 0; r < ch12::BK; ++r)
            for (int c = 0; c < ch12::BN; ++c) {
                const uint32_t box = (c / 64) * ch12::BK * 128;  // one (BK, 64) box of B per panel
                CHECK(stored<ch12::BK, ch12::BN>(r, c) ==
                      box + sm90::swizzle128(128 * r + 2 * (c % 64)));
            }
        for (int r = 0; r < ch12::BM; ++r)
            for (int c = 0; c < ch12::BK; ++c)
                CHECK(stored<ch12::BM, ch12::BK>(r, c) == sm90::swizzle128(128 * r + 2 * c));
    }

    TEST_CASE("chapter 12: wgmma reads every element of A and B where the copies put it") {
        // A: each warpgroup's (64, BK) rows start row0 * 128 bytes into the stage (a multiple of
        // 1024).
        for (int row0 = 0; row0 < ch12::BM; row0 += ch12::WGMMA_M)
            for (int kk = 0; kk < ch12::BK / ch12::WGMMA_K; ++kk) {
                const sm90::DescStep s = ch12::a_step(kk);
                for (int m = 0; m < ch12::WGMMA_M; ++m)
                    for (int k = 0; k < ch12::WGMMA_K; ++k) {
                        CAPTURE(row0);
                        CAPTURE(kk);
                        CAPTURE(m);
                        CAPTURE(k);
                        const uint32_t read = sm90::wgmma_operand_byte(
                            sm90::Major::K, row0 * 128 + s.offset, s.lbo, s.sbo, m, k);
                        REQUIRE(read ==
                                stored<ch12::BM, ch12::BK>(row0 + m, kk * ch12::WGMMA_K + k));
                    }
            }
        for (int kk = 0; kk < ch12::BK / ch12::WGMMA_K; ++kk) {
            const sm90::DescStep s = ch12::b_step(kk);
            for (int n = 0; n < ch12::BN; ++n)
                for (int k = 0; k < ch12::WGMMA_K; ++k) {
                    CAPTURE(kk);
                    CAPTURE(n);
                    CAPTURE(k);
                    const uint32_t read =
                        sm90::wgmma_operand_byte(sm90::Major::MN, s.offset, s.lbo, s.sbo, n, k);
                    REQUIRE(read == stored<ch12::BK, ch12::BN>(kk * ch12::WGMMA_K + k, n));
                }
        }
    }

    TEST_CASE("the wgmma descriptor: each field holds what was encoded, none overlaps another") {
        const sm90::DescStep b = ch12::b_step(1);
        const uint32_t addr = 0x8400 + b.offset;
        const uint64_t d = sm90::desc_encode(addr, b.lbo, b.sbo);
        auto field = [&](int lo, int bits) { return (d >> lo) & ((uint64_t(1) << bits) - 1); };
        CHECK(field(sm90::DESC_START_BIT, sm90::DESC_FIELD_BITS) == addr >> 4);
        CHECK(field(sm90::DESC_LBO_BIT, sm90::DESC_FIELD_BITS) == b.lbo >> 4);
        CHECK(field(sm90::DESC_SBO_BIT, sm90::DESC_FIELD_BITS) == b.sbo >> 4);
        CHECK(field(sm90::DESC_SWIZZLE_BIT, sm90::DESC_SWIZZLE_BITS) == sm90::DESC_SWIZZLE_128B);
        const int starts[] = {sm90::DESC_START_BIT, sm90::DESC_LBO_BIT, sm90::DESC_SBO_BIT, 64};
        for (int i = 0; i < 3; ++i) CHECK(starts[i] + sm90::DESC_FIELD_BITS <= starts[i + 1]);
        CHECK(sm90::DESC_SBO_BIT + sm90::DESC_FIELD_BITS <= sm90::DESC_SWIZZLE_BIT);
    }
}

int main(int argc, char** argv) {
    return gemm_tests::chapter_test_main(argc, argv, true);
}

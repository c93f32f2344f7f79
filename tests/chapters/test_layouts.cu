// The layout functions the kernels use and the figures draw (tools/reporting/layouts.cu), on the
// host alone (suite cpu: no GPU needed), checked against what the PTX ISA says the hardware does:
// the lanes chapter 11 gives ldmatrix deliver exactly the mma.sync fragments; chapter 12's copies
// put every element of A and B where its wgmma descriptors read it; the panel layout is the
// 128-byte swizzle TMA writes (chapter 13); the descriptor's fields hold what was encoded; chapter
// 14's parities block before their phase completes and pass after.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <set>
#include <utility>

#include "11_mma_ldmatrix/kernel.cuh"
#include "12_wgmma/kernel.cuh"
#include "14_warp_specialized/kernel.cuh"

namespace {

using gemm::dev::RowCol;

TEST_CASE("chapter 11: the lanes' ldmatrix.x4 addresses deliver the mma.sync fragments") {
    for (int lane = 0; lane < 32; ++lane) {
        CAPTURE(lane);
        for (int i = 0; i < 4; ++i)
            for (int h = 0; h < 2; ++h) {
                CAPTURE(i);
                CAPTURE(h);
                // A (16, 16), ldmatrix.x4: register i is matrix i, whose row ρ came from the
                // address of lane 8i + ρ.
                const RowCol e = gemm::dev::ldmatrix_elem(lane, h);
                const RowCol at = ch11::ldmatrix_x4_address(8 * i + e.row);
                const RowCol a = gemm::dev::mma_a_elem(lane, i, h);
                CHECK(at.row == a.row);
                CHECK(8 * at.col + e.col == a.col);
                // B (16 k, 16 n), ldmatrix.x4.trans: matrices 0, 1 are b[2jp], 2, 3 b[2jp + 1]; the
                // rows of the stored matrix are k, its columns n.
                const RowCol t = gemm::dev::ldmatrix_trans_elem(lane, h);
                const RowCol bt = ch11::ldmatrix_x4_address(8 * i + t.row);
                const RowCol b = gemm::dev::mma_b_elem(lane, i % 2, h);
                CHECK(bt.row == b.row);                            // k
                CHECK(8 * bt.col + t.col == 8 * (i / 2) + b.col);  // n, in tile i / 2
            }
    }
}

TEST_CASE("mma.sync m16n8k16: every element of A, B and C held by exactly one lane") {
    std::set<std::pair<int, int>> a, b, c;
    for (int lane = 0; lane < 32; ++lane) {
        for (int i = 0; i < 4; ++i)
            for (int h = 0; h < 2; ++h) {
                const RowCol x = gemm::dev::mma_a_elem(lane, i, h);
                a.insert({x.row, x.col});
                if (i < 2) {
                    const RowCol y = gemm::dev::mma_b_elem(lane, i, h);
                    b.insert({y.row, y.col});
                }
            }
        for (int e = 0; e < 4; ++e)
            c.insert({gemm::dev::mma_c_elem(lane, e).row, gemm::dev::mma_c_elem(lane, e).col});
    }
    CHECK(a.size() == 256u);
    CHECK(b.size() == 128u);
    CHECK(c.size() == 128u);
    CHECK(a.rbegin()->first == 15);
    CHECK(b.rbegin()->first == 15);
    CHECK(c.rbegin()->first == 15);
}

TEST_CASE("chapter 11: the swizzle keeps an ldmatrix phase (8 rows, one chunk) on 8 bank groups") {
    constexpr int COLS = 64, CPR = COLS / ch11::VEC;
    for (int r0 = 0; r0 < 64; r0 += 8)
        for (int c = 0; c < CPR; ++c) {
            std::set<int> slots;
            for (int r = r0; r < r0 + 8; ++r) slots.insert((ch11::swizzle<COLS>(r, c) / 8) % 8);
            CHECK(slots.size() == 8u);
        }
    for (int r = 0; r < 64; ++r) {  // each row stays a permutation of its own chunks
        std::set<int> row;
        for (int c = 0; c < CPR; ++c) row.insert(ch11::swizzle<COLS>(r, c) / COLS);
        CHECK(row == std::set<int>{r});
    }
}

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
    // A: each warpgroup's (64, BK) rows start row0 * 128 bytes into the stage (a multiple of 1024).
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
                    REQUIRE(read == stored<ch12::BM, ch12::BK>(row0 + m, kk * ch12::WGMMA_K + k));
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

TEST_CASE("chapter 14: each wait's parity blocks until its phase completes, then passes") {
    // An mbarrier's phase bit flips at each completion; try_wait.parity p returns once the phase
    // with parity p has completed: while (completions & 1) == p it waits.
    auto passes = [](int completions, unsigned parity) {
        return unsigned(completions & 1) != parity;
    };
    for (int kt = 0; kt < 5 * ch14::STAGES; ++kt) {
        CAPTURE(kt);
        const int round = kt / ch14::STAGES;  // earlier tiles copied into this stage
        CHECK(ch14::stage_of(kt) == kt % ch14::STAGES);
        // full: tile kt's copy is the stage's completion number `round` (0-based).
        CHECK_FALSE(passes(round, ch14::full_parity(kt)));
        CHECK(passes(round + 1, ch14::full_parity(kt)));
        // empty: the refill for tile kt waits for tile kt - STAGES to be consumed, completion
        // number round - 1.
        if (kt >= ch14::STAGES) {
            CHECK_FALSE(passes(round - 1, ch14::empty_parity(kt)));
            CHECK(passes(round, ch14::empty_parity(kt)));
        }
    }
}

}  // namespace

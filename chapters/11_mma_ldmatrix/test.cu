// Chapter 11's tests: its gemm() and the configuration sm_86/sm_89 take against the
// double-precision reference (tests/gpu_checks.cuh), as gpu_11_mma_ldmatrix: SKIP without a GPU;
// and on the host alone (TEST_SUITE "host", run as host_11_mma_ldmatrix on any machine), the
// layouts the figures draw (tools/reporting/layouts.cu) against the PTX ISA: the lanes it gives
// ldmatrix deliver exactly the mma.sync fragments, and its swizzle keeps a phase on 8 bank groups.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <set>
#include <utility>

#include "gpu_checks.cuh"
#include "kernel.cuh"

TEST_CASE("11_mma_ldmatrix") {
    gemm_tests::check_chapter(ch11::gemm, false);
}

// The configuration sm_86/sm_89 take (less shared memory), here on whatever GPU runs the test.
TEST_CASE("11_mma_ldmatrix, b128x256_k32_s3") {
    gemm_tests::check_all(ch11::gemm_cfg<ch11::configs::b128x256_k32_s3>, false);
    gemm_tests::check_misaligned_views(ch11::gemm_cfg<ch11::configs::b128x256_k32_s3>);
}

TEST_SUITE("host") {
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
                    // B (16 k, 16 n), ldmatrix.x4.trans: matrices 0, 1 are b[2jp], 2, 3 b[2jp + 1];
                    // the rows of the stored matrix are k, its columns n.
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

    TEST_CASE(
        "chapter 11: the swizzle keeps an ldmatrix phase (8 rows, one chunk) on 8 bank groups") {
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
}

int main(int argc, char** argv) {
    return gemm_tests::chapter_test_main(argc, argv, false);
}

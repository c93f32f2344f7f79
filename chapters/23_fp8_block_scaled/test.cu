// Chapter 23's tests, on the GPU (gpu_23_fp8_block_scaled; SKIP without one, and on GPUs other than
// compute capability 9.0): its gemm() and named configurations on the shared awkward shapes with B
// as N x K, misaligned views and the FP8 paths' shapes, checked with its own arithmetic's tolerance
// (chapters.txt's precision; tests/fp8_checks.cuh); and the accuracy contract, promoted: within 1%
// at every element at deep K. The scales staged by the producer (SCALES_TMA) the same way, and on
// the host alone (TEST_SUITE "host", host_23_fp8_block_scaled): where they may come by TMA.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cmath>
#include <cstddef>

#include "fp8_checks.cuh"
#include "fp8_problem.hpp"
#include "kernel.cuh"

using gemm_tests::check_fp8;
using gemm_tests::deep_k_max_rel_err;
using gemm_tests::list_precision;

TEST_CASE("the list gives 23_fp8_block_scaled its arithmetic") {
    CHECK(list_precision("23_fp8_block_scaled") == gemm::Precision::E4M3Block);
}

TEST_CASE("23_fp8_block_scaled") {
    check_fp8(ch23::gemm, list_precision("23_fp8_block_scaled"));
}
// C from registers everywhere (store_tile), gemm()'s configuration without STORE_TMA.
TEST_CASE("23_fp8_block_scaled, the register epilogue") {
    check_fp8(ch23::gemm_cfg<1>, list_precision("23_fp8_block_scaled"));
}
TEST_CASE("23_fp8_block_scaled, pairs sharing B (gemm() runs none)") {
    check_fp8(ch23::gemm_cfg<2>, list_precision("23_fp8_block_scaled"));
}
TEST_CASE("23_fp8_block_scaled, chunks of 1 (no overlap) and of 3") {
    check_fp8(ch23::gemm_cfg<2, 1>, list_precision("23_fp8_block_scaled"));
    check_fp8(ch23::gemm_cfg<2, 3>, list_precision("23_fp8_block_scaled"));
}

// C through TMA stores where it may be (beta 0, 16-byte rows, N % 8 == 0), else from registers.
TEST_CASE("23_fp8_block_scaled, C through TMA stores") {
    check_fp8(ch23::gemm_cfg<2, 8, true>, list_precision("23_fp8_block_scaled"));
    check_fp8(ch23::gemm_cfg<1, 3, true>, list_precision("23_fp8_block_scaled"));
}
TEST_CASE("23_fp8_block_scaled, the register epilogue, at deep K: within 1%") {
    CHECK(deep_k_max_rel_err(ch23::gemm_cfg<1>, gemm::Precision::E4M3Block) <= 0.01);
}

TEST_CASE("23_fp8_block_scaled at deep K: within 1%") {
    CHECK(deep_k_max_rel_err(ch23::gemm, gemm::Precision::E4M3Block) <= 0.01);
}

// The scales by TMA (scales_by_tma: M % 4 == 0) on check_fp8's shapes: rows past the last block
// tile (M 200, 260, 300, 1000, 4100: sa's box zero-filled), K not a multiple of 128 (129, 270,
// 520, 8200: sb's group of 4 past the last K-block), and M % 4 != 0 (17, 127, 4093, 8190, 97 ...:
// the consumers' loads); 6 stages, or 5 beside C's buffers (STORE_TMA).
TEST_CASE("23_fp8_block_scaled, scales staged by the producer") {
    check_fp8(ch23::gemm_cfg<1, 8, false, true>, list_precision("23_fp8_block_scaled"));
    check_fp8(ch23::gemm_cfg<1, 8, true, true>, list_precision("23_fp8_block_scaled"));
    check_fp8(ch23::gemm_cfg<2, 8, true, true>, list_precision("23_fp8_block_scaled"));
    check_fp8(ch23::gemm_cfg<2, 3, false, true>, list_precision("23_fp8_block_scaled"));
}
TEST_CASE("23_fp8_block_scaled, scales staged by the producer, at deep K: within 1%") {
    CHECK(deep_k_max_rel_err(ch23::gemm_cfg<1, 8, true, true>, gemm::Precision::E4M3Block) <= 0.01);
    CHECK(deep_k_max_rel_err(ch23::gemm_cfg<2, 8, false, true>, gemm::Precision::E4M3Block) <=
          0.01);
}

// gemm_cfg<1, 8, true, true> with its scales copied one float past a 16-byte boundary: where
// M % 4 == 0 too, the consumers load them (scales_by_tma says no; the host test below).
static void staged_scales_misaligned(int M, int N, int K, float alpha, const __nv_fp8_e4m3* A,
                                     int lda, const __nv_fp8_e4m3* B, int ldb, const float* sa,
                                     const float* sb, float beta, __nv_bfloat16* C, int ldc,
                                     cudaStream_t stream) {
    const std::size_t na = gemm::fp8_scale_a_count(gemm::Precision::E4M3Block, M, K),
                      nb = gemm::fp8_scale_b_count(gemm::Precision::E4M3Block, N, K);
    float* buf = nullptr;
    GEMM_CUDA_CHECK(cudaMalloc(&buf, (na + nb + 8) * sizeof(float)));
    float *sa1 = buf + 1, *sb1 = buf + 4 + (na + 3) / 4 * 4 + 1;  // each 4 bytes past 16
    REQUIRE_FALSE(ch23::scales_by_tma(M, sa1, sb1));
    GEMM_CUDA_CHECK(cudaMemcpyAsync(sa1, sa, na * sizeof(float), cudaMemcpyDeviceToDevice, stream));
    GEMM_CUDA_CHECK(cudaMemcpyAsync(sb1, sb, nb * sizeof(float), cudaMemcpyDeviceToDevice, stream));
    ch23::gemm_cfg<1, 8, true, true>(M, N, K, alpha, A, lda, B, ldb, sa1, sb1, beta, C, ldc,
                                     stream);
    GEMM_CUDA_CHECK(cudaStreamSynchronize(stream));
    GEMM_CUDA_CHECK(cudaFree(buf));
}
TEST_CASE("23_fp8_block_scaled, SCALES_TMA with scales off 16 bytes: the consumers' loads") {
    check_fp8(staged_scales_misaligned, list_precision("23_fp8_block_scaled"));
}

TEST_SUITE("host") {
    TEST_CASE("chapter 23: the scales come by TMA only where a tensor map may point at them") {
        alignas(16) static float buf[16];
        for (int M : {4, 128, 200, 260, 4096, 4100}) {  // rows of M floats on 16 bytes
            CAPTURE(M);
            CHECK(ch23::scales_by_tma(M, buf, buf + 8));
            CHECK_FALSE(ch23::scales_by_tma(M, buf + 1, buf));  // scale_a off 16 bytes
            CHECK_FALSE(ch23::scales_by_tma(M, buf, buf + 2));  // scale_b off 16 bytes
        }
        for (int M : {1, 2, 3, 17, 97, 127, 4093, 8190}) {  // rows of M floats off 16 bytes
            CAPTURE(M);
            CHECK_FALSE(ch23::scales_by_tma(M, buf, buf + 8));
        }
    }
    TEST_CASE("chapter 23: six stages, five with the scales beside C's buffers") {
        CHECK(ch23::stages_of(false, false) == 6);
        CHECK(ch23::stages_of(true, false) == 6);
        CHECK(ch23::stages_of(false, true) == 6);
        CHECK(ch23::stages_of(true, true) == 5);
        for (bool store : {false, true})
            for (bool scales : {false, true}) {
                CAPTURE(store);
                CAPTURE(scales);
                CHECK(ch23::smem_bytes(store, scales) + 2 * ch23::stages_of(store, scales) * 8 <=
                      227 * 1024);
            }
    }
}

int main(int argc, char** argv) {
    return gemm_tests::chapter_test_main(argc, argv, true);
}

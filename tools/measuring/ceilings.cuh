// What the two files of tools/ceilings share: a hash, and the sm_90a part, the wgmma rate kernel of
// tools/measuring/ceilings_wgmma.cu. That file is compiled for sm_90a alone and linked in only when
// gpu_archs lists 90 (GEMM_CEILINGS_WGMMA); its code runs on compute capability 9.0 only, so the
// caller checks that first.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <string>

namespace ceilings {

// An integer hash, for the pseudo-random operands and buffers.
__host__ __device__ inline std::uint32_t mix(std::uint32_t x) {
    x ^= x >> 16, x *= 0x7feb352du, x ^= x >> 15, x *= 0x846ca68bu, x ^= x >> 16;
    return x;
}
// A value in [-1, 1) from an integer.
__host__ __device__ inline float unit_value(std::uint32_t x) {
    return float(mix(x) >> 8) * (2.0f / 16777216.0f) - 1.0f;
}

// Blocks of the wgmma kernel that fit on one SM (it opts into its shared memory first).
int wgmma_blocks_per_sm();
// FLOP of one launch of `blocks` blocks that each run `iters` steps.
double wgmma_flop(int blocks, int iters);
// One launch on pseudo-random operands; every thread writes the sum of its accumulators to
// sums[blockIdx.x * threads + threadIdx.x] (blocks * wgmma_threads() floats).
void wgmma_launch(int blocks, int iters, float* sums, cudaStream_t stream);
int wgmma_threads();
// A short launch on operands whose product is known, every accumulator of every thread compared
// with it: empty when all agree, else the first difference in a sentence.
std::string wgmma_self_check(int blocks);
// What one launch does, for the method column.
std::string wgmma_method(int blocks, int iters);

}  // namespace ceilings

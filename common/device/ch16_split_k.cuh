// Chapter 16's split of K, for 16 and the chapters after it (18 splits its small tiles the same
// way; 19 asks it how many slices): the slices (SplitK), how many (choose_splits), and the second
// kernel that adds them (reduce_splits). Chapter 16's step in docs/reading-order.md counts this
// file whole; its kernel keeps the slice's partial store, its exercise, and the schedule's use.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>

namespace split_k {

// The split: K's KT k-tiles cut into `splits` slices of nearly equal depth (the first KT % splits
// one k-tile deeper). Unit u is slice u / tiles of tile u % tiles: the units in flight together
// are one slice of neighbouring tiles, which read the same k-slices of A and B from L2. Pure
// integer arithmetic (int: no 64-bit division on the GPU), the same on the host and the device
// (chapters/16_split_k/test.cu's host tests check it).
struct SplitK {
    int tiles, KT, splits;
    __host__ __device__ int units() const { return tiles * splits; }
    __host__ __device__ int tile(int u) const { return u % tiles; }
    __host__ __device__ int slice(int u) const { return u / tiles; }
    // The first k-tile of slice s (s == splits: KT): an even cut, the remainder spread over the
    // first slices.
    __host__ __device__ int k_begin(int s) const {
        const int q = KT / splits, r = KT % splits;
        return q * s + (s < r ? s : r);
    }
};

// How many slices: none while the tiles fill the workers; else enough to fill them, each slice
// at least MIN_SLICE k-tiles deep. A (128, 256) partial, written and read again, moves the bytes of
// about 5.3 k-tiles of loads (chapter 16's README); 8 was set on an estimate of 2 and kept.
constexpr int MIN_SLICE = 8;
inline int choose_splits(long long tiles, int KT, int workers) {
    if (tiles >= workers) return 1;
    const long long by_workers = workers / tiles, by_depth = KT / MIN_SLICE;
    return static_cast<int>(std::max<long long>(1, std::min(by_workers, by_depth)));
}

// The reduction: C (float, or 24's bf16) = alpha * (the sum of the slices' partials) + beta * C, C
// not read when beta == 0. One thread per 4 columns of a row: (M, ldp / 4) float4s of each slice,
// read once from L2 (ld.global.cg: written by the other kernel, never cached in this SM's L1).
template <class T>
static __global__ void __launch_bounds__(256)
    reduce_splits(const float* partials, int ldp, int splits, int M, int N, float alpha, float beta,
                  T* C, int ldc) {
    const int quads = ldp / 4, q = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    if (q >= M * quads) return;  // M * ldp < 2^31: a split product fits in one wave of tiles
    const int row = q / quads, col = 4 * (q % quads);
    const std::size_t slice = static_cast<std::size_t>(M) * ldp;  // floats per slice
    const float* p = partials + static_cast<std::size_t>(row) * ldp + col;
    float4 sum = __ldcg(reinterpret_cast<const float4*>(p));
    for (int s = 1; s < splits; ++s) {
        const float4 v = __ldcg(reinterpret_cast<const float4*>(p + s * slice));
        sum.x += v.x, sum.y += v.y, sum.z += v.z, sum.w += v.w;
    }
    const float v[4] = {sum.x, sum.y, sum.z, sum.w};
    T* c = C + static_cast<long long>(row) * ldc + col;
    for (int e = 0; e < 4 && col + e < N; ++e)
        c[e] = T(beta == 0.0f ? alpha * v[e] : alpha * v[e] + beta * float(c[e]));
}

}  // namespace split_k

// The order in which a 1D grid walks the (BM, BN) tiles of C. Row-major order (group_m = 1) sweeps
// a whole row of tiles before the next: the blocks resident at one time share one A row-panel but
// read every B column-panel. Grouped order walks group_m tile rows column by column, so those
// blocks share group_m A panels and few B panels, which then stay in L2. Measured as a named
// configuration in chapter 10 (GROUP_M); used by the chapters after it.
#pragma once

#include <cuda_runtime.h>

namespace gemm::dev {

struct TileOrigin {
    int m0, n0;  // first row and first column of the block's tile of C
};

// Block `block` of a 1D grid of ceil(M / BM) * ceil(N / BN) blocks -> its tile of C.
__device__ inline TileOrigin grouped_tile(int block, int M, int N, int BM, int BN, int group_m) {
    const int tiles_m = (M + BM - 1) / BM, tiles_n = (N + BN - 1) / BN;
    const int group = block / (group_m * tiles_n);                   // which group of tile rows
    const int in_group = block % (group_m * tiles_n);                // position inside it
    const int group_rows = min(tiles_m - group * group_m, group_m);  // the last group may be short
    return {(group * group_m + in_group % group_rows) * BM, (in_group / group_rows) * BN};
}

}  // namespace gemm::dev

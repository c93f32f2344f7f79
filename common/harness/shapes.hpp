// Tile and wave quantization: how many block tiles a shape needs and how many rounds ("waves") of
// resident blocks the GPU takes to run them. Pure arithmetic, used by tools/shape_sweep and tested
// in the cpu suite; docs/shapes.md explains it.
#pragma once

#include <string>
#include <vector>

namespace gemm {

struct TileModel {
    int BM = 0, BN = 0;         // the block tile of C
    int sms = 0;                // streaming multiprocessors of the GPU
    int blocks_per_sm = 0;      // resident at once (the occupancy calculator's answer)
    long long concurrent() const { return static_cast<long long>(sms) * blocks_per_sm; }
};

struct TileCount {
    long long tiles = 0;    // ceil(M / BM) * ceil(N / BN)
    long long waves = 0;    // ceil(tiles / (SMs * blocks per SM))
    double last_wave = 0;   // the share of the resident slots the last wave fills, (0, 1]
};

inline long long ceil_div(long long a, long long b) {
    return (a + b - 1) / b;
}

inline TileCount tile_count(const TileModel& t, long long M, long long N) {
    TileCount c;
    c.tiles = ceil_div(M, t.BM) * ceil_div(N, t.BN);
    const long long slots = t.concurrent();
    c.waves = c.tiles == 0 ? 0 : ceil_div(c.tiles, slots);
    c.last_wave = c.tiles == 0 ? 0.0 : double(c.tiles - (c.waves - 1) * slots) / double(slots);
    return c;
}

// A point of a sweep where the prediction changes: from x on, one more row or column of tiles
// (tile quantization) or one more wave (wave quantization).
struct Step {
    long long x = 0;
    bool new_wave = false;  // else: new tiles in the same number of waves
    TileCount count;
};

// Walks dimension M (sweep_m) or N from `lo` to `hi` with the other one fixed at `other`, and
// returns every value where the tile count or the wave count steps up, in order.
inline std::vector<Step> quantization_steps(const TileModel& t, bool sweep_m, long long other,
                                            long long lo, long long hi) {
    std::vector<Step> out;
    const long long tile = sweep_m ? t.BM : t.BN;
    if (lo < 1) lo = 1;
    TileCount prev = sweep_m ? tile_count(t, lo, other) : tile_count(t, other, lo);
    // The count can only change right after a multiple of the tile: x = k * tile + 1.
    for (long long x = (lo / tile) * tile + 1; x <= hi; x += tile) {
        if (x <= lo) continue;
        const TileCount c = sweep_m ? tile_count(t, x, other) : tile_count(t, other, x);
        if (c.tiles != prev.tiles) out.push_back({x, c.waves != prev.waves, c});
        prev = c;
    }
    return out;
}

}  // namespace gemm

// The layouts the chapters' figures draw, printed as JSON from the kernels' own index functions
// (host code alone: no GPU needed). tools/figures.py reads this and draws docs/figures/*.svg;
// tests/figures_test.py checks each drawing against it, tests/test_layouts.cu the functions
// against the PTX ISA's layouts.
//
//   layouts            the JSON on stdout
//
// Every number below comes from a function a kernel calls (or, for what the hardware computes,
// the one model of it in common/device/: ldmatrix_elem, mma_*_elem, wgmma_operand_byte,
// swizzle128): nothing here repeats their arithmetic.
#include <cstdio>
#include <string>
#include <vector>

#include "11_mma_ldmatrix/kernel.cuh"
#include "12_wgmma/kernel.cuh"
#include "14_warp_specialized/kernel.cuh"
#include "16_every_shape/kernel.cuh"

namespace {

using gemm::dev::RowCol;

// A JSON writer just big enough for lists of integer rows.
struct Out {
    bool first = true;
    void key(const char* k) {
        std::printf("%s\n  \"%s\": ", first ? "" : ",", k);
        first = false;
    }
    static void rows(const std::vector<std::vector<long long>>& rows) {
        std::printf("[");
        for (size_t i = 0; i < rows.size(); ++i) {
            std::printf("%s[", i ? ",\n    " : "\n    ");
            for (size_t j = 0; j < rows[i].size(); ++j)
                std::printf("%s%lld", j ? ", " : "", rows[i][j]);
            std::printf("]");
        }
        std::printf("]");
    }
};

// Chapter 11's As tile (BK = 64 halves: 8 chunks of 16 bytes a row): [row, chunk, stored chunk].
std::vector<std::vector<long long>> ch11_swizzle(int rows) {
    constexpr int COLS = ch11::configs::b128x256_k64_s3::BK;
    std::vector<std::vector<long long>> out;
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < COLS / ch11::VEC; ++c)
            out.push_back({r, c, (ch11::swizzle<COLS>(r, c) - r * COLS) / ch11::VEC});
    return out;
}

// The (16, 16) block of A one ldmatrix.x4 loads: [lane, register, half, row, col] of the element
// each lane receives, from the lane addresses chapter 11 gives (ldmatrix_x4_address) and what
// ldmatrix does with them (ldmatrix_elem); and [lane, row, chunk] of those addresses.
std::vector<std::vector<long long>> ch11_ldmatrix_a() {
    std::vector<std::vector<long long>> out;
    for (int lane = 0; lane < 32; ++lane)
        for (int i = 0; i < 4; ++i)
            for (int h = 0; h < 2; ++h) {
                const RowCol e = gemm::dev::ldmatrix_elem(lane, h);  // in matrix i
                const RowCol at = ch11::ldmatrix_x4_address(8 * i + e.row);
                out.push_back({lane, i, h, at.row, 8 * at.col + e.col});
            }
    return out;
}
std::vector<std::vector<long long>> ch11_addresses() {
    std::vector<std::vector<long long>> out;
    for (int lane = 0; lane < 32; ++lane) {
        const RowCol at = ch11::ldmatrix_x4_address(lane);
        out.push_back({lane, at.row, at.col});
    }
    return out;
}

// mma.sync m16n8k16's fragments: [lane, register, half, row, col] for A (16, 16), B (16, 8) as
// (k, n), and [lane, element, row, col] for C (16, 8).
std::vector<std::vector<long long>> mma_frag(char which) {
    std::vector<std::vector<long long>> out;
    for (int lane = 0; lane < 32; ++lane) {
        if (which == 'c') {
            for (int e = 0; e < 4; ++e) {
                const RowCol x = gemm::dev::mma_c_elem(lane, e);
                out.push_back({lane, e, x.row, x.col});
            }
            continue;
        }
        for (int i = 0; i < (which == 'a' ? 4 : 2); ++i)
            for (int h = 0; h < 2; ++h) {
                const RowCol x = which == 'a' ? gemm::dev::mma_a_elem(lane, i, h)
                                              : gemm::dev::mma_b_elem(lane, i, h);
                out.push_back({lane, i, h, x.row, x.col});
            }
    }
    return out;
}

// What wgmma reads for one warpgroup's operands in chapter 12, step by step: [step kk, mn, k (0..15
// in the step), byte from the stage's 1024-byte aligned base], for the first `mns` rows of A
// (K-major) or columns of B (MN-major), through the descriptors the kernel builds (a_step, b_step).
std::vector<std::vector<long long>> ch12_operand(sm90::Major major, int mns) {
    std::vector<std::vector<long long>> out;
    for (int kk = 0; kk < ch12::BK / ch12::WGMMA_K; ++kk) {
        const sm90::DescStep s = major == sm90::Major::K ? ch12::a_step(kk) : ch12::b_step(kk);
        for (int mn = 0; mn < mns; ++mn)
            for (int k = 0; k < ch12::WGMMA_K; ++k)
                out.push_back(
                    {kk, mn, k, sm90::wgmma_operand_byte(major, s.offset, s.lbo, s.sbo, mn, k)});
    }
    return out;
}
std::vector<std::vector<long long>> ch12_steps(sm90::Major major) {
    std::vector<std::vector<long long>> out;
    for (int kk = 0; kk < ch12::BK / ch12::WGMMA_K; ++kk) {
        const sm90::DescStep s = major == sm90::Major::K ? ch12::a_step(kk) : ch12::b_step(kk);
        out.push_back({kk, s.offset, s.lbo, s.sbo});
    }
    return out;
}

// A TMA box of 8 rows of 128 bytes landing in the 128-byte swizzle: [row, chunk, stored chunk].
std::vector<std::vector<long long>> tma_box() {
    std::vector<std::vector<long long>> out;
    for (int r = 0; r < 8; ++r)
        for (int c = 0; c < 8; ++c)
            out.push_back({r, c, (sm90::swizzle128(uint32_t(128 * r + 16 * c)) - 128 * r) / 16});
    return out;
}

// The descriptor's fields [first bit, bits] (start, LBO, SBO, swizzle) and chapter 12's first
// A and B descriptors for a stage at shared address 0x400 (A) and 0x8400 (B): [bits 0-31, 32-63].
std::vector<std::vector<long long>> desc_fields() {
    return {{sm90::DESC_START_BIT, sm90::DESC_FIELD_BITS},
            {sm90::DESC_LBO_BIT, sm90::DESC_FIELD_BITS},
            {sm90::DESC_SBO_BIT, sm90::DESC_FIELD_BITS},
            {sm90::DESC_SWIZZLE_BIT, sm90::DESC_SWIZZLE_BITS}};
}
std::vector<std::vector<long long>> desc_examples() {
    std::vector<std::vector<long long>> out;
    const sm90::DescStep a = ch12::a_step(0), b = ch12::b_step(0);
    for (const auto& [base, s] : {std::pair{0x400u, a}, std::pair{0x8400u, b}}) {
        const uint64_t d = sm90::desc_encode(base + s.offset, s.lbo, s.sbo);
        out.push_back({base, s.lbo, s.sbo, (long long)(d & 0xFFFFFFFFu), (long long)(d >> 32)});
    }
    return out;
}

// Chapter 14's barriers: [kt, stage, full parity, empty parity (-1: no wait)] for 3 rounds.
std::vector<std::vector<long long>> ch14_phases() {
    std::vector<std::vector<long long>> out;
    for (int kt = 0; kt < 3 * ch14::STAGES; ++kt)
        out.push_back({kt, ch14::stage_of(kt), ch14::full_parity(kt),
                       kt >= ch14::STAGES ? (long long)ch14::empty_parity(kt) : -1});
    return out;
}

// Chapter 16's stream-K schedule for (tiles_m, tiles_n, KT, max_workers, split): [worker, tile,
// kb, ke] for every unit, in each worker's order, and the schedule's numbers.
struct Example {
    const char* name;
    int tiles_m, tiles_n, KT, max_workers;
    ch16::Split split;
};
void schedule(Out& o, const Example& e) {
    const ch16::Schedule s =
        ch16::make_schedule(e.tiles_m, e.tiles_n, e.KT, e.max_workers, e.split);
    std::vector<std::vector<long long>> units;
    for (int w = 0; w < s.workers; ++w) {
        ch16::WorkerUnits it(s, w);
        ch16::Unit u;
        while (it.next(s, u)) units.push_back({w, u.tile, u.kb, u.ke});
    }
    o.key(e.name);
    std::printf(
        "{\"tiles_m\": %d, \"tiles_n\": %d, \"KT\": %d, \"max_workers\": %d, "
        "\"split\": %d, \"workers\": %d, \"dp_tiles\": %d, \"sk_workers\": %d, \"units\": ",
        s.tiles_m, s.tiles_n, s.KT, e.max_workers, int(e.split), s.workers, s.dp_tiles,
        s.sk_workers);
    Out::rows(units);
    std::printf("}");
}

// The names of chapter 16's enums, by value (a value added without a name here: -Wswitch).
const char* name(ch16::TileKind t) {
    switch (t) {
        case ch16::TileKind::rows64:
            return "rows64";
        case ch16::TileKind::rows128:
            return "rows128";
        case ch16::TileKind::rows256_cluster2:
            return "rows256_cluster2";
        case ch16::TileKind::n128:
            return "n128";
        case ch16::TileKind::n64:
            return "n64";
    }
    return "?";
}
const char* name(ch16::Split s) {
    switch (s) {
        case ch16::Split::data_parallel:
            return "data_parallel";
        case ch16::Split::stream_k:
            return "stream_k";
        case ch16::Split::hybrid:
            return "hybrid";
    }
    return "?";
}
void names(Out& o) {
    using ch16::Split, ch16::TileKind;
    o.key("tile_names");
    std::printf("{");
    int i = 0;
    for (TileKind t : {TileKind::rows64, TileKind::rows128, TileKind::rows256_cluster2,
                       TileKind::n128, TileKind::n64})
        std::printf("%s\"%d\": \"%s\"", i++ ? ", " : "", int(t), name(t));
    std::printf("}");
    o.key("split_names");
    std::printf("{");
    i = 0;
    for (Split s : {Split::data_parallel, Split::stream_k, Split::hybrid})
        std::printf("%s\"%d\": \"%s\"", i++ ? ", " : "", int(s), name(s));
    std::printf("}");
}

// The schedule chapter 16's gemm() runs for (M, N, K) on 132 SMs: the dispatcher's tile and split,
// with workers_of's count of workers (the resident clusters, as the dispatcher assumes).
void chosen(Out& o, int M, int N, int K) {
    const ch16::Plan plan = ch16::choose(M, N, K, 132);
    const int rows = ch16::tile_rows(plan.tile), cols = ch16::tile_cols(plan.tile);
    const std::string key = "streamk_" + std::to_string(M) + "x" + std::to_string(N) + "x" +
                            std::to_string(K) + "_" + name(plan.tile);
    schedule(o, {key.c_str(), (M + rows - 1) / rows, (N + cols - 1) / cols,
                 (K + ch16::BK - 1) / ch16::BK, ch16::workers_of(plan.tile, 132), plan.split});
}

// Chapter 16's dispatcher at one K on `sms` SMs: [M, N, tile kind, split].
std::vector<std::vector<long long>> dispatcher(int K, int sms) {
    std::vector<std::vector<long long>> out;
    for (int M = 64; M <= 16384; M *= 2)
        for (int N = 64; N <= 16384; N *= 2) {
            const ch16::Plan p = ch16::choose(M, N, K, sms);
            out.push_back({M, N, int(p.tile), int(p.split)});
        }
    return out;
}

}  // namespace

int main(int argc, char**) {
    if (argc != 1) {
        std::fprintf(stderr, "usage: layouts   (prints the layouts of the figures as JSON)\n");
        return 2;
    }
    Out o;
    std::printf("{");
    o.key("ch11_swizzle"), Out::rows(ch11_swizzle(16));
    o.key("ch11_ldmatrix_a"), Out::rows(ch11_ldmatrix_a());
    o.key("ch11_addresses"), Out::rows(ch11_addresses());
    o.key("mma_a"), Out::rows(mma_frag('a'));
    o.key("mma_b"), Out::rows(mma_frag('b'));
    o.key("mma_c"), Out::rows(mma_frag('c'));
    o.key("ch12_a"), Out::rows(ch12_operand(sm90::Major::K, 16));
    o.key("ch12_b"), Out::rows(ch12_operand(sm90::Major::MN, 128));
    o.key("ch12_a_steps"), Out::rows(ch12_steps(sm90::Major::K));
    o.key("ch12_b_steps"), Out::rows(ch12_steps(sm90::Major::MN));
    o.key("tma_box"), Out::rows(tma_box());
    o.key("desc_fields"), Out::rows(desc_fields());
    o.key("desc_examples"), Out::rows(desc_examples());
    o.key("ch14_phases"), Out::rows(ch14_phases());
    o.key("ch14_stages"), std::printf("%d", ch14::STAGES);
    // The schedules: a small teaching case (4 workers), then chapter 16's own choices on 132 SMs.
    // The chapter whose schedule (ch16::make_schedule, WorkerUnits) and dispatcher (ch16::choose)
    // these are: the figures' names and titles say it.
    o.key("schedule_chapter"), std::printf("16");
    o.key("dispatcher_chapter"), std::printf("16");
    using ch16::Split;
    schedule(o, {"streamk_small", 3, 3, 8, 4, Split::stream_k});
    schedule(o, {"hybrid_small", 3, 3, 8, 4, Split::hybrid});
    chosen(o, 1024, 1024, 8192);  // 16 cluster tiles for 66 clusters: stream-K at equal depths
    chosen(o, 3072, 3072, 4096);  // 144 cluster tiles: two whole waves and a ragged one
    names(o);
    o.key("dispatcher_K"), std::printf("4096");
    o.key("dispatcher"), Out::rows(dispatcher(4096, 132));
    std::printf("\n}\n");
    return 0;
}

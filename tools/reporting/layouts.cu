// The layouts the chapters' figures draw, printed as JSON from the kernels' own index functions
// (host code alone: no GPU needed). tools/reporting/figures.py reads this and draws
// docs/figures/*.svg; tests/tools/test_figures.py checks each drawing against it,
// chapters 11, 12 and 14's host tests (chapters/NN_slug/test.cu) the functions against the PTX ISA's layouts.
//
//   layouts            the JSON on stdout
//
// Every number below comes from a function a kernel calls (or, for what the hardware computes,
// the one model of it in common/device/: ldmatrix_elem, mma_*_elem, wgmma_operand_byte,
// swizzle128): nothing here repeats their arithmetic.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "11_mma_ldmatrix/kernel.cuh"
#include "12_wgmma/kernel.cuh"
#include "14_warp_specialized/kernel.cuh"
#include "17_stream_k/kernel.cuh"
#include "19_dispatcher/kernel.cuh"

namespace {

using gemm::dev::RowCol;

// A JSON writer just big enough for lists of integer rows.
struct Out {
    bool first = true;
    const char* indent = "  ";
    void key(const char* k) {
        std::printf("%s\n%s\"%s\": ", first ? "" : ",", indent, k);
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

// Chapter 17's stream-K schedule of `tiles` tiles of KT k-tiles on max_workers workers:
// [worker, tile, kb, ke] for every unit, in each worker's order (WorkerUnits), and the schedule's
// numbers (make_schedule). `about`: the shape the example comes from, if any (the figure's title).
void schedule(Out& o, const std::string& key, const std::string& about, int tiles, int KT,
              int max_workers, ch17::Split split) {
    const ch17::Schedule s = ch17::make_schedule(tiles, KT, max_workers, split);
    std::vector<std::vector<long long>> units;
    for (int w = 0; w < s.workers; ++w) {
        ch17::WorkerUnits it(s, w);
        ch17::Unit u;
        while (it.next(s, u)) units.push_back({w, u.tile, u.kb, u.ke});
    }
    o.key(key.c_str());
    std::printf(
        "{\"about\": \"%s\", \"tiles\": %d, \"KT\": %d, \"max_workers\": %d, \"split\": %d, "
        "\"workers\": %d, \"dp_tiles\": %d, \"sk_workers\": %d, \"max_pieces\": %d, "
        "\"units\": ",
        about.c_str(), s.tiles, s.KT, max_workers, int(split), s.workers, s.dp_tiles, s.sk_workers,
        ch17::max_pieces(s));
    Out::rows(units);
    std::printf("}");
}

// The names of the enums, by value (a value added without a name here: -Wswitch).
const char* name(ch17::Split s) {
    switch (s) {
        case ch17::Split::data_parallel:
            return "data_parallel";
        case ch17::Split::stream_k:
            return "stream_k";
        case ch17::Split::equal_depth:
            return "equal_depth";
        case ch17::Split::hybrid:
            return "hybrid";
    }
    return "?";
}
const char* name(ch19::Kernel k) {
    switch (k) {
        case ch19::Kernel::whole:
            return "whole";
        case ch19::Kernel::split_k:
            return "split_k";
        case ch19::Kernel::stream_k:
            return "stream_k";
        case ch19::Kernel::hybrid:
            return "hybrid";
    }
    return "?";
}
const char* name(ch19::Tile t) {
    switch (t) {
        case ch19::Tile::cluster2:
            return "cluster2";
        case ch19::Tile::rows128:
            return "rows128";
        case ch19::Tile::n128:
            return "n128";
        case ch19::Tile::n64:
            return "n64";
    }
    return "?";
}
template <class E, size_t N>
void names(Out& o, const char* key, const E (&all)[N]) {
    o.key(key);
    std::printf("{");
    for (size_t i = 0; i < N; ++i)
        std::printf("%s\"%d\": \"%s\"", i ? ", " : "", int(all[i]), name(all[i]));
    std::printf("}");
}

// A worked example of chapter 17's README on 132 SMs: (M, N, K) in chapter 17's tile Cfg (the
// tiles of chapter 19's Tile t: ch19::tile_rows, tile_cols), on as many workers as chapter 19
// assumes resident (ch19::workers_of: clusters of two, one per two SMs).
template <class Cfg>
void shape(Out& o, int M, int N, int K, ch19::Tile t, ch17::Split split) {
    if (Cfg::CLUSTER * Cfg::BM != ch19::tile_rows(t) || Cfg::BN != ch19::tile_cols(t)) {
        std::fprintf(stderr, "layouts: chapter 17's Config and ch19 tile %s differ\n", name(t));
        std::exit(1);
    }
    const int rows = ch19::tile_rows(t), cols = ch19::tile_cols(t);
    const std::string dims = std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K);
    const std::string about = std::to_string(M) + " x " + std::to_string(N) + " x " +
                              std::to_string(K) + ", " + name(t) + " tiles, 132 SMs";
    schedule(o, std::string(name(split)) + "_" + dims + "_" + name(t), about,
             ((M + rows - 1) / rows) * ((N + cols - 1) / cols), (K + ch17::BK - 1) / ch17::BK,
             ch19::workers_of(t, 132), split);
}

// Chapter 19's gemm() at one K on `sms` SMs: [M, N, sent to chapter 18 (small_m), kernel, tile]
// (the kernel and tile choose() would give, drawn only where small_m is 0).
std::vector<std::vector<long long>> dispatcher(int K, int sms) {
    std::vector<std::vector<long long>> out;
    for (int M = 16; M <= 16384; M *= 2)
        for (int N = 64; N <= 16384; N *= 2) {
            const ch19::Plan p = ch19::choose(M, N, K, sms);
            out.push_back({M, N, ch19::small_m(M, N, K, sms) ? 1 : 0, int(p.kernel), int(p.tile)});
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
    // Chapter 17's schedules (make_schedule, WorkerUnits): the three its README draws, then its
    // worked examples on 132 SMs (the README's table; chapters/17_stream_k/test.cu checks both
    // there). Chapter 19's dispatcher (small_m, choose). The figures' names and titles say the
    // chapters.
    o.key("schedule_chapter"), std::printf("17");
    o.key("dispatcher_chapter"), std::printf("19");
    using ch17::Split;
    using T = ch19::Tile;
    namespace c = ch17::configs;
    o.key("schedules"), std::printf("{");
    {
        Out s;
        s.indent = "    ";
        schedule(s, "stream_k_small", "", 5, 8, 4, Split::stream_k);
        schedule(s, "equal_depth_small", "", 3, 24, 7, Split::equal_depth);
        schedule(s, "hybrid_small", "", 8, 12, 3, Split::hybrid);
        shape<c::rows128>(s, 128, 8192, 8192, T::rows128, Split::hybrid);
        shape<c::rows128>(s, 128, 8192, 8192, T::rows128, Split::stream_k);
        shape<c::cluster2>(s, 1024, 1024, 32768, T::cluster2, Split::hybrid);
        shape<c::n64>(s, 64, 64, 262144, T::n64, Split::hybrid);
        shape<c::cluster2>(s, 4096, 4096, 4096, T::cluster2, Split::hybrid);
        shape<c::cluster2>(s, 2304, 2048, 1024, T::cluster2, Split::hybrid);
    }
    std::printf("}");
    names(o, "split_names",
          {Split::data_parallel, Split::stream_k, Split::equal_depth, Split::hybrid});
    names(
        o, "kernel_names",
        {ch19::Kernel::whole, ch19::Kernel::split_k, ch19::Kernel::stream_k, ch19::Kernel::hybrid});
    names(o, "tile_names", {T::cluster2, T::rows128, T::n128, T::n64});
    o.key("dispatcher_K"), std::printf("4096");
    o.key("dispatcher"), Out::rows(dispatcher(4096, 132));
    std::printf("\n}\n");
    return 0;
}

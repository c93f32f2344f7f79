// Sweeps one dimension of the GEMM shape for one GPU chapter and cuBLAS: the same checks and
// timing as a chapter run (it is one: run_gpu_chapter over the swept shapes, writing its CSV),
// then a second CSV of the chapter's predicted tile and wave steps where the tool knows the
// chapter's tile (chapters 10 and 11); tools/reporting/plot.py draws GFLOPS against the swept dimension
// with the steps on it. See docs/shapes.md.
//   build/tools/shape_sweep --chapter 10 --m 5120 --n 33700:33720:2 --k 1024 [--reps 10] [--out
//   DIR]
#include <cstdio>
#include <functional>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "10_wmma_double_buffered/configs.hpp"  // the tile models of chapters 10 and 11
#include "11_mma_ldmatrix/configs.hpp"
#include "gpu_chapter_kernels.cuh"  // generated from chapters/chapters.txt
#include "harness_gpu.cuh"
#include "shapes.hpp"

namespace {

using gemm::UsageError;

// The tile model of the configuration a chapter's gemm picks for (M, N, K) with tight leading
// dimensions on the current device, or false when the tool does not know the chapter's tile.
using TileFn = std::function<bool(long long M, long long N, long long K, gemm::TileModel&)>;

struct Entry {
    const char* id;
    std::function<int(int, char**, const gemm::ChapterInfo&)> run;
    TileFn tiles;  // empty: no tile marks
};

int device_attr(cudaDeviceAttr a) {
    int dev = 0, v = 0;
    GEMM_CUDA_CHECK(cudaGetDevice(&dev));
    GEMM_CUDA_CHECK(cudaDeviceGetAttribute(&v, a, dev));
    return v;
}

// BM, BN of Cfg and how many of `kernel`'s blocks fit on one SM with Cfg's threads and memory.
template <class Cfg, class Kernel>
gemm::TileModel model(Kernel kernel) {
    GEMM_CUDA_CHECK(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, Cfg::SMEM_BYTES));
    int blocks = 0;
    GEMM_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, Cfg::THREADS,
                                                                  Cfg::SMEM_BYTES));
    return {Cfg::BM, Cfg::BN, device_attr(cudaDevAttrMultiProcessorCount), blocks};
}

// The tile of the configuration chapter 10's or 11's gemm() picks, asked of the chapter itself
// (chapters/<id>/configs.hpp: chosen_kernel, over choose_config) for tight leading dimensions
// lda = K, ldb = N: 16-byte copies when both are multiples of 8.
template <class ChosenKernel>
bool chosen_tiles(ChosenKernel chosen, long long N, long long K, gemm::TileModel& t) {
    chosen(K % 8 == 0 && N % 8 == 0,
           [&](auto cfg, auto kernel) { t = model<decltype(cfg)>(kernel); });
    return true;
}

bool ch10_tiles(long long, long long N, long long K, gemm::TileModel& t) {
    return chosen_tiles([](bool vec, auto fn) { ch10::facts::chosen_kernel(vec, fn); }, N, K, t);
}

bool ch11_tiles(long long, long long N, long long K, gemm::TileModel& t) {
    return chosen_tiles([](bool vec, auto fn) { ch11::facts::chosen_kernel(vec, fn); }, N, K, t);
}

template <class Fn>
std::function<int(int, char**, const gemm::ChapterInfo&)> runner(Fn fn) {
    return [fn](int argc, char** argv, const gemm::ChapterInfo& info) {
        return gemm::run_gpu_chapter(argc, argv, info, fn);
    };
}

// Every chapter of the list built for all GPUs (chapters/chapters.txt, through the generated
// header); the tile model where the tool knows the chapter's tile choice.
const std::vector<Entry>& registry() {
    static const std::vector<Entry> r = [] {
        std::vector<Entry> v;
        gemm::for_each_chapter([&](const char* id, auto fn) {
            const std::string name = id;
            TileFn tiles;
            if (name.rfind("10_", 0) == 0) tiles = ch10_tiles;
            if (name.rfind("11_", 0) == 0) tiles = ch11_tiles;
            v.push_back({id, runner(fn), tiles});
        });
        return v;
    }();
    return r;
}

// One dimension: "5120", "128:8192:128" (LO:HI[:STEP], step 1 by default) or "100,200,300".
struct Dim {
    std::vector<long long> values;
    bool swept = false;
};

long long parse_count(const std::string& what, const std::string& text) {
    std::size_t used = 0;
    long long v = 0;
    try {
        v = std::stoll(text, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used != text.size() || text.empty())
        throw UsageError(what + ": expected a whole number, got '" + text + "'");
    if (v < 0) throw UsageError(what + ": sizes cannot be negative, got " + text);
    if (v > 2000000000) throw UsageError(what + ": " + text + " is larger than this tool takes");
    return v;
}

Dim parse_dim(const std::string& name, const std::string& text) {
    Dim d;
    if (text.find(':') != std::string::npos) {
        std::vector<std::string> parts;
        std::stringstream s(text);
        for (std::string p; std::getline(s, p, ':');) parts.push_back(p);
        if (parts.size() < 2 || parts.size() > 3)
            throw UsageError(name + " '" + text + "': a range is LO:HI or LO:HI:STEP");
        const long long lo = parse_count(name, parts[0]), hi = parse_count(name, parts[1]);
        const long long step = parts.size() == 3 ? parse_count(name, parts[2]) : 1;
        if (step == 0) throw UsageError(name + " '" + text + "': the step must be at least 1");
        if (lo > hi) throw UsageError(name + " '" + text + "': LO is larger than HI");
        if ((hi - lo) / step >= 4096)
            throw UsageError(name + " '" + text + "': more than 4096 shapes; use a larger step");
        for (long long v = lo; v <= hi; v += step) d.values.push_back(v);
        d.swept = true;
    } else if (text.find(',') != std::string::npos) {
        std::stringstream s(text);
        for (std::string p; std::getline(s, p, ',');) d.values.push_back(parse_count(name, p));
        d.swept = true;
    } else {
        d.values.push_back(parse_count(name, text));
    }
    return d;
}

struct Sweep {
    const Entry* chapter = nullptr;
    Dim m, n, k;
    std::vector<std::string> passthrough;  // --reps, --warmup, --seed, --out, --check, ...
    std::string out_dir = "plots/latest";
    std::string name;  // of the CSV and the chart; default sweep_<chapter>_<dim>
};

const Entry& find_chapter(const std::string& name) {
    for (const Entry& e : registry()) {
        const std::string id = e.id;
        if (id == name || id.substr(0, 2) == name) return e;
    }
    std::string all;
    for (const Entry& e : registry()) all += std::string(all.empty() ? "" : ", ") + e.id;
    throw UsageError("--chapter '" + name + "': not a chapter this tool runs (" + all + ")");
}

const char* kUsage =
    "Usage: shape_sweep --chapter CH --m M --n N --k K [chapter options]\n"
    "Times one GPU chapter and cuBLAS over a range of shapes, checking each, and writes\n"
    "OUT/NAME.csv (the run) and OUT/NAME.steps.csv (the predicted steps); NAME is --name, by\n"
    "default sweep_<chapter>_<dim>. `tools/reporting/plot.py OUT` draws GFLOPS against the swept\n"
    "dimension with the steps on it.\n\n"
    "  --chapter CH     a GPU chapter built for every architecture: its number or full name\n"
    "  --m, --n, --k    a size (5120), a range LO:HI[:STEP] (33700:33720:2) or a list (a,b,c);\n"
    "                   one of the three may be a range or a list\n"
    "  other options    as for a chapter binary: --reps --warmup --seed --check --out --device\n"
    "                   --no-baseline --alpha --beta (see its --help)\n\n"
    "Chapters 10 and 11 also get their predicted tile and wave steps (block\n"
    "tile of the configuration their gemm picks, blocks per SM from the occupancy calculator,\n"
    "SMs of the device). Exit: 0 every shape passed its check, 1 one failed, 2 bad usage, 77 no "
    "GPU.\n";

Sweep parse(int argc, char** argv) {
    Sweep s;
    bool have_m = false, have_n = false, have_k = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) throw UsageError(a + " needs a value");
            return argv[++i];
        };
        if (a == "--chapter") {
            s.chapter = &find_chapter(value());
        } else if (a == "--m") {
            s.m = parse_dim("--m", value()), have_m = true;
        } else if (a == "--n") {
            s.n = parse_dim("--n", value()), have_n = true;
        } else if (a == "--k") {
            s.k = parse_dim("--k", value()), have_k = true;
        } else if (a == "--sizes" || a == "--grade" || a == "--remote") {
            throw UsageError(a + ": the sweep chooses the shapes (--m, --n, --k)");
        } else if (a == "--name") {
            s.name = value();
            if (s.name.empty() || s.name.find('/') != std::string::npos)
                throw UsageError("--name '" + s.name + "': expected a file name without '/'");
        } else if (a == "--out") {
            s.out_dir = value();
            s.passthrough.push_back(a), s.passthrough.push_back(s.out_dir);
        } else {
            s.passthrough.push_back(a);  // the chapter binary's own parser judges the rest
        }
    }
    if (!s.chapter) throw UsageError("--chapter is required (see --help)");
    if (!have_m || !have_n || !have_k) throw UsageError("--m, --n and --k are all required");
    if (int(s.m.swept) + int(s.n.swept) + int(s.k.swept) > 1)
        throw UsageError("only one of --m, --n, --k may be a range or a list");
    return s;
}

}  // namespace

int main(int argc, char** argv) {
    for (int i = 1; i < argc; ++i)
        if (std::string(argv[i]) == "--help" || std::string(argv[i]) == "-h") {
            std::cout << kUsage;
            return 0;
        }
    Sweep s;
    try {
        s = parse(argc, argv);
    } catch (const UsageError& e) {
        std::cerr << "shape_sweep: error: " << e.what() << "\n(run shape_sweep --help for usage)\n";
        return 2;
    }
    const char dim = s.m.swept ? 'M' : s.n.swept ? 'N' : s.k.swept ? 'K' : 'M';
    const Dim& swept = dim == 'M' ? s.m : dim == 'N' ? s.n : s.k;
    std::string sizes;
    std::vector<gemm::Shape> shapes;
    for (long long v : swept.values) {
        const gemm::Shape sh(int(dim == 'M' ? v : s.m.values[0]),
                             int(dim == 'N' ? v : s.n.values[0]),
                             int(dim == 'K' ? v : s.k.values[0]));
        shapes.push_back(sh);
        sizes += (sizes.empty() ? "" : ",") + std::to_string(sh.M) + "x" + std::to_string(sh.N) +
                 "x" + std::to_string(sh.K);
    }
    // The measurement is a chapter run over the shapes: its checks, timing, table and CSV.
    const std::string id =
        !s.name.empty() ? s.name
                        : std::string("sweep_") + s.chapter->id + "_" + char(std::tolower(dim));
    std::vector<std::string> args = {argv[0], "--sizes", sizes};
    args.insert(args.end(), s.passthrough.begin(), s.passthrough.end());
    std::vector<char*> cargs;
    for (std::string& a : args) cargs.push_back(a.data());
    const int rc = s.chapter->run(int(cargs.size()), cargs.data(),
                                  {id, std::string("shape sweep of ") + s.chapter->id, 75, {}});
    if (rc == 2 || rc == 77) return rc;

    // The predicted steps, for tools/reporting/plot.py to draw over the run's CSV: one row per step, or one
    // row with the step columns empty when there is none (or no tile model for the chapter).
    try {
        std::ostringstream steps;
        steps << "chapter,swept,BM,BN,sms,blocks_per_sm,x,tiles,waves,new_wave\n";
        const std::string who = std::string(s.chapter->id) + "," + dim + ",";
        gemm::TileModel t;
        std::vector<gemm::Step> found;
        if (dim != 'K' && s.chapter->tiles &&
            s.chapter->tiles(shapes[0].M, shapes[0].N, shapes[0].K, t) && t.blocks_per_sm > 0) {
            const long long other = dim == 'M' ? shapes[0].N : shapes[0].M;
            const long long lo = swept.values.front(), hi = swept.values.back();
            found = gemm::quantization_steps(t, dim == 'M', other, lo, hi);
            const std::string model = who + std::to_string(t.BM) + "," + std::to_string(t.BN) +
                                      "," + std::to_string(t.sms) + "," +
                                      std::to_string(t.blocks_per_sm) + ",";
            std::ostringstream lines;
            for (const gemm::Step& st : found) {
                steps << model << st.x << "," << st.count.tiles << "," << st.count.waves << ","
                      << (st.new_wave ? "true" : "false") << "\n";
                lines << "  " << dim << " = " << st.x << ": " << st.count.tiles << " tiles, "
                      << st.count.waves << (st.new_wave ? " waves (one more)\n" : " waves\n");
            }
            if (found.empty()) steps << model << ",,,\n";
            const gemm::TileCount first =
                dim == 'M' ? gemm::tile_count(t, lo, other) : gemm::tile_count(t, other, lo);
            std::cout << "\ntile model of " << s.chapter->id << ": " << t.BM << "x" << t.BN
                      << " tiles, " << t.blocks_per_sm << " block(s) per SM x " << t.sms
                      << " SMs = " << t.concurrent() << " at once; at " << dim << " = " << lo
                      << ": " << first.tiles << " tiles in " << first.waves << " wave(s)\n"
                      << (found.empty() ? "  no step in this range\n" : lines.str());
        } else {
            steps << who << ",,,,,,,\n";
        }
        const std::string path = s.out_dir + "/" + id + ".steps.csv";
        gemm::write_text(path, steps.str());
        std::cout << "wrote " << path << " (tools/reporting/plot.py " << s.out_dir << " draws GFLOPS against "
                  << dim << (found.empty() ? "" : " with the predicted tile and wave steps")
                  << ")\n";
    } catch (const std::exception& e) {
        std::cerr << "shape_sweep: error: " << e.what() << "\n";
        return 1;
    }
    return rc;
}

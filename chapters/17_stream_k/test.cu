// Chapter 17's tests. On the GPU (gpu_17_stream_k; SKIP without one): its gemm() against the
// double-precision reference on the shapes of tests/cases.hpp and of its TMA paths, each named
// configuration on the shapes that take every path of the split (tests/split_checks.cuh), the
// parallel fix-up (gemm_cfg's PARALLEL) on the same shapes and on tiles of 2, 3 and many pieces,
// and the fix-up's waits with fewer SMs than the grid was sized for and on two streams at once. On
// the host alone (TEST_SUITE "host", run as host_17_stream_k on any machine): every schedule hands
// every k-tile of every tile to exactly one unit, the fix-up finds every piece, and the parallel
// fix-up's shares cover each band once; the README's
// worked examples and figures are the schedule's.
#define DOCTEST_CONFIG_IMPLEMENT
#include <cuda.h>
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "gpu_checks.cuh"
#include "kernel.cuh"
#include "split_checks.cuh"

TEST_CASE("17_stream_k") {
    gemm_tests::check_chapter(ch17::gemm, true);
}

using gemm_tests::check_chapter;
using gemm_tests::check_split_paths;

namespace {

// ---- no deadlock: fewer SMs than the grid was sized for, and two calls at once
// ------------------- Chapter 17's in-kernel fix-up never waits (the last piece of a tile adds the
// others), so a grid sized for the whole GPU must finish on any number of SMs. These tests run it
// where only part of the GPU is there: in a green context of 16 SMs, and beside another large call
// on a second stream.

// The driver entry points (the program does not link against libcuda, like sm90.cuh).
template <class Fn>
Fn driver(const char* name) {
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult q{};
    GEMM_CUDA_CHECK(cudaGetDriverEntryPointByVersion(name, &fn, 12040, cudaEnableDefault, &q));
    REQUIRE_MESSAGE(fn != nullptr, name << " not found in the driver (needs CUDA 12.4+)");
    return reinterpret_cast<Fn>(fn);
}
#define DRV(call) REQUIRE_MESSAGE((call) == CUDA_SUCCESS, #call)

#if CUDA_VERSION >= 12040  // for the green-context test alone (below)
// Which SM each block ran on (%smid).
__global__ void record_smid(unsigned* out) {
    unsigned id;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
    if (threadIdx.x == 0) out[blockIdx.x] = id;
    // Long enough that the blocks cannot all run on one SM one after the other unnoticed.
    for (volatile int i = 0; i < 20000; ++i) {
    }
}
std::set<unsigned> sms_used(cudaStream_t stream) {
    const int blocks = 4096;
    unsigned* d = nullptr;
    GEMM_CUDA_CHECK(cudaMalloc(&d, blocks * sizeof(unsigned)));
    record_smid<<<blocks, 128, 0, stream>>>(d);
    GEMM_CUDA_CHECK_LAUNCH();
    std::vector<unsigned> h(blocks);
    GEMM_CUDA_CHECK(cudaStreamSynchronize(stream));
    GEMM_CUDA_CHECK(cudaMemcpy(h.data(), d, blocks * sizeof(unsigned), cudaMemcpyDeviceToHost));
    GEMM_CUDA_CHECK(cudaFree(d));
    return std::set<unsigned>(h.begin(), h.end());
}

cudaStream_t g_stream = nullptr;  // the stream the wrappers below call on, not the harness's
template <class Cfg, ch17::Split SPLIT, bool PARALLEL = false>
void on_stream(int M, int N, int K, float alpha, const __half* A, int lda, const __half* B, int ldb,
               float beta, float* C, int ldc, cudaStream_t) {
    ch17::gemm_cfg<Cfg, SPLIT, PARALLEL>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, g_stream);
    GEMM_CUDA_CHECK(cudaStreamSynchronize(g_stream));
}
#endif

// The parallel fix-up, with the stream's partials poisoned (NaN) before the call: a share added
// before all of its pieces are written (a missing wait) puts NaN into C; a share missed leaves C's
// NaN poison (beta == 0) or its old value; a share added twice applies beta twice. 64 MB: more
// than any call's partials (132 workers x 2 x (128, 256) fp32 = 35 MB), so the call reuses them.
template <class Cfg, ch17::Split SPLIT>
void parallel_poisoned(int M, int N, int K, float alpha, const __half* A, int lda, const __half* B,
                       int ldb, float beta, float* C, int ldc, cudaStream_t stream) {
    const std::size_t bytes = std::size_t(64) << 20;
    GEMM_CUDA_CHECK(
        cudaMemsetAsync(launch::workspace_for<float>(bytes, stream), 0xff, bytes, stream));
    ch17::gemm_cfg<Cfg, SPLIT, true>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, stream);
}

// The pieces of the split tiles of (M, N, K) as gemm_cfg<Cfg, SPLIT, true> cuts them on this GPU.
template <class Cfg>
std::set<int> pieces_of(const gemm::Problem& p, ch17::Split split) {
    const int resident = ch17::resident_clusters(ch17::stream_k_kernel<Cfg, true>, Cfg::CLUSTER,
                                                 Cfg::THREADS, Cfg::SMEM_BYTES);
    const ch17::Schedule s =
        ch17::make_schedule(ch17::tile_count<Cfg>(p.shape.M, p.shape.N),
                            (p.shape.K + ch17::BK - 1) / ch17::BK, resident, split);
    std::set<int> out;
    for (int t = s.dp_tiles; t < s.tiles; ++t)
        if (s.last_worker(t) > s.first_worker(t))
            out.insert(s.last_worker(t) - s.first_worker(t) + 1);
    return out;
}

// The shapes whose tiles have several pieces added in the kernel (the host tests below:
// 128 x 8192 x 8192 and 1024 x 1024 x 32768, 4 pieces; 4096^3 hybrid, 2), one through
// reduce_partials.
const gemm::Problem waiting_cases[] = {
    gemm_tests::make(128, 8192, 8192, 0, 0, 0, 1.0f, 0.5f),
    gemm_tests::make(1024, 1024, 32768),
    gemm_tests::make(4096, 4096, 4096),
    gemm_tests::make(64, 64, 65536, 0, 0, 0, 2.0f, -1.0f),
};

// A (M, K) x (K, N) product computed with fp16 inputs from a fixed seed, and a few entries of C
// against a double-precision dot product.
struct Product {
    int M, N, K;
    __half *A = nullptr, *B = nullptr;
    float* C = nullptr;
    std::vector<__half> hA, hB;
    Product(int m, int n, int k, unsigned seed)
        : M(m), N(n), K(k), hA(size_t(m) * k), hB(size_t(k) * n) {
        std::mt19937 rng(seed);
        std::uniform_real_distribution<float> u(-1.0f, 1.0f);
        for (auto& x : hA) x = __float2half(u(rng));
        for (auto& x : hB) x = __float2half(u(rng));
        GEMM_CUDA_CHECK(cudaMalloc(&A, hA.size() * sizeof(__half)));
        GEMM_CUDA_CHECK(cudaMalloc(&B, hB.size() * sizeof(__half)));
        GEMM_CUDA_CHECK(cudaMalloc(&C, size_t(M) * N * sizeof(float)));
        GEMM_CUDA_CHECK(cudaMemcpy(A, hA.data(), hA.size() * 2, cudaMemcpyHostToDevice));
        GEMM_CUDA_CHECK(cudaMemcpy(B, hB.data(), hB.size() * 2, cudaMemcpyHostToDevice));
        GEMM_CUDA_CHECK(cudaMemset(C, 0xff, size_t(M) * N * sizeof(float)));  // NaN
    }
    ~Product() { cudaFree(A), cudaFree(B), cudaFree(C); }
    // 256 entries, spread over C, within 1e-3 * sqrt(K) of the exact sum (fp32 accumulation).
    void check() const {
        std::vector<float> hC(size_t(M) * N);
        GEMM_CUDA_CHECK(
            cudaMemcpy(hC.data(), C, hC.size() * sizeof(float), cudaMemcpyDeviceToHost));
        std::mt19937 rng(7);
        for (int s = 0; s < 256; ++s) {
            const int i = int(rng() % unsigned(M)), j = int(rng() % unsigned(N));
            double ref = 0.0;
            for (int k = 0; k < K; ++k)
                ref += double(__half2float(hA[size_t(i) * K + k])) *
                       __half2float(hB[size_t(k) * N + j]);
            CAPTURE(i);
            CAPTURE(j);
            CHECK(std::fabs(hC[size_t(i) * N + j] - ref) <= 1e-3 * std::sqrt(double(K)));
        }
    }
};

}  // namespace

TEST_SUITE("no deadlock") {
#if CUDA_VERSION >= 12040  // green contexts (cuGreenCtxCreate) came with CUDA 12.4
    TEST_CASE("17_stream_k in a green context of 16 SMs, the grid sized for the whole GPU") {
        int dev = 0, sms = 0;
        GEMM_CUDA_CHECK(cudaGetDevice(&dev));
        GEMM_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
        // First on the whole GPU: the chapter sizes its grid (resident clusters) once, here.
        for (const gemm::Problem& p : waiting_cases) {
            CAPTURE(gemm_tests::name(p));
            CHECK(gemm::check_gpu_gemm(ch17::gemm_cfg<ch17::configs::rows128>, p).pass);
            CHECK(gemm::check_gpu_gemm(ch17::gemm_cfg<ch17::configs::cluster2>, p).pass);
        }
        GEMM_CUDA_CHECK(cudaDeviceSynchronize());
        auto get_resource = driver<CUresult (*)(CUdevice, CUdevResource*, CUdevResourceType)>(
            "cuDeviceGetDevResource");
        auto split =
            driver<CUresult (*)(CUdevResource*, unsigned*, const CUdevResource*, CUdevResource*,
                                unsigned, unsigned)>("cuDevSmResourceSplitByCount");
        auto gen_desc = driver<CUresult (*)(CUdevResourceDesc*, CUdevResource*, unsigned)>(
            "cuDevResourceGenerateDesc");
        auto create = driver<CUresult (*)(CUgreenCtx*, CUdevResourceDesc, CUdevice, unsigned)>(
            "cuGreenCtxCreate");
        auto to_ctx = driver<CUresult (*)(CUcontext*, CUgreenCtx)>("cuCtxFromGreenCtx");
        auto get_current = driver<CUresult (*)(CUcontext*)>("cuCtxGetCurrent");
        auto set_current = driver<CUresult (*)(CUcontext)>("cuCtxSetCurrent");
        auto destroy = driver<CUresult (*)(CUgreenCtx)>("cuGreenCtxDestroy");
        CUdevResource all{}, part{}, rest{};
        DRV(get_resource(CUdevice(dev), &all, CU_DEV_RESOURCE_TYPE_SM));
        unsigned groups = 1;
        DRV(split(&part, &groups, &all, &rest, 0, 16));
        REQUIRE(groups == 1);
        MESSAGE("green context: " << part.sm.smCount << " of " << all.sm.smCount << " SMs");
        REQUIRE(part.sm.smCount < unsigned(sms));
        CUdevResourceDesc desc{};
        DRV(gen_desc(&desc, &part, 1));
        CUgreenCtx green{};
        DRV(create(&green, desc, CUdevice(dev), CU_GREEN_CTX_DEFAULT_STREAM));
        CUcontext primary{}, ctx{};
        DRV(get_current(&primary));
        DRV(to_ctx(&ctx, green));
        DRV(set_current(ctx));
        GEMM_CUDA_CHECK(cudaStreamCreate(&g_stream));  // ordered after the harness's copies
        // The green context really restricts the SMs: 4096 blocks land on at most its count.
        const std::set<unsigned> used = sms_used(g_stream);
        MESSAGE("blocks ran on " << used.size() << " SMs");
        CHECK(used.size() <= part.sm.smCount);
        // The kernels' shared-memory opt-in, for this context (the first call set it for the
        // primary one; the grid size it looked up stays the whole GPU's).
        auto opt_in = [](auto kernel, int bytes) {
            GEMM_CUDA_CHECK(
                cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
        };
        opt_in(ch17::stream_k_kernel<ch17::configs::rows128>, ch17::configs::rows128::SMEM_BYTES);
        opt_in(ch17::stream_k_kernel<ch17::configs::cluster2>, ch17::configs::cluster2::SMEM_BYTES);
        opt_in(ch17::stream_k_kernel<ch17::configs::rows128, true>,
               ch17::configs::rows128::SMEM_BYTES);
        opt_in(ch17::stream_k_kernel<ch17::configs::cluster2, true>,
               ch17::configs::cluster2::SMEM_BYTES);
        // The parallel fix-up waits; here the stream has 16 SMs, so gemm_cfg must see it and take
        // the last piece's fix-up (a wait with the whole GPU's grid on 16 SMs would hang: so
        // REQUIRE, the parallel calls below run only when gemm_cfg can see the 16).
        REQUIRE(launch::stream_sms(g_stream) == int(part.sm.smCount));
        const gemm::GpuGemmF16 fns[] = {
            on_stream<ch17::configs::rows128, ch17::Split::hybrid>,
            on_stream<ch17::configs::cluster2, ch17::Split::hybrid>,
            on_stream<ch17::configs::rows128, ch17::Split::hybrid, true>,
            on_stream<ch17::configs::cluster2, ch17::Split::hybrid, true>};
        for (const gemm::Problem& p : waiting_cases)
            for (const gemm::GpuGemmF16 fn : fns) {
                CAPTURE(gemm_tests::name(p));
                const gemm::CheckResult r = gemm::check_gpu_gemm(fn, p);
                CHECK_MESSAGE(r.pass, r.summary());
            }
        GEMM_CUDA_CHECK(cudaStreamDestroy(g_stream));
        g_stream = nullptr;
        DRV(set_current(primary));
        DRV(destroy(green));
    }
#else
    TEST_CASE("17_stream_k in a green context of 16 SMs (needs CUDA 12.4 or newer)") {
        FAIL("built with CUDA "
             << CUDA_VERSION
             << ": green contexts need 12.4; build this test "
                "with a newer toolkit to run the no-deadlock check with fewer SMs");
    }
#endif
    TEST_CASE("17_stream_k, two large calls at once on two streams") {
        cudaStream_t s1, s2;
        GEMM_CUDA_CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
        GEMM_CUDA_CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
        Product p1(128, 8192, 8192, 1), p2(1024, 1024, 32768, 2);
        for (int round = 0; round < 3; ++round) {
            ch17::gemm(p1.M, p1.N, p1.K, 1.0f, p1.A, p1.K, p1.B, p1.N, 0.0f, p1.C, p1.N, s1);
            ch17::gemm(p2.M, p2.N, p2.K, 1.0f, p2.A, p2.K, p2.B, p2.N, 0.0f, p2.C, p2.N, s2);
        }
        GEMM_CUDA_CHECK(cudaStreamSynchronize(s1));
        GEMM_CUDA_CHECK(cudaStreamSynchronize(s2));
        p1.check();
        p2.check();
        GEMM_CUDA_CHECK(cudaStreamDestroy(s1));
        GEMM_CUDA_CHECK(cudaStreamDestroy(s2));
    }
}

TEST_SUITE("17_stream_k") {
    TEST_CASE("17_stream_k, the chapter's gemm on the split shapes") {
        check_split_paths(ch17::gemm);
    }
    TEST_CASE("17_stream_k, cluster2 stream_k (scattered ranges)") {
        auto fn = ch17::gemm_cfg<ch17::configs::cluster2, ch17::Split::stream_k>;
        check_chapter(fn, true);
        check_split_paths(fn);
    }
    TEST_CASE("17_stream_k, cluster2 equal_depth") {
        check_split_paths(ch17::gemm_cfg<ch17::configs::cluster2, ch17::Split::equal_depth>);
    }
    TEST_CASE("17_stream_k, cluster2 hybrid") {
        auto fn = ch17::gemm_cfg<ch17::configs::cluster2, ch17::Split::hybrid>;
        check_chapter(fn, true);
        check_split_paths(fn);
    }
    TEST_CASE("17_stream_k, rows128 stream_k") {
        check_split_paths(ch17::gemm_cfg<ch17::configs::rows128, ch17::Split::stream_k>);
    }
    TEST_CASE("17_stream_k, n128 hybrid") {
        auto fn = ch17::gemm_cfg<ch17::configs::n128, ch17::Split::hybrid>;
        check_chapter(fn, true);
        check_split_paths(fn);
    }
    TEST_CASE("17_stream_k, n64 stream_k") {
        auto fn = ch17::gemm_cfg<ch17::configs::n64, ch17::Split::stream_k>;
        check_chapter(fn, true);
        check_split_paths(fn);
    }
}

TEST_SUITE("17_stream_k parallel fix-up") {
    using ch17::Split;
    namespace cfg = ch17::configs;
    // Without the whole GPU on the stream, gemm_cfg takes the last piece's fix-up: these tests
    // would not run the parallel one.
    TEST_CASE("17_stream_k, parallel: the stream has every SM") {
        CHECK(launch::stream_sms(0) == launch::sm_count());
    }
    TEST_CASE("17_stream_k, parallel: cluster2 hybrid") {
        auto fn = parallel_poisoned<cfg::cluster2, Split::hybrid>;
        check_chapter(fn, true);
        check_split_paths(fn);
    }
    TEST_CASE("17_stream_k, parallel: rows128 stream_k") {
        auto fn = parallel_poisoned<cfg::rows128, Split::stream_k>;
        check_chapter(fn, true);
        check_split_paths(fn);
    }
    TEST_CASE("17_stream_k, parallel: n64 equal_depth, n128 hybrid") {
        check_split_paths(parallel_poisoned<cfg::n64, Split::equal_depth>);
        check_split_paths(parallel_poisoned<cfg::n128, Split::hybrid>);
    }
    // Tiles of 2 pieces (4096^3 and the wave-quantized shapes: the hybrid's tail), 3 (equal
    // depths, a third of the workers' count of tiles), 4 and many (1 x 768 x 6000: 11; 64 x 64 x
    // 65536: 128 on 132 SMs), on both of gemm()'s tiles; the test checks that the GPU's own
    // schedules have them.
    TEST_CASE("17_stream_k, parallel: tiles of 2, 3 and many pieces") {
        const gemm::Problem cases[] = {
            gemm_tests::make(4096, 4096, 4096),
            gemm_tests::make(2048, 4608, 3584, 0, 0, 0, 1.0f, 0.5f),
            gemm_tests::make(4096, 2112, 7168),
            gemm_tests::make(500, 2798, 3000, 0, 0, 0, -1.0f, 0.5f),
            gemm_tests::make(128, 11264, 4096, 4104, 11268, 11280),
            gemm_tests::make(1024, 1024, 32768),
            gemm_tests::make(1, 768, 6000, 0, 0, 0, 1.0f, 2.0f),
            gemm_tests::make(64, 64, 65536, 0, 0, 0, 2.0f, -1.0f),
        };
        std::set<int> seen;
        for (const gemm::Problem& p : cases) {
            CAPTURE(gemm_tests::name(p));
            gemm::CheckResult r =
                gemm::check_gpu_gemm(parallel_poisoned<cfg::rows128, Split::hybrid>, p);
            CHECK_MESSAGE(r.pass, r.summary());
            r = gemm::check_gpu_gemm(parallel_poisoned<cfg::cluster2, Split::hybrid>, p);
            CHECK_MESSAGE(r.pass, r.summary());
            for (int n : pieces_of<cfg::rows128>(p, Split::hybrid)) seen.insert(n);
            for (int n : pieces_of<cfg::cluster2>(p, Split::hybrid)) seen.insert(n);
        }
        std::ostringstream list;
        for (int n : seen) list << " " << n;
        MESSAGE("pieces per split tile:" << list.str());
        CHECK(seen.count(2) == 1);
        CHECK(seen.count(3) == 1);
        REQUIRE(!seen.empty());
        CHECK(*seen.rbegin() > ch17::FEW_PIECES);
    }
}

TEST_SUITE("host") {
    using ch17::Split;

    std::string name(Split s) {
        return s == Split::data_parallel ? "data_parallel"
               : s == Split::stream_k    ? "stream_k"
               : s == Split::equal_depth ? "equal_depth"
                                         : "hybrid";
    }

    // The parallel fix-up's shares of a tile of p pieces: piece i = worker - first_worker adds the
    // float4 positions [share_begin(i), share_begin(i + 1)) of a (64, BN) band; every position of
    // the band once, for each of the kernel's tile widths.
    void check_shares(int p) {
        for (int BN : {64, 128, 256}) {
            CAPTURE(p);
            CAPTURE(BN);
            const int band = 64 * BN / 4;
            std::vector<int> added(band, 0);
            for (int i = 0; i < p; ++i)
                for (int f = ch17::share_begin(BN, p, i); f < ch17::share_begin(BN, p, i + 1);
                     ++f) {
                    REQUIRE(f >= 0);
                    REQUIRE(f < band);
                    ++added[f];
                }
            CHECK(std::count(added.begin(), added.end(), 1) == band);
            // Nearly equal: no share more than one position longer than another.
            const int q = band / p;
            for (int i = 0; i < p; ++i) {
                const int n = ch17::share_begin(BN, p, i + 1) - ch17::share_begin(BN, p, i);
                CHECK(n >= q);
                CHECK(n <= q + 1);
            }
        }
    }

    TEST_CASE("17_stream_k: the parallel fix-up's shares cover a band once") {
        for (int p = 1; p <= 300; ++p) check_shares(p);
    }

    // Walks every worker's units as chapter 17's kernel does and checks the decomposition: every
    // k-tile of every tile computed once, at most two partials per worker in distinct slots, and
    // the fix-up's [first_worker, last_worker] of each split tile exactly the workers with a piece
    // of it, never more than max_pieces.
    void check_stream_k(int tiles, int K, int max_workers, Split split) {
        const int KT = (K + ch17::BK - 1) / ch17::BK;
        const ch17::Schedule s = ch17::make_schedule(tiles, KT, max_workers, split);
        CAPTURE(tiles);
        CAPTURE(K);
        CAPTURE(max_workers);
        CAPTURE(name(split));
        REQUIRE(s.workers >= 1);
        REQUIRE(s.workers <= max_workers);
        REQUIRE(s.sk_workers <= s.workers);
        CHECK(s.sk_begin(0) == 0);
        CHECK(s.sk_begin(s.sk_workers) == s.sk_iters());
        if (s.sk_iters() > 0)  // no empty range
            for (int w = 0; w < s.sk_workers; ++w) CHECK(s.sk_begin(w + 1) > s.sk_begin(w));
        std::vector<std::vector<int>> covered(tiles, std::vector<int>(KT, 0));
        std::vector<long long> k_elems(tiles, 0);
        std::vector<std::vector<int>> pieces(tiles);  // the workers with a partial of tile t
        for (int w = 0; w < s.workers; ++w) {
            ch17::WorkerUnits units(s, w);
            ch17::Unit u;
            int partials = 0, last_index = -1;
            while (units.next(s, u)) {
                REQUIRE(u.tile >= 0);
                REQUIRE(u.tile < tiles);
                REQUIRE(u.kb < u.ke);
                REQUIRE(u.ke <= KT);
                for (int k = u.kb; k < u.ke; ++k) ++covered[u.tile][k];
                k_elems[u.tile] +=
                    std::min<long long>(1LL * u.ke * ch17::BK, K) - 1LL * u.kb * ch17::BK;
                if (u.kb > 0 || u.ke < KT) {
                    REQUIRE(u.tile >= s.dp_tiles);  // whole tiles are never split
                    const int index = s.partial_index(w, u.tile);
                    CHECK(index > last_index);  // two partials of one worker: distinct slots
                    last_index = index;
                    ++partials;
                    pieces[u.tile].push_back(w);
                }
            }
            CHECK(partials <= 2);
        }
        int most = 1;
        for (int t = 0; t < tiles; ++t) {
            CAPTURE(t);
            CHECK(k_elems[t] == K);
            for (int k = 0; k < KT; ++k) CHECK(covered[t][k] == 1);
            if (t < s.dp_tiles) {
                CHECK(pieces[t].empty());
                continue;
            }
            const int lo = s.first_worker(t), hi = s.last_worker(t);
            std::vector<int> expect;
            if (lo != hi)
                for (int w = lo; w <= hi; ++w) expect.push_back(w);
            CHECK(pieces[t] == expect);
            most = std::max(most, hi - lo + 1);
            if (lo != hi) check_shares(hi - lo + 1);
        }
        CHECK(ch17::max_pieces(s) >= most);  // the fix-up's choice never underestimates
        // More than FEW_PIECES only with fewer stream-K tiles than workers: reduce_partials' grid.
        if (ch17::max_pieces(s) > ch17::FEW_PIECES) CHECK(tiles - s.dp_tiles <= s.sk_workers);
    }

    TEST_CASE(
        "17_stream_k: every schedule covers every k-tile once, the fix-up finds every piece") {
        for (Split split :
             {Split::data_parallel, Split::stream_k, Split::equal_depth, Split::hybrid})
            for (int workers : {1, 2, 7, 66, 132})
                for (int tiles : {1, 2, 3, 9, 16, 17, 32, 68, 132, 200, 544})
                    for (int K : {1, 64, 100, 1000, 8192, 32768})
                        check_stream_k(tiles, K, workers, split);
    }

    // The README's worked examples: (tiles, KT, workers, split) -> stream-K workers, whole tiles,
    // k-tiles per range, the most pieces per tile and who adds them; each a line of its table.
    TEST_CASE("17_stream_k: the README's worked examples") {
        struct Example {
            std::string shape;
            int tiles, KT, workers;
            Split split;
            int sk_workers, dp_tiles, range, pieces;
            bool in_kernel;
        };
        const Example table[] = {
            {"128 x 8192 x 8192, rows128", 32, 128, 132, Split::hybrid, 128, 0, 32, 4, true},
            {"128 x 8192 x 8192, rows128, scattered", 32, 128, 132, Split::stream_k, 132, 0, 31, 6,
             false},
            {"1024 x 1024 x 32768, cluster2", 16, 512, 66, Split::hybrid, 64, 0, 128, 4, true},
            {"64 x 64 x 262144, n64", 1, 4096, 132, Split::hybrid, 132, 0, 31, 132, false},
            {"4096 x 4096 x 4096, cluster2", 256, 64, 66, Split::hybrid, 66, 132, 120, 2, true},
            {"2304 x 2048 x 1024, cluster2", 72, 16, 66, Split::hybrid, 66, 0, 17, 2, true},
        };
        for (const Example& e : table) {
            CAPTURE(e.shape);
            const ch17::Schedule s = ch17::make_schedule(e.tiles, e.KT, e.workers, e.split);
            const int range = s.sk_iters() / s.sk_workers, pieces = ch17::max_pieces(s);
            MESSAGE(e.shape << ": " << s.sk_workers << " stream-K workers, " << s.dp_tiles
                            << " whole tiles, " << range << " k-tiles per range, at most " << pieces
                            << " pieces per tile, "
                            << std::string(pieces <= ch17::FEW_PIECES ? "added in the kernel"
                                                                      : "reduce_partials"));
            CHECK(s.sk_workers == e.sk_workers);
            CHECK(s.dp_tiles == e.dp_tiles);
            CHECK(range == e.range);
            CHECK(pieces == e.pieces);
            CHECK((pieces <= ch17::FEW_PIECES) == e.in_kernel);
        }
    }

    // The figure of chapter 17's README, drawn by WorkerUnits itself: one line per tile, one column
    // per k-tile, the worker that computes it; a tile is whole (data-parallel), one worker's range,
    // or split between several (its pieces added by the last to finish).
    std::string schedule_figure(int tiles, int KT, int workers, ch17::Split split) {
        const ch17::Schedule s = ch17::make_schedule(tiles, KT, workers, split);
        std::vector<std::string> grid(tiles, std::string(KT, '.'));
        for (int w = 0; w < s.workers; ++w) {
            ch17::WorkerUnits units(s, w);
            ch17::Unit u;
            while (units.next(s, u))
                for (int k = u.kb; k < u.ke; ++k)
                    grid[u.tile][k] = "0123456789abcdefghijklmnopqrstuvwxyz"[w % 36];
        }
        std::ostringstream out;
        for (int t = 0; t < tiles; ++t) {
            out << "tile " << t << " | ";
            for (int k = 0; k < KT; ++k) out << grid[t][k] << (k + 1 < KT ? " " : "");
            const bool split_tile = t >= s.dp_tiles && s.first_worker(t) != s.last_worker(t);
            out << (t < s.dp_tiles ? "   whole" : split_tile ? "   split" : "   one range") << "\n";
        }
        return out.str();
    }

    // The README's code block after the line `<!-- figure: NAME -->`.
    std::string readme_figure(const std::string& name) {
        std::ifstream f(std::string(GEMM_SOURCE_ROOT) + "/chapters/17_stream_k/README.md");
        REQUIRE_MESSAGE(f.good(), "cannot read chapters/17_stream_k/README.md");
        std::string line, block;
        bool found = false, inside = false;
        while (std::getline(f, line)) {
            if (line == "<!-- figure: " + name + " -->")
                found = true;
            else if (found && line.rfind("    ", 0) == 0)
                inside = true, block += line.substr(4) + "\n";
            else if (inside)
                break;
        }
        return block;
    }

    TEST_CASE("17_stream_k: the README's figures are the schedule's") {
        using S = ch17::Split;
        const struct {
            std::string name;
            int tiles, KT, workers;
            S split;
        } figures[] = {{"stream_k 5 tiles, 8 k-tiles, 4 workers", 5, 8, 4, S::stream_k},
                       {"equal_depth 3 tiles, 24 k-tiles, 7 workers", 3, 24, 7, S::equal_depth},
                       {"hybrid 8 tiles, 12 k-tiles, 3 workers", 8, 12, 3, S::hybrid}};
        for (const auto& f : figures) {
            const std::string drawn = schedule_figure(f.tiles, f.KT, f.workers, f.split);
            MESSAGE(f.name << "\n" << drawn);
            CAPTURE(f.name);
            CHECK(readme_figure(f.name) == drawn);
        }
    }
}

int main(int argc, char** argv) {
    return gemm_tests::chapter_test_main(argc, argv, true);
}

// The gpu suite of chapters 16 (split-K), 17 (stream-K) and 19 (the dispatcher): each named
// configuration on the shared cases and on shapes that take every path of the splits (each
// chapter's default gemm() is tested on its own: tests/chapters/test_chapter.cu). sm_90a only:
// skips on other GPUs.
#define DOCTEST_CONFIG_IMPLEMENT
#include <cuda.h>
#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <set>

#include "16_split_k/kernel.cuh"
#include "17_stream_k/kernel.cuh"
#include "19_dispatcher/kernel.cuh"
#include "gpu_checks.cuh"

using gemm_tests::check_chapter;

namespace {

// Shapes that split: few rows with deep K (32 tiles for 66 or 132 workers), K not a multiple of 64
// (the slices' remainder), alpha and beta (the partials summed before beta * C is added, once),
// beta = 0 with C through TMA stores and through registers, N not a multiple of 4 (the partials'
// padded rows), one tile with many slices, and the same through the padded copies (misaligned
// views). Then shapes with enough tiles: no split.
template <class Fn>
void check_split_paths(Fn fn) {
    const std::vector<gemm::Problem> cases = {
        gemm_tests::make(1, 768, 6000),
        gemm_tests::make(64, 1024, 8192),
        gemm_tests::make(37, 520, 4100, 0, 0, 0, 1.5f, -0.5f),
        gemm_tests::make(100, 2048, 4096, 0, 0, 0, 0.5f, 2.0f),
        gemm_tests::make(128, 512, 6144, 6152, 520, 516),  // padded lds, beta 0, C by TMA
        gemm_tests::make(200, 1536, 3000, 0, 0, 0, -1.0f, 0.25f),
        gemm_tests::make(130, 1000, 5003),  // N % 4 != 0: C from registers
        gemm_tests::make(1024, 1024, 8192),
        gemm_tests::make(2304, 2048, 1024),                       // 72 cluster tiles, 66 workers
        gemm_tests::make(4096, 2304, 1024, 0, 0, 0, 1.0f, 1.0f),  // 144: a wave + a tail
        gemm_tests::make(1500, 40, 9000, 0, 0, 0, 1.0f, 0.5f),    // few columns
        gemm_tests::make(64, 64, 65536, 0, 0, 0, 2.0f, -1.0f),    // one tile, many slices
        gemm_tests::make(512, 1000, 4096),
    };
    for (gemm::Problem p : cases) {
        CAPTURE(gemm_tests::name(p));
        gemm::CheckResult r = gemm::check_gpu_gemm(fn, p);
        CHECK_MESSAGE(r.pass, r.summary());
        if (static_cast<long long>(p.shape.M) * p.shape.N > (4 << 20)) continue;
        p.view_offset = 1;
        CAPTURE(p.view_offset);
        r = gemm::check_gpu_gemm(fn, p);
        CHECK_MESSAGE(r.pass, r.summary());
    }
}

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
template <class Cfg, ch17::Split SPLIT>
void on_stream(int M, int N, int K, float alpha, const __half* A, int lda, const __half* B, int ldb,
               float beta, float* C, int ldc, cudaStream_t) {
    ch17::gemm_cfg<Cfg, SPLIT>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, g_stream);
    GEMM_CUDA_CHECK(cudaStreamSynchronize(g_stream));
}
#endif

// The shapes whose tiles have several pieces added in the kernel (tests/chapters/test_schedule.cu:
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
        const gemm::GpuGemmF16 rows128 = on_stream<ch17::configs::rows128, ch17::Split::hybrid>;
        const gemm::GpuGemmF16 cluster2 = on_stream<ch17::configs::cluster2, ch17::Split::hybrid>;
        for (const gemm::Problem& p : waiting_cases) {
            CAPTURE(gemm_tests::name(p));
            gemm::CheckResult r = gemm::check_gpu_gemm(rows128, p);
            CHECK_MESSAGE(r.pass, r.summary());
            r = gemm::check_gpu_gemm(cluster2, p);
            CHECK_MESSAGE(r.pass, r.summary());
        }
        GEMM_CUDA_CHECK(cudaStreamDestroy(g_stream));
        g_stream = nullptr;
        DRV(set_current(primary));
        DRV(destroy(green));
    }
#else
    TEST_CASE("17_stream_k in a green context of 16 SMs (needs CUDA 12.4 or newer)") {
        FAIL("built with CUDA " << CUDA_VERSION << ": green contexts need 12.4; build this test "
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

TEST_SUITE("16_split_k") {
    TEST_CASE("16_split_k, the chapter's gemm on the split shapes") {
        check_split_paths(ch16::gemm);
    }
    TEST_CASE("16_split_k, cluster2 without the split (chapter 15's schedule)") {
        check_chapter(ch16::gemm_cfg<ch16::configs::cluster2, false>, true);
    }
    TEST_CASE("16_split_k, cluster2") {
        auto fn = ch16::gemm_cfg<ch16::configs::cluster2>;
        check_chapter(fn, true);
        check_split_paths(fn);
    }
    TEST_CASE("16_split_k, n128") {
        auto fn = ch16::gemm_cfg<ch16::configs::n128>;
        check_chapter(fn, true);
        check_split_paths(fn);
    }
    TEST_CASE("16_split_k, n64") {
        auto fn = ch16::gemm_cfg<ch16::configs::n64>;
        check_chapter(fn, true);
        check_split_paths(fn);
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

// Chapter 19 runs chapters 16 and 17's kernels, tested above; these are the plans it may pick that
// no test above runs: whole narrow tiles, and the hybrid on (128, 64) tiles.
TEST_SUITE("19_dispatcher") {
    TEST_CASE("19_dispatcher, the chapter's gemm on the split shapes") {
        check_split_paths(ch19::gemm);
    }
    TEST_CASE("19_dispatcher, whole n128 and n64 tiles, hybrid n64") {
        using K = ch19::Kernel;
        namespace c = ch16::configs;
        check_chapter(ch19::gemm_plan<K::whole, c::n128>, true);
        check_chapter(ch19::gemm_plan<K::whole, c::n64>, true);
        check_split_paths(ch19::gemm_plan<K::hybrid, c::n64>);
    }
}

int main(int argc, char** argv) {
    return gemm_tests::gpu_test_main(argc, argv, true);
}

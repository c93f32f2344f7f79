// Per-SM timelines of chapters 14 and 15: their kernels built with -DGEMM_TIMELINE record
// %globaltimer at phase boundaries (common/device/timeline.cuh); this runs one of them on one shape
// and writes every event as CSV; tools/reporting/timeline.py draws the Gantt chart.
//
//   timeline CHAPTER M N K OUT.csv      CHAPTER: 14 or 15 (its gemm(): chapter 15's best config)
//
// The recorded run is the third of three (two warm-ups: the tensor maps, the opt-ins, the caches).
// The instrumented kernel is slower than the plain one by its atomics and stores; the chart shows
// where the time goes, the chapters' benchmarks how much there is. Needs a GPU of compute
// capability 9.0.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#ifndef GEMM_TIMELINE
#error "tools/measuring/timeline.cu records the kernels' phases: build it with -DGEMM_TIMELINE"
#endif

#include "14_warp_specialized/kernel.cuh"
#include "15_wgmma_persistent/kernel.cuh"
#include "cuda_check.cuh"

namespace {

int usage(const char* why) {
    std::fprintf(
        stderr,
        "timeline: %s\nusage: timeline CHAPTER M N K OUT.csv   (CHAPTER: 14 or 15; M, N, K: "
        "1..65536)\n",
        why);
    return 2;
}

bool parse(const char* s, int& v) {
    char* end = nullptr;
    const long x = std::strtol(s, &end, 10);
    if (end == s || *end != '\0' || x < 1 || x > 65536) return false;
    v = static_cast<int>(x);
    return true;
}

__global__ void fill(__half* p, long long n, unsigned seed) {
    for (long long i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        const unsigned h = (unsigned(i) * 2654435761u) ^ seed;
        p[i] = __float2half(float(h % 17) / 8.0f - 1.0f);
    }
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 6) return usage("expected 5 arguments");
    const std::string chapter = argv[1];
    int M = 0, N = 0, K = 0;
    if (chapter != "14" && chapter != "15")
        return usage(("chapter '" + chapter + "' is not 14 or 15").c_str());
    if (!parse(argv[2], M) || !parse(argv[3], N) || !parse(argv[4], K))
        return usage("M, N and K are whole numbers from 1 to 65536");
    const char* out_path = argv[5];

    __half *A = nullptr, *B = nullptr;
    float* C = nullptr;
    GEMM_CUDA_CHECK(cudaMalloc(&A, sizeof(__half) * M * K));
    GEMM_CUDA_CHECK(cudaMalloc(&B, sizeof(__half) * K * N));
    GEMM_CUDA_CHECK(cudaMalloc(&C, sizeof(float) * M * N));
    fill<<<1024, 256>>>(A, (long long)M * K, 1u);
    fill<<<1024, 256>>>(B, (long long)K * N, 2u);
    GEMM_CUDA_CHECK_LAUNCH();

    using gemm::timeline::Buffer, gemm::timeline::Event;
    const unsigned capacity = 1u << 22;
    Buffer buf{};
    buf.capacity = capacity;
    GEMM_CUDA_CHECK(cudaMalloc(&buf.events, sizeof(Event) * capacity));
    GEMM_CUDA_CHECK(cudaMalloc(&buf.count, sizeof(unsigned)));
    GEMM_CUDA_CHECK(cudaMemcpyToSymbol(gemm::timeline::timeline_buffer, &buf, sizeof(buf)));

    unsigned count = 0;
    for (int run = 0; run < 3; ++run) {
        GEMM_CUDA_CHECK(cudaMemset(buf.count, 0, sizeof(unsigned)));
        if (chapter == "14")
            ch14::gemm(M, N, K, 1.0f, A, K, B, N, 0.0f, C, N);
        else
            ch15::gemm(M, N, K, 1.0f, A, K, B, N, 0.0f, C, N);
        GEMM_CUDA_CHECK(cudaDeviceSynchronize());
        GEMM_CUDA_CHECK(cudaMemcpy(&count, buf.count, sizeof(unsigned), cudaMemcpyDeviceToHost));
    }
    if (count > capacity) {
        std::fprintf(stderr, "timeline: %u events, the buffer holds %u\n", count, capacity);
        return 1;
    }
    std::vector<Event> events(count);
    GEMM_CUDA_CHECK(
        cudaMemcpy(events.data(), buf.events, sizeof(Event) * count, cudaMemcpyDeviceToHost));
    unsigned long long t0 = ~0ull;
    for (const Event& e : events) t0 = e.ns < t0 ? e.ns : t0;

    FILE* f = std::fopen(out_path, "w");
    if (!f) {
        std::fprintf(stderr, "timeline: cannot write %s\n", out_path);
        return 1;
    }
    std::fprintf(f, "chapter,M,N,K,sm,block,role,phase,tile,ns\n");
    for (const Event& e : events)
        std::fprintf(f, "%s,%d,%d,%d,%u,%u,%u,%s,%u,%llu\n", chapter.c_str(), M, N, K, e.sm,
                     e.block, e.role, gemm::timeline::PHASE_NAMES[e.phase], e.tile,
                     (unsigned long long)(e.ns - t0));
    std::fclose(f);
    std::printf("timeline: chapter %s, %d x %d x %d: %u events -> %s\n", chapter.c_str(), M, N, K,
                count, out_path);
    return 0;
}

// The child process of a trusted grade: it runs one submitted kernel and nothing else. It is built
// by tools/grade.py from this file and the submission's kernel file alone (no cuBLAS, no CBLAS,
// none of the submission's other files) and started by the instructor's chapter binary with
// --grade --remote. It reads requests on fd 3, answers on fd 4 (common/remote_protocol.hpp) and
// keeps no verdict: whatever it prints goes to a log nobody grades from.
//
// Build flags (tools/grade.py sets them): GRADE_NS (the chapter's namespace, e.g. ch07), and for a
// GPU chapter GRADE_GPU plus GRADE_HALF when its inputs are fp16. Compiled as C++ (g++ -x c++)
// for the CPU chapters, with nvcc for the GPU ones.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "remote_protocol.hpp"

#ifdef GRADE_GPU
#include "gpu_timing.cuh"
#else
#include "cpu_timing.hpp"
#endif
#include "kernel_under_test.h"  // the submission's kernel file, copied under this name

namespace {

namespace rp = gemm::remote;

void read_all(void* data, std::size_t bytes) {
    char* p = static_cast<char*>(data);
    while (bytes > 0) {
        const ssize_t n = ::read(rp::kRequestFd, p, bytes);
        if (n <= 0) std::exit(3);  // the grade went away
        p += n, bytes -= std::size_t(n);
    }
}
void write_all(const void* data, std::size_t bytes) {
    const char* p = static_cast<const char*>(data);
    while (bytes > 0) {
        const ssize_t n = ::write(rp::kReplyFd, p, bytes);
        if (n <= 0) std::exit(3);
        p += n, bytes -= std::size_t(n);
    }
}
std::vector<float> read_floats(std::uint64_t n) {
    std::vector<float> v(n);
    read_all(v.data(), n * sizeof(float));
    return v;
}
void reply(const std::vector<float>& C) {
    const std::uint64_t n = C.size();
    write_all(&n, sizeof n);
    write_all(C.data(), n * sizeof(float));
}

#ifdef GRADE_GPU
#ifdef GRADE_HALF
using In = __half;
#else
using In = float;
#endif
// The device copies of one problem, laid out as the harness's GpuBackend lays them out.
struct Problem {
    rp::LoadHeader h{};
    gemm::DeviceBuffer<In> A, B;
    gemm::DeviceBuffer<float> C;
    cudaStream_t stream = nullptr;
    void load(const rp::LoadHeader& header, const std::vector<float>& a,
              const std::vector<float>& b) {
        h = header;
        A = gemm::DeviceBuffer<In>(), B = gemm::DeviceBuffer<In>(), C = gemm::DeviceBuffer<float>();
        gemm::upload(a, A, h.view_offset);
        gemm::upload(b, B, h.view_offset);
        C = gemm::DeviceBuffer<float>(h.n_c + h.view_offset);  // set_c fills it
    }
    void set_c(const std::vector<float>& c) {
        if (!c.empty())
            GEMM_CUDA_CHECK(cudaMemcpy(C.get() + h.view_offset, c.data(), c.size() * sizeof(float),
                                       cudaMemcpyHostToDevice));
    }
    void call() {
        GRADE_NS::gemm(h.M, h.N, h.K, h.alpha, A.get() + h.view_offset, h.lda,
                       B.get() + h.view_offset, h.ldb, h.beta, C.get() + h.view_offset, h.ldc,
                       stream);
        GEMM_CUDA_CHECK(cudaGetLastError());
    }
    std::vector<float> get_c() {
        GEMM_CUDA_CHECK(cudaStreamSynchronize(stream));
        std::vector<float> c(h.n_c);
        if (!c.empty())
            GEMM_CUDA_CHECK(cudaMemcpy(c.data(), C.get() + h.view_offset, c.size() * sizeof(float),
                                       cudaMemcpyDeviceToHost));
        return c;
    }
    std::vector<double> time(int warmup, int reps) {
        return gemm::time_on_stream(stream, warmup, reps, [&] { call(); });
    }
};
#else
struct Problem {
    rp::LoadHeader h{};
    std::vector<float> A, B, C;
    void load(const rp::LoadHeader& header, std::vector<float> a, std::vector<float> b) {
        h = header;
        A = std::move(a), B = std::move(b);
    }
    void set_c(const std::vector<float>& c) { C = c; }
    void call() {
        GRADE_NS::gemm(h.M, h.N, h.K, h.alpha, A.data(), h.lda, B.data(), h.ldb, h.beta, C.data(),
                       h.ldc);
    }
    std::vector<float> get_c() { return C; }
    std::vector<double> time(int warmup, int reps) {
        return gemm::time_on_cpu(warmup, reps, [&] { call(); });
    }
};
#endif

}  // namespace

#ifdef GRADE_GPU
// cuda_check.cuh's error path: print the failed call and stop; the grade sees the process end.
[[noreturn]] void gemm::cuda_fail(const char* call, cudaError_t err, const char* file, int line) {
    std::fprintf(stderr, "%s:%d: %s failed: %s\n", file, line, call, cudaGetErrorString(err));
    std::exit(1);
}
#endif

int main() {
    Problem p;
    const std::uint32_t ok = 0;
    for (;;) {
        rp::Op op{};
        read_all(&op, sizeof op);
        if (op == rp::Op::Quit) return 0;
        if (op == rp::Op::Load) {
            rp::LoadHeader h{};
            read_all(&h, sizeof h);
            std::vector<float> a = read_floats(h.n_a);
            std::vector<float> b = read_floats(h.n_b);
            p.load(h, std::move(a), std::move(b));
            p.set_c(read_floats(h.n_c));
        } else if (op == rp::Op::Run) {
            std::uint64_t n = 0;
            read_all(&n, sizeof n);
            p.set_c(read_floats(n));
            p.call();
            std::vector<float> C = p.get_c();
            write_all(&ok, sizeof ok);
            reply(C);
        } else if (op == rp::Op::Time) {
            std::int32_t warmup = 0, reps = 0;
            read_all(&warmup, sizeof warmup);
            read_all(&reps, sizeof reps);
            const std::vector<double> ms = p.time(warmup, reps);
            std::vector<float> C = p.get_c();
            write_all(&ok, sizeof ok);
            write_all(ms.data(), ms.size() * sizeof(double));
            reply(C);
        } else {
            return 4;  // not a request
        }
    }
}

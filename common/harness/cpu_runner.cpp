#include <fstream>
#include <sstream>
#include <thread>

#ifdef _OPENMP
#include <omp.h>
#endif
#ifdef GEMM_HAVE_CBLAS
#include <cblas.h>
#endif

#include "cpu_timing.hpp"
#include "harness_cpu.hpp"
#include "host_memory.hpp"
#include "measure.hpp"
#include "runner.hpp"

namespace gemm {

namespace {

#ifdef GEMM_HAVE_CBLAS
void cblas_rowmajor(int M, int N, int K, float alpha, const float* A, int lda, const float* B,
                    int ldb, float beta, float* C, int ldc) {
    if (M == 0 || N == 0) return;  // some CBLAS builds reject ld checks on empty matrices
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, alpha, A, lda, B, ldb, beta, C,
                ldc);
}
#endif

std::string cpu_model() {
    std::ifstream f("/proc/cpuinfo");
    std::string line;
    while (std::getline(f, line))
        if (line.rfind("model name", 0) == 0) {
            std::size_t colon = line.find(':');
            if (colon != std::string::npos) return line.substr(colon + 2);
        }
    return "CPU";
}

class CpuBackend : public Backend {
public:
    CpuBackend(CpuGemmF32 chapter, CpuGemmF32 yardstick)
        : chapter_(chapter), yardstick_(yardstick) {}

    std::string device_name() const override { return cpu_model(); }
    std::string device_report() const override {
        std::ostringstream s;
        int threads = 1;
#ifdef _OPENMP
        threads = omp_get_max_threads();
#endif
        s << "device: " << cpu_model() << ", " << std::thread::hardware_concurrency()
          << " hardware threads, OpenMP threads " << threads << "\n";
        return s.str();
    }
    std::string yardstick_name() const override {
        return yardstick_ ? cblas_name() : "";
    }

    void check_fits(const Problem& p) const override {
        // A, B, C0, the working C and the copy handed back to the check.
        check_host_fits(p, 4ull * (p.elems_A() + p.elems_B() + 3 * p.elems_C()));
    }

    void load(const HostProblem& hp) override {
        hp_ = &hp;
        C_ = initial_C(hp);
    }

    std::vector<float> run_once(const std::vector<float>& c_init) override {
        C_ = c_init;
        call(chapter_);
        return C_;
    }

    std::vector<double> time_chapter(int warmup, int reps) override {
        return time(chapter_, warmup, reps);
    }
    std::vector<double> time_yardstick(int warmup, int reps) override {
        return time(yardstick_, warmup, reps);
    }

private:
    void call(CpuGemmF32 fn) {
        const Problem& p = hp_->p;
        fn(p.shape.M, p.shape.N, p.shape.K, p.alpha, hp_->A.data(), p.lda, hp_->B.data(), p.ldb,
           p.beta, C_.data(), p.ldc);
    }
    std::vector<double> time(CpuGemmF32 fn, int warmup, int reps) {
        return time_on_cpu(warmup, reps, [&] { call(fn); });
    }

    CpuGemmF32 chapter_, yardstick_;
    const HostProblem* hp_ = nullptr;
    std::vector<float> C_;
};

}  // namespace

CpuGemmF32 cblas_yardstick() {
#ifdef GEMM_HAVE_CBLAS
    return cblas_rowmajor;
#else
    return nullptr;
#endif
}

const char* cblas_name() {
#ifdef GEMM_HAVE_CBLAS
    return GEMM_CBLAS_NAME " cblas_sgemm";
#else
    return "";
#endif
}

CheckResult check_cpu_gemm(CpuGemmF32 gemm, const Problem& p, CheckMode mode) {
    const HostProblem hp = make_inputs(p);
    CpuBackend backend(gemm, nullptr);
    return load_and_check(backend, hp, mode);
}

BackendFactory cpu_backend(CpuGemmF32 gemm) {
    return [gemm](const Options& o) {
        if (o.device != 0)
            throw UsageError("--device " + std::to_string(o.device) +
                             ": the CPU chapters have no --device (it picks the GPU of a GPU "
                             "chapter)");
        return std::unique_ptr<Backend>(new CpuBackend(gemm, cblas_yardstick()));
    };
}

int run_cpu_chapter(int argc, char** argv, const ChapterInfo& info, CpuGemmF32 gemm) {
    return run_chapter(argc, argv, info, Precision::F32, cpu_backend(gemm));
}

}  // namespace gemm

// The child process of a trusted grade: it runs one submitted kernel and nothing else.
// tools/grading/grade.py builds it, inside a sandbox, from this file and
// tools/grading/grade_entry.cu, two translation units: this one never sees the submission's source
// and reaches its kernel through grade_gemm alone. The chapter's grading binary starts it with
// --remote; it reads requests on fd 3 and answers on fd 4
// (common/grading/remote_protocol.hpp). It keeps no verdict and no clock: what it prints goes to a
// log nobody grades from, and the grade times each batch of calls itself.
//
// Build flags (tools/grading/grade.py sets them, from the chapter list's precision): for a GPU
// chapter GRADE_GPU, plus GRADE_HALF when its inputs are fp16, or GRADE_FP8 when they are e4m3
// codes with scales and C is bf16. Compiled as C++ (g++ -x c++) for the CPU chapters, with nvcc for
// the GPU ones.
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <vector>

#ifdef GRADE_GPU
#include <dlfcn.h>
#endif

#include "grade_entry.hpp"
#include "remote_protocol.hpp"

#ifdef GRADE_GPU
#include "gpu_timing.cuh"  // DeviceBuffer, upload
#endif

namespace {

// ---- the lock-down: no new program, no new executable memory -----------------------------------
// A seccomp filter (classic BPF over the system call's number and arguments) that refuses execve
// and execveat, every mapping or protection change that asks for PROT_EXEC, and personality
// changes (READ_IMPLIES_EXEC would make every later mapping executable). It is the second filter:
// the first, installed by tools/grading/grade_seal.c before this program was executed, holds from
// the first instruction (one process, no execve, no executable memory but the loader's mappings of
// files, the limits and the pinned CPUs). This one, installed by a constructor of priority 101
// before any constructor of the submission's translation unit (tools/grading/grade.py also refuses
// an object file with an earlier one: .preinit_array, .init, prioritized .init_array or .ctors,
// IFUNC resolvers, and a linked child with IRELATIVE relocations), refuses every PROT_EXEC.
#if defined(__x86_64__)
constexpr std::uint32_t kAuditArch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
constexpr std::uint32_t kAuditArch = AUDIT_ARCH_AARCH64;
#endif

void lock_down() {
#if defined(__x86_64__) || defined(__aarch64__)
    constexpr std::uint32_t kNr = offsetof(seccomp_data, nr), kArch = offsetof(seccomp_data, arch);
    constexpr std::uint32_t kArg0 = offsetof(seccomp_data, args[0]),  // low 32 bits: little endian
        kArg2 = offsetof(seccomp_data, args[2]);
    constexpr std::uint32_t kAllow = SECCOMP_RET_ALLOW, kDeny = SECCOMP_RET_ERRNO | EPERM,
                            kKill = SECCOMP_RET_KILL_PROCESS;
    // Jump offsets count the instructions after the jump (the numbers in the comments: indices).
    sock_filter prog[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, kArch),  // 0: another ABI (i386 on x86-64): kill
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, kAuditArch, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, kKill),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, kNr),  // 3
#if defined(__x86_64__)
        BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 10, 0),  // 4: x32 system calls: deny
#else
        BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x7fffffffu, 10, 0),  // 4: (never)
#endif
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_execve, 9, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_execveat, 8, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_shmat, 7, 0),  // SHM_EXEC: deny it all
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_mmap, 7, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_mprotect, 6, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_pkey_mprotect, 5, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_personality, 1, 0),  // 11
        BPF_STMT(BPF_RET | BPF_K, kAllow),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, kArg0),  // 13: personality(0xffffffff) only asks
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0xffffffffu, 4, 0),
        BPF_STMT(BPF_RET | BPF_K, kDeny),           // 15: deny
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, kArg2),  // 16: mmap, mprotect: the protection
        BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, PROT_EXEC, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, kDeny),
        BPF_STMT(BPF_RET | BPF_K, kAllow),  // 19
    };
    const sock_fprog fprog{static_cast<unsigned short>(sizeof prog / sizeof prog[0]), prog};
    if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
        ::syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fprog) != 0) {
        std::perror("grade child: the seccomp filter could not be installed");
        std::_Exit(6);
    }
#else
#error "tools/grading/grade_child.cu: the seccomp filter knows x86-64 and AArch64 only"
#endif
}

#ifdef GRADE_GPU
// What the driver maps before the lock-down: libcuda (which the static CUDA runtime would dlopen
// on its first call) and the primary context of the first visible device, so that the driver has
// loaded what it needs before no new executable memory can be mapped.
void start_driver() {
    void* cuda = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
    if (!cuda) return;  // the runtime says why at its first call
    using Init = int (*)(unsigned);
    using DeviceGet = int (*)(int*, int);
    using Retain = int (*)(void**, int);
    const auto init = reinterpret_cast<Init>(::dlsym(cuda, "cuInit"));
    const auto get = reinterpret_cast<DeviceGet>(::dlsym(cuda, "cuDeviceGet"));
    const auto retain = reinterpret_cast<Retain>(::dlsym(cuda, "cuDevicePrimaryCtxRetain"));
    int device = 0;
    void* context = nullptr;
    if (init && get && retain && init(0) == 0 && get(&device, 0) == 0) retain(&context, device);
}
#endif

__attribute__((constructor(101))) void before_the_submission() {
#ifdef GRADE_GPU
    start_driver();
#endif
    lock_down();
}

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
template <class T>
T read_value() {
    T v{};
    read_all(&v, sizeof v);
    return v;
}
std::vector<float> read_floats(std::uint64_t n) {
    std::vector<float> v(n);
    read_all(v.data(), n * sizeof(float));
    return v;
}
void reply_ok() {
    const std::uint32_t ok = 0;
    write_all(&ok, sizeof ok);
}
void reply_floats(const float* data, std::uint64_t n) {
    reply_ok();
    write_all(&n, sizeof n);
    write_all(data, n * sizeof(float));
}

// Rows [first, end) of digest block b of a C with M rows.
struct BlockRows {
    int first, end;
};
BlockRows block_rows(int b, int M) {
    const int blocks = rp::digest_blocks(M);
    return {rp::block_first_row(b, M, blocks), rp::block_first_row(b + 1, M, blocks)};
}

#ifdef GRADE_GPU
#ifdef GRADE_FP8
using In = std::uint8_t;    // e4m3 codes, as bytes
using Out = __nv_bfloat16;  // C
#else
using In = GradeIn;
using Out = float;
#endif

// Row k of Bp is row perm[k] of B, whole rows of ldb elements (padding included).
template <class T>
__global__ void gather_rows(const T* B, T* Bp, const std::uint32_t* perm, int K, int ldb) {
    for (int k = blockIdx.y; k < K; k += gridDim.y) {
        const T* src = B + std::size_t(perm[k]) * ldb;
        T* dst = Bp + std::size_t(k) * ldb;
        for (int j = blockIdx.x * blockDim.x + threadIdx.x; j < ldb; j += gridDim.x * blockDim.x)
            dst[j] = src[j];
    }
}
// FP8: B is N x K; column k of Bp is column perm[k] of B, the padding past K as it is.
__global__ void gather_columns(const std::uint8_t* B, std::uint8_t* Bp, const std::uint32_t* perm,
                               int N, int K, int ldb) {
    for (int n = blockIdx.y; n < N; n += gridDim.y) {
        const std::uint8_t* src = B + std::size_t(n) * ldb;
        std::uint8_t* dst = Bp + std::size_t(n) * ldb;
        for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < ldb; k += gridDim.x * blockDim.x)
            dst[k] = k < K ? src[perm[k]] : src[k];
    }
}
__global__ void make_perm(std::uint32_t* perm, int K, std::uint64_t key, bool fp8) {
    for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < K; k += gridDim.x * blockDim.x)
        perm[k] = rp::permute_k(std::uint32_t(k), std::uint32_t(K), key, fp8);
}
__global__ void to_float(const Out* in, float* out, std::size_t n) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
         i += std::size_t(gridDim.x) * blockDim.x)
        out[i] = float(in[i]);
}
// One CUDA block per digest block, one thread per lane: the same digest as rp::digest_block.
__global__ void digest_rows(const float* C, int M, int ldc, rp::SlotKeys key, std::uint64_t* out) {
    __shared__ std::uint64_t lanes[rp::kDigestLanes];  // (kDigestLanes)
    __shared__ std::uint64_t
        groups[rp::kDigestLanes / rp::kDigestGroup];  // (kDigestLanes/kDigestGroup)
    const int b = blockIdx.x, blocks = rp::digest_blocks(M);
    const int first = rp::block_first_row(b, M, blocks),
              end = rp::block_first_row(b + 1, M, blocks);
    const float* f = C + std::size_t(first) * ldc;
    const std::uint64_t n = std::uint64_t(end - first) * std::uint64_t(ldc), words = (n + 1) / 2;
    rp::SipHash h = rp::lane_hash(key, std::uint32_t(b), threadIdx.x);
    for (std::uint64_t w = threadIdx.x; w < words; w += rp::kDigestLanes)
        h.add(rp::block_word(f, n, w));
    lanes[threadIdx.x] = h.finish();
    __syncthreads();  // every lane's digest is in shared memory before the groups read them
    constexpr int kGroups = rp::kDigestLanes / rp::kDigestGroup;
    if (threadIdx.x < kGroups) {
        rp::SipHash g = rp::group_hash(key, std::uint32_t(b), threadIdx.x);
        for (int t = threadIdx.x * rp::kDigestGroup; t < (threadIdx.x + 1) * rp::kDigestGroup; ++t)
            g.add(lanes[t]);
        groups[threadIdx.x] = g.finish();
    }
    __syncthreads();  // every group's digest is in shared memory before thread 0 reads them
    if (threadIdx.x == 0) {
        rp::SipHash all = rp::block_hash(key, std::uint32_t(b), n);
        for (int g = 0; g < kGroups; ++g) all.add(groups[g]);
        out[b] = all.finish();
    }
}

template <class T>
void upload_raw(const std::vector<T>& host, gemm::DeviceBuffer<T>& dev, std::size_t offset) {
    dev = gemm::DeviceBuffer<T>(host.size() + offset);
    if (!host.empty())
        GEMM_CUDA_CHECK(cudaMemcpy(dev.get() + offset, host.data(), host.size() * sizeof(T),
                                   cudaMemcpyHostToDevice));
}

// The device copies of one problem, laid out as the harness's GpuBackend (one for every
// precision) lays them out. C is handed back and digested as floats, whatever its type on the
// device.
struct Problem {
    rp::LoadHeader h{};
    std::size_t off = 0;  // view_offset
    gemm::DeviceBuffer<In> A, B, Bp;
    gemm::DeviceBuffer<float> scale_a, scale_b, C_float;
    gemm::DeviceBuffer<Out> C_init, C_run;
    std::vector<gemm::DeviceBuffer<Out>> slots;
    gemm::DeviceBuffer<std::uint32_t> perm;
    gemm::DeviceBuffer<std::uint64_t> digests;
    cudaStream_t stream = nullptr;

    // a, b: the operands as the child read them (floats, or FP8 codes); sa, sb: FP8's scales.
    template <class V>
    void load(const rp::LoadHeader& header, const std::vector<V>& a, const std::vector<V>& b,
              const std::vector<float>& sa, const std::vector<float>& sb,
              const std::vector<float>& c) {
        h = header;
        off = std::size_t(h.view_offset);
        A = {}, B = {}, Bp = {}, C_init = {}, C_run = {}, C_float = {},
        perm = {};  // free the previous size first
        slots.clear();
        if constexpr (std::is_same<V, float>::value) {
            gemm::upload(a, A, off);
            gemm::upload(b, B, off);
        } else {
            upload_raw(a, A, off);
            upload_raw(b, B, off);
        }
        upload_raw(sa, scale_a, 0);
        upload_raw(sb, scale_b, 0);
        gemm::upload(c, C_init, off);
        C_run = gemm::DeviceBuffer<Out>(h.n_c + off);
        C_float = gemm::DeviceBuffer<float>(h.n_c + off);
        Bp = gemm::DeviceBuffer<In>(h.n_b + off);
        perm = gemm::DeviceBuffer<std::uint32_t>(std::size_t(h.K));
    }
    void call(const In* b, Out* c) {
#ifdef GRADE_FP8
        grade_gemm(h.M, h.N, h.K, h.alpha, reinterpret_cast<const __nv_fp8_e4m3*>(A.get() + off),
                   h.lda, reinterpret_cast<const __nv_fp8_e4m3*>(b), h.ldb, scale_a.get(),
                   scale_b.get(), h.beta, c, h.ldc, stream);
#else
        grade_gemm(h.M, h.N, h.K, h.alpha, A.get() + off, h.lda, b, h.ldb, h.beta, c, h.ldc,
                   stream);
#endif
        GEMM_CUDA_CHECK(cudaGetLastError());
    }
    // C (n floats from `first` of the allocation) as floats on the host.
    std::vector<float> to_host(const Out* c, std::size_t n) {
        std::vector<float> out(n);
        if (n == 0) return out;
        const float* f = reinterpret_cast<const float*>(c);
        if (!std::is_same<Out, float>::value) {
            to_float<<<1024, 256, 0, stream>>>(c, C_float.get(), n);
            GEMM_CUDA_CHECK(cudaGetLastError());
            f = C_float.get();
        }
        GEMM_CUDA_CHECK(cudaMemcpy(out.data(), f, n * sizeof(float), cudaMemcpyDeviceToHost));
        return out;
    }
    std::vector<float> run(const std::vector<float>& c) {
        if (!c.empty()) {
            gemm::DeviceBuffer<Out> fresh;
            gemm::upload(c, fresh, off);
            GEMM_CUDA_CHECK(cudaMemcpy(C_run.get() + off, fresh.get() + off, c.size() * sizeof(Out),
                                       cudaMemcpyDeviceToDevice));
        }
        call(B.get() + off, C_run.get() + off);
        GEMM_CUDA_CHECK(cudaDeviceSynchronize());
        return to_host(C_run.get() + off, h.n_c);
    }
    void stage(std::uint32_t n) {
        slots.resize(n);
        for (auto& s : slots) {
            if (s.size() == 0) s = gemm::DeviceBuffer<Out>(h.n_c + off);
            if (h.n_c)
                GEMM_CUDA_CHECK(cudaMemcpy(s.get() + off, C_init.get() + off, h.n_c * sizeof(Out),
                                           cudaMemcpyDeviceToDevice));
        }
        GEMM_CUDA_CHECK(cudaDeviceSynchronize());
    }
    std::vector<std::uint64_t> batch(std::uint32_t n, std::uint64_t key) {
        if (n > slots.size()) std::exit(5);
        const bool fp8 = h.fp8 != 0;
        for (std::uint32_t s = 0; s < n; ++s) {
            if (h.K > 0 && h.n_b > 0) {
                make_perm<<<(h.K + 255) / 256, 256, 0, stream>>>(perm.get(), h.K,
                                                                 rp::slot_keys(key, s).perm, fp8);
                if (fp8) {
                    const dim3 grid(unsigned(std::min((h.ldb + 255) / 256, 64)),
                                    unsigned(std::min(h.N, 65535)));
                    gather_columns<<<grid, 256, 0, stream>>>(
                        reinterpret_cast<const std::uint8_t*>(B.get() + off),
                        reinterpret_cast<std::uint8_t*>(Bp.get() + off), perm.get(), h.N, h.K,
                        h.ldb);
                } else {
                    const dim3 grid(unsigned(std::min((h.ldb + 255) / 256, 64)),
                                    unsigned(std::min(h.K, 65535)));
                    gather_rows<<<grid, 256, 0, stream>>>(B.get() + off, Bp.get() + off, perm.get(),
                                                          h.K, h.ldb);
                }
                GEMM_CUDA_CHECK(cudaGetLastError());
            }
            call(Bp.get() + off, slots[s].get() + off);
        }
        // All work of every stream is done before C is read: a kernel that left some running
        // elsewhere is timed for it all the same.
        GEMM_CUDA_CHECK(cudaDeviceSynchronize());
        const int blocks = rp::digest_blocks(h.M);
        std::vector<std::uint64_t> out(std::size_t(n) * blocks);
        if (blocks == 0) return out;
        if (digests.size() < out.size()) digests = gemm::DeviceBuffer<std::uint64_t>(out.size());
        for (std::uint32_t s = 0; s < n; ++s) {
            const float* c = reinterpret_cast<const float*>(slots[s].get() + off);
            if (!std::is_same<Out, float>::value) {  // digested as the floats handed back
                to_float<<<1024, 256, 0, stream>>>(slots[s].get() + off, C_float.get(), h.n_c);
                c = C_float.get();
            }
            digest_rows<<<blocks, rp::kDigestLanes, 0, stream>>>(
                c, h.M, h.ldc, rp::slot_keys(key, s), digests.get() + s * blocks);
        }
        GEMM_CUDA_CHECK(cudaGetLastError());
        GEMM_CUDA_CHECK(cudaMemcpy(out.data(), digests.get(), out.size() * sizeof(std::uint64_t),
                                   cudaMemcpyDeviceToHost));
        return out;
    }
    std::vector<float> rows(std::uint32_t slot, std::uint32_t b) {
        if (slot >= slots.size() || int(b) >= rp::digest_blocks(h.M)) std::exit(5);
        const BlockRows r = block_rows(int(b), h.M);
        return to_host(slots[slot].get() + off + std::size_t(r.first) * h.ldc,
                       std::size_t(r.end - r.first) * h.ldc);
    }
};
#else
struct Problem {
    rp::LoadHeader h{};
    std::vector<float> A, B, Bp, C_init, C_run;
    std::vector<std::vector<float>> slots;

    void load(const rp::LoadHeader& header, std::vector<float> a, std::vector<float> b,
              std::vector<float> c) {
        h = header;
        A = std::move(a), B = std::move(b), C_init = std::move(c);
        Bp.assign(B.size(), 0.0f);
        slots.clear();
    }
    void call(const float* b, float* c) {
        grade_gemm(h.M, h.N, h.K, h.alpha, A.data(), h.lda, b, h.ldb, h.beta, c, h.ldc);
    }
    std::vector<float> run(const std::vector<float>& c) {
        C_run = c;
        call(B.data(), C_run.data());
        return C_run;
    }
    void stage(std::uint32_t n) {
        slots.resize(n);
        for (auto& s : slots) s = C_init;
    }
    std::vector<std::uint64_t> batch(std::uint32_t n, std::uint64_t key) {
        if (n > slots.size()) std::exit(5);
        const std::size_t row = std::size_t(h.ldb);
        for (std::uint32_t s = 0; s < n; ++s) {
            const std::uint64_t perm = rp::slot_keys(key, s).perm;
            if (!B.empty()) {
#pragma omp parallel for schedule(static)
                for (int k = 0; k < h.K; ++k)
                    std::memcpy(&Bp[std::size_t(k) * row],
                                &B[std::size_t(rp::permute_row(std::uint32_t(k), std::uint32_t(h.K),
                                                               perm)) *
                                   row],
                                row * sizeof(float));
            }
            call(Bp.data(), slots[s].data());
        }
        const int blocks = rp::digest_blocks(h.M);
        std::vector<std::uint64_t> out(std::size_t(n) * blocks);
#pragma omp parallel for schedule(dynamic)
        for (std::int64_t i = 0; i < std::int64_t(out.size()); ++i) {
            const std::uint32_t s = std::uint32_t(i / blocks), b = std::uint32_t(i % blocks);
            const BlockRows r = block_rows(int(b), h.M);
            out[std::size_t(i)] = rp::digest_block(rp::slot_keys(key, s), b,
                                                   slots[s].data() + std::size_t(r.first) * h.ldc,
                                                   std::uint64_t(r.end - r.first) * h.ldc);
        }
        return out;
    }
    std::vector<float> rows(std::uint32_t slot, std::uint32_t b) {
        if (slot >= slots.size() || int(b) >= rp::digest_blocks(h.M)) std::exit(5);
        const BlockRows r = block_rows(int(b), h.M);
        const float* first = slots[slot].data() + std::size_t(r.first) * h.ldc;
        return std::vector<float>(first, first + std::size_t(r.end - r.first) * h.ldc);
    }
};
#endif

}  // namespace

int main() {
    Problem p;
    for (;;) {
        const rp::Op op = read_value<rp::Op>();
        if (op == rp::Op::Quit) return 0;
        if (op == rp::Op::Load) {
            const rp::LoadHeader h = read_value<rp::LoadHeader>();
#ifdef GRADE_FP8
            if (!h.fp8) std::exit(4);  // built for FP8 operands
            std::vector<std::uint8_t> a(h.n_a), b(h.n_b);
            read_all(a.data(), a.size());
            read_all(b.data(), b.size());
            const std::vector<float> sa = read_floats(h.n_sa);
            const std::vector<float> sb = read_floats(h.n_sb);
            p.load(h, a, b, sa, sb, read_floats(h.n_c));
#else
            if (h.fp8) std::exit(4);
            std::vector<float> a = read_floats(h.n_a);
            std::vector<float> b = read_floats(h.n_b);
#ifdef GRADE_GPU
            p.load(h, a, b, {}, {}, read_floats(h.n_c));
#else
            p.load(h, std::move(a), std::move(b), read_floats(h.n_c));
#endif
#endif
        } else if (op == rp::Op::Run) {
            const std::vector<float> C = p.run(read_floats(read_value<std::uint64_t>()));
            reply_floats(C.data(), C.size());
        } else if (op == rp::Op::Ping) {
            reply_ok();
        } else if (op == rp::Op::Stage) {
            p.stage(read_value<std::uint32_t>());
            reply_ok();
        } else if (op == rp::Op::Batch) {
            const std::uint32_t n = read_value<std::uint32_t>();
            const std::vector<std::uint64_t> d = p.batch(n, read_value<std::uint64_t>());
            const std::uint32_t blocks = std::uint32_t(rp::digest_blocks(p.h.M));
            reply_ok();
            write_all(&blocks, sizeof blocks);
            write_all(d.data(), d.size() * sizeof(std::uint64_t));
        } else if (op == rp::Op::Rows) {
            const std::uint32_t slot = read_value<std::uint32_t>();
            const std::vector<float> r = p.rows(slot, read_value<std::uint32_t>());
            reply_floats(r.data(), r.size());
        } else {
            return 4;  // not a request
        }
    }
}

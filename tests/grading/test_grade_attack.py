#!/usr/bin/env python3
"""Tries to fool tools/grading/grade.py as a student would (every attack of issues 18, 27 and 40), and
checks that only a kernel that computes the product gets PASS, that a kernel gets the speed it has
and no more, that every broken submission costs only itself and keeps its row, that nothing a
submission starts outlives its grade, that nothing of the grader (a marker in its environment, its
paths, the seed) reaches the child or a file the student sees, and that a bad command line is
refused before anything is built.

Usage: python3 -m tests.run tests.grading.test_grade_attack SOURCE_ROOT BUILD_ROOT CHAPTER
Exit: 0 pass, 1 fail, 77 skipped (a GPU chapter without a usable GPU, GEMM_REQUIRE_GPU unset).
A machine without a working bubblewrap fails: grading refuses there (docs/assignments.md).
"""
import concurrent.futures
import csv
import glob
import hashlib
import json
import os
import platform
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import time

from tests.check import skip_or_fail
from tools.build import chapters as chapter_list

T0 = time.time()
x86 = platform.machine() in ("x86_64", "AMD64")
root, build, chapter = sys.argv[1:4]
info = next(c for c in chapter_list.load() if c.id.split("_")[0] == chapter)
ch = info.id
gpu = info.kind != "cpu"
kname = "kernel.cuh" if gpu else "kernel.hpp"
solution = open(os.path.join(root, "chapters", ch, kname)).read()
ns = info.ns
binary = os.path.join(build, "chapters", "grade_" + ch)  # the chapter's grading binary
grade_py = "tools.grading.grade"  # run as python3 -m tools.grading.grade
SEED = 918273645  # distinctive: it must appear in nothing a student sees
MARKER = "GEMM_GRADE_MARKER_" + secrets.token_hex(8)  # in the grader's environment: never the child's
failures = []
# The kernels on one thread (a shared machine's spare core makes their timings less noisy), the
# yardstick on every core: the spinning attack below has them to take from it.
TAG = "OMP_GEMM_GRADE_TEST=" + secrets.token_hex(8)  # OMP_*: the child gets it, and is found by it
ENV = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS=str(os.cpu_count() or 1), GEMM_GRADE_SECRET=MARKER,
           OMP_GEMM_GRADE_TEST=TAG.split("=")[1],
           LD_LIBRARY_PATH=os.pathsep.join([os.path.abspath(root), os.path.join(os.path.abspath(root), "common")]))

if gpu:  # no GPU: the grading binary says so with exit 77 (":check" runs nothing)
    p = subprocess.run([binary, "--remote", ":check", "--sizes", "1", "--out", tempfile.mkdtemp()],
                       capture_output=True, text=True)
    if p.returncode == 77:
        skip_or_fail(p.stdout)
    half = "__half" in solution
    In = "__half" if half else "float"
    load = "__half2float" if half else ""
BENCH = "2048" if gpu else "256"
SIZES = ["--sizes", BENCH, "--reps", "3"]
# The size at which the child's timing is compared with the chapter's own: large enough that what
# the grade adds to every call (a copy of B, the digests of C) is small beside the product.
BAND = ["--sizes", "8192" if gpu else "512", "--reps", "3"]


def replace_gemm_body(body, text=solution):
    """The solution with the body of gemm() replaced (the signature kept)."""
    m = re.search(r"inline void gemm\(([^)]*)\)\s*\{", text)
    start = m.end()
    depth, i = 1, start
    while depth:
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        i += 1
    return text[:start] + "\n" + body + "\n}" + text[i:]


def gemm_body(text=solution):
    """The body of gemm() in `text`."""
    m = re.search(r"inline void gemm\(([^)]*)\)\s*\{", text)
    depth, i = 1, m.end()
    while depth:
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        i += 1
    return text[m.end():i - 1]


# A correct kernel far slower than the solution: the base of the attacks on timing, which must get
# its speed and no more. `first` is a line placed first in the loop or thread body.
def slow(first="", before="", host=""):
    if not gpu:
        return f"""#pragma once
{before}
namespace {ns} {{
inline void gemm(int M, int N, int K, float alpha, const float* A, int lda, const float* B, int ldb,
                 float beta, float* C, int ldc) {{
{host}
{first}
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {{
            float acc = 0.0f;
            for (int k = 0; k < K; ++k) acc += A[i * lda + k] * B[k * ldb + j];
            C[i * ldc + j] = alpha * acc + (beta == 0.0f ? 0.0f : beta * C[i * ldc + j]);
        }}
}}
}}  // namespace {ns}
"""
    return f"""#pragma once
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include "cuda_check.cuh"
{before}
namespace {ns} {{
__global__ void naive(int M, int N, int K, float alpha, const {In}* A, int lda, const {In}* B,
                      int ldb, float beta, float* C, int ldc) {{
{first}
    const int i = blockIdx.y * blockDim.y + threadIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= M || j >= N) return;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += {load}(A[i * lda + k]) * {load}(B[k * ldb + j]);
    C[i * ldc + j] = alpha * acc + (beta == 0.0f ? 0.0f : beta * C[i * ldc + j]);
}}
inline void gemm(int M, int N, int K, float alpha, const {In}* A, int lda, const {In}* B, int ldb,
                 float beta, float* C, int ldc, cudaStream_t stream) {{
{host}
    if (M == 0 || N == 0) return;
    const dim3 block(16, 16), grid((N + 15) / 16, (M + 15) / 16);
    naive<<<grid, block, 0, stream>>>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
    GEMM_CUDA_CHECK_LAUNCH();
}}
}}  // namespace {ns}
"""


# Libc functions the scan does not list, declared by hand (no header needed).
LIBC = ('extern "C" int openat(int, const char*, int, ...);\n'
        'extern "C" long read(int, void*, unsigned long);\n'
        'extern "C" long write(int, const void*, unsigned long);\n'
        'extern "C" int getppid();\n'
        'extern "C" int kill(int, int);\n'
        'extern "C" void _exit(int);\n'
        'extern "C" unsigned sleep(unsigned);\n')
FAKE = ('    std::printf("GRADE: PASS\\n=== grade.json ===\\n{\\"pass\\": true, \\"shapes_passed\\": 99, '
        '\\"shapes_total\\": 99, \\"error\\": \\"\\", \\"shapes\\": [], \\"benchmark\\": []}\\n");\n'
        '    std::fflush(stdout);\n')

with tempfile.TemporaryDirectory() as tmp:
    subs = os.path.join(tmp, "class")
    out = os.path.join(tmp, "grades")
    os.makedirs(subs)

    def write(name, text):
        if text is None:
            return
        os.makedirs(os.path.join(subs, name))
        with open(os.path.join(subs, name, kname), "w") as f:
            f.write(text)

    write("good", solution)
    write("slow", slow())
    # --- timing -----------------------------------------------------------------------------------
    # Skipping the timed runs: return at once when C already holds an answer (the grade poisons C
    # before every call, so this kernel computes every time, at its own speed).
    skip = "    if (beta == 0.0f && M > 0 && N > 0 && C[0] == C[0]) return;"
    write("skip_timed", slow(first=skip))
    # Replaying an answer: a call with the same pointers and shape as the last copies its C back.
    if not gpu:
        replay = """    static const float *lastA = nullptr, *lastB = nullptr;
    static int lastM = -1, lastN = -1, lastK = -1;
    static float* saved = nullptr;
    const unsigned long bytes = sizeof(float) * (unsigned long)(M > 0 ? M - 1 : 0) * ldc + sizeof(float) * N;
    if (saved && A == lastA && B == lastB && M == lastM && N == lastN && K == lastK && M > 0) {
        for (unsigned long e = 0; e < bytes / sizeof(float); ++e) C[e] = saved[e];
        return;
    }
    struct Later { int M, N, K, lda, ldb, ldc; float alpha, beta; const float *A, *B; float* C;
                   ~Later() { if (M <= 0) return; std::free(saved); saved = (float*)std::malloc(sizeof(float) * ((unsigned long)(M - 1) * ldc + N));
                              for (unsigned long e = 0; e < (unsigned long)(M - 1) * ldc + N; ++e) saved[e] = C[e];
                              lastA = A, lastB = B, lastM = M, lastN = N, lastK = K; } }
        later{M, N, K, lda, ldb, ldc, alpha, beta, A, B, C};"""
        write("replay", "#include <cstdlib>\n" + slow(first=replay))
    else:
        replay = f"""    static const {In} *lastA = nullptr, *lastB = nullptr;
    static int lastM = -1, lastN = -1, lastK = -1;
    static float* saved = nullptr;
    const size_t bytes = M > 0 ? sizeof(float) * ((size_t)(M - 1) * ldc + N) : 0;
    if (saved && A == lastA && B == lastB && M == lastM && N == lastN && K == lastK && M > 0) {{
        GEMM_CUDA_CHECK(cudaMemcpyAsync(C, saved, bytes, cudaMemcpyDeviceToDevice, stream));
        return;
    }}
    if (M > 0 && N > 0) {{
        const dim3 block(16, 16), grid((N + 15) / 16, (M + 15) / 16);
        naive<<<grid, block, 0, stream>>>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
        GEMM_CUDA_CHECK_LAUNCH();
        if (saved) cudaFree(saved);
        GEMM_CUDA_CHECK(cudaMalloc(&saved, bytes));
        GEMM_CUDA_CHECK(cudaMemcpyAsync(saved, C, bytes, cudaMemcpyDeviceToDevice, stream));
        lastA = A, lastB = B, lastM = M, lastN = N, lastK = K;
    }}
    return;"""
        text = slow()
        write("replay", text.replace("    if (M == 0 || N == 0) return;\n    const dim3 block",
                                     replay + "\n    const dim3 block", 1))
    # Rewriting what the child reports: overloads of names the child uses, and a write() of its own
    # that would swallow every reply. In a translation unit of its own, exporting only grade_gemm,
    # none of this reaches the child: the kernel must be graded as the slow kernel it is.
    hijack = (LIBC.replace('extern "C" long write(int, const void*, unsigned long);\n', "") +
              'extern "C" long __write(int, const void*, unsigned long);\n'
              'extern "C" long write(int fd, const void* p, unsigned long n) { return fd == 4 ? -1 : __write(fd, p, n); }\n'
              "void write_all(const double* p, unsigned long n) { double* q = const_cast<double*>(p); "
              "for (unsigned long i = 0; i < n / sizeof(double); ++i) q[i] = 1e-9; }\n"
              "namespace gemm { namespace remote { inline unsigned long digest_block(...) { return 0; } } }\n")
    write("overload", slow(before=hijack))
    if not gpu:
        # Answering before computing: the product goes on in a thread of its own (for the large
        # benchmark shape only, so that the small checked shapes pass).
        detached = """extern "C" int pthread_create(unsigned long*, const void*, void* (*)(void*), void*);
extern "C" int pthread_detach(unsigned long);
struct Job { int M, N, K, lda, ldb, ldc; float alpha, beta; const float *A, *B; float* C; };
inline void* work(void* arg) {
    const Job j = *static_cast<Job*>(arg);
    for (int i = 0; i < j.M; ++i)
        for (int c = 0; c < j.N; ++c) {
            float acc = 0.0f;
            for (int k = 0; k < j.K; ++k) acc += j.A[i * j.lda + k] * j.B[k * j.ldb + c];
            j.C[i * j.ldc + c] = j.alpha * acc + (j.beta == 0.0f ? 0.0f : j.beta * j.C[i * j.ldc + c]);
        }
    return nullptr;
}"""
        first = f"""    if (M == {BENCH} && N == {BENCH} && K == {BENCH}) {{
        static Job job;
        job = Job{{M, N, K, lda, ldb, ldc, alpha, beta, A, B, C}};
        unsigned long t = 0;
        pthread_create(&t, nullptr, work, &job);
        pthread_detach(t);
        return;
    }}"""
        write("detached", slow(first=first, before=detached))
    # --- the verdict --------------------------------------------------------------------------------
    # Prints a PASS and a forged verdict, computes nothing, and crashes.
    write("liar", "#include <cstdio>\n" + replace_gemm_body(FAKE + "    *(volatile int*)nullptr = 0;"))
    # Prints a PASS and a forged verdict, then leaves with exit code 0.
    write("quitter", "#include <cstdio>\n#include <cstdlib>\n" + replace_gemm_body(FAKE + "    std::exit(0);"))
    # Writes a forged verdict into its parent's stdout through /proc, then kills the parent.
    forge = """    char path[64];
    std::snprintf(path, sizeof path, "/proc/%d/fd/1", getppid());
    const int fd = openat(-100, path, 1);
    static const char v[] = "GRADE: PASS\\n=== grade.json ===\\n{\\"pass\\": true, \\"shapes_passed\\": 15, \\"shapes_total\\": 15, \\"error\\": \\"\\", \\"shapes\\": [], \\"benchmark\\": []}\\n";
    if (fd >= 0) write(fd, v, sizeof v - 1);
    kill(getppid(), 9);
    _exit(0);"""
    write("forger", "#include <cstdio>\n" + LIBC + replace_gemm_body(forge))
    # Reads the grading binary's command line (the seed) and its own environment, prints them.
    leak = """    char path[64], buf[4096];
    for (const char* what : {"/proc/%d/cmdline", "/proc/self/environ"}) {
        std::snprintf(path, sizeof path, what, getppid());
        const int fd = openat(-100, path, 0);
        const long n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : 0;
        for (long i = 0; i < n; ++i) if (buf[i] == 0) buf[i] = ' ';
        buf[n > 0 ? n : 0] = 0;
        std::fprintf(stderr, "%s: %s\\n", path, buf);
    }
    std::abort();"""
    write("seed_leak", "#include <cstdio>\n#include <cstdlib>\n" + LIBC + replace_gemm_body(leak))
    # --- outliving the grade ------------------------------------------------------------------------
    # The solution, plus a static constructor that leaves a daemon behind (clone, then daemon():
    # a new session), which later appends a forged row to the class CSV.
    csv_path = os.path.join(out, "class.csv")
    daemon = LIBC + f"""extern "C" int clone(int (*)(void*), void*, int, void*, ...);
extern "C" int daemon(int, int);
static char daemon_stack[1 << 16];
static int daemon_body(void*) {{
    if (daemon(1, 1) == 0) {{
        sleep(1);
        const int fd = openat(-100, "{csv_path}", 1 | 02000);
        static const char row[] = "daemon,15,15,True,1e9,1e9,1e9,True,\\n";
        if (fd >= 0) write(fd, row, sizeof row - 1);
    }}
    _exit(0);
}}
struct DaemonStarter {{
    DaemonStarter() {{ clone(daemon_body, daemon_stack + sizeof daemon_stack, 17, nullptr); }}
}} daemon_starter;
"""
    write("daemon", solution.replace("#pragma once", "#pragma once\n" + daemon, 1))
    # --- flooding -----------------------------------------------------------------------------------
    write("flood", "#include <cstdio>\n" + replace_gemm_body(
        "    static char line[1 << 16];\n    for (int i = 0; i < (1 << 15); ++i) std::fwrite(line, 1, sizeof line, stdout);"))
    # --- includes (all through a macro, which the scan does not read) -------------------------------
    includes = {
        "inc_solution": f'"../chapters/{ch}/{kname}"',
        "inc_abs_solution": f'"{os.path.join(os.path.abspath(root), "chapters", ch, kname)}"',
        "inc_dev_zero": '"/dev/zero"',
        "inc_dev_null": '"/dev/null"',
        "inc_stdin": '"/dev/stdin"',
        "inc_hostname": '"/etc/hostname"',
        "inc_environ": '"/proc/1/environ"',  # the compiler's sandbox: PID 1 is the compiler
        "inc_vector": "<vector>",
    }
    for name, target in includes.items():
        write(name, f"#define GRADE_SNEAK {target}\n#include GRADE_SNEAK\n" + solution)
    # --- the first filter and the build -------------------------------------------------------------
    # The starter as handed out, then tampered with: a harness that passes everything and a
    # tutorial script that prints PASS. grade.py must take the kernel file and nothing else.
    starter = os.path.join(subs, "tampered")
    subprocess.run([sys.executable, "-m", "tools.grading.make_starter", "repo", ch, starter],
                   check=True, capture_output=True)
    runner = os.path.join(starter, "common", "grading", "grade.cpp")
    text = open(runner).read()
    assert "passed += c.pass;" in text, "the tamper target moved: update this test"
    open(runner, "w").write(text.replace("passed += c.pass;", "passed += 1;"))
    with open(os.path.join(starter, "tutorial"), "w") as f:
        f.write("#!/bin/sh\necho 'GRADE: PASS'\n")
    # Calls the BLAS the harness uses as its yardstick: refused by the scan...
    blas = "cublasGemmEx" if gpu else "cblas_sgemm"
    write("blas", f'extern "C" int {blas}();\n' + replace_gemm_body(f"    {blas}();"))
    # ...and hidden from the scan by token pasting: the grading build has no BLAS to link.
    hidden = ("#define GLUE(a, b) a##b\n" + (f'extern "C" int GLUE(cubl, asCreate_v2)(void*);\n' if gpu else
              f'extern "C" void GLUE(cbl, as_sgemm)();\n'))
    write("hidden_blas", hidden + replace_gemm_body(
        "    GLUE(cubl, asCreate_v2)(nullptr);" if gpu else "    GLUE(cbl, as_sgemm)();"))
    write("with_main", solution + "\nint main() { return 0; }\n")
    write("peeker", f'#include "../../chapters/{ch}/{kname}"\n')
    write("hang", replace_gemm_body("    for (volatile int i = 0; i >= 0; i = 0) {\n    }"))
    write("broken", solution.replace("inline void gemm(", "inline void gemm(((", 1))
    # A kernel file that is a link to a file outside the submission (read by the grader's user).
    os.makedirs(os.path.join(subs, "linker"))
    os.symlink("/etc/hostname" if os.path.exists("/etc/hostname") else "/etc/passwd",
               os.path.join(subs, "linker", kname))

    # --- issue 27: nothing to borrow -----------------------------------------------------------------
    # Each of these computes the product only when its escape works, and leaves C unwritten (NaN)
    # otherwise: a PASS would mean the sandbox let it out. The names are spelled so that the scan
    # does not see them (token pasting, strings split); each says in its log what it found.
    GLUE = "#define GLUE(a, b) a##b\n#define NAME(a, b) a b\n"
    escape = 'extern "C" int dprintf(int, const char*, ...);\n' + GLUE
    # Loading a BLAS at run time (the OpenBLAS, cuBLAS or any CBLAS the host has).
    blas_fn = "cublasCreate_v2" if gpu else "cblas_sgemm"
    blas_libs = (["libcub" "las.so.13", "libcub" "las.so.12", "libcub" "las.so"] if gpu else
                 ["libopen" "blas.so.0", "libc" "blas.so.3", "libb" "las.so.3", "libopen" "blas.so"])
    def cut(n):  # split inside "blas", so that neither string literal spells it
        return n.find("blas") + 2 if "blas" in n else 5

    write("dlopen_blas", slow(before=escape + 'extern "C" void* GLUE(dlo, pen)(const char*, int);\n'
                                             'extern "C" void* GLUE(dls, ym)(void*, const char*);\n',
                              host="    {\n        void* f = nullptr;\n" +
                              "".join(f'        if (!f) {{ void* h = GLUE(dlo, pen)(NAME("{n[:cut(n)]}", "{n[cut(n):]}"), 2); '
                                      f'if (h) f = GLUE(dls, ym)(h, NAME("{blas_fn[:4]}", "{blas_fn[4:]}")); }}\n'
                                      for n in blas_libs) +
                              '        dprintf(2, "dlopen_blas: %s\\n", f ? "LOADED" : "nothing loaded");\n'
                              "        if (!f) return;\n    }"))
    # Starting a program: execve of a missing file fails with ENOENT unless execve is refused.
    write("exec_probe", slow(before=escape + 'extern "C" int GLUE(exec, ve)(const char*, char* const*, char* const*);\n'
                                            'extern "C" int* __errno_location();\n',
                             host='    {\n        char* none[] = {nullptr};\n'
                                  '        GLUE(exec, ve)("/nonexistent/program", none, none);\n'
                                  '        const int e = *__errno_location();\n'
                                  '        dprintf(2, "exec_probe: errno %d\\n", e);\n'
                                  '        if (e != 2) return;  /* not ENOENT: refused before the path was looked up */\n    }'))
    # New executable memory: the first step of loading or writing code at run time.
    write("mmap_probe", slow(before=escape + 'extern "C" void* mmap(void*, unsigned long, int, int, int, long);\n',
                             host='    {\n        void* m = mmap(nullptr, 4096, 1 | 4, 0x02 | 0x20, -1, 0);\n'
                                  '        dprintf(2, "mmap_probe: %s\\n", m == (void*)-1 ? "refused" : "EXECUTABLE");\n'
                                  '        if (m == (void*)-1) return;\n    }'))
    # What the sandbox holds: compilers, a BLAS, the toolkit, the instructor's repository (named
    # in the grader's LD_LIBRARY_PATH), the grader's environment through /proc.
    look = [("/usr/bin/g" "++", "compiler"), ("/usr/bin/" "cc", "compiler"), ("/bin/" "sh", "shell"),
            ("/usr/lib/x86_64-linux-gnu/libopen" "blas.so.0", "library"), ("/usr/local/cu" "da/bin/nvcc", "toolkit"),
            (os.path.join(os.path.abspath(root), "chapters", ch, kname), "solution"),
            ("/etc/host" "name", "etc")] + ([] if gpu else [("/proc/1/en" "viron", "environ")])
    def spelled_apart(text):  # "/us" "r/l" "ib/" ...: a C string the scan cannot read
        return " ".join('"' + text[i:i + 3] + '"' for i in range(0, len(text), 3))

    probes = "".join(f'        if (GLUE(acc, ess)({spelled_apart(f)}, 0) == 0) {{ dprintf(2, "fs_probe: FOUND {w}\\n"); found = 1; }}\n'
                     for f, w in look)
    write("fs_probe", slow(before=escape + 'extern "C" int GLUE(acc, ess)(const char*, int);\n',
                           host="    {\n        int found = 0;\n" + probes +
                                '        dprintf(2, "fs_probe: done\\n");\n        if (!found) return;\n    }'))
    # Reads everything of the grader it can (its own environment, PID 1's, the command lines) and
    # prints it into its log; then computes honestly. The log must hold no marker and no host path.
    snoop = """    {
        static int once = 0;
        if (!once++) {
            for (char** e = environ; *e; ++e) dprintf(2, "snoop env: %s\\n", *e);
            static char buf[8192];
            const char* files[] = {"/proc/1/environ", "/proc/1/cmdline", "/proc/self/environ", "/proc/self/cmdline",
                                   "/proc/self/mountinfo", "/proc/2/environ", "/proc/self/cgroup"};
            for (const char* f : files) {
                const int fd = openat(-100, f, 0);
                const long n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
                for (long i = 0; i < n; ++i) if (buf[i] == 0) buf[i] = ' ';
                buf[n > 0 ? n : 0] = 0;
                dprintf(2, "snoop %s: %s\\n", f, n >= 0 ? buf : "(unreadable)");
            }
        }
    }"""
    write("snoop", slow(before='extern "C" int openat(int, const char*, int, ...);\n'
                        'extern "C" long read(int, void*, unsigned long);\n'
                        'extern "C" int dprintf(int, const char*, ...);\n'
                        'extern "C" char** environ;\n', host=snoop))
    # Spelling the seed (as if it had been recovered) in what the grade reports: a forged reply
    # with SEED elements, an exit code, the values of C.
    seed_expr = f"({SEED - 1}ull + 1ull)"  # not the seed's digits, which compile.log may quote
    write("seed_reply", slow(before=LIBC, host=f"""    {{
        static const unsigned char reply[12] = {{0, 0, 0, 0}};
        unsigned long long n = {seed_expr};
        unsigned char msg[12];
        for (int i = 0; i < 4; ++i) msg[i] = reply[i];
        for (int i = 0; i < 8; ++i) msg[4 + i] = (unsigned char)(n >> (8 * i));
        write(4, msg, sizeof msg);
    }}"""))
    write("seed_exit", slow(before=LIBC, host=f"    _exit(int({seed_expr} % 200) + 1);"))
    if not gpu:
        write("seed_value", slow(first=f"    for (int i = 0; i < M; ++i) for (int j = 0; j < N; ++j) C[i * ldc + j] = float({seed_expr});\n    return;"))
    # Code before the lock-down: a constructor of an early priority, an IFUNC resolver (both
    # spelled past the scan), an entry in .preinit_array.
    early = ('extern "C" void* mmap(void*, unsigned long, int, int, int, long);\n'
             "static volatile int early_escaped = 0;\n"
             "static void early() { early_escaped = mmap(nullptr, 4096, 5, 0x22, -1, 0) != (void*)-1; }\n")
    early_check = "    if (!early_escaped) return;"
    write("early_ctor", slow(before=GLUE + early + "__attribute__((GLUE(constr, uctor)(0))) static void run_early() { early(); }\n",
                             host=early_check))
    write("early_ifunc", slow(before=GLUE + 'extern "C" { static int impl() { return 1; }\n'
                              "static int (*resolve())() { return impl; }\n"
                              'int GLUE(if, unc_entry)() __attribute__((GLUE(if, unc)("resolve"))); }\n'
                              "static int (*volatile keep)() = GLUE(if, unc_entry);\n"))
    write("early_preinit", slow(before=GLUE + early +
                                '__attribute__((used, section(NAME(".prein", "it_array")))) static void (*early_p)() = early;\n',
                                host=early_check))
    # --- issue 40: only what the grader's own link produced runs, from the first instruction ---------
    # An IFUNC whose resolver is 100000 bytes long (readelf prints its size in hex) runs while the
    # loader relocates, before the child's own filter: it computes only if it could make executable
    # memory there. Refused in the object file (the symbol's type, read by column).
    write("ifunc_big", slow(before=GLUE + 'extern "C" void* mmap(void*, unsigned long, int, int, int, long);\n'
                            "static volatile int early_escaped = 0;\n"
                            'extern "C" { static int impl() { return 1; }\n'
                            "static long raw_mmap() {  // a system call of its own: libc is not relocated yet\n"
                            '    long r; register long r10 asm("r10") = 0x22, r8 asm("r8") = -1, r9 asm("r9") = 0;\n'
                            '    asm volatile("syscall" : "=a"(r) : "a"(9l), "D"(0l), "S"(4096l), "d"(5l), "r"(r10), "r"(r8), "r"(r9)\n'
                            '                 : "rcx", "r11", "memory");\n'
                            "    return r; }\n"
                            "static int (*resolve())() {\n"
                            "    early_escaped = raw_mmap() > 0;\n"
                            '    asm volatile("jmp 1f\\n.skip 100000, 0x90\\n1:");\n'
                            "    return impl; }\n"
                            'int GLUE(if, unc_big)() __attribute__((GLUE(if, unc)("resolve"))); }\n'
                            "static int (*volatile keep_big)() = GLUE(if, unc_big);\n",
                            host="    if (!early_escaped || !keep_big()) return;") if not gpu and x86 else None)
    # The yardstick's code copied in by the assembler (.incbin, the path split past the scan): the
    # compile's sandbox holds no BLAS, no cuBLAS, no cuBLASLt, so the file is not there to copy.
    if gpu:
        nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
        top = os.path.dirname(os.path.dirname(os.path.realpath(nvcc)))
        lib_candidates = sorted(glob.glob(os.path.join(top, "lib*", "libcublasLt.so*")) +
                                glob.glob(os.path.join(top, "targets", "*", "lib", "libcublasLt.so*")))
    else:
        lib_candidates = [p for p in ("/usr/lib/x86_64-linux-gnu/libopenblas.so.0", "/usr/lib/aarch64-linux-gnu/libopenblas.so.0",
                                      "/usr/lib/x86_64-linux-gnu/libblas.so.3", "/usr/lib/aarch64-linux-gnu/libblas.so.3")]
    lib_candidates = [p for p in lib_candidates if os.path.isfile(p)]
    if lib_candidates:
        lib = lib_candidates[0]
        cut_at = lib.find("blas") + 2
        write("incbin_blas", solution.replace("#pragma once", "#pragma once\n" +
              f'asm(".pushsection .rodata\\n.inc" "bin \\"{lib[:cut_at]}" "{lib[cut_at:]}\\", 0, 4096\\n.popsection");\n', 1))
    else:
        print("no BLAS library on this machine: the .incbin attack is not tried")
    # __has_include of a file that exists only in the real compile (the log of an earlier pass):
    # the header it lets in must be in the dependency list all the same. It computes only when
    # the header came in.
    sneak = ('#if __has_include("compile.log") || __has_include("/build/compile.log")\n#define GRADE_SNEAK <vector>\n'
             "#include GRADE_SNEAK\n#define GRADE_GOT_VECTOR 1\n#endif\n")
    write("has_include", sneak + replace_gemm_body("#ifndef GRADE_GOT_VECTOR\n    return;\n#endif\n" + gemm_body()))
    # Filling the disk past RLIMIT_FSIZE: fallocate with FALLOC_FL_KEEP_SIZE on the log (256 MiB
    # where the limit is 16): refused. It computes only when it could.
    write("fallocate_log", slow(before=escape + 'extern "C" int GLUE(falloc, ate)(int, int, long, long);\n',
                                host="    {\n        static int done = 0, ok = 0;\n"
                                     "        if (!done++) ok = GLUE(falloc, ate)(1, 1, 0, 256l << 20) == 0;\n"
                                     '        dprintf(2, "fallocate_log: %s\\n", ok ? "ALLOCATED" : "refused");\n'
                                     "        if (!ok) return;\n    }"))
    # More processes than one, each with its own address-space limit (four of them held 700 MiB
    # each under a limit of 1 GiB): a fork is refused. It computes only when it could fork.
    write("fork_memory", slow(before=escape + 'extern "C" int GLUE(fo, rk)();\nextern "C" int waitpid(int, int*, int);\n'
                              'extern "C" void _exit(int);\n',
                              host="    {\n        const int pid = GLUE(fo, rk)();\n"
                                   "        if (pid == 0) _exit(0);\n"
                                   "        if (pid > 0) waitpid(pid, nullptr, 0);\n"
                                   '        dprintf(2, "fork_memory: %s\\n", pid > 0 ? "FORKED" : "refused");\n'
                                   "        if (pid <= 0) return;\n    }"))
    # More threads than the assignment allows (OMP_NUM_THREADS=1 here): the child's CPUs are
    # pinned before it runs, and it cannot widen them. It computes only when it sees, or can take,
    # more than one CPU.
    if (os.cpu_count() or 1) > 1:
        write("more_cpus", slow(before=escape + 'extern "C" int sched_getaffinity(int, unsigned long, void*);\n'
                                'extern "C" int sched_setaffinity(int, unsigned long, const void*);\n',
                                host="    {\n        unsigned long mask[16] = {0};\n        int cpus = 0;\n"
                                     "        if (sched_getaffinity(0, sizeof mask, mask) == 0)\n"
                                     "            for (unsigned long w : mask) cpus += __builtin_popcountl(w);\n"
                                     "        unsigned long all[16];\n        for (unsigned long& w : all) w = ~0ul;\n"
                                     "        const int widened = sched_setaffinity(0, sizeof all, all) == 0;\n"
                                     '        dprintf(2, "more_cpus: %d CPUs, %s\\n", cpus, widened ? "WIDENED" : "not widened");\n'
                                     "        if (cpus <= 1 && !widened) return;\n    }"))
    # The linked child's ELF is read by column, whatever the widths: a program with an IFUNC of a
    # 100000-byte resolver, one with an executable stack and one with a writable text, built here.
    try:
        from tools.grading import grade as grade_module
        elf_check = getattr(grade_module, "child_elf_problem", None)
    except SystemExit:
        elf_check = None
    if elf_check is None:
        failures.append("grade.py has no child_elf_problem: the linked child is not checked")
    else:
        src = os.path.join(tmp, "elf_probe.c")
        with open(src, "w") as f:
            f.write("static int impl(void) { return 1; }\n"
                    'static int (*resolve(void))(void) { __asm__ volatile("jmp 1f\\n.skip 100000, 0x90\\n1:"); return impl; }\n'
                    'int big(void) __attribute__((ifunc("resolve")));\nint main(void) { return big(); }\n')
        for label, flags, want in (("IFUNC", [], "IRELATIVE"), ("execstack", ["-Wl,-z,execstack"], "executable stack"),
                                   ("writable text", ["-Wl,--omagic", "-no-pie"], "writable and executable")):
            exe = os.path.join(tmp, "elf_probe_" + label.replace(" ", "_"))
            q = subprocess.run(["gcc", "-O1", src, "-o", exe] + flags, capture_output=True, text=True)
            listing = subprocess.run(["readelf", "-W", "-l", "-d", "-r", "-s", exe], capture_output=True,
                                     text=True).stdout if q.returncode == 0 else None
            why = elf_check(listing) if listing else None
            if q.returncode == 0 and (not why or want not in why):
                failures.append(f"the linked-child check misses {label}: {why!r}")

    # --- issue 40: a grade to hand back --------------------------------------------------------------
    # An empty gemm() passes the shapes with M, N or K = 0 and nothing else: no points. A copy of
    # the slow kernel is flagged as identical; a compiler error that quotes an escape sequence of
    # the terminal is shown escaped.
    write("empty_gemm", replace_gemm_body(""))
    write("slow_twin", slow())
    write("ansi_error", "#error \x1b[2J\x1b[31m cleared\n" + solution)

    # --- timing: threads that spin whenever the kernel is not running ------------------------------
    # While the grade times the yardstick the child is idle: unless it is stopped, its threads take
    # the cores from the yardstick, which then looks slower, and the kernel faster "of the
    # yardstick". The kernel itself computes at the slow kernel's speed.
    spin_before = """extern "C" int pthread_create(unsigned long*, const void*, void* (*)(void*), void*);
extern "C" int usleep(unsigned);
static volatile int spin_busy = 0;
static void* spin(void*) {
    volatile unsigned long x = 0;
    for (;;) {
        if (spin_busy) usleep(50);
        else for (int i = 0; i < 100000; ++i) x = x + i;
    }
    return nullptr;
}
static void spin_start() {
    static int started = 0;
    if (started++) return;
    for (int t = 0; t < 4; ++t) { unsigned long id = 0; pthread_create(&id, nullptr, spin, nullptr); }
}
struct SpinGuard { SpinGuard() { spin_start(); spin_busy = 1; } ~SpinGuard() { spin_busy = 0; } };
"""
    write("spinner", slow(before=spin_before, host="    SpinGuard spin_guard;" if not gpu else
                          "    SpinGuard spin_guard;\n    cudaStreamSynchronize(stream);"))
    # --- every submission keeps its row --------------------------------------------------------------
    # Links to a classmate's folder and to the instructor's repository (relative, as a zip keeps
    # them); odd names (a name from a zip made on Windows, cp1252, is not UTF-8; quotes, commas, a
    # newline); loose files; a kernel file at the top of the class folder.
    os.symlink("good", os.path.join(subs, "link_classmate"))
    os.symlink(os.path.relpath(os.path.abspath(root), subs), os.path.join(subs, "link_instructor"))
    def name_hash(raw):
        return hashlib.sha256(raw).hexdigest()[:8]

    # b"M\xfcller" and the literal "M\\xfcller" are shown alike: each keeps its row, told apart by a
    # hash of its own name. A name of 250 bytes (past what a folder of OUT holds with its files) is
    # cut there, and a newline is shown escaped.
    long_name = "L" * 250
    odd = {b"M\xfcller": f"M\\xfcller ({name_hash(b'M' + bytes([0xfc]) + b'ller')})",
           b"M\\xfcller": f"M\\xfcller ({name_hash(b'M' + bytes([0x5c]) + b'xfcller')})",
           'quote",comma'.encode(): 'quote",comma', "new\nline".encode(): "new\\x0aline",
           "Zoë".encode(): "Zoë", long_name.encode(): long_name}
    for raw in odd:
        os.makedirs(os.path.join(os.fsencode(subs), raw))
        with open(os.path.join(os.fsencode(subs), raw, kname.encode()), "w") as f:
            f.write(solution)
    with open(os.path.join(subs, "carol" + os.path.splitext(kname)[1]), "w") as f:
        f.write(solution)
    with open(os.path.join(subs, kname), "w") as f:
        f.write(solution)
    # A log bomb: nested macros of warnings, megabytes of compiler output from a small file.
    bomb = "#define W0 _Pragma(\"GCC warning \\\"" + "bomb " * 100 + "\\\"\")\n" + "".join(
        f"#define W{i + 1} W{i} W{i}\n" for i in range(13)) + "static inline void bomb() { W13 }\n"
    write("log_bomb", bomb + solution)

    t0 = time.time()
    cmd = [sys.executable, "-m", grade_py, chapter, subs, "--build", build, "--out", out, "--seed", str(SEED),
           "--timeout", "5", "--gradescope", "--"] + SIZES
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=3000, env=ENV)
    print(p.stdout[-8000:], p.stderr[-3000:])
    print(f"grade.py took {time.time() - t0:.0f} s")
    if p.returncode != 0:
        failures.append(f"grade.py exit {p.returncode}")
    if "sandboxed (bubblewrap" not in p.stdout:
        failures.append("grade.py does not say that it graded in the sandbox")
    rows = {r["submission"]: r for r in csv.DictReader(open(csv_path))} if os.path.exists(csv_path) else {}
    # submission -> a piece of the reason it fails, None: it passes, "speed": it may pass, at the
    # slow kernel's speed.
    expect = {
        "good": None, "slow": None, "daemon": None,
        "skip_timed": "speed", "overload": "speed",
        "replay": "C is wrong",
        "liar": "ended", "quitter": "ended", "forger": "ended", "seed_leak": "ended",
        "flood": "",  # any failure: it computes nothing (its log is bounded below)
        "inc_solution": "No such file", "inc_abs_solution": "No such file", "inc_dev_zero": "No such file",
        "inc_stdin": "No such file", "inc_hostname": "No such file",
        "inc_dev_null": "a device or system file", "inc_vector": "not on the allow-list",
        "inc_environ": "a device or system file",
        "tampered": "is wrong",  # the stub computes nothing: its shapes and its timed C fail
        "blas": "rejected", "hidden_blas": "does not compile", "with_main": "rejected",
        "peeker": "rejected", "hang": "did not answer within 5 s", "broken": "does not compile",
        "linker": "is a link",
        # issue 27
        "dlopen_blas": "C is wrong", "exec_probe": "C is wrong", "mmap_probe": "C is wrong",
        "fs_probe": "C is wrong", "snoop": None,
        "seed_reply": "a wrong number of elements", "seed_exit": "a non-zero exit code",
        "early_ctor": "runs before main", "early_ifunc": "IFUNC", "early_preinit": "runs before main",
        "spinner": None,
        # issue 40
        "ifunc_big": "IFUNC", "incbin_blas": "does not compile", "has_include": "",
        "fallocate_log": "C is wrong", "fork_memory": "C is wrong", "more_cpus": "C is wrong",
        "empty_gemm": "first failing shape", "slow_twin": None, "ansi_error": "does not compile",
        "link_classmate": "symbolic link", "link_instructor": "symbolic link",
        "carol" + os.path.splitext(kname)[1]: "a loose file", kname: "at the top of the class folder",
        "log_bomb": None,
    }
    expect.update({shown: None for shown in odd.values()})
    if not gpu:
        expect["seed_value"] = "C is wrong"
    if not gpu:
        expect["detached"] = "run"  # a warm-up or timed run: C wrong, or changed after the digest
    if gpu or not x86:
        del expect["ifunc_big"]
    if not lib_candidates:
        del expect["incbin_blas"]
    if (os.cpu_count() or 1) == 1:
        del expect["more_cpus"]
    if set(rows) != set(expect):
        failures.append(f"class.csv rows {sorted(rows)} != {sorted(expect)}")

    def evidence(name):
        text = ""
        for f in ("grade.txt", "child.log", "compile.log"):
            path = os.path.join(folder(name), f)
            if os.path.exists(path):
                with open(path, "rb") as fh:
                    fh.seek(0, os.SEEK_END)
                    fh.seek(max(0, fh.tell() - 1500))
                    text += f"\n--- {name}/{f} (end) ---\n" + fh.read().decode(errors="replace")
        return text

    def folder(name):  # grade.py's folder of a submission: the one whose feedback.txt names it
        if not hasattr(folder, "named"):
            folder.named = {}
            for d in os.listdir(out) if os.path.isdir(out) else []:
                fb = os.path.join(out, d, "feedback.txt")
                if os.path.isfile(fb):
                    first = open(fb, encoding="utf-8", errors="replace").readline()
                    folder.named[first.partition("submission: ")[2].rstrip("\n")] = os.path.join(out, d)
        return folder.named.get(name, os.path.join(out, name.replace("/", "_")))

    gflops = {n: float(r["gflops"]) for n, r in rows.items()}
    for name, reason in expect.items():
        r = rows.get(name)
        if r is None:
            continue
        if reason is None:
            if r["pass"] != "True" or r["shapes_passed"] != r["shapes_total"]:
                failures.append(f"{name} should PASS: {r}" + evidence(name))
        elif reason == "speed":
            if r["pass"] == "True" and gflops[name] > 2.0 * max(gflops.get("slow", 0.0), 1e-9):
                failures.append(f"{name} is graded faster than the slow kernel it is: {gflops[name]} against "
                                f"{gflops.get('slow')} GFLOPS")
        else:
            if r["pass"] != "False":
                failures.append(f"{name} must FAIL: {r}" + evidence(name))
            if reason not in r["error"]:
                failures.append(f"{name}: expected '{reason}' in the reason, got {r['error']!r}" + evidence(name))
        res = os.path.join(folder(name), "results.json")
        if not os.path.exists(res):
            failures.append(f"{name}: no Gradescope results.json")
            continue
        gs = json.load(open(res))
        total = sum(t["max_score"] for t in gs["tests"])
        if abs(total - 100.0) > 0.01 or any(set(t) != {"name", "score", "max_score", "output"} for t in gs["tests"]):
            failures.append(f"{name}: malformed results.json (max {total})")
        correct = sum(t["score"] for t in gs["tests"] if t["name"].startswith("correct"))
        perf = sum(t["score"] for t in gs["tests"] if t["name"].startswith("performance"))
        if reason is None and abs(correct - 80.0) > 0.01:
            failures.append(f"{name}: correctness points {correct}, expected 80")
        if reason not in (None, "speed") and gs["score"] >= 80.0:
            failures.append(f"{name}: scored {gs['score']} although it fails")
        if r["pass"] == "True":  # performance points: full from 90% of the reference's speed on
            want = 20.0 * min(1.0, float(r["pct_of_reference"]) / 90.0)
            if abs(perf - want) > 0.01:
                failures.append(f"{name}: {perf} performance points for {r['pct_of_reference']}% of the reference")
        if "score" not in r or abs(float(r["score"] or -1) - gs["score"]) > 0.01:
            failures.append(f"{name}: class.csv's score {r.get('score')} is not results.json's {gs['score']}")
        # The feedback to hand back: there, with no seed and no code of the reference.
        fb_path = os.path.join(folder(name), "feedback.txt")
        fb = open(fb_path, encoding="utf-8", errors="replace").read() if os.path.exists(fb_path) else None
        if fb is None:
            failures.append(f"{name}: no feedback.txt")
        elif str(SEED) in fb or "BEGIN SOLUTION" in fb or "inline void gemm" in fb:
            failures.append(f"{name}: feedback.txt holds the seed or code: {fb[:500]}")
        elif r["pass"] == "False" and r["error"] and r["error"] not in fb:
            failures.append(f"{name}: feedback.txt does not give the reason {r['error']!r}")
    if "good" in rows and "slow" in rows:
        if not gflops["slow"] < 0.5 * gflops["good"]:
            failures.append(f"the slow kernel ({gflops['slow']} GFLOPS) is not far slower than the solution "
                            f"({gflops['good']}): the timing attacks test nothing")
        if float(rows["good"]["pct_of_reference"]) < 40.0:
            failures.append(f"the solution reaches only {rows['good']['pct_of_reference']}% of the same kernel "
                            "graded as the reference")

    # Issue 40: no points from the empty shapes alone; copies flagged; nothing unprintable in any
    # field; the attacks' logs show that they tried.
    if "empty_gemm" in rows and float(rows["empty_gemm"].get("score") or 0) != 0.0:
        failures.append(f"an empty gemm() scores {rows['empty_gemm'].get('score')}: points from the empty shapes alone")
    if "tampered" in rows and float(rows["tampered"].get("score") or 0) != 0.0:
        failures.append(f"the untouched starter scores {rows['tampered'].get('score')}")
    summary_path = os.path.join(out, "summary.txt")
    summary_text = open(summary_path, encoding="utf-8").read() if os.path.exists(summary_path) else ""
    twins = re.search(r"^identical kernel files: (.*)$", summary_text, re.M)
    copies = re.search(r"^copies of the instructor's kernel: (.*)$", summary_text, re.M)
    if not twins or not {"slow", "slow_twin"} <= set(twins.group(1).split(", ")):
        failures.append(f"slow and slow_twin are not flagged as identical: {summary_text!r}")
    if not copies or "good" not in copies.group(1).split(", "):
        failures.append(f"good (the instructor's kernel) is not flagged as a copy: {summary_text!r}")
    if not re.search(r"^class: \d+ of \d+ pass$", summary_text, re.M) or "class: " not in p.stdout:
        failures.append(f"no class summary: {summary_text!r}")
    for name, r in rows.items():
        for k, v in r.items():
            if v and re.search(r"[\x00-\x1f\x7f-\x9f]", v):
                failures.append(f"{name}: class.csv's {k} holds a control character: {v!r}")
    for name, attempt in (("fallocate_log", "fallocate_log: refused"), ("fork_memory", "fork_memory: refused"),
                          ("more_cpus", "more_cpus: 1 CPUs, not widened")):
        log = os.path.join(folder(name), "child.log")
        if name in rows and attempt not in (open(log, errors="replace").read() if os.path.exists(log) else ""):
            failures.append(f"{name}'s log does not show the attack refused ({attempt!r})" + evidence(name))
    falloc_log = os.path.join(out, "fallocate_log", "child.log")
    if os.path.exists(falloc_log) and os.stat(falloc_log).st_blocks * 512 > (RUN_FSIZE_TEST := 16 << 20) + (1 << 20):
        failures.append(f"fallocate_log's log holds {os.stat(falloc_log).st_blocks * 512} bytes on disk, past {RUN_FSIZE_TEST}")

    # Nothing of the child reaches a file the student sees: no seed (nor the numbers a child that
    # knew it would spell it with), no host file, no raw output. Nothing of the grader reaches the
    # child: its log (which shows whatever the child could read) holds no marker of the grader's
    # environment and no host path.
    hostname = open("/etc/hostname").read().strip() if os.path.exists("/etc/hostname") else ""
    spelled = [str(SEED), "9.18274e+08", "918273"]
    class_text = open(csv_path, encoding="utf-8").read() if os.path.exists(csv_path) else ""
    for x in spelled + [MARKER]:
        if x in class_text:
            failures.append(f"class.csv holds {x!r}")
    host_paths = [os.path.abspath(root) + "/", os.path.abspath(build) + "/", tmp + "/",
                  tempfile.gettempdir() + "/gemm-grade-"]
    for name in rows:
        for f in ("results.json", "child.log", "compile.log"):
            path = os.path.join(folder(name), f)
            text = open(path, errors="replace").read() if os.path.exists(path) else ""
            for x in (spelled[:2] if f != "compile.log" else []) + [MARKER]:
                if x in text:
                    failures.append(f"{name}/{f} holds {x!r}")
            if f == "results.json" and len(hostname) >= 4 and hostname in text:
                failures.append(f"{name}/{f} holds the content of /etc/hostname")
            if f == "child.log":
                for h in host_paths:
                    if h in text:
                        failures.append(f"{name}/child.log holds the host path {h}: {text[:2000]}")
    if "seed_exit" in rows and re.search(r"\b46\b", rows["seed_exit"]["error"]):
        failures.append(f"seed_exit's reason repeats its exit code: {rows['seed_exit']['error']}")
    for name, attempt in (("seed_leak", "cmdline"), ("snoop", "snoop env: "), ("dlopen_blas", "dlopen_blas: "),
                          ("exec_probe", "exec_probe: errno"), ("mmap_probe", "mmap_probe: refused"),
                          ("fs_probe", "fs_probe: done")):
        log = os.path.join(folder(name), "child.log")
        if name in rows and attempt not in (open(log, errors="replace").read() if os.path.exists(log) else ""):
            failures.append(f"{name}'s log does not show its attempt ({attempt!r}): the test no longer tests "
                            "the attack" + evidence(name))
    flood_log = os.path.join(out, "flood", "child.log")
    if os.path.exists(flood_log) and os.path.getsize(flood_log) > (16 << 20) + 4096:
        failures.append(f"the flood's log has {os.path.getsize(flood_log)} bytes: not bounded to 16 MiB")
    bomb_log = os.path.join(out, "log_bomb", "compile.log")
    if not os.path.exists(bomb_log) or not 1 << 19 < os.path.getsize(bomb_log) <= (1 << 20):
        failures.append(f"the log bomb's compile.log: {os.path.getsize(bomb_log) if os.path.exists(bomb_log) else 'missing'} "
                        "bytes, expected the compiler's last MiB of many")
    # The spinning threads did not slow the yardstick down: it ran as fast in the spinner's grade
    # as in the slow kernel's (the child was stopped while it was timed; the grade itself fails a
    # child whose CPU time grew over the series, so a stop that breaks fails the spinner's row
    # above). A CPU yardstick's rate on a shared 2-core machine swings between grades, so a miss is
    # graded once more, the two alone: a spinner that really runs during the yardstick's timing
    # slows it both times.
    def yard(base, name):
        path = os.path.join(base(name), ch + ".grade.json")
        bench = json.load(open(path))["benchmark"] if os.path.exists(path) else []
        return bench[0]["yardstick_gflops"] if bench else None

    def spinner_slowed(base, rows_of):
        ys, yl = yard(base, "spinner"), yard(base, "slow")
        if ys is None or yl is None or "spinner" not in rows_of or "slow" not in rows_of:
            return None
        bad = ys < 0.6 * yl or float(rows_of["spinner"]["pct_of_yardstick"]) > \
            1.6 * float(rows_of["slow"]["pct_of_yardstick"]) + 0.5
        return bad, (f"{ys} GFLOPS against {yl} in the slow kernel's grade; "
                     f"{rows_of['spinner']['pct_of_yardstick']}% of the yardstick against "
                     f"{rows_of['slow']['pct_of_yardstick']}%")

    first = None if gpu else spinner_slowed(folder, rows)  # a GPU's yardstick runs on the GPU
    if first is not None and first[0]:
        again = os.path.join(tempfile.mkdtemp(), "again")
        q = subprocess.run([sys.executable, "-m", grade_py, chapter, os.path.join(subs, "spinner"),
                            os.path.join(subs, "slow"), "--build", build, "--out", again, "--seed",
                            str(SEED), "--timeout", "5", "--"] + SIZES,
                           capture_output=True, text=True, timeout=1200, env=ENV)
        rows2 = {r["submission"]: r for r in csv.DictReader(open(os.path.join(again, "class.csv")))} \
            if os.path.exists(os.path.join(again, "class.csv")) else {}
        second = spinner_slowed(lambda n: os.path.join(again, n), rows2)
        print(f"spinner: first grade {first[1]}; graded again (exit {q.returncode}): "
              f"{second[1] if second else 'no result'}")
        if second is None or second[0]:
            failures.append(f"the spinner slowed the yardstick down, twice: {first[1]}; then "
                            f"{second[1] if second else 'no second result'}")
    elif first is not None:
        print(f"spinner: yardstick {first[1]}")
    # Nothing the submissions started is alive, and the daemon's row never reaches the class CSV.
    time.sleep(2)
    alive = []  # this test's children carry TAG in their environment (other grades may run beside)
    for pid in os.listdir("/proc"):
        try:
            cmdline = open(f"/proc/{pid}/cmdline", "rb").read()
            environ = open(f"/proc/{pid}/environ", "rb").read()
        except OSError:
            continue
        if TAG.encode() in environ or tmp.encode() in cmdline and b"child" in cmdline:
            alive.append((pid, cmdline[:200]))
    if alive:
        failures.append(f"processes of the submissions outlived the grade: {alive}")
    if os.path.exists(csv_path) and "daemon,15,15,True,1e9" in open(csv_path).read():
        failures.append("the daemon's forged row reached class.csv")

    # --- the command line: all of these at once (none of them times anything) ---------------------
    def grade_cli(*extra, env=None):
        extra = list(extra)
        at = extra.index("--") if "--" in extra else len(extra)
        return subprocess.run([sys.executable, "-m", grade_py, chapter] + extra[:at] + ["--build", build] + extra[at:],
                              capture_output=True, text=True, timeout=3000, env=env or ENV)

    one = os.path.join(tmp, "one")
    os.makedirs(os.path.join(one, "alice"))
    with open(os.path.join(one, "alice", kname), "w") as f:
        f.write(solution)
    before = sorted(os.listdir(os.path.join(one, "alice")))
    afile = os.path.join(tmp, "a_file")
    open(afile, "w").close()
    foreign = os.path.join(tmp, "foreign")
    os.makedirs(os.path.join(foreign, "alice"))
    open(os.path.join(foreign, "alice", "notes.txt"), "w").write("mine")
    killed = os.path.join(tmp, "killed")
    unsafe = os.path.join(tmp, "unsandboxed")
    nothing = os.path.join(tmp, "never")
    # The output folder: never a submission, never around one, never a folder grade.py did not make.
    jobs = {f"--out that {label}": ((one, "--out", out_arg), None)
            for label, out_arg in (("equals the submission", one), ("lies inside it", os.path.join(one, "alice")),
                                   ("contains it", tmp), ("is a file", afile), ("holds a foreign alice/", foreign))}
    # Every option is checked before anything is built: exit 2 with a message.
    bad = [["--seed", "9223372036854775808"], ["--seed", "-1"], ["--seed", "12x"], ["--timeout", "0"],
           ["--time-limit", "-1"], ["--compile-limit", "0"], ["--perf-target", "nan"], ["--perf-target", "0"],
           ["--perf-target", "inf"], ["--correct-points", "nan", "--gradescope"], ["--perf-points", "-5"],
           ["--correct-points", "0", "--perf-points", "0"], ["--", "--sizes", "abc"], ["--", "--reps", "0"],
           ["--", "--sizes", "100000000"], ["--", "--seed", "5"], ["--", "--out", "x"], ["--", "--device", "1"],
           ["--", "--no-such-option"]]
    jobs.update({" ".join(args): ((one, "--out", nothing, *args), None) for args in bad})
    # No sandbox: refused, unless asked for; asked for, every output says so. A grade killed at its
    # time limit gives no grade.
    jobs["no sandbox"] = ((one, "--out", os.path.join(tmp, "nosandbox")),
                          dict(ENV, GEMM_GRADE_BWRAP="/nonexistent/bwrap"))
    jobs["killed"] = ((one, "--out", killed, "--time-limit", "1", "--perf-target", "50", "--", "--sizes",
                       "8192" if gpu else "1024", "--reps", "50"), None)  # seconds of work at least
    jobs["unsandboxed"] = ((one, "--out", unsafe, "--unsandboxed", "--gradescope", "--perf-target", "50", "--",
                            *SIZES), None)
    with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
        done = dict(zip(jobs, pool.map(lambda job: grade_cli(*job[0], env=job[1]), jobs.values())))
    for label, q in done.items():
        if label.startswith("--out that") or label in (" ".join(args) for args in bad):
            if q.returncode != 2 or "error" not in q.stderr or "Traceback" in q.stderr or os.path.exists(nothing):
                failures.append(f"{label}: exit {q.returncode}, expected 2 with a message before anything is "
                                f"made: {q.stderr[-500:]}")
    if sorted(os.listdir(os.path.join(one, "alice"))) != before or not os.path.isfile(os.path.join(one, "alice", kname)):
        failures.append(f"grading touched the submission: {os.listdir(os.path.join(one, 'alice'))}")
    if os.listdir(os.path.join(foreign, "alice")) != ["notes.txt"]:
        failures.append(f"grade.py wrote into an alice/ it did not make: {os.listdir(os.path.join(foreign, 'alice'))}")
    q = done["no sandbox"]
    if q.returncode != 2 or "--unsandboxed" not in q.stderr:
        failures.append(f"no sandbox: exit {q.returncode}, expected 2 naming --unsandboxed: {q.stderr[-500:]}")
    q = done["killed"]
    rows_k = list(csv.DictReader(open(os.path.join(killed, "class.csv")))) if q.returncode == 0 else []
    if not rows_k or rows_k[0]["pass"] != "False" or "time limit" not in rows_k[0]["error"] or \
            os.path.exists(os.path.join(killed, "alice", ch + ".grade.json")):
        failures.append(f"a grade killed at its time limit: exit {q.returncode}, rows {rows_k}, {q.stderr[-500:]}")
    q = done["unsandboxed"]
    rows_u = list(csv.DictReader(open(os.path.join(unsafe, "class.csv")))) if q.returncode == 0 else []
    if q.returncode != 0 or not rows_u or rows_u[0]["pass"] != "True" or rows_u[0]["sandboxed"] != "False" or \
            "UNSANDBOXED" not in q.stdout or \
            "UNSANDBOXED" not in json.load(open(os.path.join(unsafe, "alice", "results.json")))["output"]:
        failures.append(f"--unsandboxed: exit {q.returncode}, rows {rows_u}, stdout {q.stdout[-800:]} {q.stderr[-800:]}")

    # --- speed: the same kernel in process and through the sandboxed child --------------------------
    # The solution graded through the sandboxed child twice, and by the grading binary in process
    # three times in between, best against best: a single timing of each is at the mercy of a
    # shared machine. The child's time includes what the grade adds to every batch (the row
    # permutation of B, the digests of C, a round trip): the window below is the bound that
    # overhead must keep. On a GPU that overhead is tens of microseconds a call, so the GPU
    # comparison runs at 8192.
    def in_process():
        q = subprocess.run([binary, "--seed", str(SEED), "--out", os.path.join(tmp, "inproc")] + BAND,
                           capture_output=True, text=True, env=ENV)
        m = re.search(r"^\d+\s+[\d.]+\s+([\d.]+)", q.stdout, re.M)
        return float(m.group(1)) if m else None

    inproc, remote = [], []
    for i in range(2):
        inproc.append(in_process())
        band = os.path.join(tmp, f"band{i}")
        q = grade_cli(one, "--out", band, "--perf-target", "50", "--", *BAND, env=ENV)
        rows_b = list(csv.DictReader(open(os.path.join(band, "class.csv")))) if q.returncode == 0 else []
        if rows_b and rows_b[0]["pass"] == "True":
            remote.append(float(rows_b[0]["gflops"]))
        else:
            failures.append(f"the grade through the child gave no timing: {q.stdout[-800:]} {q.stderr[-800:]}")
    inproc.append(in_process())
    if None in inproc or not remote:
        failures.append(f"a timing is missing: in process {inproc}, through the child {remote}")
    elif not 0.5 < max(remote) / max(inproc) < 2.0:
        failures.append(f"the child's best timing {max(remote)} GFLOPS is far from the in-process "
                        f"best {max(inproc)} (child {remote}, in process {inproc})")
    else:
        print(f"timings agree: child best {max(remote)} GFLOPS, in process best {max(inproc)} "
              f"(ratio {max(remote) / max(inproc):.3f}; child {remote}, in process {inproc})")

for f in failures:
    print("FAIL:", f)
print(f"{ch}: {len(failures)} failure(s) in {time.time() - T0:.0f} s")
sys.exit(1 if failures else 0)

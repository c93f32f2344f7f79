#!/usr/bin/env python3
"""Tries to fool tools/grade.py as a student would (every attack of issue 18), and checks that only
a kernel that computes the product gets PASS, that a kernel gets the speed it has and no more,
that every broken submission costs only itself, that nothing a submission starts outlives its
grade, and that the class CSV and the Gradescope JSON say so and hold nothing of the child's.

Usage: grade_attack_test.py SOURCE_ROOT BUILD_ROOT CHAPTER
Exit: 0 pass, 1 fail, 77 skipped (a GPU chapter without a usable GPU, GEMM_REQUIRE_GPU unset).
A machine without a working bubblewrap fails: grading refuses there (docs/assignments.md).
"""
import csv
import json
import os
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from no_gpu import skip_or_fail  # noqa: E402

root, build, chapter = sys.argv[1:4]
chapters = sorted(d for d in os.listdir(os.path.join(root, "chapters")) if d.startswith(chapter + "_"))
ch = chapters[0]
gpu = int(chapter) >= 3
kname = "kernel.cuh" if gpu else "kernel.hpp"
solution = open(os.path.join(root, "chapters", ch, kname)).read()
ns = "ch" + chapter
binary = os.path.join(build, "chapters", ch)
grade_py = os.path.join(root, "tools", "grade.py")
SEED = 918273645  # distinctive: it must appear in nothing a student sees
failures = []

if gpu:  # no GPU: the chapter binary says so with exit 77
    p = subprocess.run([binary, "--sizes", "1", "--reps", "1", "--no-baseline", "--out",
                        tempfile.mkdtemp()], capture_output=True, text=True)
    if p.returncode == 77:
        skip_or_fail(p.stdout)
    half = "__half" in solution
    In = "__half" if half else "float"
    load = "__half2float" if half else ""
SIZES = ["--sizes", "2048" if gpu else "512", "--reps", "5"]


def replace_gemm_body(body, text=solution):
    """The solution with the body of gemm() replaced (the signature kept)."""
    m = re.search(r"inline void gemm\(([^)]*)\)\s*\{", text)
    start = m.end()
    depth, i = 1, start
    while depth:
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        i += 1
    return text[:start] + "\n" + body + "\n}" + text[i:]


# A correct kernel far slower than the solution: the base of the attacks on timing, which must get
# its speed and no more. `first` is a line placed first in the loop or thread body.
def slow(first="", before=""):
    if not gpu:
        return f"""#pragma once
{before}
namespace {ns} {{
inline void gemm(int M, int N, int K, float alpha, const float* A, int lda, const float* B, int ldb,
                 float beta, float* C, int ldc) {{
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
        first = """    if (double(M) * N * K > 1e8) {
        static Job job;
        job = Job{M, N, K, lda, ldb, ldc, alpha, beta, A, B, C};
        unsigned long t = 0;
        pthread_create(&t, nullptr, work, &job);
        pthread_detach(t);
        return;
    }"""
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
        sleep(4);
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
        "inc_vector": "<vector>",
    }
    for name, target in includes.items():
        write(name, f"#define GRADE_SNEAK {target}\n#include GRADE_SNEAK\n" + solution)
    # --- the first filter and the build -------------------------------------------------------------
    # The starter as handed out, then tampered with: a harness that passes everything and a
    # tutorial script that prints PASS. grade.py must take the kernel file and nothing else.
    starter = os.path.join(subs, "tampered")
    subprocess.run([sys.executable, os.path.join(root, "tools", "make_starter.py"), "repo", ch, starter],
                   check=True, capture_output=True)
    runner = os.path.join(starter, "common", "runner.cpp")
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

    t0 = time.time()
    cmd = [sys.executable, grade_py, chapter, subs, "--build", build, "--out", out, "--seed", str(SEED),
           "--timeout", "20", "--gradescope", "--"] + SIZES
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=3000)
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
        "flood": "signal 25",
        "inc_solution": "No such file", "inc_abs_solution": "No such file", "inc_dev_zero": "No such file",
        "inc_stdin": "No such file", "inc_hostname": "No such file",
        "inc_dev_null": "a device or system file", "inc_vector": "not on the allow-list",
        "tampered": "is wrong",  # the stub computes nothing: its shapes and its timed C fail
        "blas": "rejected", "hidden_blas": "does not compile", "with_main": "rejected",
        "peeker": "rejected", "hang": "did not answer within 20 s", "broken": "does not compile",
        "linker": "is a link",
    }
    if not gpu:
        expect["detached"] = "run"  # a warm-up or timed run: C wrong, or changed after the digest
    if set(rows) != set(expect):
        failures.append(f"class.csv rows {sorted(rows)} != {sorted(expect)}")

    def evidence(name):
        text = ""
        for f in ("grade.txt", "child.log", "compile.log"):
            path = os.path.join(out, name, f)
            if os.path.exists(path):
                with open(path, "rb") as fh:
                    fh.seek(0, os.SEEK_END)
                    fh.seek(max(0, fh.tell() - 1500))
                    text += f"\n--- {name}/{f} (end) ---\n" + fh.read().decode(errors="replace")
        return text

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
        res = os.path.join(out, name, "results.json")
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
        if r["pass"] == "True":  # performance points: 20 x the share of the reference's speed
            want = 20.0 * min(1.0, float(r["pct_of_reference"]) / 100.0)
            if abs(perf - want) > 0.01:
                failures.append(f"{name}: {perf} performance points for {r['pct_of_reference']}% of the reference")
    if "good" in rows and "slow" in rows:
        if not gflops["slow"] < 0.25 * gflops["good"]:
            failures.append(f"the slow kernel ({gflops['slow']} GFLOPS) is not far slower than the solution "
                            f"({gflops['good']}): the timing attacks test nothing")
        if float(rows["good"]["pct_of_reference"]) < 40.0:
            failures.append(f"the solution reaches only {rows['good']['pct_of_reference']}% of the same kernel "
                            "graded as the reference")

    # Nothing of the child reaches a file the student sees: no seed, no host file, no raw output.
    hostname = open("/etc/hostname").read().strip() if os.path.exists("/etc/hostname") else ""
    for name in rows:
        for f in ("results.json", "child.log"):
            path = os.path.join(out, name, f)
            text = open(path, errors="replace").read() if os.path.exists(path) else ""
            if str(SEED) in text:
                failures.append(f"{name}/{f} holds the seed")
            if f == "results.json" and len(hostname) >= 4 and hostname in text:
                failures.append(f"{name}/{f} holds the content of /etc/hostname")
        if str(SEED) in rows[name]["error"]:
            failures.append(f"class.csv's row of {name} holds the seed")
    if "seed_leak" in rows and "cmdline" not in open(os.path.join(out, "seed_leak", "child.log")).read():
        failures.append("seed_leak's log does not show its attempt: the test no longer tests the attack")
    flood_log = os.path.join(out, "flood", "child.log")
    if os.path.exists(flood_log) and os.path.getsize(flood_log) > (16 << 20) + 4096:
        failures.append(f"the flood's log has {os.path.getsize(flood_log)} bytes: not bounded to 16 MiB")
    # Nothing the submissions started is alive, and the daemon's row never reaches the class CSV.
    time.sleep(6)
    alive = []
    for pid in os.listdir("/proc"):
        try:
            cmdline = open(f"/proc/{pid}/cmdline", "rb").read()
        except OSError:
            continue
        if b"/sandbox/child" in cmdline or tmp.encode() in cmdline and b"child" in cmdline:
            alive.append((pid, cmdline[:200]))
    if alive:
        failures.append(f"processes of the submissions outlived the grade: {alive}")
    if os.path.exists(csv_path) and "daemon,15,15,True,1e9" in open(csv_path).read():
        failures.append("the daemon's forged row reached class.csv")

    # --- the output folder ----------------------------------------------------------------------------
    def grade_cli(*extra, env=None):
        extra = list(extra)
        at = extra.index("--") if "--" in extra else len(extra)
        return subprocess.run([sys.executable, grade_py, chapter] + extra[:at] + ["--build", build] + extra[at:],
                              capture_output=True, text=True, timeout=3000, env=env)

    one = os.path.join(tmp, "one")
    os.makedirs(os.path.join(one, "alice"))
    with open(os.path.join(one, "alice", kname), "w") as f:
        f.write(solution)
    before = sorted(os.listdir(os.path.join(one, "alice")))
    afile = os.path.join(tmp, "a_file")
    open(afile, "w").close()
    for label, out_arg in (("equals the submission", one), ("lies inside it", os.path.join(one, "alice")),
                           ("contains it", tmp), ("is a file", afile)):
        q = grade_cli(one, "--out", out_arg)
        if q.returncode != 2 or "error" not in q.stderr or "Traceback" in q.stderr:
            failures.append(f"--out that {label}: exit {q.returncode} (expected 2 with a message): {q.stderr[-500:]}")
    if sorted(os.listdir(os.path.join(one, "alice"))) != before or not os.path.isfile(os.path.join(one, "alice", kname)):
        failures.append(f"grading touched the submission: {os.listdir(os.path.join(one, 'alice'))}")
    foreign = os.path.join(tmp, "foreign")
    os.makedirs(os.path.join(foreign, "alice"))
    open(os.path.join(foreign, "alice", "notes.txt"), "w").write("mine")
    q = grade_cli(one, "--out", foreign)
    if q.returncode != 2 or not os.path.exists(os.path.join(foreign, "alice", "notes.txt")):
        failures.append(f"an --out whose alice/ grade.py did not make: exit {q.returncode}, "
                        f"{os.listdir(os.path.join(foreign, 'alice'))}: {q.stderr[-300:]}")

    # --- a grade that is killed gives no grade ------------------------------------------------------
    killed = os.path.join(tmp, "killed")
    q = grade_cli(one, "--out", killed, "--time-limit", "1", "--perf-target", "50", "--", "--sizes",
                  "8192" if gpu else "1024", "--reps", "50")  # seconds of work at least
    rows_k = list(csv.DictReader(open(os.path.join(killed, "class.csv")))) if q.returncode == 0 else []
    if not rows_k or rows_k[0]["pass"] != "False" or "time limit" not in rows_k[0]["error"] or \
            os.path.exists(os.path.join(killed, "alice", ch + ".grade.json")):
        failures.append(f"a grade killed at its time limit: exit {q.returncode}, rows {rows_k}, "
                        f"{os.listdir(os.path.join(killed, 'alice')) if os.path.isdir(os.path.join(killed, 'alice')) else ''}")

    # --- no sandbox: refused, unless asked for; then every output says so ---------------------------
    env = dict(os.environ, GEMM_GRADE_BWRAP="/nonexistent/bwrap")
    q = grade_cli(one, "--out", os.path.join(tmp, "nosandbox"), env=env)
    if q.returncode != 2 or "--unsandboxed" not in q.stderr:
        failures.append(f"no sandbox: exit {q.returncode}, expected 2 naming --unsandboxed: {q.stderr[-500:]}")
    unsafe = os.path.join(tmp, "unsandboxed")
    q = grade_cli(one, "--out", unsafe, "--unsandboxed", "--gradescope", "--perf-target", "50", "--", *SIZES)
    rows_u = list(csv.DictReader(open(os.path.join(unsafe, "class.csv")))) if q.returncode == 0 else []
    if q.returncode != 0 or not rows_u or rows_u[0]["pass"] != "True" or rows_u[0]["sandboxed"] != "False" or \
            "UNSANDBOXED" not in q.stdout or \
            "UNSANDBOXED" not in json.load(open(os.path.join(unsafe, "alice", "results.json")))["output"]:
        failures.append(f"--unsandboxed: exit {q.returncode}, rows {rows_u}, stdout {q.stdout[-800:]} {q.stderr[-800:]}")

    # --- speed: the same kernel in process and through the sandboxed child --------------------------
    # The two paths are timed in turn, five times each, at a size that takes a while on a CPU, and
    # their best runs compared: a single timing of each is at the mercy of a shared machine (on the
    # 2-core CI a standalone build of chapter 02 runs at 10 or at 18 GFLOPS from one start to the
    # next). The child's time includes what the grade adds to every batch (the row permutation of
    # B, the digests of C, a round trip): the window below is the bound that overhead must keep.
    # On a GPU that overhead is tens of microseconds a call: at 2048 (a 47 us kernel of chapter 10
    # on the H200) the child measured 162 against 366 TFLOP/s in process, so the GPU comparison
    # runs at 8192, nearer the sizes a grade benchmarks (the largest default size).
    size = ["--sizes", "1024" if not gpu else "8192", "--reps", "5"]

    def in_process():
        q = subprocess.run([binary, "--grade", "--seed", str(SEED), "--out", os.path.join(tmp, "inproc")] + size,
                           capture_output=True, text=True)
        m = re.search(r"^\d+\s+[\d.]+\s+([\d.]+)", q.stdout, re.M)
        return float(m.group(1)) if m else None

    def through_child():  # as grade.py grades: sandboxed, timed by the grading binary
        q = grade_cli(one, "--out", os.path.join(tmp, "band"), "--perf-target", "50", "--", *size)
        rows_b = list(csv.DictReader(open(os.path.join(tmp, "band", "class.csv")))) if q.returncode == 0 else []
        if not rows_b or rows_b[0]["pass"] != "True":
            failures.append(f"the grade through the child gave no timing: {q.stdout[-800:]} {q.stderr[-800:]}")
            return None
        return float(rows_b[0]["gflops"])

    inproc, remote = [], []
    for _ in range(5):
        inproc.append(in_process())
        remote.append(through_child())
    if None in inproc or None in remote:
        failures.append(f"a timing is missing: in process {inproc}, through the child {remote}")
    elif not 0.5 < max(remote) / max(inproc) < 2.0:
        failures.append(f"the child's best timing {max(remote)} GFLOPS is far from the in-process "
                        f"best {max(inproc)} (child {remote}, in process {inproc})")
    else:
        print(f"timings agree: child best {max(remote)} GFLOPS, in process best {max(inproc)} "
              f"(ratio {max(remote) / max(inproc):.3f}; child {remote}, in process {inproc})")

for f in failures:
    print("FAIL:", f)
print(f"{ch}: {len(failures)} failure(s)")
sys.exit(1 if failures else 0)

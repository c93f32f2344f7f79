#!/usr/bin/env python3
"""Grades submissions of one chapter with the instructor's own harness (docs/assignments.md).

  grade.py CHAPTER SUBMISSION... [--build BUILD] [--seed N] [--out DIR] [--gradescope]
           [--timeout S] [--time-limit S] [--perf-target PCT] [-- CHAPTER-BINARY OPTIONS...]

A SUBMISSION is a student's copy of the repository, a folder holding the chapter's kernel file,
the kernel file itself, or a folder of such submissions (each subfolder is one). From each, only
the chapter's kernel file is taken. It is scanned (no `main`, no includes outside what the
instructor's own version of the file includes, no BLAS, no process or file tricks), compiled
alone with tools/grade_child.cu into a child process that only computes (no cuBLAS or CBLAS to
link against), and graded by the instructor's chapter binary (`--grade --remote`), which makes
the inputs from the secret seed and checks what the child returns. The verdict is read from that
binary's own output. One broken submission (rejected, not compiling, crashing, hanging) costs
that submission a FAIL with the reason, never the run.

Writes OUT/<submission>/ (the child, its log, the grade's output and JSON), OUT/class.csv and,
with --gradescope, OUT/<submission>/results.json in Gradescope's format.
Exit: 0 when every submission was graded (whatever the grades), 2 for a bad command line.
"""
import argparse
import csv
import functools
import json
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HOPPER = ("12_", "13_")  # sm_90a chapters
# Headers any kernel may include (the chapters' own includes are added per chapter).
SAFE_INCLUDES = {"<cstdint>", "<cstddef>", "<cstdio>", "<cstdlib>", "<cmath>", "<algorithm>",
                 "<type_traits>", "<utility>", "<cuda_runtime.h>", "<cuda_fp16.h>", '"cuda_check.cuh"'}
# What a kernel has no reason to contain: each pattern with the reason it is refused.
FORBIDDEN = [
    (r"\bmain\s*\(", "defines or calls main"),
    (r"cublas|cblas|openblas|\bblas\b|cutlass|cudnn", "uses a BLAS or another GEMM library"),
    (r"\bdlopen\b|\bdlsym\b|\bLoadLibrary\b", "loads libraries at run time"),
    (r"\b(system|popen|fork|vfork|execv|execvp|execl|execlp|posix_spawn|syscall)\s*\(",
     "starts processes or makes system calls"),
    (r"\b(fopen|freopen|open|creat|unlink|remove|rename)\s*\(|ofstream|ifstream|fstream",
     "opens files"),
    (r"__attribute__\s*\(\s*\(\s*constructor|\bpragma\s+init\b", "runs code before main"),
]


def die(msg):
    print(f"grade.py: error: {msg}", file=sys.stderr)
    sys.exit(2)


def chapter_dir(chapter):
    names = sorted(d for d in os.listdir(os.path.join(ROOT, "chapters")) if re.match(r"\d\d_", d))
    for d in names:
        if d == chapter or d.split("_")[0] == chapter:
            return d
    die(f"no chapter '{chapter}' (chapters: {' '.join(names)})")


def kernel_name(ch):
    for name in ("kernel.cuh", "kernel.hpp"):
        if os.path.exists(os.path.join(ROOT, "chapters", ch, name)):
            return name
    die(f"chapters/{ch} has no kernel file")


def find_kernel(sub, ch, kname):
    """The kernel file of one submission, or None."""
    if os.path.isfile(sub):
        return sub
    for candidate in (os.path.join(sub, "chapters", ch, kname), os.path.join(sub, kname)):
        if os.path.isfile(candidate):
            return candidate
    return None


def expand(subs, ch, kname):
    """Submissions as (name, kernel path or None); a folder of submissions is opened."""
    out = []
    for sub in subs:
        sub = os.path.abspath(sub)
        if not os.path.exists(sub):
            die(f"{sub}: no such file or folder")
        if find_kernel(sub, ch, kname) is None and os.path.isdir(sub) and not \
                os.path.exists(os.path.join(sub, "chapters")):
            inner = sorted(os.path.join(sub, d) for d in os.listdir(sub)
                           if os.path.isdir(os.path.join(sub, d)))
            if inner:
                out += [(os.path.basename(d), find_kernel(d, ch, kname)) for d in inner]
                continue
        name = os.path.splitext(os.path.basename(sub))[0] if os.path.isfile(sub) else os.path.basename(sub)
        out.append((name, find_kernel(sub, ch, kname)))
    names = [n for n, _ in out]
    if len(set(names)) != len(names):
        die("two submissions have the same name: " + ", ".join(sorted(n for n in names if names.count(n) > 1)))
    return out


def includes(text):
    return re.findall(r'^\s*#\s*include\s*([<"][^>"]+[>"])', text, re.M)


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", " ", text)


def scan(text, allowed):
    """Why this kernel file is refused, or None."""
    code = strip_comments(text)
    for inc in includes(code):
        if inc not in allowed:
            return f"includes {inc}, which a kernel of this chapter does not need (allowed: {', '.join(sorted(allowed))})"
    if re.search(r"^\s*#\s*(include_next|import|embed)\b", code, re.M):
        return "uses a preprocessor include other than #include"
    for pattern, why in FORBIDDEN:
        m = re.search(pattern, code, re.I if "blas" in pattern else 0)
        if m:
            return f"{why} ('{m.group(0).strip()}')"
    return None


@functools.lru_cache(maxsize=None)  # asked once per run, not once per submission
def gpu_archs(build):
    """The architectures the instructor's build compiles for (meson's gpu_archs option)."""
    p = subprocess.run(["meson", "introspect", "--buildoptions", build], capture_output=True, text=True)
    if p.returncode == 0:
        for opt in json.loads(p.stdout):
            if opt["name"] == "gpu_archs":
                return tuple(a.strip() for a in opt["value"].split(",") if a.strip())
    return ("75", "80", "86", "89", "90")


def compile_child(ch, kname, text, work, build):
    """Builds the child process; returns (path, None) or (None, why)."""
    num = int(ch[:2])
    shutil.copy(os.path.join(ROOT, "tools", "grade_child.cu"), os.path.join(work, "grade_child.cu"))
    with open(os.path.join(work, "kernel_under_test.h"), "w") as f:
        f.write(text)
    # The instructor's headers the kernel may include beside its own: those of common/ through
    # -I, and a chapter it builds on (13 includes 12) copied into deps/.
    deps = os.path.join(work, "deps")
    for inc in includes(strip_comments(text)):
        rel = inc.strip('"<>')
        src = os.path.join(ROOT, "chapters", rel)
        if inc.startswith('"') and os.path.isfile(src):
            os.makedirs(os.path.dirname(os.path.join(deps, rel)), exist_ok=True)
            shutil.copy(src, os.path.join(deps, rel))
    child = os.path.join(work, "child")
    common = ["-DGRADE_NS=ch%02d" % num, "-I", work, "-I", deps, "-I", os.path.join(ROOT, "common"),
              os.path.join(work, "grade_child.cu"), "-o", child]
    if num <= 2:
        # -falign-loops=32 as meson.build sets it: the child's loops sit as the chapter's do.
        cmd = ["g++", "-std=c++17", "-O3", "-falign-loops=32", "-fopenmp", "-x", "c++"] + common
    else:
        if ch.startswith(HOPPER):
            arch = ["-gencode=arch=compute_90a,code=sm_90a"]
        else:
            archs = gpu_archs(build)
            arch = ["-gencode=arch=compute_%s,code=sm_%s" % (a, a) for a in archs]
        cmd = ["nvcc", "-std=c++17", "-O3", "--expt-relaxed-constexpr", "-DGRADE_GPU"] + arch
        if num >= 8:
            cmd.append("-DGRADE_HALF")
        cmd += common
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    except subprocess.TimeoutExpired:
        return None, "does not compile: the compiler ran past 900 s"
    with open(os.path.join(work, "compile.log"), "w") as f:
        f.write(" ".join(cmd) + "\n" + p.stdout + p.stderr)
    if p.returncode != 0:
        errors = [l for l in (p.stdout + p.stderr).splitlines() if "error" in l.lower()]
        return None, "does not compile: " + " | ".join(errors[:3])[:600]
    return child, None


def run_grade(ch, child, work, build, args, extra):
    """The instructor's chapter binary grades the child; returns its report or an error."""
    binary = os.path.join(build, "chapters", ch)
    cmd = [binary, "--grade", "--remote", child, "--seed", str(args.seed), "--out", work,
           "--timeout", str(args.timeout)] + extra
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=args.time_limit,
                           cwd=work)
    except subprocess.TimeoutExpired:
        return None, f"the grade ran past the time limit of {args.time_limit} s"
    with open(os.path.join(work, "grade.txt"), "w") as f:
        f.write(p.stdout + p.stderr)
    if p.returncode == 77:
        return None, "no usable GPU for this chapter: " + p.stdout.strip()[-300:]
    if p.returncode == 2:
        return None, "the grade refused its command line: " + p.stderr.strip()[-300:]
    marker = "=== grade.json ===\n"
    at = p.stdout.rfind(marker)
    if at < 0:
        return None, f"the grade ended without a verdict (exit {p.returncode}): {p.stderr.strip()[-300:]}"
    try:
        return json.loads(p.stdout[at + len(marker):]), None
    except json.JSONDecodeError as e:
        return None, f"the grade's verdict is not JSON: {e}"


def gradescope(report, error, perf_points, correct_points, target):
    """Gradescope's results.json: one test per shape, one for performance."""
    tests = []
    shapes = report["shapes"] if report else []
    per_shape = correct_points / max(len(shapes), 1)
    for s in shapes:
        tests.append({"name": f"correct: M={s['M']} N={s['N']} K={s['K']} lda={s['lda']} ldb={s['ldb']} "
                              f"ldc={s['ldc']} alpha={s['alpha']} beta={s['beta']}",
                      "score": per_shape if s["pass"] else 0.0,
                      "max_score": per_shape,
                      "output": s["detail"] or "PASS"})
    if not shapes:
        tests.append({"name": "correctness", "score": 0, "max_score": correct_points,
                      "output": error or "not graded"})
    bench = report["benchmark"] if report else []
    pct = bench[0]["pct_of_yardstick"] if bench else 0.0
    all_pass = bool(report and report["pass"])
    perf = perf_points * min(1.0, pct / target) if all_pass and target > 0 else 0.0
    tests.append({"name": f"performance: {pct:.1f}% of the yardstick (full points at {target:g}%)",
                  "score": round(perf, 4), "max_score": perf_points,
                  "output": ("only a kernel that passes every shape earns performance points"
                             if not all_pass else
                             f"{bench[0]['gflops']:.1f} GFLOPS at {bench[0]['shape']}" if bench else "")})
    # Rounded once, at the end, so that a full score sums to exactly the points available.
    return {"score": round(sum(t["score"] for t in tests), 4), "tests": tests}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0], allow_abbrev=False)
    ap.add_argument("chapter")
    ap.add_argument("submissions", nargs="+")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--out", default="grades")
    ap.add_argument("--timeout", type=int, default=120, help="seconds per request to the child")
    ap.add_argument("--time-limit", type=int, default=1800, help="seconds per submission")
    ap.add_argument("--gradescope", action="store_true")
    ap.add_argument("--perf-target", type=float, default=50.0,
                    help="%% of the yardstick that earns all performance points")
    ap.add_argument("--perf-points", type=float, default=20.0)
    ap.add_argument("--correct-points", type=float, default=80.0)
    argv = sys.argv[1:]
    extra = argv[argv.index("--") + 1:] if "--" in argv else []  # for the chapter binary
    args = ap.parse_args(argv[:argv.index("--")] if "--" in argv else argv)
    args.build = os.path.abspath(args.build)
    if "--seed" in extra:  # the seed is the grader's: it names the inputs and the report
        i = extra.index("--seed")
        if i + 1 >= len(extra):
            die("--seed needs a value")
        try:
            args.seed = int(extra[i + 1])
        except ValueError:
            die(f"--seed: expected a whole number, got '{extra[i + 1]}'")
        del extra[i:i + 2]
    if args.seed < 0:
        die("--seed must not be negative")
    ch = chapter_dir(args.chapter)
    kname = kernel_name(ch)
    binary = os.path.join(args.build, "chapters", ch)
    if not os.access(binary, os.X_OK):
        die(f"{binary} is not built (build the instructor's tree first: ./tutorial build)")
    with open(os.path.join(ROOT, "chapters", ch, kname)) as f:
        allowed = SAFE_INCLUDES | set(includes(f.read()))
    subs = expand(args.submissions, ch, kname)
    os.makedirs(args.out, exist_ok=True)
    rows = []
    for i, (name, path) in enumerate(subs, 1):
        work = os.path.abspath(os.path.join(args.out, name))
        shutil.rmtree(work, ignore_errors=True)
        os.makedirs(work)
        report, error = None, None
        if path is None:
            error = f"no {kname} found (looked for chapters/{ch}/{kname}, {kname}, or the file itself)"
        else:
            with open(path, errors="replace") as f:
                text = f.read()
            why = scan(text, allowed)
            if why:
                error = "rejected: the kernel file " + why
            else:
                child, error = compile_child(ch, kname, text, work, args.build)
                if child:
                    report, error = run_grade(ch, child, work, args.build, args, extra)
                    if report and report.get("error"):
                        error = report["error"]
        bench = (report or {}).get("benchmark") or [{}]
        row = {"submission": name,
               "shapes_passed": report["shapes_passed"] if report else 0,
               "shapes_total": report["shapes_total"] if report else 0,
               "pass": bool(report and report["pass"] and not error),
               "gflops": round(bench[0].get("gflops", 0.0), 3),
               "pct_of_yardstick": round(bench[0].get("pct_of_yardstick", 0.0), 2),
               "error": (error or "").replace("\n", " ")[:1000]}
        rows.append(row)
        if args.gradescope:
            with open(os.path.join(work, "results.json"), "w") as f:
                json.dump(gradescope(report, error, args.perf_points, args.correct_points,
                                     args.perf_target), f, indent=2)
        verdict = "PASS" if row["pass"] else "FAIL"
        detail = f"{row['shapes_passed']}/{row['shapes_total']} shapes"
        if row["gflops"]:
            detail += f", {row['gflops']:.1f} GFLOPS ({row['pct_of_yardstick']:.1f}% of the yardstick)"
        print(f"[{i}/{len(subs)}] {name}: {verdict}, {detail}" + (f"; {row['error'][:300]}" if error else ""),
              flush=True)
    with open(os.path.join(args.out, "class.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    print(f"wrote {os.path.join(args.out, 'class.csv')}" +
          (" and one results.json per submission" if args.gradescope else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())

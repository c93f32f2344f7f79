#!/usr/bin/env python3
"""grade.py's exit codes, each caused for real (docs/assignments.md, "Exit codes"), on chapter 02:

- 1: the instructor's own kernel fails its grade (grade.py run from a starter made by
  tools/grading/make_starter.py, whose own kernel is stubbed): no student is graded, nothing is
  written as if they had been;
- 3: grade.py itself fails: on the whole run (a fault planted in its summary, after every row was
  decided: class.csv keeps them all) and on one submission (a fault planted in its build: that row
  says so, the others are graded, the summary is written);
- 3: the disk fills while the class is graded (--out on a tmpfs of 2 MiB that bubblewrap mounts; a
  correct kernel prints 8 MiB into its log and fills it): every row is on the console and listed
  again at the end, the rows decided before are in class.csv, whole, with no half-written copy
  beside it, and the flooding kernel keeps its PASS (a lost file is not a lost verdict); and with
  --out full before anything is written, exit 3 (grade.py's failure), never 1 (a verdict on the
  instructor's kernel).

A fault is planted by loading grade.py as a module and replacing one of its functions, then running
its own entry point (grade.entry).
Usage: python3 -m tests.run tests.grading.test_grade_exits SOURCE_ROOT BUILD_ROOT CHAPTER_ID
Exit: 0 pass, 1 fail. Needs bubblewrap (as grading does).
"""
import csv
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

from tests.check import expect, failures
from tools import python_env

root, build = (os.path.abspath(a) for a in sys.argv[1:3])
CH = sys.argv[3]  # chapter 02 (CPU), as the chapter list names it
NS = "ch" + CH[:2]
GRADE = [sys.executable, "-m", "tools.grading.grade"]  # the repository's on PYTHONPATH (ENV)
SMALL = ["--", "--sizes", "256", "--reps", "2", "--warmup", "1"]  # a short benchmark
ENV = python_env(dict(os.environ, OMP_NUM_THREADS="1"))
T0 = time.time()


def naive(first="", wrong=False):
    """A correct triple loop (or, wrong=True, one whose C is off by one); `first` opens the body."""
    return f"""#pragma once
#include <cstdio>
namespace {NS} {{
inline void gemm(int M, int N, int K, float alpha, const float* A, int lda, const float* B, int ldb,
                 float beta, float* C, int ldc) {{
{first}
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {{
            float acc = 0.0f;
            for (int k = 0; k < K; ++k) acc += A[i * lda + k] * B[k * ldb + j];
            C[i * ldc + j] = alpha * acc + (beta == 0.0f ? 0.0f : beta * C[i * ldc + j]){" + 1.0f" if wrong else ""};
        }}
}}
}}  // namespace {NS}
"""


# 8 MiB into its log on the first call (past the 2 MiB disk, within the 16 MiB limit of a file),
# then the product.
FLOOD = """    static bool flooded = false;
    if (!flooded) {
        flooded = true;
        static char line[1 << 16];
        for (char& c : line) c = 'x';
        for (int i = 0; i < 128; ++i) std::fwrite(line, 1, sizeof line, stderr);
        std::fprintf(stderr, "\\nflood: done\\n");
    }"""


def make_class(folder, kernels):
    for name, text in kernels.items():
        os.makedirs(os.path.join(folder, name))
        with open(os.path.join(folder, name, "kernel.hpp"), "w") as f:
            f.write(text)
    return folder


def rows_of(path):
    if not os.path.isfile(path):
        return None
    with open(path, newline="", encoding="utf-8") as f:
        return {r["submission"]: r for r in csv.DictReader(f)}


def run(cmd, timeout=1200, env=ENV):
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout, stdin=subprocess.DEVNULL)
    return p.returncode, p.stdout, p.stderr


def with_fault(fault, args):
    """grade.py's own entry point, run with one of its functions replaced (`fault`: Python that
    edits the module `grade`)."""
    code = ("import sys\n"
            "from tools.grading import grade\n"
            f"{fault}\n"
            f"sys.argv = [grade.__file__] + {args!r}\n"
            "grade.entry()\n")
    return run([sys.executable, "-c", code])


def graded(out, name):
    """The console's verdict line of a submission, or None."""
    return next((l for l in out.splitlines() if l.startswith("[") and f"] {name}: " in l and
                 ("PASS" in l or "FAIL" in l)), None)


solution = open(os.path.join(root, "chapters", CH, "kernel.hpp")).read()
bwrap = shutil.which(os.environ.get("GEMM_GRADE_BWRAP", "bwrap"))
if not bwrap:
    print("FAIL: bubblewrap (bwrap) not found: grading refuses without it, and this test mounts its small disk with it")
    sys.exit(1)

with tempfile.TemporaryDirectory(prefix="gemm-grade-exits-") as tmp:
    # --- 1: the instructor's own kernel fails (a starter's, whose regions are stubbed). ---------
    starter = os.path.join(tmp, "starter")
    p = subprocess.run([sys.executable, "-m", "tools.grading.make_starter", "repo", CH, starter],
                       capture_output=True, text=True, env=ENV)
    expect(p.returncode == 0, f"make_starter.py repo {CH}: exit {p.returncode}: {p.stderr[-500:]}")
    subs = make_class(os.path.join(tmp, "class1"), {"alice": solution, "bob": naive()})
    out1 = os.path.join(tmp, "out1")
    rc, out, err = run(GRADE + [CH, subs, "--build", build, "--out", out1] + SMALL,
                       env=dict(ENV, PYTHONPATH=starter))  # the starter's grade.py
    expect(rc == 1, f"the instructor's kernel fails: exit 1 expected, got {rc}\n{out[-1500:]}\n{err[-1500:]}")
    expect("does not pass its grade" in err, f"exit 1 says why: {err[-800:]}")
    expect(not graded(out, "alice") and not graded(out, "bob"),
           f"no student is graded when the instructor's kernel fails: {out[-800:]}")
    expect(not os.path.exists(os.path.join(out1, "class.csv")), "no class.csv when the instructor's kernel fails")
    print(f"exit 1: {rc} ({time.time() - T0:.0f} s)", flush=True)

    # --- 3: grade.py itself fails, on the whole run and on one submission. -----------------------
    # class.csv.part: a student's folder named like grade.py's own file in the making.
    subs = make_class(os.path.join(tmp, "class3"), {"alice": solution, "boom": naive(), "dave": naive(wrong=True),
                                                    "class.csv.part": naive()})
    everyone = {"alice", "boom", "dave", "class.csv.part"}
    out3 = os.path.join(tmp, "out3")
    args = [CH, subs, "--build", build, "--out", out3, "--perf-target", "1"] + SMALL
    rc, out, err = with_fault("def boom(*a, **k):\n    raise RuntimeError('a fault planted by test_grade_exits.py')\n"
                              "grade.summary = boom", args)
    rows = rows_of(os.path.join(out3, "class.csv")) or {}
    expect(rc == 3, f"grade.py fails after the rows (its summary): exit 3 expected, got {rc}\n{out[-1000:]}\n{err[-1500:]}")
    expect("a fault planted" in err and "grade.py itself failed" in err,
           f"exit 3 shows the traceback and says grade.py failed: {err[-800:]}")
    expect(set(rows) == everyone and rows["alice"]["pass"] == "True" and
           rows["dave"]["pass"] == "False", f"class.csv keeps every row decided before the failure: {rows}")

    out3b = os.path.join(tmp, "out3b")
    args = [CH, subs, "--build", build, "--out", out3b, "--perf-target", "1"] + SMALL
    rc, out, err = with_fault("real = grade.build_one\n"
                              "def build_one(chapter, sub, *a):\n"
                              "    if sub.name == 'boom':\n"
                              "        raise RuntimeError('a fault planted by test_grade_exits.py')\n"
                              "    return real(chapter, sub, *a)\n"
                              "grade.build_one = build_one", args)
    rows = rows_of(os.path.join(out3b, "class.csv")) or {}
    expect(rc == 3, f"grade.py fails on one submission: exit 3 expected, got {rc}\n{out[-1000:]}\n{err[-1500:]}")
    expect(set(rows) == everyone and rows["alice"]["pass"] == "True" and rows["class.csv.part"]["pass"] == "True" and
           rows["dave"]["pass"] == "False" and "grade.py failed on this submission (RuntimeError)" in rows["boom"]["error"],
           f"the failed row says grade.py failed, the others are graded: {rows}")
    expect("grade.py itself failed on boom" in err, f"the end of the run names the row grade.py failed on: {err[-800:]}")
    expect(os.path.isfile(os.path.join(out3b, "summary.txt")), "the summary is written after a failed row")
    print(f"exit 3 (grade.py's own failure): done ({time.time() - T0:.0f} s)", flush=True)

    # --- 3: the disk fills while the class is graded. ---------------------------------------------
    subs = make_class(os.path.join(tmp, "class_disk"), {"a_good": solution, "b_flood": naive(FLOOD),
                                                        "c_good": naive(), "d_wrong": naive(wrong=True)})
    disk = 2 << 20

    def on_small_disk(label, prefill):
        """grade.py with --out on a tmpfs of `disk` bytes (filled first when `prefill`); returns its
        exit code, stdout, stderr and a copy of what it wrote there."""
        mount, saved = os.path.join(tmp, label), os.path.join(tmp, label + "_saved")
        os.makedirs(mount)
        os.makedirs(saved)
        grade = " ".join(shlex.quote(x) for x in
                         GRADE + [CH, subs, "--build", build, "--out", os.path.join(mount, "g")] + SMALL)
        fill = f"head -c {disk} /dev/zero > {mount}/filler 2>/dev/null; " if prefill else ""
        script = f"{fill}{grade}; rc=$?; cp -a {mount}/. {saved}/; exit $rc"
        rc, out, err = run([bwrap, "--dev-bind", "/", "/", "--size", str(disk), "--tmpfs", mount,
                            "--die-with-parent", "--", "sh", "-c", script])
        return rc, out, err, os.path.join(saved, "g")

    rc, out, err, g = on_small_disk("disk", prefill=False)
    names = ["a_good", "b_flood", "c_good", "d_wrong"]
    expect(rc == 3, f"a full disk: exit 3 expected, got {rc}\n{out[-1500:]}\n{err[-2000:]}")
    expect("No space left on device" in err, f"the disk was full (ENOSPC said on the console): {err[-800:]}")
    flood_log = os.path.join(g, "b_flood", "child.log")
    expect(os.path.isfile(flood_log) and os.path.getsize(flood_log) > disk // 4,
           f"the flooding kernel filled the disk ({os.path.getsize(flood_log) if os.path.isfile(flood_log) else 'no'} bytes of log)")
    for n in names:
        expect(graded(out, n), f"{n} has its row on the console: {out[-1500:]}")
    dump = err.split("could not be written", 1)[-1]
    for n in names:
        expect(any(l.startswith(n + ",") for l in dump.splitlines()),
               f"{n}'s row is listed again at the end, after the files lost: {dump[-1500:]}")
    expect("PASS" in (graded(out, "a_good") or "") and "PASS" in (graded(out, "b_flood") or ""),
           f"the kernels graded before and while the disk filled keep their PASS: {graded(out, 'a_good')} / "
           f"{graded(out, 'b_flood')}")
    expect("FAIL" in (graded(out, "d_wrong") or ""), f"d_wrong fails: {graded(out, 'd_wrong')}")
    rows = rows_of(os.path.join(g, "class.csv"))
    expect(rows is not None and "a_good" in rows and rows["a_good"]["pass"] == "True" and
           all(r["submission"] in names and r["pass"] in ("True", "False") for r in rows.values()),
           f"class.csv on the full disk is whole and holds the rows written before it filled: {rows}")
    # Whole or absent: no part of a file left, no feedback.txt, summary or verdict cut short (an
    # empty one included), no launcher of a grade that never started.
    left = [os.path.relpath(os.path.join(d, f), g) for d, _, files in os.walk(g) for f in files]
    expect(not [f for f in left if f.endswith(".part") or os.path.basename(f) == "child"],
           f"no half-written file or launcher left on the full disk: {sorted(left)}")
    for f in left:
        text = open(os.path.join(g, f), errors="replace").read()
        if os.path.basename(f) == "feedback.txt":
            expect(text.endswith(")\n") and "graded sandboxed" in text, f"{f} is whole: {text[-200:]!r}")
        elif f.endswith(".json") or f == "summary.txt":
            expect(text.strip() and (f == "summary.txt" or text.rstrip().endswith("}")), f"{f} is whole: {text[-200:]!r}")
    print(f"exit 3 (full disk): {rc} ({time.time() - T0:.0f} s)", flush=True)

    rc, out, err, g = on_small_disk("full", prefill=True)
    expect(rc == 3 and "grade.py failed on the instructor's own kernel" in err,
           f"--out full from the start: exit 3 (grade.py's failure, not a verdict on the instructor's kernel) "
           f"expected, got {rc}\n{out[-800:]}\n{err[-1500:]}")
    print(f"exit 3 (--out full from the start): {rc} ({time.time() - T0:.0f} s)", flush=True)

print(f"grade exits: {len(failures)} failure(s) in {time.time() - T0:.0f} s")

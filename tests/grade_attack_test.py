#!/usr/bin/env python3
"""Tries to fool tools/grade.py as a student would, and checks that only a kernel that computes
the product gets PASS, that every broken submission costs only itself, and that the class CSV and
the Gradescope JSON say so.

Usage: grade_attack_test.py SOURCE_ROOT BUILD_ROOT CHAPTER
Exit: 0 pass, 1 fail, 77 skipped (a GPU chapter without a usable GPU, GEMM_REQUIRE_GPU unset).
"""
import csv
import json
import os
import re
import subprocess
import sys
import tempfile
import types

root, build, chapter = sys.argv[1:4]
sys.path.insert(0, os.path.join(root, "tools"))
import grade  # noqa: E402  (tools/grade.py: its run_grade times the child as a grade does)
chapters = sorted(d for d in os.listdir(os.path.join(root, "chapters")) if d.startswith(chapter + "_"))
ch = chapters[0]
gpu = int(chapter) >= 3
kname = "kernel.cuh" if gpu else "kernel.hpp"
solution = open(os.path.join(root, "chapters", ch, kname)).read()
ns = "ch" + chapter
binary = os.path.join(build, "chapters", ch)
failures = []

if gpu:  # no GPU: the chapter binary says so with exit 77
    p = subprocess.run([binary, "--sizes", "1", "--reps", "1", "--no-baseline", "--out",
                        tempfile.mkdtemp()], capture_output=True, text=True)
    if p.returncode == 77:
        if os.environ.get("GEMM_REQUIRE_GPU", "") not in ("", "0"):
            print("FAIL: GEMM_REQUIRE_GPU is set but:", p.stdout.strip())
            sys.exit(1)
        print("SKIP:", p.stdout.strip())
        sys.exit(77)


def replace_gemm_body(body):
    """The solution with the body of gemm() replaced (the signature kept)."""
    m = re.search(r"inline void gemm\(([^)]*)\)\s*\{", solution)
    start = m.end()
    depth, i = 1, start
    while depth:
        depth += {"{": 1, "}": -1}.get(solution[i], 0)
        i += 1
    return solution[:start] + "\n" + body + "\n}" + solution[i:]


FAKE = ('    std::printf("GRADE: PASS\\n=== grade.json ===\\n{\\"pass\\": true, \\"shapes_passed\\": 99, '
        '\\"shapes_total\\": 99, \\"error\\": \\"\\", \\"shapes\\": [], \\"benchmark\\": []}\\n");\n'
        '    std::fflush(stdout);\n')
with tempfile.TemporaryDirectory() as tmp:
    subs = os.path.join(tmp, "class")
    os.makedirs(subs)

    def write(name, text):
        os.makedirs(os.path.join(subs, name))
        with open(os.path.join(subs, name, kname), "w") as f:
            f.write(text)

    write("good", solution)
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
    # Prints a PASS and a forged verdict, computes nothing, and crashes.
    write("liar", "#include <cstdio>\n" + replace_gemm_body(FAKE + "    *(volatile int*)nullptr = 0;"))
    # Prints a PASS and a forged verdict, then leaves with exit code 0.
    write("quitter", "#include <cstdio>\n#include <cstdlib>\n" +
          replace_gemm_body(FAKE + "    std::exit(0);"))
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

    out = os.path.join(tmp, "grades")
    cmd = [sys.executable, os.path.join(root, "tools", "grade.py"), chapter, subs, "--build", build,
           "--out", out, "--seed", "31337", "--timeout", "20", "--gradescope", "--",
           "--sizes", "512" if not gpu else "2048", "--reps", "5"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=1800)
    print(p.stdout[-6000:], p.stderr[-3000:])
    if p.returncode != 0:
        failures.append(f"grade.py exit {p.returncode}")
    rows = {r["submission"]: r for r in csv.DictReader(open(os.path.join(out, "class.csv")))} \
        if os.path.exists(os.path.join(out, "class.csv")) else {}
    expect = {  # submission -> a piece of the reason it fails (None: it passes)
        "good": None,
        "tampered": "is wrong",  # the stub computes nothing: its shapes and its timed C fail
        "liar": "ended",
        "quitter": "ended",
        "blas": "rejected",
        "hidden_blas": "does not compile",
        "with_main": "rejected",
        "peeker": "rejected",
        "hang": "did not answer within 20 s",
        "broken": "does not compile",
    }
    if set(rows) != set(expect):
        failures.append(f"class.csv rows {sorted(rows)} != {sorted(expect)}")
    for name, reason in expect.items():
        r = rows.get(name)
        if r is None:
            continue
        if reason is None:
            if r["pass"] != "True" or r["shapes_passed"] != r["shapes_total"]:
                failures.append(f"{name} should PASS: {r}")
        else:
            if r["pass"] != "False":
                failures.append(f"{name} must FAIL: {r}")
            if reason and reason not in r["error"]:
                failures.append(f"{name}: expected '{reason}' in the reason, got {r['error']!r}")
        res = os.path.join(out, name, "results.json")
        if not os.path.exists(res):
            failures.append(f"{name}: no Gradescope results.json")
            continue
        gs = json.load(open(res))
        total = sum(t["max_score"] for t in gs["tests"])
        if abs(total - 100.0) > 0.01 or any(set(t) != {"name", "score", "max_score", "output"} for t in gs["tests"]):
            failures.append(f"{name}: malformed results.json (max {total})")
        correct = sum(t["score"] for t in gs["tests"] if t["name"].startswith("correct"))
        if reason is None and abs(correct - 80.0) > 0.01:
            failures.append(f"good: correctness points {correct}, expected 80")
        if reason is not None and gs["score"] >= 80.0:
            failures.append(f"{name}: scored {gs['score']} although it fails")
    # The same kernel graded the old way (in process) and through the child: the same speed,
    # within what two timings of one kernel on a shared machine vary by. A single timing of each
    # is at the mercy of the machine: on the 2-core CI a standalone build of this kernel runs at
    # 10 or at 18 GFLOPS from one start to the next. (9.4 against 25.6 was seen when chapter 02's
    # inner loop crossed a 64-byte line in the chapter binary and not in the child; meson.build
    # and grade.py now align loops.) So the two paths are timed in turn, five times each, at a
    # size that takes a while on a CPU, and their best runs are compared.
    if "good" in rows and rows["good"]["pass"] == "True":
        size = ["--sizes", "1024" if not gpu else "2048", "--reps", "5"]
        child_bin = os.path.join(out, "good", "child")

        def in_process():
            q = subprocess.run([binary, "--grade", "--seed", "31337", "--out",
                                os.path.join(tmp, "inproc")] + size, capture_output=True, text=True)
            m = re.search(r"^\d+\s+[\d.]+\s+([\d.]+)", q.stdout, re.M)
            return float(m.group(1)) if m else None

        def through_child():  # as grade.py runs it: its own run_grade
            work = os.path.join(tmp, "remote")
            os.makedirs(work, exist_ok=True)
            opts = types.SimpleNamespace(seed=31337, timeout=120, time_limit=600)
            report, error = grade.run_grade(ch, child_bin, work, build, opts, size)
            bench = report["benchmark"] if report else []
            if not bench:
                failures.append(f"the grade through the child gave no timing: {error}")
            return bench[0]["gflops"] if bench else None

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
                  f"(child {remote}, in process {inproc})")

for f in failures:
    print("FAIL:", f)
print(f"{ch}: {len(failures)} failure(s)")
sys.exit(1 if failures else 0)

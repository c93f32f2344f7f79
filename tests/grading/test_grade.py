#!/usr/bin/env python3
"""The autograder round trip for one chapter: the starter fails it, the solution passes it.

Usage: python3 -m tests.run tests.grading.test_grade STARTER_GRADING_BINARY SOLUTION_GRADING_BINARY CHAPTER_ID
Each is a grading binary (build/chapters/grade_<chapter>, and the same built from the starter's
kernel file: build/tests/grade_starter_<chapter>).
Exit: 0 pass, 1 fail, 77 skipped (GPU chapter, no usable GPU, GEMM_REQUIRE_GPU unset).
"""
import json
import os
import subprocess
import sys
import tempfile

from tests.check import skip_or_fail

starter, solution, chapter = sys.argv[1:4]
failures = []


def grade(binary, out):
    # A small benchmark keeps the test short; the grading shapes are the real ones.
    p = subprocess.run([binary, "--seed", "4242", "--sizes", "256", "--reps", "2",
                        "--warmup", "1", "--out", out], capture_output=True, text=True, timeout=600)
    path = os.path.join(out, chapter + ".grade.json")
    report = json.load(open(path)) if os.path.exists(path) else None
    return p.returncode, p.stdout, p.stderr, report


with tempfile.TemporaryDirectory() as tmp:
    rc, out, err, report = grade(solution, os.path.join(tmp, "solution"))
    if rc == 77:
        skip_or_fail(out)
    if rc != 0 or report is None or not report["pass"]:
        failures.append(f"the solution fails the autograder (exit {rc}):\n{out[-3000:]}\n{err[-2000:]}")
    else:
        if report["shapes_passed"] != report["shapes_total"] or report["shapes_total"] < 15:
            failures.append(f"solution report inconsistent: {report['shapes_passed']}/{report['shapes_total']}")
        if "GRADE: PASS" not in out:
            failures.append("the solution's summary does not say GRADE: PASS")
        bench = report["benchmark"]
        if len(bench) != 1 or bench[0]["gflops"] <= 0:
            failures.append(f"the benchmark is missing from the report: {bench}")

    rc, out, err, report = grade(starter, os.path.join(tmp, "starter"))
    if rc != 1:
        failures.append(f"the starter should fail the autograder with exit 1, got {rc}:\n{out[-2000:]}\n{err[-1000:]}")
    if report is not None and report["pass"]:
        failures.append("the starter's report says pass")
    if report is not None and report["shapes_passed"] >= report["shapes_total"] - 3:
        failures.append(f"the starter passes too many shapes: {report['shapes_passed']}/{report['shapes_total']}")

for f in failures:
    print("FAIL:", f)
print(f"{chapter}: {len(failures)} failure(s)")
sys.exit(1 if failures else 0)

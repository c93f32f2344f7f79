#!/usr/bin/env python3
"""Grades a class of three for one chapter, as a worked example of tools/grading/grade.py: the
chapter's own kernel (correct), the same with alpha negated (wrong), the same with a line that does
not compile (broken). Checks that they PASS, FAIL on their shapes, and FAIL to compile.

  python3 -m tools.grading.grade_example_class CHAPTER [OUT] [--build BUILD] [-- GRADING-BINARY OPTIONS...]

OUT (default: $GEMM_GRADE_OUT/CHAPTER when that is set, else a temporary folder) receives what
grade.py writes: class.csv and one folder per submission with its results.json. The chapter's
kind and precision come from the chapter list (tools/build/chapters.py). Exit: 0 as expected, 1 not,
77 skipped (no usable GPU for this chapter and GEMM_REQUIRE_GPU unset), 2 a bad command line.
"""
import argparse
import csv
import os
import re
import subprocess
import sys
import tempfile

from tools import python_env

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main():
    argv = sys.argv[1:]
    extra = argv[argv.index("--") + 1:] if "--" in argv else []
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0], allow_abbrev=False)
    ap.add_argument("chapter")
    ap.add_argument("out", nargs="?")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    args = ap.parse_args(argv[:argv.index("--")] if "--" in argv else argv)
    from tools.build import chapters as chapter_list  # the one list of chapters
    found = [c for c in chapter_list.load() if c.id == args.chapter or c.id.split("_")[0] == args.chapter]
    if not found:
        print(f"grade_example_class.py: error: no chapter '{args.chapter}'", file=sys.stderr)
        return 2
    ch = found[0].id
    kname = "kernel.hpp" if found[0].kind == "cpu" else "kernel.cuh"
    if not args.out and os.environ.get("GEMM_GRADE_OUT"):
        args.out = os.path.join(os.environ["GEMM_GRADE_OUT"], ch)
    binary = os.path.join(os.path.abspath(args.build), "chapters", "grade_" + ch)  # what grade.py runs
    if not os.access(binary, os.X_OK):
        print(f"grade_example_class.py: error: {binary} is not built", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        # Whether this machine can grade the chapter (exit 77: no usable GPU), running nothing.
        probe = subprocess.run([binary, "--remote", ":check", "--sizes", "1", "--out", tmp],
                               capture_output=True, text=True)
        if probe.returncode == 77:
            if os.environ.get("GEMM_REQUIRE_GPU", "") not in ("", "0"):
                print("FAIL: GEMM_REQUIRE_GPU is set but:", probe.stdout.strip())
                return 1
            print("SKIP:", probe.stdout.strip())
            return 77
        solution = open(os.path.join(ROOT, "chapters", ch, kname)).read()
        m = re.search(r"inline void gemm\([^)]*\)\s*\{", solution)
        kernels = {"correct": solution,
                   "wrong": solution[:m.end()] + "\n    alpha = -alpha;" + solution[m.end():],
                   "broken": solution[:m.end()] + "\n    this line does not compile;" + solution[m.end():]}
        subs = os.path.join(tmp, "class")
        for name, text in kernels.items():
            os.makedirs(os.path.join(subs, name))
            with open(os.path.join(subs, name, kname), "w") as f:
                f.write(text)
        out = os.path.abspath(args.out) if args.out else os.path.join(tmp, "grades")
        cmd = [sys.executable, "-m", "tools.grading.grade", ch, subs, "--build", args.build,
               "--out", out, "--gradescope"] + (["--"] + extra if extra else [])
        print("$", " ".join(cmd), flush=True)
        p = subprocess.run(cmd, env=python_env())
        if p.returncode != 0:
            print(f"FAIL: grade.py exit {p.returncode}")
            return 1
        rows = {r["submission"]: r for r in csv.DictReader(open(os.path.join(out, "class.csv")))}
        failures = []
        if rows.get("correct", {}).get("pass") != "True":
            failures.append(f"correct should PASS: {rows.get('correct')}")
        wrong = rows.get("wrong", {})
        if wrong.get("pass") != "False" or int(wrong.get("shapes_passed", 99)) >= int(wrong.get("shapes_total", 0)):
            failures.append(f"wrong should FAIL its shapes: {wrong}")
        if rows.get("broken", {}).get("pass") != "False" or "does not compile" not in rows.get("broken", {}).get("error", ""):
            failures.append(f"broken should FAIL to compile: {rows.get('broken')}")
        for f in failures:
            print("FAIL:", f)
        print(f"{ch}: class of three graded into {out}: {len(failures)} failure(s)")
        return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""tools/build/chapter_options.py against the harness it mirrors: the same command lines refused.

Usage: python3 -m tests.run tests.tools.test_options PATH/TO/A_CPU_CHAPTER_BINARY

./tutorial checks a chapter's options with tools/build/chapter_options.py before it builds anything;
this test runs each command line below through both that script and a real chapter binary (a CPU
chapter: no GPU needed) and fails where they disagree on accepting it. An accepted line is given to
the binary with --help last, so that it parses everything and runs nothing.
Exit: 0 pass, 1 fail.
"""
import os
import subprocess
import sys
import tempfile

from tests.check import failures
from tools import python_env

binary = os.path.abspath(sys.argv[1])

CASES = [
    # accepted
    [], ["--sizes", "64"], ["--sizes", "64,100x37x19"], ["--sizes=1000x1001x999"],
    ["--reps", "3", "--rounds", "2", "--warmup", "0"], ["--l2-flush", "off"], ["--l2-flush=on"],
    ["--alpha", "1.5", "--beta", "-0.5"], ["--alpha", ".5"], ["--alpha", "2e-3"], ["--beta", "-0"],
    ["--seed", "0"], ["--check", "sample"], ["--check", "auto"], ["--no-baseline"],
    ["--out", "somewhere"], ["--out=x/y"], ["--device", "0"], ["--sizes", "0"],
    ["--sizes", "46340"],
    # refused
    ["--bogus"], ["bogus"], ["-x"], ["--sizes", "abc"], ["--sizes", "64,,128"], ["--sizes", ""],
    ["--sizes", "64,"], ["--sizes", "64x"], ["--sizes", "1x2"], ["--sizes", "1x2x3x4"],
    ["--sizes", "0x-1"], ["--sizes", "+5"], ["--sizes", " 5"], ["--sizes", "1x1x2147483647"],
    ["--sizes", "1x1x1073741825"], ["--sizes", "50000"], ["--sizes", "46341"],
    ["--sizes", "99999999999999999999"], ["--sizes"], ["--reps", "x"], ["--reps"], ["--reps", "0"],
    ["--reps", "100001"], ["--rounds", "1001"], ["--warmup", "-1"], ["--check", "nope"],
    ["--alpha", "nan"], ["--alpha", "inf"], ["--alpha", "1e99"], ["--alpha", "1e-45"],
    ["--alpha", "1e-50"], ["--alpha", "0x10"], ["--beta", " 1"], ["--beta", "+1"],
    ["--beta", "1,5"], ["--alpha", "."], ["--alpha", "1e"], ["--device", "-1"],
    ["--device", "1024"], ["--seed", "-1"], ["--seed", "1.5"], ["--l2-flush", "maybe"],
    ["--no-baseline=1"], ["--help=yes"], ["--remote", "p"], ["--remote", ""], ["--out", ""],
    ["--timeout", "0"], ["--grade=1"],
    # the grading binary's options (common/grading/grade_chapter.cpp), not a chapter binary's
    ["--grade"], ["--grade", "--remote", "p"], ["--timeout", "5"],
]

with tempfile.TemporaryDirectory() as tmp:
    for args in CASES:
        p = subprocess.run([sys.executable, "-m", "tools.build.chapter_options", *args], capture_output=True,
                           text=True, env=python_env())
        if p.returncode not in (0, 2):
            failures.append(f"{args}: chapter_options.py exits {p.returncode} ({p.stderr!r})")
            continue
        accepted = p.returncode == 0
        # Accepted: --help last, the binary parses the line and prints its usage. Refused: the
        # line alone (a refused line stops the binary before any work, in tmp).
        b = subprocess.run([binary, *args] + (["--help"] if accepted else []), cwd=tmp,
                           capture_output=True, text=True, timeout=120)
        if accepted and b.returncode != 0:
            failures.append(f"{args}: chapter_options.py accepts it, the harness exits "
                            f"{b.returncode} ({b.stderr.strip()!r})")
        elif not accepted and b.returncode != 2:
            failures.append(f"{args}: chapter_options.py refuses it ({p.stderr.strip()!r}), the "
                            f"harness exits {b.returncode}")
        elif not accepted:
            said = p.stderr.strip().split("chapter option: ", 1)[-1]
            if not said or said.split(":")[0].split(" (")[0] not in b.stderr:
                failures.append(f"{args}: the script's message {said!r} does not name what the "
                                f"harness names ({b.stderr.strip()!r})")
        if not accepted and "error" not in p.stderr:
            failures.append(f"{args}: refused without a message ({p.stderr!r})")

for f in failures:
    print("FAIL:", f)
print(f"{len(CASES)} command lines; {len(failures)} failure(s)")
sys.exit(1 if failures else 0)

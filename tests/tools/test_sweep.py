#!/usr/bin/env python3
"""tools/shape_sweep as a user runs it: bad command lines exit 2 with a message naming the
problem (no GPU needed), and with a GPU a short sweep writes its CSV and the CSV of its predicted
tile and wave steps.

Usage: python3 -m tests.run tests.tools.test_sweep SHAPE_SWEEP (cli|gpu)
Exit: 0 pass, 1 fail, 77 skipped (gpu mode without a usable GPU, GEMM_REQUIRE_GPU unset).
"""
import csv
import os
import subprocess
import sys
import tempfile

from tests.check import skip_or_fail

tool, mode = sys.argv[1], sys.argv[2]
failures = []


def run(*args):
    return subprocess.run([tool, *args], capture_output=True, text=True, timeout=900)


if mode == "cli":
    bad = [
        (["--m", "5", "--n", "5", "--k", "5"], "--chapter is required"),
        (["--chapter", "99", "--m", "5", "--n", "5", "--k", "5"], "not a chapter"),
        (["--chapter", "10", "--m", "5", "--n", "5"], "are all required"),
        (["--chapter", "10", "--m", "1:9", "--n", "1:9", "--k", "5"], "only one of"),
        (["--chapter", "10", "--m", "9:1", "--n", "5", "--k", "5"], "LO is larger than HI"),
        (["--chapter", "10", "--m", "1:9:0", "--n", "5", "--k", "5"], "step must be at least 1"),
        (["--chapter", "10", "--m", "-5", "--n", "5", "--k", "5"], "cannot be negative"),
        (["--chapter", "10", "--m", "12a", "--n", "5", "--k", "5"], "'12a'"),
        (["--chapter", "10", "--m", "1:100000", "--n", "5", "--k", "5"], "more than 4096"),
        (["--chapter", "10", "--m", "5", "--n", "5", "--k"], "needs a value"),
        (["--chapter", "10", "--m", "5", "--n", "5", "--k", "5", "--sizes", "7"], "chooses the shapes"),
        (["--chapter", "10", "--m", "5", "--n", "5", "--k", "5", "--name", "a/b"], "without '/'"),
    ]
    for args, needle in bad:
        p = run(*args)
        if p.returncode != 2 or needle not in p.stderr:
            failures.append(f"{args}: expected exit 2 with '{needle}', got {p.returncode}: {p.stderr.strip()}")
    p = run("--help")
    if p.returncode != 0 or "--chapter" not in p.stdout:
        failures.append("--help does not describe the options")
else:
    with tempfile.TemporaryDirectory() as out:
        p = run("--chapter", "10", "--m", "256", "--n", "128:640:128", "--k", "64", "--reps", "2",
                "--warmup", "1", "--out", out)
        if p.returncode == 77:
            skip_or_fail(p.stdout)
        print(p.stdout[-3000:], p.stderr[-2000:])
        if p.returncode != 0:
            failures.append(f"the sweep exit {p.returncode}")
        path = os.path.join(out, "sweep_10_wmma_double_buffered_n.csv")
        rows = list(csv.DictReader(open(path))) if os.path.exists(path) else []
        if [int(r["N"]) for r in rows] != [128, 256, 384, 512, 640]:
            failures.append(f"CSV rows: {[r.get('N') for r in rows]}")
        if any(r["pass"] != "1" and r["pass"] != "true" and r["pass"] != "True" for r in rows):
            failures.append("a shape of the sweep failed its check")
        steps_path = path[:-4] + ".steps.csv"
        steps = list(csv.DictReader(open(steps_path))) if os.path.exists(steps_path) else []
        # 128x256 tiles: N = 257 and 513 add a column of tiles (one wave either way on any GPU
        # with at least 6 resident blocks). tools/reporting/plot.py draws them
        # (tests/tools/test_report.py).
        if [(s["x"], s["tiles"], s["new_wave"]) for s in steps] != [("257", "4", "false"),
                                                                      ("513", "6", "false")]:
            failures.append(f"{steps_path}: the steps at N = 257 and 513, got {steps}")
        if any(s["chapter"] != "10_wmma_double_buffered" or s["swept"] != "N" or s["BM"] != "128"
               or s["BN"] != "256" for s in steps):
            failures.append(f"{steps_path}: the chapter, the swept dimension and the tile")
        if "tile model of 10_wmma_double_buffered" not in p.stdout:
            failures.append("the tile model is not printed")
for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)

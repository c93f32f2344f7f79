#!/usr/bin/env python3
"""Many sizes in one run cost each size its own time, not more as the list grows.

Usage: python3 -m tests.run tests.harness.test_many_sizes BINARY CHAPTER_ID
Exit: 0 pass, 1 fail, 77 skipped (a GPU chapter on a machine without a usable GPU, unless
GEMM_REQUIRE_GPU=1 is set, which makes that a failure).

The CSV is appended to, not rewritten, and the CPU timing waits for worker threads only while
some run (about 40 ms a size on our 2-core machine; about 8 ms a size for a GPU chapter on the
H200). It once slept 200 ms a size and rewrote the CSV and a chart after each size: over 160 s for
800 sizes. 200 sizes with the same bound per size (175 ms, under the old 200) catch that.

This is a wall-clock bound, so it is meaningful only on a machine the test has to itself:
tests/meson.build runs it with is_parallel: false. Beside five other tests on one H200 (GPU
contexts time-sliced, cores shared) the same runs took 125 to over 175 ms a size.
"""
import csv
import os
import subprocess
import sys
import tempfile
import time

from tests.check import skip_or_fail

binary, chapter = sys.argv[1], sys.argv[2]
MANY, PER_SIZE_S = 200, 0.175
gpu_chapter = not chapter.startswith(("01_", "02_"))

with tempfile.TemporaryDirectory() as tmp:
    start = time.monotonic()
    try:
        p = subprocess.run([binary, "--sizes", ",".join(["2"] * MANY), "--reps", "1", "--rounds",
                            "1", "--warmup", "0", "--no-baseline", "--check", "off", "--out", tmp],
                           capture_output=True, text=True, timeout=MANY * PER_SIZE_S)
        rc, out = p.returncode, p.stdout
    except subprocess.TimeoutExpired:
        rc, out = None, ""
    took = time.monotonic() - start
    if gpu_chapter and rc == 77:
        skip_or_fail(out)
    csv_path = os.path.join(tmp, chapter + ".csv")
    rows = list(csv.DictReader(open(csv_path))) if os.path.exists(csv_path) else []

failures = []
if not (rc == 0 and len(rows) == MANY):
    failures.append(f"{MANY} sizes: exit 0 and {MANY} CSV rows (rc {rc}, {len(rows)} rows, "
                    f"{took:.1f} s)")
if took >= MANY * PER_SIZE_S:
    failures.append(f"{MANY} sizes in under {PER_SIZE_S * 1000:.0f} ms each (took {took:.1f} s)")
for f in failures:
    print("FAIL:", f)
print(f"{chapter}: {MANY} sizes took {took:.1f} s ({took / MANY * 1000:.1f} ms a size); "
      f"{len(failures)} failure(s)")
sys.exit(1 if failures else 0)

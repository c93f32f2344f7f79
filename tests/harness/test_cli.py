#!/usr/bin/env python3
"""Runs one chapter binary the way a learner would: --help, bad input, a small real run.
(The cost of many sizes in one run is timed on its own, with no test beside it:
test_many_sizes.py.)

Usage: python3 -m tests.run tests.harness.test_cli BINARY CHAPTER_ID
Exit: 0 pass, 1 fail, 77 skipped (a GPU chapter on a machine without a usable GPU, unless
GEMM_REQUIRE_GPU=1 is set, which makes that a failure).
"""
import csv
import os
import re
import subprocess
import sys
import tempfile

from tests.check import expect, failures
from tools import python_env

binary, chapter = sys.argv[1], sys.argv[2]


def run(*args, timeout=300):
    try:
        p = subprocess.run([binary, *args], capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "", f"(still running after {timeout} s)"
    return p.returncode, p.stdout, p.stderr


def mem_available():
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


# --help
rc, out, err = run("--help")
expect(rc == 0, f"--help exits 0 (got {rc})")
expect("--sizes" in out and "Usage" in out and chapter in out, "--help prints the usage")

# Bad input: exit 2 with a message that names the problem, on stderr, never a crash.
bad = [
    (["--bogus"], "--bogus"),
    (["--sizes", "0x-1"], "negative"),
    (["--sizes", "abc"], "abc"),
    (["--sizes", "64,,128"], "empty entry"),
    (["--reps", "x"], "--reps"),
    (["--reps"], "needs a value"),
    (["--check", "nope"], "--check"),
    (["--alpha", "nan"], "--alpha"),
    (["--device", "-1"], "--device"),
    (["--alpha", "0x10"], "expected a decimal number"),  # as the integer options refuse hex
    (["--beta", " 1"], "expected a decimal number"),  # and spaces
    (["--alpha", "1e-45"], "subnormal"),  # finite, but no check could pass
    # Past 2^30 a kernel's k0 += BK would overflow int (chapter 02 crashed here): refused.
    (["--sizes", "1x1x2147483647"], "above 2^30"),
]
if chapter.startswith(("01_", "02_")):
    bad.append((["--device", "99"], "the CPU chapters have no --device"))
for args, word in bad:
    rc, out, err = run(*args)
    expect(rc == 2, f"{args} exits 2 (got {rc}; stderr: {err.strip()!r})")
    expect(word in err and "error" in err, f"{args} explains itself on stderr (got {err.strip()!r})")

with tempfile.TemporaryDirectory() as tmp:
    gpu_chapter = not chapter.startswith(("01_", "02_"))
    rc, out, err = run("--sizes", "64,100x37x19", "--reps", "2", "--warmup", "1", "--alpha", "1.5",
                       "--beta", "-0.5", "--out", tmp)
    if gpu_chapter and rc == 77:
        sentence = out.strip()
        expect(sentence.count("\n") == 0 and "skipped" in sentence,
               f"no GPU: one plain sentence (got {out!r})")
        if os.environ.get("GEMM_REQUIRE_GPU", "") not in ("", "0"):
            failures.append("GEMM_REQUIRE_GPU is set but the chapter found no usable GPU: " + sentence)
        elif not failures:
            print("SKIP:", sentence)
            sys.exit(77)
    else:
        expect(rc == 0, f"a small run exits 0 (got {rc}; stdout tail {out[-500:]!r}; stderr {err!r})")
        expect("PASS" in out and "FAIL" not in out, "the table says PASS")
        csv_path = os.path.join(tmp, chapter + ".csv")
        expect(os.path.exists(csv_path), "CSV written to --out")
        expect(not os.path.exists(os.path.join(tmp, chapter + ".svg")),
               "no chart from the binary (tools/reporting/plot.py draws them)")
        if os.path.exists(csv_path):
            rows = list(csv.DictReader(open(csv_path)))
            expect(len(rows) == 2, f"one CSV row per size (got {len(rows)})")
            for r in rows:
                expect(r["chapter"] == chapter and r["pass"] == "true" and r["check"] == "full",
                       f"CSV row is this chapter, checked and passing: {r}")
                expect(float(r["gflops"]) > 0, "GFLOPS is positive")
            expect(rows[1]["M"] == "100" and rows[1]["N"] == "37" and rows[1]["K"] == "19",
                   "MxNxK shapes reach the CSV")
            # The stamps: the build's commit and dirty flag, and the hash of this chapter's kernel
            # sources as tools/build/stamps.py computes it now (the build is current: meson test
            # built it).
            now = subprocess.run([sys.executable, "-m", "tools.build.stamps", "hash", chapter],
                                 capture_output=True, text=True, env=python_env()).stdout.split()
            for r in rows:
                expect(re.fullmatch(r"([0-9a-f]{12})?", r.get("commit", "-")) and
                       r.get("dirty") in ("true", "false", ""),
                       f"the row carries the commit and the dirty flag: {r}")
                expect(now and r.get("source_hash") == now[1],
                       f"the row's source_hash is the kernel's ({now[1:2]}): {r}")

        # Sizes that cannot be indexed with int, or cannot fit in memory: exit 2 before any work.
        rc, out, err = run("--sizes", "50000", "--out", tmp)
        expect(rc == 2 and "2^31" in err, f"a matrix of 2^31 elements is refused (rc {rc}, {err!r})")
        n = 46000
        if not gpu_chapter and mem_available() and 20 * n * n > mem_available():
            rc, out, err = run("--sizes", str(n), "--out", tmp)
            expect(rc == 2 and "memory" in err, f"a size too big for memory is refused ({rc}, {err!r})")

    # An --out that cannot be created.
    blocker = os.path.join(tmp, "a_file")
    open(blocker, "w").close()
    rc, out, err = run("--sizes", "8", "--out", os.path.join(blocker, "sub"))
    if not (gpu_chapter and rc == 77):
        expect(rc == 2 and "--out" in err, f"an impossible --out is refused ({rc}, {err!r})")

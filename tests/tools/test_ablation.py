#!/usr/bin/env python3
"""tools/ablation as a user runs it: the `full` probe is chapter 11's kernel (it passes the check),
the others really leave parts out (they fail it), and a shape outside the probes' whole tiles
exits 2 with a message that says so.

Usage: python3 -m tests.run tests.tools.test_ablation ABLATION
Exit: 0 pass, 1 fail, 77 skipped (no usable GPU, GEMM_REQUIRE_GPU unset).
"""
import os
import subprocess
import sys
import tempfile

from tests.check import expect, skip_or_fail

tool = sys.argv[1]


def run(probe, *args):
    env = dict(os.environ, GEMM_ABLATION_ONLY=probe)
    with tempfile.TemporaryDirectory() as out:
        return subprocess.run([tool, *args, "--out", out], capture_output=True, text=True,
                              timeout=600, env=env)


p = run("full", "--help")
expect(p.returncode == 0 and "--sizes" in p.stdout, "--help exits 0 and prints the usage", p)

small = ["--sizes", "256x256x512,384x512x192", "--reps", "2", "--warmup", "1"]
p = run("full", *small)
if p.returncode == 77:
    skip_or_fail(p.stdout)
expect(p.returncode == 0 and p.stdout.count("PASS") == 2, "the full probe passes the full check", p)

# Each probe computes a wrong product (several k-tiles, so that leaving copies out matters): the
# harness must catch every one of them.
for probe in ["same_ktile", "no_copies", "no_ldmatrix", "mma_only"]:
    p = run(probe, *small)
    expect(p.returncode == 1 and "FAIL" in p.stdout, f"probe {probe} fails the check", p)

for shape in ["100", "128x256x32", "256x128x64"]:
    p = run("no_copies", "--sizes", shape, "--check", "off", "--reps", "1", "--warmup", "0")
    expect(p.returncode == 2 and "whole 128x256x64 tiles" in p.stderr,
           f"shape {shape} exits 2 and names the probes' tile", p)

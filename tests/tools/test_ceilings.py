#!/usr/bin/env python3
"""tools/ceilings as a user runs it: --help and bad command lines need no GPU (cli); with a GPU a
--quick run exits 0 and writes a well-formed ceilings.csv with plausible positive values (gpu).

Usage: python3 -m tests.run tests.tools.test_ceilings CEILINGS (cli|gpu)
Exit: 0 pass, 1 fail, 77 skipped (gpu mode without a usable GPU, GEMM_REQUIRE_GPU unset).
"""
import csv
import os
import subprocess
import sys
import tempfile

from tests.check import expect, skip_or_fail

tool, mode = sys.argv[1], sys.argv[2]

HEADER = ["device", "ceiling", "value", "unit", "method", "min", "max", "sm_clock_mhz",
          "board_power_w"]
# unit, and a range any GPU of the course reaches at --quick sizes (a T4 to a B200)
EXPECTED = {
    "copy_bandwidth": ("GB/s", 50, 20000),
    "mma_sync_f16f32": ("GFLOPS", 1000, 5e6),
    "wgmma_f16f32": ("GFLOPS", 1000, 5e6),
    "cublas_gemmex_f16f32": ("GFLOPS", 1000, 5e6),
    "cublas_sgemm": ("GFLOPS", 100, 5e5),
}


def run(*args):
    return subprocess.run([tool, *args], capture_output=True, text=True, timeout=600)


def check_csv(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    expect(rows and rows[0] == HEADER, f"header is {','.join(HEADER)}: got {rows[:1]}")
    got = {r[1]: dict(zip(HEADER, r)) for r in rows[1:] if len(r) == len(HEADER)}
    expect(len(rows) - 1 == len(EXPECTED) == len(got),
           f"one row of {len(HEADER)} fields per ceiling: {[r[:2] for r in rows[1:]]}")
    for name, (unit, lo, hi) in EXPECTED.items():
        r = got.get(name)
        if r is None:
            expect(False, f"no row for {name}")
            continue
        expect(r["unit"] == unit, f"{name}: unit {r['unit']!r}, expected {unit}")
        expect(r["device"] != "" and r["method"] != "", f"{name}: device and method are filled in")
        if r["value"] == "":  # allowed only with a reason (wgmma off compute capability 9.0)
            expect(r["method"].startswith("not measured: "), f"{name}: empty value without a reason")
            continue
        v, vmin, vmax = float(r["value"]), float(r["min"]), float(r["max"])
        expect(lo <= v <= hi, f"{name}: {v} {unit} outside the plausible {lo}..{hi}")
        expect(0 < vmin <= v <= vmax, f"{name}: min {vmin} <= value {v} <= max {vmax}")
        expect("median of" in r["method"], f"{name}: the method says how it was timed")
        for col in ("sm_clock_mhz", "board_power_w"):  # empty when NVML is not there
            expect(r[col] == "" or float(r[col]) > 0, f"{name}: {col} {r[col]!r}")


if mode == "cli":
    p = run("--help")
    expect(p.returncode == 0 and "--quick" in p.stdout and "ceilings.csv" in p.stdout,
           "--help exits 0 and describes the options", p)
    for args, needle in [(["--bogus"], "unknown option '--bogus'"),
                         (["--device", "x"], "--device 'x'"),
                         (["--device", "-1"], "--device '-1'"),
                         (["--device"], "--device needs a value"),
                         (["--out", ""], "--out needs a directory")]:
        p = run(*args)
        expect(p.returncode == 2 and needle in p.stderr, f"{args}: exit 2 naming '{needle}'", p)
else:
    with tempfile.TemporaryDirectory() as out:
        p = run("--quick", "--out", out)
        if p.returncode == 77:
            skip_or_fail(p.stdout)
        print(p.stdout[-4000:], p.stderr[-2000:])
        expect(p.returncode == 0, "ceilings --quick exits 0", p)
        path = os.path.join(out, "ceilings.csv")
        expect(os.path.exists(path), f"{path} is written", p)
        if os.path.exists(path):
            check_csv(path)
        p = run("--device", "999", "--out", out)
        expect(p.returncode == 2 and "numbered from 0" in p.stderr, "--device 999 exits 2", p)

#!/usr/bin/env python3
"""tools/measuring/suite.py without a GPU: the committed shape list reads, bad lists and command
lines exit 2 naming the file and line, and a run of a stand-in chapter binary (a script that writes
the harness's CSV for the --sizes it is given) gives the suite's CSV, table and summary: categories
joined, GB/s from the minimum bytes, the geomeans, the lowest shape; the chapter's exit codes 1
and 77 are passed on, and a chapter that stops early keeps what it measured.

Usage: python3 -m tests.run tests.tools.test_suite
Exit: 0 pass, 1 fail.
"""
import csv
import math
import os
import subprocess
import sys
import tempfile

from tests.check import expect
from tools import python_env

# The harness's CSV columns (common/harness/report.cpp), in order.
HARNESS = ("device,chapter,precision,M,N,K,alpha,beta,seed,reps,ms_median,ms_min,gflops,"
           "yardstick,yardstick_ms_median,yardstick_gflops,pct_of_yardstick,pct_min,pct_max,"
           "rounds,check,max_abs_err,max_rel_err,bad_elements,pass,driver,cuda_runtime,cublas,"
           "power_limit_w,sm_clock_mhz,power_w,throttle,l2_flush").split(",")

# A chapter binary as the suite sees one: --sizes and --out, a table on stdout, the CSV and
# peaks.csv in --out. The chapter runs at 500 TFLOP/s; cuBLAS takes half its time at M = 1
# (50%) and the same elsewhere (100%). STUB_EXIT, STUB_ROWS (rows written before exiting) and
# STUB_FAIL (the index of a row whose check fails) change what it does.
STUB = f'''#!{sys.executable}
import csv, os, sys
args = sys.argv[1:]
sizes = args[args.index("--sizes") + 1].split(",")
out = args[args.index("--out") + 1]
if os.environ.get("STUB_EXIT") == "77":
    print("stub: skipped: no CUDA device")
    sys.exit(77)
with open(os.path.join(out, "peaks.csv"), "w") as f:
    f.write("device,fp32_gflops,fp16_tensor_gflops,bandwidth_gbs\\nStub GPU,60000,900000,5000\\n")
rows = int(os.environ.get("STUB_ROWS", len(sizes)))
fail = int(os.environ.get("STUB_FAIL", -1))
with open(os.path.join(out, "99_stub.csv"), "w", newline="") as f:
    w = csv.DictWriter(f, {HARNESS!r})
    w.writeheader()
    for i, s in enumerate(sizes[:rows]):
        M, N, K = map(int, s.split("x"))
        pct = 50.0 if M == 1 else 100.0
        ms = 2.0 * M * N * K / 5e11  # 500 TFLOP/s
        w.writerow(dict(device="Stub GPU", chapter="99_stub", precision="fp16", M=M, N=N, K=K,
                        alpha=1, beta=0, seed=2024, reps=10, ms_median=ms, ms_min=ms,
                        gflops=2.0 * M * N * K / (ms * 1e6), yardstick="cuBLAS stub",
                        yardstick_ms_median=ms * pct / 100,
                        yardstick_gflops=2.0 * M * N * K / (ms * pct / 100 * 1e6),
                        pct_of_yardstick=pct, pct_min=pct - 1, pct_max=pct + 1, rounds=5,
                        check="full", max_abs_err=0, max_rel_err=0, bad_elements=0,
                        **{{"pass": "false" if i == fail else "true"}}, driver="1",
                        cuda_runtime="13.0", cublas="13.1", power_limit_w=700,
                        sm_clock_mhz=1980, power_w=500, throttle="none", l2_flush="yes"))
        print(s, "measured")
sys.exit(int(os.environ.get("STUB_EXIT", 1 if fail >= 0 else 0)))
'''


def run(*args, cwd=None, **env):
    p = subprocess.run([sys.executable, "-m", "tools.measuring.suite", *args], capture_output=True,
                       text=True, timeout=120, cwd=cwd, env=python_env(dict(os.environ, **env)))
    return p.returncode, p.stdout, p.stderr


def write(path, text):
    with open(path, "w") as f:
        f.write(text)
    return path


# --- The committed list reads, and its napkin time is under three minutes ---------------------
rc, out, err = run("--estimate")
expect(rc == 0 and "shapes in" in out, f"--estimate on the committed list (rc {rc}, {err!r})")
minutes = float(out.rsplit("about ", 1)[-1].split(" min")[0]) if rc == 0 else 99
expect(minutes < 3, f"the committed list's napkin time is under 3 minutes (got {out!r})")

with tempfile.TemporaryDirectory() as tmp:
    stub = write(os.path.join(tmp, "99_stub"), STUB)
    os.chmod(stub, 0o755)

    # --- Bad shape lists and command lines: exit 2, the file and line named, nothing run ------
    bad_lists = [
        ("1024 1024\n", ":1: expected 'M N K category [note]'"),
        ("# c\n\n1024 1024 x1 square\n", ":3: K is 'x1', not a whole number"),
        ("0 5 5 square\n", ":1: M is 0"),
        ("-3 5 5 square\n", ":1: M is '-3'"),
        ("5 5 2000000000 square\n", "above the harness's limit"),
        ("65536 65536 1 square\n", "C would hold 4294967296 elements"),
        ("5 5 5 a,b\n", "category 'a,b'"),
        ("5 5 5 odd\n6 6 6 odd\n5 5 5 square\n", ":3: 5x5x5 is already on line 1"),
        ("# nothing\n", "no shapes"),
    ]
    for i, (text, message) in enumerate(bad_lists):
        path = write(os.path.join(tmp, f"bad{i}.txt"), text)
        for mode in (["--validate"], [stub, "--out", os.path.join(tmp, "never")]):
            rc, out, err = run(*mode, "--shapes", path)
            expect(rc == 2 and message in err and path in err,
                   f"shape list {text!r} ({mode[0]}): exit 2 saying {message!r} (rc {rc}, {err!r})")
    expect(not os.path.exists(os.path.join(tmp, "never")), "a bad list writes no output folder")
    blocker = write(os.path.join(tmp, "file"), "")
    bad_commands = [
        (["--validate", "--shapes", os.path.join(tmp, "missing.txt")], "cannot read"),
        (["--validate", "--out", os.path.join(blocker, "sub")], "--out"),
        (["--validate", "--copy-gbs", "0"], "--copy-gbs"),
        (["--validate", "--copy-gbs", "nan"], "--copy-gbs"),
        (["--validate", "--", "--sizes", "7"], "the suite chooses the sizes"),
        (["--validate", "--", "--out=x"], "the suite chooses"),
        (["--validate", "--ceilings", os.path.join(tmp, "none.csv")], "no such file"),
        ([], "no CHAPTER_BINARY"),
        ([os.path.join(tmp, "missing_binary")], "not an executable chapter binary"),
        (["--bogus"], "unrecognized arguments"),
    ]
    for args, message in bad_commands:
        rc, out, err = run(*args)
        expect(rc == 2 and message in err, f"suite.py {args}: exit 2 saying {message!r} "
                                           f"(rc {rc}, {err!r})")

    # --- A run: the CSV, the table, the summary -------------------------------------------------
    shapes = write(os.path.join(tmp, "shapes.txt"),
                   "# a comment\n1 4096 4096 llm qkv  # decode\n2048 4096 4096 llm qkv\n"
                   "4096 4096 4096 square\n3 5 7 odd tiny one\n")
    ceilings = write(os.path.join(tmp, "ceilings.csv"),
                     "device,ceiling,value,unit,method\nStub GPU,copy_bandwidth,4000,GB/s,x\n"
                     "Stub GPU,cublas_gemmex_f16f32,600000,GFLOPS,y\n")
    os.makedirs(os.path.join(tmp, "res", "raw"))
    write(os.path.join(tmp, "res", "raw", "00_old.csv"), "chapter,M,N,K\nold,1,1,1\n")
    rc, out, err = run(stub, "--shapes", "shapes.txt", "--out", "res", "--ceilings", ceilings,
                       cwd=tmp)
    expect(rc == 0, f"a run of the stub chapter exits 0 (rc {rc}, {err!r})")
    csv_path = os.path.join(tmp, "res", "suite_99_stub.csv")
    expect(os.path.exists(csv_path), "the suite CSV is in --out, taken from the caller's directory")
    expect(os.path.exists(os.path.join(tmp, "res", "raw", "99_stub.csv")) and
           os.path.exists(os.path.join(tmp, "res", "raw", "peaks.csv")),
           "the harness's CSV and peaks.csv are kept in raw/")
    expect(os.path.exists(os.path.join(tmp, "res", "suite_99_stub.txt")), "the text is kept")
    expect(not os.path.exists(os.path.join(tmp, "res", "raw", "00_old.csv")),
           "a CSV of an earlier run in raw/ is not taken for this run's")
    rows = list(csv.DictReader(open(csv_path))) if os.path.exists(csv_path) else []
    expect(len(rows) == 4, f"one CSV row per shape (got {len(rows)})")
    if len(rows) == 4:
        header = list(rows[0].keys())
        expect(header[:len(HARNESS)] == HARNESS, "the harness's columns come first, in order")
        expect([r["category"] for r in rows] == ["llm", "llm", "square", "odd"] and
               rows[0]["note"] == "qkv" and rows[3]["note"] == "tiny one",
               f"categories and notes joined in list order ({[r['category'] for r in rows]})")
        # M = 1: bytes 2 (4096 + 4096 * 4096) + 4 * 4096, in 2 M N K / 500 TFLOP/s.
        b = 2 * (4096 + 4096 * 4096) + 4 * 4096
        gbs = b / (2.0 * 4096 * 4096 / 500e12) / 1e9
        expect(int(rows[0]["min_bytes"]) == b, f"min_bytes of 1x4096x4096 ({rows[0]['min_bytes']})")
        expect(math.isclose(float(rows[0]["gbs"]), gbs, rel_tol=1e-4),
               f"GB/s of 1x4096x4096: {gbs:.1f} (got {rows[0]['gbs']})")
        expect(math.isclose(float(rows[0]["pct_of_copy"]), 100 * gbs / 4000, rel_tol=1e-4),
               f"% of the copy bandwidth from --ceilings ({rows[0]['pct_of_copy']})")
        expect([r["memory_bound"] for r in rows] == ["true", "false", "false", "true"],
               f"memory-bound below the ridge of 150 FLOP/byte "
               f"({[(r['flop_per_byte'], r['memory_bound']) for r in rows]})")
    # Ratios 50, 100, 100, 100: geomean 100 * 0.5^(1/4) = 84.1; llm 70.7.
    expect("geomean of the median % of cuBLAS: 84.1% over 4 shapes" in out,
           f"the overall geomean ({out[-900:]!r})")
    expect("llm" in out and "70.7%" in out and "square" in out, "the geomean per category")
    # Without `odd` (ratio 100): 50, 100, 100, geomean 100 * 0.5^(1/3) = 79.4.
    expect("geomean without `odd`: 79.4% over 3 shapes" in out,
           f"the geomean without the odd category ({out[-900:]!r})")
    expect("lowest: 1x4096x4096 (llm, qkv) at 50.0%" in out, "the lowest shape, named")
    expect("ridge of 150 FLOP/byte" in out and "4000.0 GB/s" in out,
           "the ridge and the copy bandwidth, with their source")
    expect("1x4096x4096 measured" in out, "the chapter's own output streams through")

    # --rejoin: the same measurement joined again with other ceilings, running nothing (a stub
    # that would exit 77 is not run), the wall time kept from the first text.
    first = open(os.path.join(tmp, "res", "suite_99_stub.txt")).read()
    rc, out, err = run("--rejoin", "res", "--shapes", "shapes.txt", "--copy-gbs", "2000", cwd=tmp,
                       STUB_EXIT="77")
    again = list(csv.DictReader(open(csv_path))) if os.path.exists(csv_path) else []
    text = open(os.path.join(tmp, "res", "suite_99_stub.txt")).read()
    wall = [l for l in first.splitlines() if l.startswith("wall time:")]
    expect(rc == 0 and "2000.0 GB/s, --copy-gbs" in text and wall and wall[0] in text and
           len(again) == 4 and len(rows) == 4 and
           math.isclose(float(again[0]["pct_of_copy"]), 2 * float(rows[0]["pct_of_copy"]),
                        rel_tol=1e-3) and again[0]["gflops"] == rows[0]["gflops"],
           f"--rejoin rewrites the memory-bound end from raw/ and keeps the wall time "
           f"(rc {rc}, {err!r}, {text[-300:]!r})")
    for args, message in [(["--rejoin", "res", stub], "runs nothing"),
                          (["--rejoin", os.path.join(tmp, "empty")], "no chapter CSV")]:
        os.makedirs(os.path.join(tmp, "empty", "raw"), exist_ok=True)
        rc, out, err = run(*args, cwd=tmp)
        expect(rc == 2 and message in err, f"suite.py {args}: exit 2 saying {message!r} "
                                           f"(rc {rc}, {err!r})")

    # Without ceilings for this device: the theoretical bandwidth of peaks.csv, said so.
    rc, out, err = run(stub, "--shapes", shapes, "--out", os.path.join(tmp, "res2"))
    expect(rc == 0 and "theoretical peak" in out and "5000.0 GB/s" in out,
           f"no ceilings: the theoretical bandwidth, named as such (rc {rc}, {out[-600:]!r})")
    rc, out, err = run(stub, "--shapes", shapes, "--out", os.path.join(tmp, "res3"),
                       "--copy-gbs", "2500")
    expect(rc == 0 and "2500.0 GB/s, --copy-gbs" in out, "--copy-gbs wins")

    # --- The chapter's exit codes ---------------------------------------------------------------
    rc, out, err = run(stub, "--shapes", shapes, "--out", os.path.join(tmp, "r77"), STUB_EXIT="77")
    expect(rc == 77 and "no usable GPU" in out, f"no GPU: exit 77, said (rc {rc}, {out!r})")
    rc, out, err = run(stub, "--shapes", shapes, "--out", os.path.join(tmp, "rf"), STUB_FAIL="2")
    expect(rc == 1 and "1 shape(s) FAILED their check: 4096x4096x4096" in out,
           f"a failed check: exit 1, the shape named (rc {rc}, {out[-400:]!r})")
    rc, out, err = run(stub, "--shapes", shapes, "--out", os.path.join(tmp, "rs"),
                       STUB_ROWS="2", STUB_EXIT="134")
    rows = list(csv.DictReader(open(os.path.join(tmp, "rs", "suite_99_stub.csv"))))
    expect(rc == 134 and len(rows) == 2 and "before 4096x4096x4096 (line 4)" in out,
           f"a chapter that stops keeps the shapes it measured and names the next "
           f"(rc {rc}, {len(rows)} rows, {out[-300:]!r})")

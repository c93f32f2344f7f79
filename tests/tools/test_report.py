#!/usr/bin/env python3
"""tools/reporting/plot.py as a user runs it, no GPU needed: every chart and the results table from
the H100's CSVs of the old format (tests/tools/data/h100_old_protocol) and from small CSVs with
the newer columns (the ratio's spread, the timing conditions, measured ceilings, a shape sweep's
steps); bad command lines and bad CSVs exit 2 naming what is wrong; without matplotlib, the table
alone and one line saying so.

Usage: python3 -m tests.run tests.tools.test_report PLOTS_DIR
Exit: 0 pass, 1 fail, 77 skipped: no Python on this machine imports matplotlib (the checks that
need none of it still ran and passed).
"""
import csv
import glob
import math
import os
import shutil
import subprocess
import sys
import tempfile

from tests.check import expect, failures
from tools import python_env
from tools.build import chapters as chapter_list
from tools.reporting import plot

plots = sys.argv[1]
NO_MATPLOTLIB = "no matplotlib: charts skipped (apt-get install python3-matplotlib)"


def run(python, *args, env=None):
    return subprocess.run([python, "-m", "tools.reporting.plot", *args], capture_output=True, text=True,
                          timeout=300, env=python_env(env))


def with_matplotlib():
    """The first of this Python, the system's and PATH's python3 that imports matplotlib."""
    for p in dict.fromkeys([sys.executable, "/usr/bin/python3", shutil.which("python3")]):
        if p and os.path.exists(p) and subprocess.run(
                [p, "-c", "import matplotlib"], capture_output=True).returncode == 0:
            return p
    return None


def read(path):
    with open(path) as f:
        return f.read()


# A results CSV as the newer harness writes it: the ratio's spread, rounds and conditions.
COLUMNS = ("device,chapter,precision,M,N,K,alpha,beta,seed,reps,ms_median,ms_min,gflops,"
           "yardstick,yardstick_ms_median,yardstick_gflops,pct_of_yardstick,pct_min,pct_max,"
           "rounds,check,max_abs_err,max_rel_err,bad_elements,pass,gpu,driver,cuda_runtime,"
           "cublas,power_limit_w,sm_clock_mhz,power_w,throttle,l2_flush").split(",")
GPU = "Test GPU"


def new_row(chapter, n, gflops, pct, lo, hi, precision="fp16", passed="true", **extra):
    row = dict(device=GPU, chapter=chapter, precision=precision, M=n, N=n, K=n, alpha=1, beta=0,
               seed=2024, reps=20, ms_median=1, ms_min=1, gflops=gflops,
               yardstick="cuBLAS cublasGemmEx fp16->fp32", yardstick_ms_median=1,
               yardstick_gflops=gflops * 100 / pct, pct_of_yardstick=pct, pct_min=lo,
               pct_max=hi, rounds=10, check="full", max_abs_err=0, max_rel_err=0,
               bad_elements=0, **{"pass": passed}, gpu=GPU, driver="580.1", cuda_runtime="13.0",
               cublas="13.1", power_limit_w=700, sm_clock_mhz=1980, power_w=650,
               throttle="none", l2_flush="yes")
    row.update(extra)
    return row


def write_csv(path, columns, rows):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, columns)
        w.writeheader()
        w.writerows(rows)


def new_results(d):
    write_csv(os.path.join(d, "13_wgmma_persistent.csv"), COLUMNS, [
        new_row("13_wgmma_persistent", 1024, 97259, 81.1, 79.3, 82.0, sm_clock_mhz=1755),
        new_row("13_wgmma_persistent", 4096, 717442, 103.1, 101.2, 104.0,
                throttle="sw_power_cap")])
    write_csv(os.path.join(d, "07_cuda_warp_tiled.csv"), COLUMNS, [
        new_row("07_cuda_warp_tiled", 1024, 20018, 65.1, 60.0, 70.0, precision="fp32",
                yardstick="cuBLAS cublasSgemm", passed="false")])
    with open(os.path.join(d, "peaks.csv"), "w") as f:
        f.write(f"device,fp32_gflops,fp16_tensor_gflops,bandwidth_gbs\n{GPU},60000,900000,3000\n")


# A shape sweep: N from 128 to 640 at M = 256, 128x256 tiles: new tile columns at 257 and 513.
def sweep(d):
    rows = [new_row("sweep_10_n", 256, 1000 + n, 90, 88, 92, N=n, K=64) for n in
            (128, 256, 384, 512, 640)]
    write_csv(os.path.join(d, "sweep_10_n.csv"), COLUMNS, rows)
    with open(os.path.join(d, "sweep_10_n.steps.csv"), "w") as f:
        f.write("chapter,swept,BM,BN,sms,blocks_per_sm,x,tiles,waves,new_wave\n"
                "10_wmma_double_buffered,N,128,256,132,1,257,4,1,false\n"
                "10_wmma_double_buffered,N,128,256,132,1,513,6,1,false\n")


# A shape suite (tools/measuring/suite.py): the results columns plus a category per shape. Ratios
# 50, 100, 100 and 200: geomean 100; llm 70.7%. The decode shape is memory-bound at 61% of the copy
# bandwidth; 4096^3's check failed.
SUITE_COLUMNS = COLUMNS + ["category", "note", "min_bytes", "flop_per_byte", "gbs",
                           "yardstick_gbs", "pct_of_copy", "memory_bound"]


def suite_csv(d, category_of_last="odd"):
    rows = []
    for (m, n, k, pct, cat, note, mem, passed) in [
            (1, 4096, 4096, 50, "llm", "qkv", "true", "true"),
            (2048, 4096, 4096, 100, "llm", "qkv", "false", "true"),
            (4096, 4096, 4096, 100, "square", "", "false", "false"),
            (3, 5, 7, 200, category_of_last, "tiny", "true", "true")]:
        rows.append(new_row("13_wgmma_persistent", m, 1000, pct, pct - 2, pct + 3, N=n, K=k,
                            passed=passed, category=cat, note=note, min_bytes=1, flop_per_byte=1,
                            gbs=1, yardstick_gbs=1, pct_of_copy=61 if m == 1 else 0,
                            memory_bound=mem))
    write_csv(os.path.join(d, "suite_13_wgmma_persistent.csv"), SUITE_COLUMNS, rows)


python = sys.executable
h100 = sorted(glob.glob(os.path.join(plots, "[0-9][0-9]_*.csv")))
chapters = [os.path.basename(c)[:-4] for c in h100]
expect(len(chapters) == 13, f"the 13 chapters' CSVs in {plots} (found {chapters})")

# --- Without matplotlib: a stand-in package that fails to import, first on the path ----------
with tempfile.TemporaryDirectory() as tmp:
    blocker = os.path.join(tmp, "blocker", "matplotlib")
    os.makedirs(blocker)
    with open(os.path.join(blocker, "__init__.py"), "w") as f:
        f.write("raise ImportError('matplotlib is blocked by test_report.py')\n")
    env = dict(os.environ, PYTHONPATH=os.path.dirname(blocker))
    out = os.path.join(tmp, "out")
    p = run(python, "--out", out, *h100, os.path.join(plots, "peaks.csv"), env=env)
    expect(p.returncode == 0, f"no matplotlib: exit 0 (got {p.returncode}: {p.stderr!r})")
    expect(p.stdout.count(NO_MATPLOTLIB) == 1, f"no matplotlib: one line says so ({p.stdout!r})")
    expect(os.path.exists(os.path.join(out, "results.md")), "no matplotlib: results.md written")
    expect(not glob.glob(os.path.join(out, "*.svg")), "no matplotlib: no chart written")

    # results.md from the H100 CSVs: every chapter, every yardstick, the old format.
    md = read(os.path.join(out, "results.md")) if os.path.exists(os.path.join(out, "results.md")) \
        else ""
    for ch in chapters:
        expect(f"| {ch} | fp" in md, f"{ch} in the results table")
    for y in ("OpenBLAS cblas_sgemm", "cuBLAS cublasSgemm", "cuBLAS cublasGemmEx fp16->fp32"):
        expect(f"| *{y}* |" in md, f"yardstick {y} in the results table")
    expect("| 717,442 (103.0%) |" in md, "chapter 13 at 4096 reads 717,442 (103.0%)")
    expect("While timing" not in md, "no conditions section for CSVs without those columns")

    # The newer columns: the spread in the table, the conditions above it and beside it.
    new = os.path.join(tmp, "new")
    os.makedirs(new)
    new_results(new)
    p = run(python, new, env=env)
    md = read(os.path.join(new, "results.md")) if p.returncode == 0 else ""
    expect(p.returncode == 0, f"new columns: exit 0 (got {p.returncode}: {p.stderr!r})")
    expect("717,442 (103.1%, 101.2\u2013104.0)" in md, f"the spread in the table:\n{md}")
    expect("20,018 (65.1%, 60.0\u201370.0) FAIL" in md, "a failed check shows in the table")
    expect("driver 580.1" in md and "cuBLAS 13.1" in md and "power limit 700 W" in md
           and "L2 flushed" in md, "the setup line under the title")
    expect("| 13_wgmma_persistent | SM clock 1755\u20131980 MHz, board power 650 W, throttling: "
           "none, sw_power_cap |" in md, "each chapter's conditions while timing")

    # Bad input: exit 2, a message naming the file, the line and the column; nothing written.
    def bad_csv(name, value_of, needle, columns=COLUMNS):
        d = os.path.join(tmp, name)
        os.makedirs(d)
        row = new_row("13_wgmma_persistent", 256, 1000, 90, 88, 92)
        row.update(value_of)
        write_csv(os.path.join(d, "13_wgmma_persistent.csv"), columns,
                  [{k: v for k, v in row.items() if k in columns}])
        p = run(python, d, env=env)
        expect(p.returncode == 2 and needle in p.stderr and "Traceback" not in p.stderr,
               f"{name}: exit 2 naming '{needle}' (got {p.returncode}: {p.stderr!r})")
        expect(not os.path.exists(os.path.join(d, "results.md")), f"{name}: nothing written")

    bad_csv("inf", {"gflops": "inf"}, "13_wgmma_persistent.csv:2: column gflops is 'inf', "
            "not a finite number")
    bad_csv("nan", {"gflops": "nan"}, "column gflops is 'nan', not a finite number")
    bad_csv("huge", {"gflops": "1e999"}, "column gflops is '1e999', not a finite number")
    bad_csv("negative", {"gflops": "-5"}, "column gflops is -5, below 0")
    bad_csv("text", {"pct_max": "lots"}, "column pct_max is 'lots', not a number")
    bad_csv("fraction", {"M": "2.5"}, "column M is 2.5, not a whole number")
    bad_csv("no_gflops", {}, "no column gflops", [c for c in COLUMNS if c != "gflops"])
    ragged = os.path.join(tmp, "ragged")
    os.makedirs(ragged)
    with open(os.path.join(ragged, "x.csv"), "w") as f:
        f.write("chapter,M,N,K,gflops\n07,1,1,1,5\n07,1,1\n")
    p = run(python, ragged, env=env)
    expect(p.returncode == 2 and "x.csv:3: 3 fields under a header of 5" in p.stderr,
           f"a short line: exit 2 naming it ({p.returncode}, {p.stderr!r})")

    # A suite CSV with an empty category: exit 2 naming the line; alone, it needs no results.md.
    bad_suite = os.path.join(tmp, "bad_suite")
    os.makedirs(bad_suite)
    suite_csv(bad_suite, category_of_last="")
    p = run(python, bad_suite, env=env)
    expect(p.returncode == 2 and "suite_13_wgmma_persistent.csv:5: column category is empty"
           in p.stderr, f"a suite row without a category: exit 2 ({p.returncode}, {p.stderr!r})")
    good_suite = os.path.join(tmp, "good_suite")
    os.makedirs(good_suite)
    suite_csv(good_suite)
    p = run(python, good_suite, env=env)
    expect(p.returncode == 0 and not os.path.exists(os.path.join(good_suite, "results.md")),
           f"a suite CSV alone: exit 0 without matplotlib, no results.md ({p.returncode}, "
           f"{p.stderr!r})")

    # Bad command lines: exit 2 with a message, never a traceback.
    for args, needle in [([], "PATH"), (["--bogus", plots], "--bogus"),
                         ([os.path.join(tmp, "no_such")], "no_such: no such file or directory"),
                         ([os.path.join(tmp, "blocker")], "no CSV files"),
                         (["--out"], "--out"),
                         (["--out", os.path.join(ragged, "x.csv"), new], "--out")]:
        p = run(python, *args, env=env)
        expect(p.returncode == 2 and needle in p.stderr and "Traceback" not in p.stderr,
               f"{args}: exit 2 naming '{needle}' (got {p.returncode}: {p.stderr!r})")
    p = run(python, "--help")
    expect(p.returncode == 0 and "--png" in p.stdout, "--help exits 0 and lists the options")

# --- The roofline's x: each chapter's napkin intensity, by hand --------------------------------
number = lambda row: plot.number_reader("t.csv", 2, row)


def result(chapter, precision, n):
    row = dict(chapter=chapter, precision=precision, M=str(n), N=str(n), K=str(n), gflops="1",
               beta="0")
    return plot.Result(row, number(row))


cases = [  # chapter, precision, size, FLOP per byte worked out by hand, from the napkin model
    ("03_cuda_naive", "fp32", 1024, 2 * 1024 ** 3 / (8 * 1024 ** 3 + 4 * 1024 ** 2), True),
    ("05_cuda_smem_tiled", "fp32", 1024,
     2 * 1024 ** 3 / (4 * 2 * 1024 ** 2 * 32 + 4 * 1024 ** 2), True),
    ("15_wgmma_persistent", "fp16", 4096,
     2 * 4096 ** 3 / (2 * 2 * 4096 ** 2 * 16 + 4 * 4096 ** 2), True),
    ("10_wmma_double_buffered", "fp16", 256,  # one column of 256-wide tiles, two rows of 128
     2 * 256 ** 3 / (2 * (256 ** 2 * 1 + 256 ** 2 * 2) + 4 * 256 ** 2), True),
    ("16_split_k", "fp16", 4096,  # cluster2's pairs, as chapter 15 (chapters/16_split_k/configs.hpp)
     2 * 4096 ** 3 / (2 * 2 * 4096 ** 2 * 16 + 4 * 4096 ** 2), True),
    ("18_small_m", "fp16", 4096,  # past 64 rows, tiles of (64, 64): A and B each read 64 times
     2 * 4096 ** 3 / (2 * 2 * 4096 ** 2 * 64 + 4 * 4096 ** 2), True),
    ("18_small_m", "fp16", 8,  # M <= 8: one (8, 64) tile holds 8 x 8: A and B read once
     2 * 8 ** 3 / (2 * (8 * 8 * 1 + 8 * 8 * 1) + 4 * 8 ** 2), True),
    ("99_new_chapter", "fp16", 1024, 2 * 1024 ** 3 / (2 * 2 * 1024 ** 2 + 4 * 1024 ** 2), False),
]
for chapter, precision, n, want, napkin in cases:
    got = plot.intensity(result(chapter, precision, n))
    expect(math.isclose(got[0], want, rel_tol=1e-12) and got[1] == napkin,
           f"intensity of {chapter} at {n}: {got}, expected ({want}, {napkin})")
expect(120 < plot.intensity(result("15_wgmma_persistent", "fp16", 4096))[0] < 128,
       "chapter 15 at 4096: under the 128 FLOP/byte of its header, which leaves C out")

# The ladder's eras: one table (plot.ERAS), every chapter of the list in an era of its own kind.
listed = chapter_list.load()
eras = [plot.era_of(c) for c in listed]
expect("other" not in eras, f"every chapter of the list has an era ({list(zip(listed, eras))})")
expect(all((e == "CPU") == (c.kind == "cpu") for c, e in zip(listed, eras))
       and all((e == "FP8") == c.precision.startswith("fp8") for c, e in zip(listed, eras)),
       "CPU chapters in the CPU era, fp8 chapters in the FP8 era, no others")
expect(eras == sorted(eras, key=[e[0] for e in plot.ERAS].index),
       f"the eras follow the reading order, each in one run of chapters ({eras})")
Fake = chapter_list.Chapter
expect(plot.era_of(Fake("10_x", "cuda", "fp16", 75, 0, [], "", "")) == "WMMA" and
       plot.era_of(Fake("11_x", "cuda", "fp16", 75, 0, [], "", "")) == "mma.sync" and
       plot.era_of(Fake("15_x", "hopper", "fp16", 90, 90, [], "", "")) == "Hopper" and
       plot.era_of(Fake("16_x", "hopper", "fp16", 90, 90, [], "", "")) == "every shape",
       "the id ranges of the eras: WMMA to 10, mma.sync from 11, Hopper to 15, every shape from 16")

# --- With matplotlib: every chart ----------------------------------------------------------------
mpl = with_matplotlib()
if mpl is None:
    print("SKIP: charts: no Python here imports matplotlib (apt-get install python3-matplotlib)")
    print(f"report: {len(failures)} failure(s)")
    sys.exit(1 if failures else 77)
print("charts drawn with", mpl)
with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "h100")
    p = run(mpl, "--out", out, "--png", plots)
    expect(p.returncode == 0 and NO_MATPLOTLIB not in p.stdout,
           f"plot.py on {plots}: exit 0 (got {p.returncode}: {p.stderr!r})")
    svg = lambda name: read(os.path.join(out, name)) if os.path.exists(
        os.path.join(out, name)) else ""
    for ch in chapters:
        mine = svg(ch + ".svg")
        expect(f'id="series-{ch}"' in mine and 'id="yardstick-' in mine and
               f'id="ratio-{ch}"' in mine, f"{ch}.svg: its GFLOPS, its yardstick, its ratio")
        expect('id="spread-' not in mine, f"{ch}.svg: no spread bars from a CSV without them")
        expect(f"{ch} on " in mine, f"{ch}.svg: a title naming the chapter and the device")
        with open(os.path.join(out, ch + ".png"), "rb") as f:
            expect(f.read(8) == b"\x89PNG\r\n\x1a\n", f"{ch}.png is a PNG")
    # The ladder from the committed CSVs: a bar for each chapter that is still on the list.
    lad = svg("ladder.svg")
    on_list = [c.id for c in listed]
    for ch in chapters:
        drawn = f'id="ladder-{ch}-' in lad
        expect(drawn == (ch in on_list), f"{ch} {'on' if drawn else 'not on'} the ladder chart")
    expect('id="ladder-07_cuda_warp_tiled-4096"' in lad and
           'id="ladder-07_cuda_warp_tiled-8192"' in lad and 'id="ladder-100"' in lad and
           'id="ladder-02_cpu_tiled-1024"' in lad and "(at 1024)" in lad,
           "the ladder: 4096 and 8192 for a GPU chapter, a CPU chapter at its largest size, 100%")
    every = svg("all_chapters.svg")
    for ch in chapters:
        expect(f'id="series-{ch}"' in every, f"{ch} on the all-chapters chart")
    for y in ("OpenBLAS_cblas_sgemm", "cuBLAS_cublasSgemm", "cuBLAS_cublasGemmEx_fp16-_fp32"):
        expect(f'id="yardstick-{y}"' in every, f"yardstick {y} on the all-chapters chart")
    roof = svg("roofline.svg")
    expect('id="roof-memory"' in roof and 'id="roof-fp32_CUDA_cores_theoretical"' in roof and
           'id="roof-fp16_tensor_cores_theoretical"' in roof and "theoretical peaks" in roof,
           "the roofline has the theoretical roofs of peaks.csv, labelled so")
    for ch in chapters:
        on = f'id="point-{ch}"' in roof
        expect(on == (not ch.startswith(("01_", "02_"))),
               f"{ch} {'missing from' if not on else 'on'} the H100 roofline")

    # The newer columns, measured ceilings and a sweep.
    new = os.path.join(tmp, "new")
    os.makedirs(new)
    new_results(new)
    sweep(new)
    with open(os.path.join(new, "ceilings.csv"), "w") as f:
        f.write("device,ceiling,value,unit,method\n"
                f"{GPU},copy_bandwidth,2900,GB/s,device-to-device copy\n"
                f"{GPU},mma_sync_f16f32,650000,GFLOPS,mma.sync loop\n"
                f"{GPU},cublas_sgemm,51000,GFLOPS,cublasSgemm 8192\n")
    suite_csv(new)  # drawn in the same run: the suite's checks follow the sweep's
    p = run(mpl, "--png", new)
    expect(p.returncode == 0, f"new columns: exit 0 (got {p.returncode}: {p.stderr!r})")
    ch13 = read(os.path.join(new, "13_wgmma_persistent.svg"))
    expect('id="spread-13_wgmma_persistent"' in ch13 and "lowest to the highest round" in ch13
           and "10 rounds" in ch13 and "driver 580.1" in ch13
           and "SM clock 1755\u20131980 MHz" in ch13, "chapter chart: the spread and conditions")
    roof = read(os.path.join(new, "roofline.svg"))
    expect("measured copy bandwidth, 2,900 GB/s" in roof and
           'id="roof-fp16_mma.sync_measured"' in roof and
           'id="roof-fp32_cuBLAS_SGEMM_measured"' in roof and "theoretical" not in roof,
           "the roofline draws the measured ceilings, labelled so, instead of the peaks")
    expect('id="point-13_wgmma_persistent"' in roof and 'id="point-07_cuda_warp_tiled"' in roof,
           "the roofline places the chapters of this device")
    sw = read(os.path.join(new, "sweep_10_n.svg")) if os.path.exists(
        os.path.join(new, "sweep_10_n.svg")) else ""
    expect('id="step-257"' in sw and 'id="step-513"' in sw and "6 tiles" in sw,
           "the sweep chart draws the predicted steps")
    expect("10_wmma_double_buffered against N (M 256, K 64)" in sw, "the sweep chart's title")
    expect('id="series-sweep_10_n"' not in read(os.path.join(new, "all_chapters.svg")),
           "a sweep stays off the all-chapters chart")

    # The shape suite: one bar per shape, lowest first, coloured by category, the rounds' spread,
    # 100% and 95% lines, the geomean in the title; it stays off the overview.
    path = os.path.join(new, "suite_13_wgmma_persistent.svg")
    st = read(path) if os.path.exists(path) else ""
    expect(p.returncode == 0 and st, f"the suite chart is drawn ({p.returncode}, {p.stderr!r})")
    bars = [f'id="bar-{s}"' for s in ("1x4096x4096", "2048x4096x4096", "4096x4096x4096",
                                       "3x5x7")]
    expect(all(b in st for b in bars), "the suite chart: a bar per shape")
    labels = [st.find(t) for t in ("1x4096x4096  qkv", "2048x4096x4096  qkv", "3x5x7  tiny")]
    expect(-1 not in labels and labels == sorted(labels),
           f"the suite chart: shapes labelled with their note, lowest ratio first ({labels})")
    expect('id="suite-spread"' in st and 'id="suite-100"' in st and 'id="suite-95"' in st,
           "the suite chart: the rounds' spread, the 100% and 95% lines")
    expect("13_wgmma_persistent against cuBLAS on Test GPU: geomean 100.0%" in st,
           "the suite chart: the geomean in the title")
    expect("llm: geomean 70.7% (2)" in st and "square: geomean 100.0% (1)" in st and
           "odd: geomean 200.0% (1)" in st, "the suite chart: categories with their geomeans")
    expect("61% of copy bandwidth" in st and "check FAILED" in st,
           "the suite chart: the memory-bound share of the copy bandwidth, a failed check")
    expect(os.path.exists(os.path.join(new, "suite_13_wgmma_persistent.png")), "and its PNG")
    expect("bar-1x4096x4096" not in read(os.path.join(new, "all_chapters.svg")) and
           "| 13_wgmma_persistent | fp16 | 3,106" not in read(os.path.join(new, "results.md")),
           "the suite stays out of the all-chapters chart and results.md")

# The ladder from a synthetic run: the list's first and last GPU chapters and a chapter not on it.
with tempfile.TemporaryDirectory() as lad_dir:
    gpu = [c for c in listed if c.kind != "cpu"]
    first, last = gpu[0].id, gpu[-1].id
    write_csv(os.path.join(lad_dir, first + ".csv"), COLUMNS,
              [new_row(first, 4096, 6300.0, 12.3, 12.2, 12.4, precision="fp32"),
               new_row(first, 8192, 6100.0, 12.0, 11.9, 12.1, precision="fp32"),
               new_row(first, 1024, 5000.0, 50.0, 49.0, 51.0, precision="fp32")])
    write_csv(os.path.join(lad_dir, last + ".csv"), COLUMNS,
              [new_row(last, 4096, 1139248.6, 83.0, 82.8, 83.5, precision="e4m3"),
               new_row(last, 8192, 1282800.0, 86.9, 81.6, 92.0, precision="e4m3",
                       passed="false")])
    write_csv(os.path.join(lad_dir, "99_gone.csv"), COLUMNS,
              [new_row("99_gone", 4096, 1000.0, 50.0, 49.0, 51.0)])
    p = run(mpl, lad_dir)
    lad = read(os.path.join(lad_dir, "ladder.svg")) if os.path.exists(
        os.path.join(lad_dir, "ladder.svg")) else ""
    expect(p.returncode == 0 and lad, f"the ladder chart is drawn ({p.returncode}, {p.stderr!r})")
    expect(f'id="ladder-{first}-4096"' in lad and f'id="ladder-{first}-8192"' in lad and
           f'id="ladder-{first}-1024"' not in lad and f'id="ladder-{last}-4096"' in lad and
           "99_gone" not in lad, "the ladder: 4096 and 8192 of the list's chapters, nothing else")
    expect(">6.30<" in lad and ">1139<" in lad and ">1283<" in lad,
           "the ladder: TFLOP/s written on the bars")
    expect(f'id="era-{plot.slug(plot.era_of(gpu[0]))}"' in lad and plot.era_of(gpu[-1]) in lad,
           "the ladder: the eras shaded and named")
    expect("FAIL" in lad and 'id="ladder-100"' in lad, "the ladder: a failed check, the 100% line")

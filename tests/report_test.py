#!/usr/bin/env python3
"""gemm_report on the committed H100 CSVs (no GPU needed): the combined chart, the Markdown
table and the roofline hold every chapter and both cuBLAS yardsticks.

Usage: report_test.py GEMM_REPORT PLOTS_DIR
"""
import glob
import os
import subprocess
import sys
import tempfile

tool, plots = sys.argv[1], sys.argv[2]
csvs = sorted(glob.glob(os.path.join(plots, "[0-9][0-9]_*.csv")))
chapters = [os.path.basename(c)[:-4] for c in csvs]
failures = []
if len(chapters) < 13:
    failures.append(f"expected the 13 chapters' CSVs in {plots}, found {chapters}")
with tempfile.TemporaryDirectory() as out:
    p = subprocess.run([tool, "--out", out, "--peaks", os.path.join(plots, "peaks.csv"), *csvs],
                       capture_output=True, text=True)
    if p.returncode != 0:
        failures.append(f"gemm_report exit {p.returncode}: {p.stderr}")
    else:
        svg = open(os.path.join(out, "all_chapters.svg")).read()
        md = open(os.path.join(out, "results.md")).read()
        roof = open(os.path.join(out, "roofline.svg")).read()
        for ch in chapters:
            if f'data-name="{ch}"' not in svg:
                failures.append(f"{ch} missing from the combined chart")
            if f"| {ch} |" not in md:
                failures.append(f"{ch} missing from the results table")
        for y in ("cuBLAS cublasSgemm", "cuBLAS cublasGemmEx fp16-&gt;fp32"):
            if f'data-name="{y}"' not in svg:
                failures.append(f"yardstick {y} missing from the combined chart")
        if "*cuBLAS cublasSgemm*" not in md or "*cuBLAS cublasGemmEx fp16->fp32*" not in md:
            failures.append("a yardstick row is missing from the results table")
        if "roof" not in roof or 'data-name="10_wmma_double_buffered"' not in roof:
            failures.append("the roofline lacks its roofs or the GPU chapters")
    # Bad input is refused with a message, not a crash.
    p = subprocess.run([tool, "--out", out, os.path.join(plots, "no_such.csv")], capture_output=True, text=True)
    if p.returncode == 0 or "no_such.csv" not in p.stderr:
        failures.append(f"a missing CSV should fail with its name (exit {p.returncode}, {p.stderr!r})")
for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)

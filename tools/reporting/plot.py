#!/usr/bin/env python3
"""The charts and the results table, drawn from the CSVs the harness writes.

    tools/reporting/plot.py [--out DIR] [--png] PATH...

PATH is a results directory (every CSV directly in it) or CSV files. Each file is recognized by
its header, and columns are found by name, so older CSVs with fewer columns still plot:

  results CSV (NN_chapter.csv)  -> NN_chapter.svg: GFLOPS against size with the yardstick dashed,
                                   and the percentage of the yardstick with its spread
  all results CSVs together     -> ladder.svg: one bar per chapter of chapters/chapters.txt, its %
                                   of its yardstick at 4096 and 8192 (a CPU chapter: its largest
                                   size), TFLOP/s on the bar, grouped by era (ERAS below);
                                   all_chapters.svg (log GFLOPS) and results.md (the table)
  peaks.csv and/or ceilings.csv -> roofline.svg for that device
  NAME.csv beside NAME.steps.csv -> NAME.svg: a shape sweep (tools/shape_sweep) with its
                                   predicted tile and wave steps
  suite_CHAPTER.csv (a category   -> suite_CHAPTER.svg: the shape suite
  column)                          (tools/measuring/suite.py), one bar per shape, % of cuBLAS with
                                   the rounds' spread, sorted and coloured by category; the
                                   geomean in the title
  fp8_accuracy.csv (tools/fp8_accuracy) -> fp8_accuracy.svg: relative error against K of each
                                   FP8 kernel and cuBLASLt, one panel per input distribution

results.md needs nothing but Python; the charts need matplotlib (Debian: python3-matplotlib).
Without it the script writes the table, prints one line saying the charts were skipped, and
exits 0. A CSV it cannot read (a missing column, a number that is not finite) stops it with the
file, the line and the column, exit 2, before anything is written; so does a bad command line.
"""
import argparse
import csv
import math
import os
import re
import statistics
import sys
import textwrap

NO_MATPLOTLIB = "no matplotlib: charts skipped (apt-get install python3-matplotlib)"

# Columns after pct_of_yardstick that newer harnesses write: the spread of the per-round ratios and
# the conditions the timing ran under (docs/harness.md). Absent or empty means unknown.
CONDITIONS = ["gpu", "driver", "cuda_runtime", "cublas", "power_limit_w", "sm_clock_mhz",
              "power_w", "throttle", "l2_flush"]

# --- The napkin model of each chapter's global-memory traffic (the roofline's x) --------------
# Bytes a chapter's tiling asks of global memory, from the napkin math in the header of
# chapters/NN_*/kernel.cuh and the block tile its gemm() picks there. e = bytes per element of A
# and B (4 for fp32, 2 for fp16); C (fp32) is written once, and read once more when beta != 0.
#   ("thread",):      one thread per element of C, no reuse inside the kernel: every multiply-add
#                     loads one element of A and one of B, 2 e M N K bytes (0.25 FLOP/byte fp32).
#   ("tile", BM, BN): a block computes a (BM, BN) tile of C from a (BM, K) panel of A and a
#                     (K, BN) panel of B, each loaded once: A is read ceil(N/BN) times and B
#                     ceil(M/BM) times, e (M K ceil(N/BN) + K N ceil(M/BM)) bytes.
# These are requests to global memory: what the L2 catches never reaches DRAM, so the DRAM bytes
# are at most this and the chapter's true DRAM intensity at least this.
NAPKIN = {
    "03_cuda_naive": ("thread",),
    "04_cuda_coalesced": ("thread",),  # the same requests as 03, in fewer transactions
    "05_cuda_smem_tiled": ("tile", 32, 32),  # BM = BN = 32
    "06_cuda_register_tiled": ("tile", 128, 128),  # configs::Default, c128x128x16
    "07_cuda_warp_tiled": ("tile", 128, 128),  # configs::Default, c128x128x8
    "08_wmma_naive": ("tile", 16, 16),  # each warp loads its own 16x16 fragments
    "09_wmma_smem": ("tile", 128, 128),  # b128x128_k64_w4
    "10_wmma_double_buffered": ("tile", 128, 256),  # b128x256_k64_s3 (sm_80 on; sm_75: 128x128)
    "11_mma_ldmatrix": ("tile", 128, 256),  # b128x256_k64_s3 (as chapter 10)
    "12_wgmma": ("tile", 128, 256),  # BM, BN = 128, 256
    "13_tma_mbarrier": ("tile", 128, 256),
    "14_warp_specialized": ("tile", 128, 256),
    "15_wgmma_persistent": ("tile", 256, 256),  # 128-row tiles in clusters of 2 sharing B
    # The FP8 chapters: e = 1 (e4m3), C bf16; 22 and 23 in clusters of two along M sharing B.
    "20_fp8_e4m3": ("tile", 128, 256),
    "21_fp8_promoted": ("tile", 128, 128),
    "22_fp8_persistent": ("tile", 256, 128),
    "23_fp8_block_scaled": ("tile", 256, 128),
}


def list_precisions():
    """{chapter id: the harness's precision name} from chapters/chapters.txt
    (tools/build/chapters.py): a CSV row without its precision column takes its chapter's."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build"))
    try:
        import chapters
        return {c.id: chapters.precision(c.precision).csv for c in chapters.load()}
    except Exception:  # a copy of the script without the list: the CSV's column alone
        return {}


LIST_PRECISIONS = list_precisions()


# Chapters' colours: matplotlib's tab10, then six darker ones (greys and black are the
# yardsticks' and the roofs').
PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
           "#bcbd22", "#17becf", "#393b79", "#637939", "#843c39", "#7b4173", "#3182bd",
           "#8c6d31", "#5254a3"]


class InputError(Exception):
    """A bad command line or a CSV this script cannot use: message on stderr, exit 2."""


# --- Reading ------------------------------------------------------------------------------------
class Result:
    """One row of a results CSV: one chapter at one shape."""

    def __init__(self, row, number):
        self.chapter = row["chapter"]
        self.device = row.get("device", "") or ""
        self.precision = row.get("precision", "") or LIST_PRECISIONS.get(self.chapter, "")
        self.M, self.N, self.K = (int(number("M", integer=True)), int(number("N", integer=True)),
                                  int(number("K", integer=True)))
        self.beta = number("beta", default=0.0)
        self.reps = number("reps", default=None, integer=True)
        self.gflops = number("gflops")
        self.yardstick = row.get("yardstick", "") or ""
        self.yard_gflops = number("yardstick_gflops", default=0.0)
        self.pct = number("pct_of_yardstick", default=0.0)
        self.pct_min = number("pct_min", default=None)
        self.pct_max = number("pct_max", default=None)
        self.rounds = number("rounds", default=None, integer=True)
        self.passed = (row.get("pass", "true") or "true").strip().lower() not in ("false", "0")
        self.commit = (row.get("commit") or "").strip()  # the harness's stamp, where written
        self.conditions = {c: (row.get(c) or "").strip() for c in CONDITIONS}
        for c, v in self.conditions.items():
            if v.lower() in ("-", "n/a", "unknown", "nan"):
                self.conditions[c] = ""

    @property
    def shape(self):
        return (self.M, self.N, self.K)

    @property
    def size(self):
        """The chart's x: the cube root of M N K (1024^3 sits at 1024)."""
        return (self.M * self.N * self.K) ** (1.0 / 3.0)

    @property
    def has_spread(self):
        return self.pct_min is not None and self.pct_max is not None


def read_rows(path):
    try:
        with open(path, newline="") as f:
            rows = list(csv.reader(f))
    except OSError as e:
        raise InputError(f"{path}: cannot read ({e.strerror})")
    except (UnicodeDecodeError, csv.Error) as e:
        raise InputError(f"{path}: not a CSV ({e})")
    if not rows or not rows[0]:
        raise InputError(f"{path}:1: empty, no header")
    header = [h.strip() for h in rows[0]]
    out = []
    for lineno, fields in enumerate(rows[1:], start=2):
        if not fields or all(not x.strip() for x in fields):
            continue
        if len(fields) != len(header):
            raise InputError(f"{path}:{lineno}: {len(fields)} fields under a header of "
                             f"{len(header)}")
        out.append((lineno, dict(zip(header, fields))))
    return header, out


def number_reader(path, lineno, row):
    """number(column): the column's value as a finite float, or InputError naming where."""

    def number(column, default=False, integer=False):
        text = (row.get(column) or "").strip()
        if not text:
            if default is not False:
                return default
            raise InputError(f"{path}:{lineno}: column {column} is empty")
        try:
            value = float(text)
        except ValueError:
            raise InputError(f"{path}:{lineno}: column {column} is '{text}', not a number")
        if not math.isfinite(value):
            raise InputError(f"{path}:{lineno}: column {column} is '{text}', not a finite number")
        if value < 0 and column not in ("beta", "alpha"):
            raise InputError(f"{path}:{lineno}: column {column} is {text}, below 0")
        if integer and value != int(value):
            raise InputError(f"{path}:{lineno}: column {column} is {text}, not a whole number")
        return value

    return number


def read_results(path, header, rows):
    missing = [c for c in ("chapter", "M", "N", "K", "gflops") if c not in header]
    if missing:
        raise InputError(f"{path}:1: no column {', '.join(missing)} (not a results CSV?)")
    return [Result(row, number_reader(path, n, row)) for n, row in rows]


def read_suite(path, header, rows):
    """A shape suite's rows (tools/measuring/suite.py): a results CSV with a category per shape, a
    note, and the memory-bound end (the % of the copy bandwidth of the shapes below the ridge)."""
    missing = [c for c in ("pct_of_yardstick", "category") if c not in header]
    if missing:
        raise InputError(f"{path}:1: no column {', '.join(missing)} (not a suite CSV?)")
    out = []
    for n, row in rows:
        number = number_reader(path, n, row)
        r = Result(row, number)
        r.category = (row.get("category") or "").strip()
        if not r.category:
            raise InputError(f"{path}:{n}: column category is empty")
        r.note = (row.get("note") or "").strip()
        r.memory_bound = (row.get("memory_bound") or "").strip().lower() == "true"
        r.pct_copy = number("pct_of_copy", default=0.0)
        out.append(r)
    return out


def read_peaks(path, rows):
    """{device: {"fp32": GFLOPS, "fp16": GFLOPS, "bandwidth": GB/s}} from peaks.csv."""
    peaks = {}
    for n, row in rows:
        number = number_reader(path, n, row)
        peaks[row.get("device", "")] = {"fp32": number("fp32_gflops", default=0.0),
                                        "fp16": number("fp16_tensor_gflops", default=0.0),
                                        "bandwidth": number("bandwidth_gbs", default=0.0)}
    return peaks


CEILING_UNITS = {"copy_bandwidth": "GB/s", "mma_sync_f16f32": "GFLOPS",
                 "wgmma_f16f32": "GFLOPS", "cublas_gemmex_f16f32": "GFLOPS",
                 "cublas_sgemm": "GFLOPS"}


def read_ceilings(path, rows):
    """{device: {ceiling: (value, method)}} from ceilings.csv (tools/ceilings)."""
    ceilings = {}
    for n, row in rows:
        name = row.get("ceiling", "")
        if name not in CEILING_UNITS:
            print(f"plot.py: note: {path}:{n}: ceiling '{name}' is not one this script draws",
                  file=sys.stderr)
            continue
        unit = (row.get("unit") or CEILING_UNITS[name]).strip()
        if unit != CEILING_UNITS[name]:
            raise InputError(f"{path}:{n}: {name} is in '{unit}', expected {CEILING_UNITS[name]}")
        value = number_reader(path, n, row)("value")
        ceilings.setdefault(row.get("device", ""), {})[name] = (value, row.get("method", ""))
    return ceilings


class Inputs:
    def __init__(self):
        self.results = []  # [(stem, [Result])], chapters (and anything not a sweep)
        self.sweeps = []  # [(stem, [Result], [step rows])]
        self.suites = []  # [(stem, [Result] with a category)], tools/measuring/suite.py
        self.accuracy = []  # [(stem, [row dicts])], tools/fp8_accuracy
        self.peaks = {}
        self.ceilings = {}


def csv_files(paths):
    files = []
    for p in paths:
        if os.path.isdir(p):
            found = sorted(os.path.join(p, f) for f in os.listdir(p)
                           if f.endswith(".csv") and os.path.isfile(os.path.join(p, f)))
            if not found:
                raise InputError(f"{p}: no CSV files in this directory")
            files += found
        elif os.path.isfile(p):
            files.append(p)
        else:
            raise InputError(f"{p}: no such file or directory")
    return list(dict.fromkeys(os.path.normpath(f) for f in files))


def read_inputs(paths):
    inputs = Inputs()
    files = csv_files(paths)
    steps = {f[: -len(".steps.csv")]: f for f in files if f.endswith(".steps.csv")}
    for f in files:
        if f.endswith(".steps.csv"):
            if not os.path.exists(f[: -len(".steps.csv")] + ".csv"):
                print(f"plot.py: note: {f}: no sweep results beside it", file=sys.stderr)
            continue
        header, rows = read_rows(f)
        stem = os.path.splitext(os.path.basename(f))[0]
        if "ceiling" in header and "value" in header:
            for dev, c in read_ceilings(f, rows).items():
                inputs.ceilings.setdefault(dev, {}).update(c)
        elif "fp32_gflops" in header and "bandwidth_gbs" in header:
            inputs.peaks.update(read_peaks(f, rows))
        elif "chapter" in header and "category" in header:
            inputs.suites.append((stem, read_suite(f, header, rows)))
        elif "rel_err" in header and "kernel" in header and "K" in header:
            inputs.accuracy.append((stem, read_accuracy(f, rows)))
        elif "chapter" in header:
            results = read_results(f, header, rows)
            base = f[: -len(".csv")]
            if base in steps or os.path.exists(base + ".steps.csv"):
                step_path = steps.get(base, base + ".steps.csv")
                step_header, step_rows = read_rows(step_path)
                inputs.sweeps.append((stem, results, read_steps(step_path, step_header,
                                                                step_rows)))
            else:
                inputs.results.append((stem, results))
        else:
            print(f"plot.py: note: {f}: skipped, not a CSV this script knows", file=sys.stderr)
    return inputs


def read_accuracy(path, rows):
    """tools/fp8_accuracy's rows: dist, K, kernel, rel_err (and max_rel_err)."""
    out = []
    for n, row in rows:
        number = number_reader(path, n, row)
        out.append({"dist": (row.get("dist") or "").strip(), "kernel": row["kernel"].strip(),
                    "K": number("K", integer=True), "rel_err": number("rel_err")})
    return out


def read_steps(path, header, rows):
    """The sweep's tile model and predicted steps, as tools/shape_sweep writes them."""
    need = ["chapter", "swept", "x", "tiles", "waves", "new_wave"]
    missing = [c for c in need if c not in header]
    if missing:
        raise InputError(f"{path}:1: no column {', '.join(missing)} (not a shape_sweep steps "
                         f"file?)")
    out = []
    for n, row in rows:
        number = number_reader(path, n, row)
        step = {"chapter": row["chapter"], "swept": row["swept"].strip().upper(),
                "BM": number("BM", default=None, integer=True),
                "BN": number("BN", default=None, integer=True),
                "sms": number("sms", default=None, integer=True),
                "blocks_per_sm": number("blocks_per_sm", default=None, integer=True),
                "x": number("x", default=None, integer=True),
                "tiles": number("tiles", default=None, integer=True),
                "waves": number("waves", default=None, integer=True),
                "new_wave": row["new_wave"].strip().lower() in ("1", "true", "yes")}
        if step["swept"] not in ("M", "N", "K"):
            raise InputError(f"{path}:{n}: column swept is '{row['swept']}', expected M, N or K")
        out.append(step)
    if not out:
        raise InputError(f"{path}: no rows (shape_sweep writes at least one)")
    return out


# --- Numbers as a reader wants them ---------------------------------------------------------
def thousands(v):
    """2.6, 12.7, 104, 1,907, 717,442: three significant digits below 100, whole numbers above."""
    if v < 100:
        return f"{v:.{2 if v < 10 else 3}g}"
    return f"{round(v):,}"


def geomean(values):
    values = [v for v in values if v > 0]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else 0.0


def pct_text(r):
    """"103.1%" or, with the spread of the rounds, "103.1%, 101.2–104.0"."""
    text = f"{r.pct:.1f}%"
    if r.has_spread:
        text += f", {r.pct_min:.1f}\u2013{r.pct_max:.1f}"
    return text


def span(values, unit):
    """"1980 MHz" or "1755–1980 MHz" over the rows that know the value."""
    nums = []
    for v in values:
        try:
            x = float(v)
        except ValueError:
            continue
        if math.isfinite(x):
            nums.append(x)
    if not nums:
        return ""
    lo, hi = f"{min(nums):.0f}", f"{max(nums):.0f}"
    return (lo if lo == hi else f"{lo}\u2013{hi}") + f" {unit}"


def distinct(values):
    return list(dict.fromkeys(v for v in values if v))


def setup_line(rows):
    """The software and the settings the timing ran with, in one line ("" when unknown)."""
    c = lambda name: distinct(r.conditions[name] for r in rows)
    parts = [f"{label} {', '.join(c(name))}" for name, label in
             (("driver", "driver"), ("cuda_runtime", "CUDA runtime"), ("cublas", "cuBLAS"))
             if c(name)]
    limit = span((r.conditions["power_limit_w"] for r in rows), "W")
    if limit:
        parts.append("power limit " + limit)
    flush = c("l2_flush")
    if flush:
        parts.append({("yes",): "L2 flushed before each run", ("no",): "L2 not flushed"}.get(
            tuple(flush), "L2 flushed: " + ", ".join(flush)))
    return ", ".join(parts)


def while_timing(rows):
    """SM clock, board power (medians while timing; their range over the rows) and throttling."""
    clock = span((r.conditions["sm_clock_mhz"] for r in rows), "MHz")
    power = span((r.conditions["power_w"] for r in rows), "W")
    throttle = distinct(r.conditions["throttle"] for r in rows)
    parts = ([f"SM clock {clock}"] if clock else []) + ([f"board power {power}"] if power else [])
    if throttle:
        parts.append("throttling: " + ", ".join(throttle))
    return ", ".join(parts)


def conditions_lines(rows):
    setup, timing = setup_line(rows), while_timing(rows)
    return ([setup] if setup else []) + (["while timing: " + timing] if timing else [])


def timing_line(rows):
    rounds = distinct(str(int(r.rounds)) for r in rows if r.rounds)
    reps = distinct(str(int(r.reps)) for r in rows if r.reps)
    if rounds:
        return (f"median of {'/'.join(rounds)} rounds alternating with the yardstick; the bars "
                f"span the lowest to the highest round")
    if reps:
        return f"median of {'/'.join(reps)} timed runs"
    return ""


def devices_of(rows):
    return " + ".join(distinct(r.device for r in rows)) or "an unnamed device"


# --- results.md -------------------------------------------------------------------------------
def results_table(rows):
    shapes = sorted({r.shape for r in rows}, key=lambda s: (s[0] * s[1] * s[2], s))
    name = lambda s: str(s[0]) if s[0] == s[1] == s[2] else f"{s[0]}x{s[1]}x{s[2]}"
    chapters = sorted({r.chapter for r in rows})
    by = {(r.chapter, r.shape): r for r in rows}  # a later row of the same size wins
    lines = ["| chapter | in | " + " | ".join(name(s) for s in shapes) + " |",
             "|---|---|" + "---:|" * len(shapes)]
    for ch in chapters:
        cells, precision = [], ""
        for s in shapes:
            r = by.get((ch, s))
            if r is None:
                cells.append("-")
                continue
            precision = r.precision or precision
            cell = thousands(r.gflops)
            if r.yardstick:
                cell += f" ({pct_text(r)})"
            if not r.passed:
                cell += " FAIL"
            cells.append(cell)
        lines.append(f"| {ch} | {precision} | " + " | ".join(cells) + " |")
    for yard, points in yardstick_series(rows):
        at = dict(points)
        lines.append(f"| *{yard}* | | " + " | ".join(
            thousands(at[s]) if s in at else "-" for s in shapes) + " |")
    return "\n".join(lines) + "\n"


def yardstick_series(rows):
    """[(name, [(shape, GFLOPS)])]: each yardstick at the median of its timings at a shape."""
    series = {}
    for r in rows:
        if r.yardstick:
            series.setdefault(r.yardstick, {}).setdefault(r.shape, []).append(r.yard_gflops)
    return [(name, sorted(((s, statistics.median(v)) for s, v in by_shape.items()),
                          key=lambda p: p[0][0] * p[0][1] * p[0][2]))
            for name, by_shape in series.items()]


def results_md(rows):
    text = [f"# Results on {devices_of(rows)}", ""]
    for dev in distinct(r.device for r in rows):
        setup = setup_line([r for r in rows if r.device == dev])
        if setup:
            text += [f"{dev}: {setup}.", ""]
    spread = any(r.has_spread for r in rows)
    text.append("GFLOPS (2·M·N·K / median time) and, in brackets, the percentage of the "
                "chapter's yardstick timed in the same run" +
                ("; where a range follows, the percentage is the median of the ratios of "
                 "alternating rounds and the range their lowest to highest" if spread else "") +
                ". Written by `tools/reporting/plot.py`; regenerate with `./tutorial run`.")
    text += ["", results_table(rows)]
    timing = [(ch, while_timing([r for r in rows if r.chapter == ch]))
              for ch in sorted({r.chapter for r in rows})]
    if any(t for _, t in timing):
        text += ["While timing (medians over each size's timed runs, range over the sizes):", "",
                 "| chapter | conditions |", "|---|---|"]
        text += [f"| {ch} | {t or '-'} |" for ch, t in timing]
        text.append("")
    return "\n".join(text)


# --- The roofline's x ---------------------------------------------------------------------------
def element_bytes(r):
    return 1.0 if r.precision.startswith("e4m3") else 2.0 if r.precision == "fp16" else 4.0


def c_bytes(r):
    """Bytes of one element of C: bf16 for the FP8 chapters, fp32 for the others."""
    return 2.0 if r.precision.startswith("e4m3") else 4.0


def min_traffic_bytes(r):
    """A and B read once, C written once (and read once when beta != 0)."""
    c = c_bytes(r) * r.M * r.N * (2 if r.beta != 0 else 1)
    return element_bytes(r) * (r.M * r.K + r.K * r.N) + c


def napkin_bytes(r):
    """The global-memory bytes of the chapter's tiling (NAPKIN), or None when unknown."""
    model = NAPKIN.get(r.chapter)
    if model is None:
        return None
    e, M, N, K = element_bytes(r), r.M, r.N, r.K
    c = c_bytes(r) * M * N * (2 if r.beta != 0 else 1)
    if model[0] == "thread":
        return 2.0 * e * M * N * K + c
    BM, BN = model[1], model[2]
    return e * (M * K * math.ceil(N / BN) + K * N * math.ceil(M / BM)) + c


def intensity(r):
    """(FLOP per byte, True when from the chapter's napkin model, False when the minimum)."""
    flop = 2.0 * r.M * r.N * r.K
    nb = napkin_bytes(r)
    return (flop / nb, True) if nb else (flop / min_traffic_bytes(r), False)


# --- The ladder: one bar per chapter, grouped by era ----------------------------------------------
# The one table of eras: the first row whose kind, precision (a prefix: fp8 is every fp8_*) and id
# range (the chapter's number, both ends included; None: open) match a chapter of
# chapters/chapters.txt gives its era.
ERAS = [  # (era, kind, precision, first id, last id)
    ("CPU", "cpu", None, None, None),
    ("CUDA cores", "cuda", "fp32", None, None),
    ("WMMA", "cuda", "fp16", None, 10),
    ("mma.sync", "cuda", "fp16", 11, None),
    ("Hopper", "hopper", "fp16", None, 15),
    ("every shape", "hopper", "fp16", 16, None),
    ("FP8", None, "fp8", None, None),
]
LADDER_SIZES = (4096, 8192)  # the squares each GPU chapter's bars show


def era_of(chapter):
    """The era of a chapters.Chapter, from ERAS ("other" when no row matches)."""
    number = int(chapter.id[:2])
    for era, kind, precision, first, last in ERAS:
        if ((kind is None or chapter.kind == kind) and
                (precision is None or chapter.precision.startswith(precision)) and
                (first is None or number >= first) and (last is None or number <= last)):
            return era
    return "other"


def chapter_list():
    """The chapters of chapters/chapters.txt (tools/build/chapters.py), or [] when it cannot be
    read."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build"))
    try:
        import chapters
        return chapters.load()
    except Exception as e:  # a copy of this script without its repository: no ladder
        print(f"plot.py: note: no chapter list ({e}): no ladder chart", file=sys.stderr)
        return []
    finally:
        sys.path.pop(0)


def ladder_bars(rows, chapters):
    """[(chapter, era, [(label, Result)])] in the list's order: each chapter's results at
    LADDER_SIZES (squares), or for a chapter with none of them its largest square; chapters
    without a result are left out, results of chapters not on the list too."""
    out = []
    for c in chapters:
        mine = {r.shape: r for r in rows if r.chapter == c.id and r.M == r.N == r.K and r.pct > 0}
        picked = [(str(n), mine[(n, n, n)]) for n in LADDER_SIZES if (n, n, n) in mine]
        if not picked and mine:
            n = max(s[0] for s in mine)
            picked = [(str(n), mine[(n, n, n)])]
        if picked:
            out.append((c, era_of(c), picked))
    return out


def rate_text(gflops):
    """TFLOP/s as a bar's label: 735, 43.1, 0.50; below 0.1 TFLOP/s, GFLOPS: 12.3G."""
    t = gflops / 1000.0
    if t < 0.1:
        return f"{gflops:.3g}G"
    return f"{t:.0f}" if t >= 100 else f"{t:.1f}" if t >= 10 else f"{t:.2f}"


# --- Charts ------------------------------------------------------------------------------------
def slug(name):
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_")


class Charts:
    """Every chart, drawn with matplotlib (imported here so that the table needs none of it)."""

    def __init__(self, out_dir, png):
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib import ticker

        matplotlib.rcParams.update({"svg.fonttype": "none", "svg.hashsalt": "gemm-tutorial",
                                    "font.size": 10, "axes.grid": True, "grid.color": "#e4e4e4",
                                    "axes.axisbelow": True})
        self.plt, self.ticker = plt, ticker
        self.out_dir, self.png = out_dir, png
        self.written = []

    def save(self, fig, name, extra=None):
        # extra: artists the tight bounding box must hold besides the figure's own (a second
        # legend); None leaves matplotlib to find them.
        tight = {"bbox_inches": "tight", "bbox_extra_artists": extra}
        path = os.path.join(self.out_dir, name + ".svg")
        fig.savefig(path, metadata={"Date": None}, **tight)
        self.written.append(path)
        if self.png:
            fig.savefig(os.path.join(self.out_dir, name + ".png"), dpi=110, **tight)
        self.plt.close(fig)

    # Sizes on a log2 axis, ticks at the powers of two written out (256, 1024, 16384).
    def size_axis(self, ax, xs):
        ax.set_xscale("log", base=2)
        # Rounded first: the cube root of 256^3 comes back as 255.99999.
        lo = math.floor(round(math.log2(min(xs)), 6))
        hi = math.ceil(round(math.log2(max(xs)), 6))
        if hi == lo:
            lo, hi = lo - 1, hi + 1
        ax.set_xlim(2 ** (lo - 0.25), 2 ** (hi + 0.25))
        ax.xaxis.set_major_locator(self.ticker.FixedLocator([2.0 ** e for e in range(lo, hi + 1)]))
        ax.xaxis.set_major_formatter(self.ticker.FuncFormatter(lambda v, _: f"{v:.0f}"))
        ax.xaxis.set_minor_locator(self.ticker.NullLocator())

    def log_gflops_axis(self, ax, label="GFLOPS (2·M·N·K / time), log scale"):
        ax.set_yscale("log")
        ax.yaxis.set_major_formatter(self.ticker.FuncFormatter(
            lambda v, _: f"{v:,.0f}" if v >= 1 else f"{v:g}"))
        ax.set_ylabel(label)

    def title(self, ax, title, lines):
        ax.set_title(title, fontsize=12, loc="left", pad=8 + 13 * len(lines))
        for i, line in enumerate(lines):
            ax.annotate(line, xy=(0, 1), xycoords="axes fraction", xytext=(0, 6 + 13 * (
                len(lines) - 1 - i)), textcoords="offset points", fontsize=8, color="#555555")

    @staticmethod
    def wrap(line, width=110):
        return textwrap.wrap(line, width) if line else []

    def chapter(self, stem, rows):
        rows = [r for r in rows if r.M * r.N * r.K > 0]
        if not rows:
            return
        rows.sort(key=lambda r: r.size)
        yard = [r for r in rows if r.yardstick]
        fig, axes = self.plt.subplots(2 if yard else 1, 1, sharex=True, squeeze=False,
                                      figsize=(8.5, 7.2 if yard else 4.8),
                                      gridspec_kw={"height_ratios": [3, 2] if yard else [1]})
        top = axes[0][0]
        tera = max(max(r.gflops for r in rows), max((r.yard_gflops for r in yard), default=0)) \
            >= 10000
        scale = 1e-3 if tera else 1.0
        chapter = rows[0].chapter
        line, = top.plot([r.size for r in rows], [r.gflops * scale for r in rows], "o-",
                         color="#1f77b4", lw=2, label=chapter)
        line.set_gid("series-" + slug(chapter))
        for name, points in yardstick_series(yard):
            ys, = top.plot([(s[0] * s[1] * s[2]) ** (1 / 3) for s, _ in points],
                           [g * scale for _, g in points], "s--", color="#555555", lw=1.5, ms=4,
                           label=name)
            ys.set_gid("yardstick-" + slug(name))
        failed = [r for r in rows if not r.passed]
        if failed:
            top.plot([r.size for r in failed], [r.gflops * scale for r in failed], "x",
                     color="#d62728", ms=12, mew=2.5, label="check failed", zorder=5)
        top.set_ylim(bottom=0, top=top.get_ylim()[1] * 1.05)
        top.set_ylabel(("TFLOP/s" if tera else "GFLOPS") + " (2·M·N·K / time)")
        top.legend(loc="upper left", fontsize=9)
        self.size_axis(top, [r.size for r in rows])
        self.title(top, f"{chapter} on {devices_of(rows)}",
                   self.wrap(timing_line(rows)) +
                   [w for line in conditions_lines(rows) for w in self.wrap(line)])
        bottom = top
        if yard:
            bottom = axes[1][0]
            pct = [r.pct for r in yard]
            lo = [r.pct - r.pct_min if r.has_spread else 0 for r in yard]
            hi = [r.pct_max - r.pct if r.has_spread else 0 for r in yard]
            spread = any(r.has_spread for r in yard)
            bars = bottom.errorbar([r.size for r in yard], pct, yerr=[lo, hi] if spread else None,
                                   fmt="o-", color="#1f77b4", lw=1.5, capsize=4)
            bars[0].set_gid("ratio-" + slug(chapter))
            if spread:
                bars[2][0].set_gid("spread-" + slug(chapter))  # the bars of the rounds
            bottom.axhline(100, color="#555555", ls="--", lw=1)
            # From 0 unless every point is well above it: then the spread of the rounds shows.
            low = min(r.pct_min if r.has_spread else r.pct for r in yard)
            high = max([100] + [r.pct_max if r.has_spread else r.pct for r in yard])
            floor = 0 if low < 60 else 10 * math.floor((low - 5) / 10)
            bottom.set_ylim(floor, high + 0.12 * (high - floor))
            bottom.set_ylabel("% of the yardstick (dashed)")
        bottom.set_xlabel("problem size: cube root of M·N·K (log scale)")
        fig.align_ylabels([a[0] for a in axes])
        self.save(fig, stem)

    def all_chapters(self, rows):
        rows = [r for r in rows if r.M * r.N * r.K > 0]
        if not rows:
            return
        fig, ax = self.plt.subplots(figsize=(11, 6.2))
        chapters = sorted({r.chapter for r in rows})
        markers = "os^Dv<>ph*"
        for i, ch in enumerate(chapters):
            mine = sorted((r for r in rows if r.chapter == ch), key=lambda r: r.size)
            line, = ax.plot([r.size for r in mine], [r.gflops for r in mine],
                            marker=markers[i % len(markers)], ms=4, lw=1.6,
                            color=PALETTE[i % len(PALETTE)], label=ch)
            line.set_gid("series-" + slug(ch))
        greys = ["#000000", "#666666", "#999999"]
        for i, (name, points) in enumerate(yardstick_series(rows)):
            line, = ax.plot([(s[0] * s[1] * s[2]) ** (1 / 3) for s, _ in points],
                            [g for _, g in points], "--", color=greys[i % 3], lw=2, label=name)
            line.set_gid("yardstick-" + slug(name))
        self.log_gflops_axis(ax)
        self.size_axis(ax, [r.size for r in rows])
        ax.set_xlabel("problem size: cube root of M·N·K (log scale)")
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=9, frameon=False)
        self.title(ax, f"Every chapter on {devices_of(rows)}",
                   self.wrap("chapters solid, the libraries they are measured against dashed; "
                             + timing_line(rows)))
        self.save(fig, "all_chapters")

    def ladder(self, rows, chapters):
        """ladder.svg: one group of bars per chapter, % of its yardstick, eras shaded."""
        bars = ladder_bars(rows, chapters)
        if not bars:
            return
        fig, ax = self.plt.subplots(figsize=(max(9.0, 0.62 * len(bars) + 3), 6.2))
        width = 0.38
        shades = {"4096": "#1f77b4", "8192": "#9ecae1"}
        labelled, top, x = set(), 110.0, 0
        eras = []  # (era, first x, last x)
        for i, (c, era, picked) in enumerate(bars):
            if not eras or eras[-1][0] != era:
                eras.append([era, i, i])
            eras[-1][2] = i
            for j, (size, r) in enumerate(picked):
                offset = (j - (len(picked) - 1) / 2) * width
                colour = shades.get(size, "#bbbbbb")
                label = (f"at {size}" if size in shades else "a CPU chapter at its largest "
                         "size") if colour not in labelled else None
                labelled.add(colour)
                bar = ax.bar(i + offset, r.pct, width * 0.94, color=colour, label=label,
                             edgecolor="#333333" if not r.passed else colour)
                bar.patches[0].set_gid(f"ladder-{c.id}-{size}")
                if r.has_spread:
                    ax.errorbar([i + offset], [r.pct], yerr=[[r.pct - r.pct_min],
                                                             [r.pct_max - r.pct]],
                                fmt="none", ecolor="#333333", elinewidth=0.8, capsize=2)
                end = r.pct_max if r.has_spread else r.pct
                top = max(top, end)
                ax.annotate(rate_text(r.gflops), xy=(i + offset, end), xytext=(0, 2),
                            textcoords="offset points", ha="center", va="bottom", fontsize=6.5,
                            rotation=90, color="#222222")
                if not r.passed:
                    ax.annotate("FAIL", xy=(i + offset, end), xytext=(0, 28),
                                textcoords="offset points", ha="center", fontsize=7,
                                color="#d62728", fontweight="bold")
        ax.set_ylim(0, top * 1.22)
        for k, (era, lo, hi) in enumerate(eras):
            if k % 2 == 0:
                ax.axvspan(lo - 0.5, hi + 0.5, color="#f2f2f2",
                           zorder=0).set_gid("era-" + slug(era))
            ax.annotate(era, xy=((lo + hi) / 2, 1), xycoords=("data", "axes fraction"),
                        xytext=(0, -12), textcoords="offset points", ha="center", fontsize=8.5,
                        fontweight="bold", color="#444444")
        ax.axhline(100, color="#222222", ls="--", lw=1.2, label="100%: as fast as the yardstick"
                   ).set_gid("ladder-100")
        ax.set_xticks(range(len(bars)))
        ax.set_xticklabels([c.id[:2] + " " + c.id[3:].replace("_", " ") + "".join(
            f" (at {size})" for size, _ in picked if size not in shades)
            for c, _, picked in bars], rotation=55, ha="right", fontsize=8)
        ax.set_xlim(-0.6, len(bars) - 0.4)
        ax.grid(axis="x", visible=False)
        ax.set_ylabel("% of the chapter's yardstick (median of the rounds)")
        ax.legend(loc="upper left", fontsize=8, framealpha=0.95, bbox_to_anchor=(0.0, 0.93))
        used = [r for _, _, picked in bars for _, r in picked]
        yards = distinct(f"{r.yardstick} ({r.precision})" for r in used if r.yardstick)
        commits = distinct((getattr(r, "commit", "") or "")[:12] for r in used)
        lines = ["TFLOP/s on each bar (G: GFLOP/s); whiskers: the lowest and highest round. "
                 "Yardsticks: "
                 + ", ".join(yards)]
        if commits:
            lines.append("commit " + ", ".join(commits))
        self.title(ax, f"The ladder on {devices_of(used)}: each chapter against its yardstick",
                   [w for line in lines for w in self.wrap(line, 150)] + self.wrap(
                       timing_line(used), 150))
        self.save(fig, "ladder")

    def roofline(self, device, peaks, ceilings, rows):
        rows = [r for r in rows if r.device == device and r.M * r.N * r.K > 0 and r.gflops > 0]
        # The memory roof and the compute roofs: measured (ceilings.csv) where there, else theory.
        if "copy_bandwidth" in ceilings:
            bw, bw_label = ceilings["copy_bandwidth"][0], "measured copy bandwidth"
        elif peaks.get("bandwidth"):
            bw, bw_label = peaks["bandwidth"], "theoretical DRAM bandwidth"
        else:
            print(f"plot.py: note: no bandwidth known for {device}: no roofline", file=sys.stderr)
            return
        names = {"cublas_sgemm": "fp32: cuBLAS SGEMM", "mma_sync_f16f32": "fp16: mma.sync",
                 "wgmma_f16f32": "fp16: wgmma",
                 "cublas_gemmex_f16f32": "fp16: cuBLAS GemmEx"}
        roofs = [(names[k] + ", measured", v[0]) for k, v in ceilings.items() if k in names]
        if not roofs:
            roofs = [(label + ", theoretical", peaks[key]) for key, label in
                     (("fp32", "fp32 CUDA cores"), ("fp16", "fp16 tensor cores"))
                     if peaks.get(key)]
        roofs.sort(key=lambda r: -r[1])
        points = {}
        for r in rows:
            x, napkin = intensity(r)
            points.setdefault(r.chapter, []).append((r.size, x, r.gflops, napkin))
        xs = [p[1] for ps in points.values() for p in ps] + [peak / bw for _, peak in roofs]
        x_lo, x_hi = min(xs + [1.0]) / 2, max(xs + [1.0]) * 6
        fig, ax = self.plt.subplots(figsize=(11, 6.4))
        # One memory roof up to the highest ridge, then each compute roof flat from its ridge on.
        top_ridge = max([peak / bw for _, peak in roofs] + [x_lo])
        line, = ax.plot([x_lo, top_ridge], [x_lo * bw, top_ridge * bw], color="#222222", lw=1.6,
                        label=f"memory: {bw_label}, {thousands(bw)} GB/s")
        line.set_gid("roof-memory")
        styles = ["-", "--", "-.", ":"]
        roof_lines = [line]
        for i, (label, peak) in enumerate(roofs):
            ridge = peak / bw
            line, = ax.plot([ridge, x_hi], [peak, peak], color="#222222", lw=1.6,
                            ls=styles[i % len(styles)],
                            label=f"{label}: {thousands(peak)} GFLOPS, ridge {ridge:.0f} FLOP/byte")
            line.set_gid("roof-" + slug(label))
            roof_lines.append(line)
        chapter_lines = []
        for i, ch in enumerate(sorted(points)):
            ps = sorted(points[ch])
            napkin = all(p[3] for p in ps)
            color = PALETTE[i % len(PALETTE)]
            line, = ax.plot([p[1] for p in ps], [p[2] for p in ps], "o-", ms=4, lw=1,
                            color=color, alpha=0.9,
                            label=ch if napkin else ch + " (minimum traffic)")
            line.set_gid("point-" + slug(ch))
            chapter_lines.append(line)
            big = ps[-1]
            ax.annotate(ch[:2], xy=(big[1], big[2]), xytext=(5, -3), textcoords="offset points",
                        fontsize=8, color=color, fontweight="bold")
        ax.set_xscale("log", base=2)
        ax.set_xlim(x_lo, x_hi)
        ax.xaxis.set_major_formatter(self.ticker.FuncFormatter(lambda v, _: f"{v:g}"))
        self.log_gflops_axis(ax, "GFLOPS, log scale")
        top = max([p for _, p in roofs] + [p[2] for ps in points.values() for p in ps])
        bottom = min([p[2] for ps in points.values() for p in ps] + [x_lo * bw])
        ax.set_ylim(bottom / 2, top * 2.5)
        ax.set_xlabel("arithmetic intensity: FLOP per byte the chapter's tiling asks of global "
                      "memory (napkin model, tools/reporting/plot.py), log scale")
        roof_legend = ax.legend(handles=roof_lines, loc="lower left", bbox_to_anchor=(1.01, 0.0),
                                fontsize=8, title="roofs", title_fontsize=8, frameon=False)
        ax.add_artist(roof_legend)
        chapter_legend = ax.legend(handles=chapter_lines, loc="upper left",
                                   bbox_to_anchor=(1.01, 1.0), fontsize=9, frameon=False,
                                   title="each point one size,\nthe largest labelled",
                                   title_fontsize=8)
        source = ("measured ceilings (ceilings.csv)" if ceilings
                  else "theoretical peaks (peaks.csv)")
        self.title(ax, f"Roofline of {device}", self.wrap(
            f"roofs: {source}. x counts the bytes each chapter's tiling requests; the caches "
            f"serve part of them, so a point can sit above the memory roof."))
        self.save(fig, "roofline", extra=[roof_legend, chapter_legend])

    def suite(self, stem, rows):
        order = list(dict.fromkeys(r.category for r in rows))  # the list's order of categories
        rows = [r for r in rows if r.yardstick and r.pct > 0]
        if not rows:
            print(f"plot.py: note: {stem}: no ratio to cuBLAS in it (--no-baseline?): no chart",
                  file=sys.stderr)
            return
        rows.sort(key=lambda r: (r.pct, r.M * r.N * r.K))  # the lowest on top
        colour = {c: PALETTE[i % len(PALETTE)] for i, c in enumerate(order)}
        fig, ax = self.plt.subplots(figsize=(10.5, 2.4 + 0.19 * len(rows)))
        y = list(range(len(rows)))
        for cat in order:
            mine = [(i, r) for i, r in enumerate(rows) if r.category == cat]
            if not mine:
                continue
            bars = ax.barh([i for i, _ in mine], [r.pct for _, r in mine], height=0.72,
                           color=colour[cat], label=f"{cat}: geomean "
                           f"{geomean(r.pct for _, r in mine):.1f}% ({len(mine)})")
            for (_, r), bar in zip(mine, bars.patches):
                bar.set_gid(f"bar-{r.M}x{r.N}x{r.K}")
        spread = [r for r in rows if r.has_spread]
        if spread:
            whiskers = ax.errorbar([r.pct for r in spread], [rows.index(r) for r in spread],
                                   xerr=[[r.pct - r.pct_min for r in spread],
                                         [r.pct_max - r.pct for r in spread]],
                                   fmt="none", ecolor="#333333", elinewidth=0.8, capsize=1.8)
            whiskers[2][0].set_gid("suite-spread")
        ax.axvline(100, color="#222222", ls="--", lw=1.2, label="100%: as fast as cuBLAS"
                   ).set_gid("suite-100")
        ax.axvline(95, color="#777777", ls=":", lw=1.2, label="95%").set_gid("suite-95")
        right = max([110] + [r.pct_max if r.has_spread else r.pct for r in rows])
        for i, r in enumerate(rows):
            text = f"{r.pct:.1f}%"
            if r.memory_bound and r.pct_copy > 0:
                share = f"{r.pct_copy:.0f}" if r.pct_copy >= 10 else f"{r.pct_copy:.2g}"
                text += f"  {share}% of copy bandwidth"
            end = r.pct_max if r.has_spread else r.pct
            ax.annotate(text, xy=(end, i), xytext=(4, 0), textcoords="offset points",
                        va="center", fontsize=7, color="#444444")
            if not r.passed:
                ax.annotate("check FAILED", xy=(0, i), xytext=(3, 0), textcoords="offset points",
                            va="center", fontsize=7, color="#d62728", fontweight="bold")
        name = lambda r: f"{r.M}x{r.N}x{r.K}" + (f"  {r.note}" if r.note else "")
        ax.set_yticks(y)
        ax.set_yticklabels([name(r) for r in rows], fontsize=7)
        ax.set_ylim(len(rows) - 0.4, -0.6)  # the first row on top
        ax.set_xlim(0, right * 1.28)
        ax.grid(axis="y", visible=False)
        ax.set_xlabel("% of cuBLAS (median of the rounds' ratios of time)")
        ax.legend(loc="upper right", fontsize=8, framealpha=0.95, title="category",
                  title_fontsize=8)
        chapter = rows[0].chapter
        memory = [r for r in rows if r.memory_bound]
        lines = [f"{len(rows)} shapes, lowest first; " + timing_line(rows)]
        if memory:
            lines.append(f"{len(memory)} shapes below the ridge (memory-bound) also show the % of "
                         f"the device's copy bandwidth they reach on their minimum bytes "
                         f"(A + B read, C written)")
        self.title(ax, f"{chapter} against cuBLAS on {devices_of(rows)}: geomean "
                       f"{geomean(r.pct for r in rows):.1f}%",
                   [w for line in lines for w in self.wrap(line)] +
                   [w for line in conditions_lines(rows) for w in self.wrap(line)])
        self.save(fig, stem)

    def accuracy(self, stem, rows):
        """Relative error (Frobenius) against K, log-log, one panel per input distribution."""
        dists = sorted({r["dist"] for r in rows})
        fig, axes = self.plt.subplots(1, len(dists), figsize=(6.5 * len(dists), 4.8), squeeze=False)
        for ax, dist in zip(axes[0], dists):
            kernels = []
            for r in rows:
                if r["dist"] == dist and r["kernel"] not in kernels:
                    kernels.append(r["kernel"])
            for i, k in enumerate(kernels):
                pts = sorted((r["K"], r["rel_err"]) for r in rows
                             if r["dist"] == dist and r["kernel"] == k and r["rel_err"] > 0)
                if not pts:
                    continue
                dashed = k.startswith("cuBLASLt")
                line, = ax.plot([p[0] for p in pts], [p[1] for p in pts], "--" if dashed else "o-",
                                ms=3.5, lw=1.6, color=PALETTE[i % len(PALETTE)], label=k)
                line.set_gid("accuracy-" + slug(dist) + "-" + slug(k))
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.set_xlabel("K")
            worst_row = "worst row" in dist  # fp8_accuracy's quantization experiment
            ax.set_ylabel("relative error ||C - C_ref|| / ||C_ref||" +
                          (", the worst row's" if worst_row else ""))
            ax.set_title(dist if worst_row else f"{dist} inputs")
            ax.grid(True, which="both", alpha=0.3)
            ax.legend(fontsize=7)
        self.save(fig, stem)

    def sweep(self, stem, rows, steps):
        info = steps[0]
        dims = {"M": lambda r: r.M, "N": lambda r: r.N, "K": lambda r: r.K}
        swept = next((d for d in "MNK" if len({dims[d](r) for r in rows}) > 1), info["swept"])
        rows = sorted(rows, key=dims[swept])
        if not rows:
            return
        x = [dims[swept](r) for r in rows]
        tera = max(max(r.gflops for r in rows), max(r.yard_gflops for r in rows)) >= 10000
        scale = 1e-3 if tera else 1.0
        fig, ax = self.plt.subplots(figsize=(10, 5.4))
        line, = ax.plot(x, [r.gflops * scale for r in rows], "o-", ms=3.5, lw=1.8,
                        color="#1f77b4", label=info["chapter"])
        line.set_gid("series-" + slug(info["chapter"]))
        for name, points in yardstick_series(rows):
            index = {"M": 0, "N": 1, "K": 2}[swept]
            ys, = ax.plot([s[index] for s, _ in points], [g * scale for _, g in points], "s--",
                          ms=3, lw=1.5, color="#555555", label=name)
            ys.set_gid("yardstick-" + slug(name))
        failed = [r for r in rows if not r.passed]
        if failed:
            ax.plot([dims[swept](r) for r in failed], [r.gflops * scale for r in failed], "x",
                    color="#d62728", ms=10, mew=2.5, label="check failed", zorder=5)
        ax.set_ylim(0, ax.get_ylim()[1] * 1.18)
        marks = [s for s in steps if s["x"] is not None and min(x) <= s["x"] <= max(x)]
        tiles = [s for s in marks if not s["new_wave"]]
        label_tiles = len(tiles) <= 12
        for i, s in enumerate(marks):
            wave = s["new_wave"]
            line = ax.axvline(s["x"], color="#333333" if wave else "#999999",
                              ls="--" if wave else ":", lw=1.2 if wave else 1,
                              label=(("one more wave" if wave else
                                      f"one more {'row' if swept == 'M' else 'column'} of tiles")
                                     if s is next(m for m in marks if m["new_wave"] == wave)
                                     else None))
            line.set_gid(f"step-{int(s['x'])}")
            if wave or label_tiles:
                ax.annotate(f"{int(s['waves'])} waves, {int(s['tiles'])} tiles" if wave
                            else f"{int(s['tiles'])} tiles",
                            xy=(s["x"], 1), xycoords=("data", "axes fraction"),
                            xytext=(3, -12 - 10 * (i % 2)), textcoords="offset points",
                            fontsize=7.5, color="#333333" if wave else "#777777")
        ax.set_xlabel(swept)
        # A short sweep gets a tick at every shape; a long one round numbers.
        ax.xaxis.set_major_locator(self.ticker.FixedLocator(x) if len(x) <= 12 else
                                   self.ticker.MaxNLocator(integer=True, steps=[1, 2, 4, 5, 10]))
        ax.xaxis.set_major_formatter(self.ticker.FuncFormatter(lambda v, _: f"{v:.0f}"))
        ax.set_ylabel(("TFLOP/s" if tera else "GFLOPS") + " (2·M·N·K / time)")
        ax.legend(loc="lower right", fontsize=9)
        fixed = ", ".join(f"{d} {dims[d](rows[0])}" for d in "MNK" if d != swept)
        lines = []
        if info["BM"]:
            slots = int(info["sms"] * info["blocks_per_sm"])
            lines.append(f"predicted steps from {int(info['BM'])}x{int(info['BN'])} block tiles, "
                         f"{int(info['blocks_per_sm'])} block(s) per SM x {int(info['sms'])} SMs "
                         f"= {slots} at once" + ("" if marks else "; no step in this range"))
        else:
            lines.append("no tile model for this chapter: no predicted steps")
        self.title(ax, f"{info['chapter']} against {swept} ({fixed}) on {devices_of(rows)}",
                   lines + self.wrap(timing_line(rows)) +
                   [w for line in conditions_lines(rows) for w in self.wrap(line)])
        self.save(fig, stem)


def main(argv):
    parser = argparse.ArgumentParser(
        prog="plot.py", description=__doc__.split("\n\n")[0],
        epilog="Exit: 0 done (also when matplotlib is missing: the table alone, and one line "
               "saying so), 1 a file could not be written, 2 a bad command line or CSV.")
    parser.add_argument("paths", nargs="+", metavar="PATH",
                        help="a results directory, or CSV files")
    parser.add_argument("--out", help="where the charts and results.md go (default: the first "
                        "PATH if it is a directory, else the directory of the first file)")
    parser.add_argument("--png", action="store_true", help="write a PNG beside every SVG")
    args = parser.parse_args(argv)
    try:
        inputs = read_inputs(args.paths)
    except InputError as e:
        print(f"plot.py: error: {e}", file=sys.stderr)
        return 2
    if not inputs.results and not inputs.sweeps and not inputs.suites and not inputs.accuracy:
        print("plot.py: error: no results CSV among " + " ".join(args.paths), file=sys.stderr)
        return 2
    first = args.paths[0]
    out = args.out or (first if os.path.isdir(first) else os.path.dirname(first) or ".")
    overview = [r for _, rows in inputs.results for r in rows]
    try:
        os.makedirs(out, exist_ok=True)
    except OSError as e:
        print(f"plot.py: error: --out {out}: cannot create this directory ({e.strerror})",
              file=sys.stderr)
        return 2
    try:
        written = []
        if overview:
            with open(os.path.join(out, "results.md"), "w") as f:
                f.write(results_md(overview))
            written.append(os.path.join(out, "results.md"))
        try:
            charts = Charts(out, args.png)
        except ImportError:
            print(NO_MATPLOTLIB)
            print("wrote " + " ".join(written) if written else "wrote nothing")
            return 0
        for stem, rows in inputs.results:
            charts.chapter(stem, rows)
        if overview:
            charts.ladder(overview, chapter_list())
            charts.all_chapters(overview)
        devices = list(inputs.ceilings) + [d for d in inputs.peaks if d not in inputs.ceilings]
        if devices:
            device = next((d for d in devices if any(r.device == d for r in overview)),
                          devices[0])
            charts.roofline(device, inputs.peaks.get(device, {}),
                            inputs.ceilings.get(device, {}), overview)
        for stem, rows, steps in inputs.sweeps:
            charts.sweep(stem, rows, steps)
        for stem, rows in inputs.suites:
            charts.suite(stem, rows)
        for stem, rows in inputs.accuracy:
            charts.accuracy(stem, rows)
    except OSError as e:
        print(f"plot.py: error: cannot write in {out}: {e.strerror} "
              f"({e.filename or out})", file=sys.stderr)
        return 1
    written += charts.written
    print(f"wrote {len(written)} file(s) in {out}: " +
          ", ".join(os.path.basename(w) for w in written))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

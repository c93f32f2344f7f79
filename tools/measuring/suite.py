#!/usr/bin/env python3
"""The shape suite: one GPU chapter against cuBLAS on a list of realistic shapes.

    python3 -m tools.measuring.suite CHAPTER_BINARY [--shapes FILE] [--out DIR] [--copy-gbs GBS]
                   [--ceilings FILE] [-- CHAPTER OPTIONS]
    python3 -m tools.measuring.suite --validate [--shapes FILE] [--out DIR] [--copy-gbs GBS]
                   [-- CHAPTER OPTIONS]
    python3 -m tools.measuring.suite --estimate [--shapes FILE]
    python3 -m tools.measuring.suite --rejoin DIR [--shapes FILE] [--copy-gbs GBS] [--ceilings FILE]

An FP8 chapter (20-23) runs on tools/measuring/suite_shapes_fp8.txt by default, against the
cuBLASLt mode of its arithmetic, its bytes counted with one-byte A and B and bf16 C.
It runs the chapter binary once over every shape of the list (`--sizes M1xN1xK1,...`: the harness's
own protocol, checks, alternating rounds against cuBLAS and L2 flush), then joins the harness's CSV
with the list's categories and writes, in DIR:

  suite_<chapter>.csv  the harness's columns, then category, note and the memory-bound end:
                       min_bytes, flop_per_byte, gbs, yardstick_gbs, pct_of_copy, memory_bound
  suite_<chapter>.txt  the suite's table and summary (also on stdout, after the chapter's output)
  raw/                 the chapter's output (BINARY.txt), CSV and peaks.csv as it wrote them

tools/reporting/plot.py DIR draws suite_<chapter>.svg from the CSV. --validate checks the command
line and the shape list only (./tutorial suite runs it before building); --estimate prints the
napkin run time of the list. --rejoin DIR joins a suite folder's raw/ (the chapter's CSV and peaks.csv
as it measured them) with the list and the ceilings again and rewrites the CSV and the text, running
nothing (its wall time is the old text's): for a run whose ceilings were not yet those of its
ladder. docs/shapes.md ("The shape suite") explains how to read the results.
Exit: 0 every shape measured and checked, 1 a check failed or the chapter stopped, 2 a bad
command line or shape list, 77 no usable GPU (the chapter's exit codes, passed on).
"""
import argparse
import csv
import glob
import math
import os
import re
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_SHAPES = os.path.join(ROOT, "tools", "measuring", "suite_shapes.txt")
# An FP8 chapter (precision fp8_* in chapters/chapters.txt) runs on its own list by default, against
# the cuBLASLt mode of its arithmetic (the chapter binary picks it).
DEFAULT_SHAPES_FP8 = os.path.join(ROOT, "tools", "measuring", "suite_shapes_fp8.txt")
# The harness's limits (common/harness/problem.hpp): a dimension at most 2^30, a matrix under 2^31 elements.
MAX_DIMENSION = 1 << 30
MAX_ELEMENTS = 1 << 31
# What the suite itself decides: the chapter options may not.
OWN_OPTIONS = ("--sizes", "--out", "--grade", "--remote", "--help", "-h")
EXTRA_COLUMNS = ["category", "note", "min_bytes", "flop_per_byte", "gbs", "yardstick_gbs",
                 "pct_of_copy", "memory_bound"]
ODD = "odd"  # the category the second geomean leaves out
CATEGORY = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]*$")


class InputError(Exception):
    """A bad command line or shape list: message on stderr, exit 2."""


class Shape:
    def __init__(self, M, N, K, category, note, line):
        self.M, self.N, self.K = M, N, K
        self.category, self.note, self.line = category, note, line

    @property
    def text(self):
        return f"{self.M}x{self.N}x{self.K}"


# --- The shape list ------------------------------------------------------------------------------
def read_shapes(path):
    try:
        with open(path) as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise InputError(f"{path}: cannot read the shape list ({e.strerror})")
    except UnicodeDecodeError:
        raise InputError(f"{path}: not a text file")
    shapes, seen = [], {}
    for n, raw in enumerate(lines, start=1):
        fields = raw.split("#", 1)[0].split()
        if not fields:
            continue
        where = f"{path}:{n}"
        if len(fields) < 4:
            raise InputError(f"{where}: expected 'M N K category [note]', got '{raw.strip()}'")
        dims = []
        for name, text in zip("MNK", fields[:3]):
            if not text.isdigit() or not text.isascii():
                raise InputError(f"{where}: {name} is '{text}', not a whole number")
            value = int(text)
            if value < 1:
                raise InputError(f"{where}: {name} is 0; a suite shape is timed, so every "
                                 f"dimension is at least 1")
            if value > MAX_DIMENSION:
                raise InputError(f"{where}: {name} = {value} is above the harness's limit of "
                                 f"2^30")
            dims.append(value)
        M, N, K = dims
        for name, elements in (("A", M * K), ("B", K * N), ("C", M * N)):
            if elements >= MAX_ELEMENTS:
                raise InputError(f"{where}: {M}x{N}x{K}: {name} would hold {elements} elements, "
                                 f"the harness takes fewer than 2^31")
        category = fields[3]
        if not CATEGORY.match(category):
            raise InputError(f"{where}: category '{category}': letters, digits and . _ + - only "
                             f"(it becomes a CSV field and a legend entry)")
        note = " ".join(fields[4:])
        if (M, N, K) in seen:
            raise InputError(f"{where}: {M}x{N}x{K} is already on line {seen[(M, N, K)]}; list "
                             f"a shape once, in one category")
        seen[(M, N, K)] = n
        shapes.append(Shape(M, N, K, category, note, n))
    if not shapes:
        raise InputError(f"{path}: no shapes (one per line: M N K category [note])")
    return shapes


# --- Bytes and the memory-bound end ---------------------------------------------------------------
def element_bytes(precision):
    """Bytes of an element of A and B, from the CSV's precision column (tools/build/chapters.py;
    a CSV without the column is fp32's)."""
    return chapter_list().precision(precision or "fp32").ab


def c_bytes(precision):
    """Bytes of an element of C: bf16 for the FP8 chapters, fp32 for the others."""
    return chapter_list().precision(precision or "fp32").c


def min_bytes(M, N, K, precision, beta):
    """A and B read once, C written once (and read once when beta != 0): what no kernel avoids."""
    e = element_bytes(precision)
    return e * (M * K + K * N) + c_bytes(precision) * M * N * (2 if beta != 0 else 1)


def chapter_list():
    """tools/build/chapters.py: the list of chapters and what each precision means."""
    from tools.build import chapters
    return chapters


def chapter_family(binary):
    """The precision family (fp32, fp16, fp8) of the chapter binary (named after its id) in the
    chapter list, "" for a binary the list does not name."""
    chapters = chapter_list()
    name = os.path.basename(binary or "")
    return next((chapters.precision(c.precision).family for c in chapters.load() if c.id == name), "")


def estimate(shapes, tflops, rounds=5, reps=10, warmup=3, flush_us=40.0, launch_us=20.0,
             host_ns=4.0):
    """Napkin run time of the list: (GPU seconds, host seconds, elements, timed runs per shape)."""
    runs = 2 * (rounds * reps + warmup)
    gpu = host = elements = 0.0
    for s in shapes:
        flop = 2.0 * s.M * s.N * s.K
        t = max(flop / (tflops * 1e12), min_bytes(s.M, s.N, s.K, "fp16", 0) / 3.3e12)
        gpu += runs * (t + (flush_us + launch_us) * 1e-6) + t
        e = s.M * s.K + s.K * s.N + s.M * s.N
        elements += e
        host += host_ns * 1e-9 * e
    return gpu, host, elements, runs


def find_ceilings(device, explicit):
    """{ceiling: value} for this device from `explicit`, or any plots/*/ceilings.csv, and where."""
    files = [explicit] if explicit else sorted(glob.glob(os.path.join(ROOT, "plots", "*",
                                                                      "ceilings.csv")))
    for path in files:
        try:
            with open(path, newline="") as f:
                rows = list(csv.DictReader(f))
        except (OSError, csv.Error, UnicodeDecodeError) as e:
            if explicit:
                raise InputError(f"--ceilings {path}: cannot read ({e})")
            continue
        found = {}
        for row in rows:
            if (row.get("device") or "").strip() != device:
                continue
            try:
                value = float(row.get("value") or "")
            except ValueError:
                continue
            if math.isfinite(value) and value > 0:
                found[(row.get("ceiling") or "").strip()] = value
        if found:
            return found, shown(path)
    return {}, ""


def read_peaks(path, device):
    try:
        with open(path, newline="") as f:
            for row in csv.DictReader(f):
                if (row.get("device") or "").strip() == device:
                    return float(row.get("bandwidth_gbs") or 0)
    except (OSError, ValueError, csv.Error):
        pass
    return 0.0


# --- Numbers -------------------------------------------------------------------------------------
def number(row, column):
    try:
        v = float(row.get(column) or "")
    except ValueError:
        return 0.0
    return v if math.isfinite(v) else 0.0


def geomean(values):
    values = [v for v in values if v > 0]
    if not values:
        return 0.0
    return math.exp(sum(math.log(v) for v in values) / len(values))


def shown(path):
    """A path as the user would type it: relative to their directory when it is inside it."""
    rel = os.path.relpath(path)
    return path if rel.startswith("..") else rel


def share(pct):
    """A percentage in two significant digits below 10 (0.043%), whole above (83%)."""
    return (f"{pct:.0f}" if pct >= 10 else f"{pct:.2g}") + "%"


def fmt(v, digits=1):
    return f"{v:.{digits}f}"


# --- One run -------------------------------------------------------------------------------------
class Result:
    def __init__(self, shape, row, bandwidth, ridge):
        self.shape, self.row = shape, row
        precision = row.get("precision", "")
        beta = number(row, "beta")
        self.tflops = number(row, "gflops") / 1e3
        self.yard_tflops = number(row, "yardstick_gflops") / 1e3
        self.pct = number(row, "pct_of_yardstick")
        self.pct_min, self.pct_max = number(row, "pct_min"), number(row, "pct_max")
        self.bytes = min_bytes(shape.M, shape.N, shape.K, precision, beta)
        self.intensity = 2.0 * shape.M * shape.N * shape.K / self.bytes
        ms, yard_ms = number(row, "ms_median"), number(row, "yardstick_ms_median")
        self.gbs = self.bytes / (ms * 1e6) if ms > 0 else 0.0
        self.yard_gbs = self.bytes / (yard_ms * 1e6) if yard_ms > 0 else 0.0
        self.pct_copy = 100.0 * self.gbs / bandwidth if bandwidth > 0 else 0.0
        self.memory_bound = ridge > 0 and self.intensity < ridge
        self.check = row.get("check", "")
        self.passed = (row.get("pass") or "true").strip().lower() != "false"

    def csv_row(self):
        out = dict(self.row)
        out.update(category=self.shape.category, note=self.shape.note, min_bytes=str(self.bytes),
                   flop_per_byte=f"{self.intensity:.5g}", gbs=f"{self.gbs:.6g}",
                   yardstick_gbs=f"{self.yard_gbs:.6g}", pct_of_copy=f"{self.pct_copy:.5g}",
                   memory_bound="true" if self.memory_bound else "false")
        return out


def table(results, bandwidth):
    cat_w = max([8] + [len(r.shape.category) for r in results])
    head = (f"{'M':>6} {'N':>6} {'K':>6}  {'category':<{cat_w}} {'TFLOP/s':>8} {'cuBLAS':>7} "
            f"{'% cuBLAS':>8} {'min-max':>12} {'FLOP/B':>7} {'GB/s':>7} {'% copy':>6}  check  "
            f"note")
    lines = [head]
    for r in results:
        s = r.shape
        has_yard = r.yard_tflops > 0
        spread = f"{fmt(r.pct_min)}-{fmt(r.pct_max)}" if has_yard and r.pct_max > 0 else "-"
        mem = r.memory_bound
        check = "off" if r.check == "off" else ("PASS" if r.passed else "FAIL")
        lines.append(
            f"{s.M:>6} {s.N:>6} {s.K:>6}  {s.category:<{cat_w}} {fmt(r.tflops):>8} "
            f"{fmt(r.yard_tflops) if has_yard else '-':>7} "
            f"{fmt(r.pct) + '%' if has_yard else '-':>8} {spread:>12} {r.intensity:>7.0f} "
            f"{fmt(r.gbs, 0) if mem else '-':>7} "
            f"{share(r.pct_copy) if mem and bandwidth > 0 else '-':>6}  {check:<5}  "
            f"{s.note}".rstrip())
    return "\n".join(lines)


def summary(results, bandwidth, bandwidth_source, ridge, ridge_source):
    lines = []
    timed = [r for r in results if r.pct > 0]
    if timed:
        lines.append(f"geomean of the median % of cuBLAS: {geomean(r.pct for r in timed):.1f}% "
                     f"over {len(timed)} shapes")
        # cuBLAS falls back to slower kernels where rows miss 16-byte alignment (the `odd`
        # category): the geomean without it says how the chapter does where cuBLAS is at its best.
        even = [r for r in timed if r.shape.category != ODD]
        if even and len(even) < len(timed):
            lines.append(f"geomean without `{ODD}`: {geomean(r.pct for r in even):.1f}% "
                         f"over {len(even)} shapes")
        for cat in dict.fromkeys(r.shape.category for r in timed):
            mine = [r for r in timed if r.shape.category == cat]
            lines.append(f"  {cat:<12} {geomean(r.pct for r in mine):6.1f}%  ({len(mine)} shapes, "
                         f"lowest {min(r.pct for r in mine):.1f}%)")
        low = min(timed, key=lambda r: r.pct)
        lines.append(f"lowest: {low.shape.text} ({low.shape.category}"
                     f"{', ' + low.shape.note if low.shape.note else ''}) at {low.pct:.1f}% of "
                     f"cuBLAS (rounds {low.pct_min:.1f}-{low.pct_max:.1f}%), {low.tflops:.1f} "
                     f"against {low.yard_tflops:.1f} TFLOP/s")
    else:
        lines.append("no cuBLAS timing in this run (--no-baseline?): no ratios, no geomean")
    mem = [r for r in results if r.memory_bound]
    if ridge > 0:
        text = (f"memory-bound end: {len(mem)} shapes below the ridge of {ridge:.0f} FLOP/byte "
                f"({ridge_source})")
        if mem and bandwidth > 0:
            chapter = statistics.median(r.pct_copy for r in mem)
            cublas = statistics.median(100 * r.yard_gbs / bandwidth for r in mem)
            text += (f";\n  there the chapter reaches a median {share(chapter)} of the copy "
                     f"bandwidth and cuBLAS {share(cublas)} ({bandwidth:.1f} GB/s, "
                     f"{bandwidth_source})")
        lines.append(text)
    failed = [r for r in results if not r.passed]
    if failed:
        lines.append(f"{len(failed)} shape(s) FAILED their check: " +
                     ", ".join(r.shape.text for r in failed))
    return "\n".join(lines)


def run_chapter(binary, shapes, raw_dir, extra, log):
    """Runs the chapter over every shape, its output on stdout and in `log`; returns
    (exit code, the harness's CSV header and rows, the peaks.csv path or "")."""
    # raw/ is the suite's own folder: a CSV left there by an earlier run must not pass for this
    # run's.
    for old in glob.glob(os.path.join(raw_dir, "*.csv")):
        os.remove(old)
    cmd = [binary, "--sizes", ",".join(s.text for s in shapes), "--out", raw_dir, *extra]
    try:
        with subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, bufsize=1) as p:
            for line in p.stdout:
                sys.stdout.write(line)
                sys.stdout.flush()
                log.write(line)
            rc = p.wait()
    except KeyboardInterrupt:
        rc = 130
    except OSError as e:
        raise InputError(f"{binary}: cannot run ({e.strerror})")
    return (rc, *read_raw(raw_dir))


def read_raw(raw_dir):
    """(the harness's CSV header and rows, the peaks.csv path or "") of a suite's raw/."""
    header, rows = [], []
    found = sorted(f for f in glob.glob(os.path.join(raw_dir, "*.csv"))
                   if os.path.basename(f) != "peaks.csv")
    if found:
        with open(found[0], newline="") as f:
            reader = csv.DictReader(f)
            header, rows = list(reader.fieldnames or []), list(reader)
    peaks = os.path.join(raw_dir, "peaks.csv")
    return header, rows, peaks if os.path.exists(peaks) else ""


def parse(argv):
    own, extra = (argv[: argv.index("--")], argv[argv.index("--") + 1:]) if "--" in argv \
        else (argv, [])
    parser = argparse.ArgumentParser(
        prog="suite.py", description=__doc__.split("\n\n")[0],
        epilog="Exit: 0 every shape measured and passed, 1 a check failed or the chapter stopped, "
               "2 a bad command line or shape list, 77 no usable GPU.")
    parser.add_argument("binary", nargs="?", metavar="CHAPTER_BINARY",
                        help="a GPU chapter binary, e.g. build/chapters/15_wgmma_persistent")
    parser.add_argument("--shapes", default=None,
                        help="the shape list (default: tools/measuring/suite_shapes.txt; for an "
                             "FP8 chapter, tools/measuring/suite_shapes_fp8.txt)")
    parser.add_argument("--out", default=os.path.join("plots", "latest", "suite"),
                        help="where the CSV, the text and raw/ go [plots/latest/suite]")
    parser.add_argument("--copy-gbs", type=float, metavar="GBS",
                        help="the device's copy bandwidth in GB/s for the memory-bound end "
                             "(default: the copy_bandwidth row for this device in --ceilings or "
                             "plots/*/ceilings.csv, else the theoretical peak)")
    parser.add_argument("--ceilings", metavar="FILE", help="a ceilings.csv (tools/ceilings)")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--validate", action="store_true",
                      help="check the command line and the shape list, run nothing")
    mode.add_argument("--estimate", action="store_true",
                      help="print the napkin run time of the shape list, run nothing")
    mode.add_argument("--rejoin", metavar="DIR",
                      help="rewrite DIR's suite CSV and text from DIR/raw/, run nothing")
    parser.add_argument("--tflops", type=float, default=650.0,
                        help="--estimate: the GEMM rate assumed [650]")
    args = parser.parse_args(own)
    args.extra, args.measured = extra, None
    chapter = args.binary  # named after its id: it picks the default list below
    if args.rejoin:
        if args.binary or extra:
            raise InputError("--rejoin runs nothing: no CHAPTER_BINARY and no chapter options")
        args.measured = read_raw(os.path.join(args.rejoin, "raw"))  # header, rows, peaks
        if not args.measured[1]:
            raise InputError(f"--rejoin {args.rejoin}: no chapter CSV in {args.rejoin}/raw/")
        chapter, args.out = args.measured[1][0].get("chapter", ""), args.rejoin
    if args.shapes is None:
        args.shapes = DEFAULT_SHAPES_FP8 if chapter_family(chapter) == "fp8" else DEFAULT_SHAPES
    if args.copy_gbs is not None and not (math.isfinite(args.copy_gbs) and args.copy_gbs > 0):
        raise InputError(f"--copy-gbs {args.copy_gbs:g}: expected a bandwidth above 0 in GB/s")
    if not (math.isfinite(args.tflops) and args.tflops > 0):
        raise InputError(f"--tflops {args.tflops:g}: expected a rate above 0")
    for a in extra:
        if a.split("=", 1)[0] in OWN_OPTIONS:
            raise InputError(f"chapter option {a}: the suite chooses the sizes (--shapes), the "
                             f"output (--out) and the mode itself")
    if args.ceilings and not os.path.isfile(args.ceilings):
        raise InputError(f"--ceilings {args.ceilings}: no such file")
    if not args.validate and not args.estimate and not args.rejoin:
        if not args.binary:
            raise InputError("no CHAPTER_BINARY (e.g. build/chapters/15_wgmma_persistent)")
        if not (os.path.isfile(args.binary) and os.access(args.binary, os.X_OK)):
            raise InputError(f"{args.binary}: not an executable chapter binary")
    return args


def memory_end(rows, peaks, args):
    """The copy bandwidth (measured where known) and the ridge: the measured cuBLAS peak (or,
    without one, the best cuBLAS rate of this run) over that bandwidth. Each with its source."""
    device, precision = rows[0].get("device", ""), rows[0].get("precision", "")
    ceilings, ceilings_path = find_ceilings(device, args.ceilings)
    if args.copy_gbs:
        bandwidth, bandwidth_source = args.copy_gbs, "--copy-gbs"
    elif "copy_bandwidth" in ceilings:
        bandwidth = ceilings["copy_bandwidth"]
        bandwidth_source = f"measured, {ceilings_path}"
    else:
        bandwidth = read_peaks(peaks, device) if peaks else 0.0
        bandwidth_source = "theoretical peak: no measured copy bandwidth for this device"
    # The measured cuBLAS ceiling of the same precision; FP8 has none (tools/ceilings): this run's.
    family = chapter_list().precision(precision or "fp32").family
    roof_name = {"fp32": "cublas_sgemm", "fp16": "cublas_gemmex_f16f32"}.get(family, "")
    if roof_name in ceilings:
        roof, roof_source = ceilings[roof_name], f"{roof_name} {ceilings[roof_name]:.0f} GFLOPS"
    else:
        roof = max((number(r, "yardstick_gflops") for r in rows), default=0.0)
        roof_source = f"the best cuBLAS rate of this run, {roof:.0f} GFLOPS"
    ridge = roof / bandwidth if bandwidth > 0 and roof > 0 else 0.0
    return bandwidth, bandwidth_source, ridge, f"{roof_source} / {bandwidth:.1f} GB/s"


def make_out(out):
    try:
        os.makedirs(os.path.join(out, "raw"), exist_ok=True)
    except OSError as e:
        raise InputError(f"--out {out}: cannot create this directory ({e.strerror})")


def main(argv):
    try:
        args = parse(argv)
        shapes = read_shapes(args.shapes)
        if args.estimate:
            gpu, host, elements, runs = estimate(shapes, args.tflops)
            print(f"{len(shapes)} shapes in {shown(args.shapes)}: {gpu:.0f} s of GPU time at "
                  f"{args.tflops:g} TFLOP/s ({runs} runs per shape, chapter and cuBLAS, L2 "
                  f"written over before each) and {elements / 1e9:.1f}e9 elements of A + B + C "
                  f"made, copied and checked on the host (about {host:.0f} s at 4 ns each): "
                  f"about {(gpu + host) / 60:.1f} min")
            return 0
        make_out(args.out)
        if args.validate:
            return 0
    except InputError as e:
        print(f"suite.py: error: {e}", file=sys.stderr)
        return 2

    started = time.monotonic()
    raw = os.path.join(args.out, "raw")
    base = os.path.basename(args.binary or "")
    old_wall = ""
    if args.rejoin:  # the measurement as it was; only the join and the memory-bound end again
        rc, (header, rows, peaks) = 0, args.measured
        old = glob.glob(os.path.join(args.out, "suite_*.txt"))
        walls = [l for l in open(old[0]).read().splitlines() if l.startswith("wall time:")] \
            if old else []
        old_wall = walls[-1] if walls else "wall time: not known (no earlier text)"
    else:
        try:
            with open(os.path.join(raw, base + ".txt"), "w") as log:
                rc, header, rows, peaks = run_chapter(args.binary, shapes, raw, args.extra, log)
        except InputError as e:
            print(f"suite.py: error: {e}", file=sys.stderr)
            return 2
    if rc in (2, 77) or not rows:
        if rc == 77:
            print("suite.py: skipped: no usable GPU (the line above says why)")
        elif rc != 2:
            print(f"suite.py: error: {args.binary} stopped (exit {rc}) before measuring a shape",
                  file=sys.stderr)
        return rc if rc else 1
    device = rows[0].get("device", "")
    chapter = rows[0].get("chapter", "") or base
    try:
        bandwidth, bandwidth_source, ridge, ridge_source = memory_end(rows, peaks, args)
    except InputError as e:
        print(f"suite.py: error: {e}", file=sys.stderr)
        return 2

    results, mismatch = [], ""
    for shape, row in zip(shapes, rows):
        got = (int(number(row, "M")), int(number(row, "N")), int(number(row, "K")))
        if got != (shape.M, shape.N, shape.K):
            mismatch = (f"the chapter's CSV has {got[0]}x{got[1]}x{got[2]} where the list has "
                        f"{shape.text} (line {shape.line})")
            break
        results.append(Result(shape, row, bandwidth, ridge))
    csv_path = os.path.join(args.out, f"suite_{chapter}.csv")
    text_path = os.path.join(args.out, f"suite_{chapter}.txt")
    with open(csv_path, "w", newline="") as f:
        writer = csv.DictWriter(f, header + [c for c in EXTRA_COLUMNS if c not in header])
        writer.writeheader()
        writer.writerows(r.csv_row() for r in results)
    report = [f"== the shape suite: {chapter} on {device}, {len(results)} of {len(shapes)} "
              f"shapes from {shown(args.shapes)}", table(results, bandwidth), "",
              summary(results, bandwidth, bandwidth_source, ridge, ridge_source)]
    if mismatch:
        report.append(f"stopped: {mismatch}")
    elif len(results) < len(shapes):
        nxt = shapes[len(results)]
        report.append(f"stopped: the chapter exited with {rc} before {nxt.text} (line "
                      f"{nxt.line}); {len(shapes) - len(results)} shapes not measured")
    wall = time.monotonic() - started
    report.append(old_wall or f"wall time: {int(wall // 60)} min {wall % 60:.0f} s")
    with open(text_path, "w") as f:
        f.write("\n".join(report) + "\n")
    report.append(f"wrote {shown(csv_path)} and {shown(text_path)}; the chapter's own output "
                  f"and CSV are in {shown(raw)}/ (tools/reporting/plot.py {shown(args.out)} draws "
                  f"suite_{chapter}.svg)")
    print("\n" + "\n".join(report))
    if mismatch:
        return 1
    return rc if rc else (0 if all(r.passed for r in results) else 1)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Reading the CSVs for tools/reporting/plot.py: each file recognized by its header, columns by name."""

import csv
import math
import os
import sys


NO_MATPLOTLIB = "no matplotlib: charts skipped (apt-get install python3-matplotlib)"

# Columns after pct_of_yardstick that newer harnesses write: the spread of the per-round ratios and
# the conditions the timing ran under (docs/harness.md). Absent or empty means unknown.
CONDITIONS = ["gpu", "driver", "cuda_runtime", "cublas", "power_limit_w", "sm_clock_mhz",
              "power_w", "throttle", "l2_flush"]


def list_precisions():
    """{chapter id: the harness's precision name} from chapters/chapters.txt (tools/build/chapters.py):
    a CSV row without its precision column takes its chapter's (the list's table, chapters.precision)."""
    try:
        from tools.build import chapters
        return {c.id: chapters.precision(c.precision).csv for c in chapters.load()}
    except Exception:  # a copy of the script without the list: the CSV's column alone
        return {}


LIST_PRECISIONS = list_precisions()


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
    """A shape suite's rows (tools/measuring/suite.py): a results CSV with a category per shape, a note, and
    the memory-bound end (the % of the copy bandwidth of the shapes below the ridge)."""
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

#!/usr/bin/env python3
"""Numbers in the text from the committed results: the generated blocks, and the check of every figure.

    python3 -m tools.reporting.text_numbers --write     regenerate every block of every tracked Markdown file
    python3 -m tools.reporting.text_numbers --check     exit 1 when a block is not what the results make, or
                                                   a figure of the text has no source (below)
    python3 -m tools.reporting.text_numbers --figures [FILE...]
                                                   every figure with its verdict, for a reader
    python3 -m tools.reporting.text_numbers --unsourced print the unsourced passages in the form of
                                                   tools/reporting/text_numbers_unsourced.txt (to review by hand)

A block is the text between two lines of a Markdown file,

    <!-- numbers:begin KIND ARGS -->
    ...
    <!-- numbers:end -->

and is written by this script alone, from the committed results of every GPU folder under plots/
(plots/h200/, plots/h100/ when it is there: a folder with a stamp.txt). The kinds:

    rows CHAPTER          the chapter's rows of the ladder (the squares of tools/reporting/plot_ladder.py's
                          LADDER_SIZES, and the range over its default sizes), one table per GPU
    ladder                every chapter at the ladder's squares, per GPU (the table of ladder.svg)
    table CHAPTER         the chapter's whole measured table (tools/measuring/ladder.py table), per GPU
    suite CHAPTER         the chapter's shape suite in numbers: shapes, geomean, lowest, highest
    ceilings              the measured ceilings (ceilings.csv) of every GPU
    map                   the chapter map of chapters/chapters.txt
    waves M N BM BN [PER_SM]
                          output tiles against the GPU's SMs (from its ceilings.txt): tiles, waves
    setting FILE NAME UNIT
                          a setting of the code (a line `NAME = VALUE` of FILE), with its unit
    partial BM BN BK CLUSTER MIN_SLICE
                          an fp32 (BM, BN) partial written and read back, in k-tiles of fp16 loads,
                          and what it adds to the shallowest slice
                          (chapters/16_split_k/test.cu holds the arguments to the kernel's constants)

The figure check reads every tracked Markdown file but the archive and the generated result pages,
cuts it into passages (paragraphs, list items, tables with their caption), and finds each
percentage, TFLOP/s, GB/s and µs figure. A figure passes when it
  - lies inside a block (and the block is current), or
  - is in a passage that cites a source (a path under plots/, or history as `git show COMMIT:PATH`;
    a table also takes the citations of the paragraph before and after it, and every passage the
    `git show` citations of the first paragraph after its section's heading) and one of the cited
    files holds it: the same number at the figure's precision, directly or per 1000 (GFLOPS as
    TFLOP/s, ms and ns as µs). A `git show` source whose commit a shallow clone lacks is taken as
    cited, with a note (in a full clone it fails); or
  - its passage is listed, with exactly its figures, in tools/reporting/text_numbers_unsourced.txt: the
    passages not yet sourced, which only shrinks (a listed passage that is gone or whose figures
    changed fails too).
(Nsight Compute's --csv output counts too: its time metrics as µs figures, its % metrics as %.)
Exit: 0 pass, 1 a check failed, 2 a bad command line.
"""
import csv
import glob
import io
import math
import os
import re
import subprocess
import sys

from tools.build import chapters as chapter_list
from tools.measuring import ladder  # the chapter table, the stamp
from tools.reporting.plot_ladder import LADDER_SIZES
from tools.reporting.plot_text import geomean

BEGIN_RE = re.compile(r"^<!-- numbers:begin ([a-z_]+)((?: [^ \n]+)*) -->$", re.M)
END = "<!-- numbers:end -->"
UNSOURCED = os.path.join("tools", "reporting", "text_numbers_unsourced.txt")


class Error(Exception):
    pass


# --- The results ---------------------------------------------------------------------------------
def gpu_dirs(root):
    """The current run of each GPU: plots/<gpu>/ with a stamp.txt (not the archive, not latest/)."""
    out = []
    for d in sorted(glob.glob(os.path.join(root, "plots", "*", "stamp.txt"))):
        d = os.path.dirname(d)
        if os.path.basename(d) not in ("archive", "latest"):
            out.append(d)
    return out


def read_rows(path):
    try:
        with open(path, newline="") as f:
            return list(csv.DictReader(f))
    except OSError:
        return []


def num(v):
    try:
        x = float(v)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


def gpu_name(d, rows=None):
    st = ladder.read_stamp(d)
    name = (rows[0].get("device") if rows else "") or st.get("gpu", "").split(",")[0]
    return name or os.path.basename(d)


def rel(root, path):
    return os.path.relpath(path, root)


def tera(g):
    t = g / 1000.0
    return f"{t:.3g}" if t < 100 else f"{t:,.0f}"


def pct_cell(r):
    p, lo, hi = num(r.get("pct_of_yardstick")), num(r.get("pct_min")), num(r.get("pct_max"))
    if p is None:
        return "-"
    return f"{p:.1f}%" + (f" ({lo:.1f}–{hi:.1f})" if lo is not None and hi is not None else "")


def standing(r):
    """Ahead, level or behind the yardstick, by the rounds' spread of the ratio: level where the
    spread holds 100%, so that a margin inside the yardstick's own noise is not called a win."""
    p, lo, hi = num(r.get("pct_of_yardstick")), num(r.get("pct_min")), num(r.get("pct_max"))
    if lo is None or hi is None:
        return "ahead" if p >= 100 else "behind"
    if lo > 100:
        return "ahead (every round above it)"
    if hi < 100:
        return "behind (every round below it)"
    return "level (the rounds span 100%)"


def own_spread(root, d, yard):
    """" cuBLAS alone, back to back (ceilings.csv): ..." where the yardstick is the ceiling's."""
    if "cublasGemmEx fp16" not in yard:
        return ""
    for r in read_rows(os.path.join(d, "ceilings.csv")):
        if r.get("ceiling") == "cublas_gemmex_f16f32":
            v, lo, hi = num(r["value"]), num(r["min"]), num(r["max"])
            size = re.search(r"(\d+)\^3", r.get("method", ""))
            return (f" cuBLAS's own spread, alone and back to back "
                    f"(`{rel(root, os.path.join(d, 'ceilings.csv'))}`, {size.group(1) if size else '?'}³): "
                    f"{lo / 1000:.0f}–{hi / 1000:.0f} TFLOP/s around a median of {v / 1000:.0f}, "
                    f"{100 * (lo / v - 1):+.0f}% to {100 * (hi / v - 1):+.0f}%.")
    return ""


def stamp_line(root, d, rows, what):
    st = ladder.read_stamp(d)
    commits = sorted({(r.get("commit") or "").strip()[:12] for r in rows} - {""})
    commit = ", ".join(commits) or st.get("commit", "")[:12] or "unknown"
    date = st.get("date", "").split(" ")[0] or "date unknown"
    return f"{gpu_name(d, rows)}, {date}, commit {commit}: `{what}`"


def block_rows(root, cid):
    out = []
    for d in gpu_dirs(root):
        rows = read_rows(os.path.join(d, cid + ".csv"))
        if not rows:
            continue
        yard = rows[0].get("yardstick") or "the yardstick"
        cells, said = [], []
        for n in LADDER_SIZES:
            r = next((r for r in rows if r.get("M") == r.get("N") == r.get("K") == str(n)), None)
            if r is not None:
                cells.append((str(n), f"{tera(num(r['gflops']))} TFLOP/s, {pct_cell(r)}"))
                said.append(f"{n} {standing(r)}")
        if not cells:  # a chapter without the ladder's squares: its largest size
            r = max(rows, key=lambda r: int(r["M"]) * int(r["N"]) * int(r["K"]))
            size = r["M"] if r["M"] == r["N"] == r["K"] else f"{r['M']}x{r['N']}x{r['K']}"
            cells.append((size, f"{tera(num(r['gflops']))} TFLOP/s, {pct_cell(r)}"))
        pcts = [num(r.get("pct_of_yardstick")) for r in rows]
        pcts = [p for p in pcts if p is not None]
        lines = ["| " + " | ".join(["GPU"] + [c[0] for c in cells] +
                                   ["all its default sizes"]) + " |",
                 "|---|" + "---|" * (len(cells) + 1),
                 "| " + " | ".join([gpu_name(d, rows)] + [c[1] for c in cells] +
                                   [f"{min(pcts):.1f}–{max(pcts):.1f}% of {yard}, "
                                    f"{len(rows)} sizes" if pcts else "-"]) + " |",
                 "",
                 "% of " + yard + " timed in the same process (median of the alternating rounds, "
                 "their lowest–highest in brackets); " +
                 stamp_line(root, d, rows, rel(root, os.path.join(d, cid + ".csv"))) + "." +
                 (" Against it at the ladder's squares: " + "; ".join(said) + "." if said else "") +
                 own_spread(root, d, yard)]
        out.append("\n".join(lines))
    if not out:
        raise Error(f"rows {cid}: no plots/<gpu>/{cid}.csv")
    return "\n\n".join(out)


def block_ladder(root):
    """Every chapter of the list at the ladder's squares (a CPU chapter: its largest size), per GPU."""
    out = []
    chapters = chapter_list.load(os.path.join(root, "chapters", "chapters.txt"))
    for d in gpu_dirs(root):
        head = " | ".join(f"{n}: TFLOP/s | % of yardstick (rounds)" for n in LADDER_SIZES)
        lines = [f"| chapter | yardstick | {head} |", "|---|---|" + "---:|---:|" * len(LADDER_SIZES)]
        stamp_rows = []
        for c in chapters:
            rows = read_rows(os.path.join(d, c.id + ".csv"))
            if not rows:
                continue
            # the stamp names the GPU of the folder, not the CPU its CPU chapters ran on
            stamp_rows = stamp_rows + rows if c.kind == "cpu" else rows + stamp_rows
            cells = []
            for n in LADDER_SIZES:
                r = next((r for r in rows if r.get("M") == r.get("N") == r.get("K") == str(n)), None)
                if r is None and n == LADDER_SIZES[0] and c.kind == "cpu":
                    r = max(rows, key=lambda r: int(r["M"]) * int(r["N"]) * int(r["K"]))
                    cells += [f"at {r['M']}: {num(r['gflops']) / 1000:.2g}", pct_cell(r)]
                elif r is None:
                    cells += ["-", "-"]
                else:
                    cells += [tera(num(r["gflops"])), pct_cell(r)]
            lines.append(f"| {c.id} | {rows[0].get('yardstick', '')} | " + " | ".join(cells) + " |")
        lines += ["", stamp_line(root, d, stamp_rows, rel(root, d) + "/NN_*.csv") + "."]
        out.append("\n".join(lines))
    if not out:
        raise Error("ladder: no plots/<gpu>/ with results")
    return "\n\n".join(out)


def block_table(root, cid):
    out = []
    for d in gpu_dirs(root):
        if os.path.exists(os.path.join(d, cid + ".csv")):
            # read from wherever this runs (meson: the build folder), named from the root
            out.append(ladder.chapter_table(d, cid, name=rel(root, d)).rstrip("\n"))
    if not out:
        raise Error(f"table {cid}: no plots/<gpu>/{cid}.csv")
    return "\n\n".join(out)


def block_suite(root, cid):
    """One row per run of the chapter's suite (the ladder's, then run2/, run3/, ... beside it):
    geomean, geomean without `odd` (tools/measuring/suite.py's ODD), lowest, highest; then the
    categories of the ladder's run."""
    out = []
    for d in gpu_dirs(root):
        folder = os.path.join(d, "suite", cid)
        paths = [os.path.join(folder, f"suite_{cid}.csv")] + sorted(
            glob.glob(os.path.join(folder, "run*", f"suite_{cid}.csv")))
        runs = [(p, read_rows(p)) for p in paths if read_rows(p)]
        if not runs:
            continue
        shape = lambda r: f"{r['M']} x {r['N']} x {r['K']}"
        lines = ["| run | commit | shapes | geomean | without `odd` | lowest | highest | check |",
                 "|---|---|---:|---:|---:|---|---|---|"]
        for p, rows in runs:
            pcts = [(num(r.get("pct_of_yardstick")), r) for r in rows]
            pcts = [(x, r) for x, r in pcts if x is not None]
            even = [x for x, r in pcts if r.get("category") != "odd"]
            lo, hi = min(pcts, key=lambda t: t[0]), max(pcts, key=lambda t: t[0])
            passed = sum((r.get("pass") or "").lower() == "true" for r in rows)
            commit = ", ".join(sorted({(r.get("commit") or "")[:12] for r in rows} - {""})) or "?"
            lines.append(f"| `{rel(root, p)}` | {commit} | {len(rows)} | "
                         f"{geomean([x for x, _ in pcts]):.1f}% | "
                         f"{geomean(even):.1f}% | {lo[0]:.1f}% ({shape(lo[1])}) | "
                         f"{hi[0]:.1f}% ({shape(hi[1])}) | {passed} of {len(rows)} pass |")
        rows = runs[0][1]
        cats = {}
        for r in rows:
            x = num(r.get("pct_of_yardstick"))
            if x is not None:
                cats.setdefault(r.get("category") or "-", []).append(x)
        yard = rows[0].get("yardstick") or "the yardstick"
        lines += ["", "Per category, the first run: " + ", ".join(
            f"{c} {geomean(v):.1f}%" for c, v in cats.items()) + ".", "",
            f"% of {yard} per shape, median of the alternating rounds, geomeans over the shapes; "
            + stamp_line(root, d, rows, rel(root, folder) + "/") + "."]
        out.append("\n".join(lines))
    if not out:
        raise Error(f"suite {cid}: no plots/<gpu>/suite/{cid}/suite_{cid}.csv")
    return "\n\n".join(out)


def block_ceilings(root):
    out = []
    for d in gpu_dirs(root):
        rows = read_rows(os.path.join(d, "ceilings.csv"))
        if not rows:
            continue
        lines = ["| ceiling | median | min–max | SM MHz |", "|---|---:|---|---:|"]
        for r in rows:
            v, lo, hi = num(r["value"]), num(r["min"]), num(r["max"])
            unit = r["unit"]
            if unit == "GFLOPS":
                v, lo, hi, unit = v / 1000, lo / 1000, hi / 1000, "TFLOP/s"
            lines.append(f"| {r['ceiling']} | {v:,.1f} {unit} | {lo:,.1f}–{hi:,.1f} | "
                         f"{r.get('sm_clock_mhz', '-')} |")
        lines += ["", stamp_line(root, d, [], rel(root, os.path.join(d, "ceilings.csv"))) + "."]
        out.append("\n".join(lines))
    if not out:
        raise Error("ceilings: no plots/<gpu>/ceilings.csv")
    return "\n\n".join(out)


def block_map(root):
    """The chapters in reading order: where each runs, its precision, the chapter its kernel is read
    against (tools/build/chapters.py diff_base: `// Builds on:`) and its one idea (the title)."""
    lines = ["| # | chapter | runs on | in | read against | the one new idea |",
             "|---:|---|---|---|---|---|"]
    chapters = chapter_list.load(os.path.join(root, "chapters", "chapters.txt"))
    for i, c in enumerate(chapters):
        runs = {"cpu": "the CPU", "cuda": "compute capability 7.5 and newer",
                "hopper": "compute capability 9.0 only"}.get(c.kind, c.kind)
        try:
            base = chapter_list.diff_base(chapters, i).id[:2] if i else "-"
        except (OSError, chapter_list.ListError):  # a copy without the kernels
            base = "?"
        lines.append(f"| {c.id[:2]} | [`{c.id}`](../chapters/{c.id}/) | {runs} | {c.precision} | "
                     f"{base} | {c.title} |")
    return "\n".join(lines)


def sms(root):
    """{GPU: SMs} from each GPU folder's ceilings.txt ("device 0: NAME, ..., 132 SMs at ...")."""
    out = {}
    for d in gpu_dirs(root):
        try:
            with open(os.path.join(d, "ceilings.txt")) as f:
                m = re.search(r"device \d+: ([^,]+), .*?(\d+) SMs", f.read())
        except OSError:
            m = None
        if m:
            out[m.group(1)] = int(m.group(2))
    return out


def block_waves(root, args):
    if len(args) not in (4, 5):
        raise Error("waves needs M N BM BN [PER_SM]")
    M, N, BM, BN = (int(a) for a in args[:4])
    per_sm = int(args[4]) if len(args) == 5 else 1
    tiles = -(-M // BM) * -(-N // BN)
    parts = []
    for gpu, n in sms(root).items():
        slots = n * per_sm
        parts.append(f"on the {gpu}'s {n} SMs" + (f" ({per_sm} blocks each)" if per_sm > 1 else "") +
                     f", {tiles} / {slots} = {tiles / slots:.2f} waves" +
                     (f" (the last {tiles - (tiles // slots) * slots} tiles a wave of their own)"
                      if tiles % slots and tiles > slots else ""))
    if not parts:
        raise Error("waves: no plots/<gpu>/ceilings.txt with the SM count")
    return (f"{M} x {N} in ({BM}, {BN}) tiles: {-(-M // BM)} · {-(-N // BN)} = {tiles} tiles; " +
            "; ".join(parts) + ".")


def block_partial(args):
    if len(args) != 5:
        raise Error("partial needs BM BN BK CLUSTER MIN_SLICE")
    BM, BN, BK, cluster, min_slice = (int(a) for a in args)
    partial = BM * BN * 4  # fp32
    load = (BM * BK + BK * BN) * 2  # a k-tile of fp16 A and B, per block
    pair_load = (cluster * BM * BK + BK * BN) * 2  # the cluster's blocks share B's k-tile
    kb = lambda b: f"{b // 1024} KB"
    text = (f"A ({BM}, {BN}) fp32 partial is {kb(partial)}, written once and read back once: "
            f"{kb(2 * partial)}, against a k-tile's loads of {kb(load)} (A's ({BM}, {BK}) and B's "
            f"({BK}, {BN}) halves): about {2 * partial / load:.1f} k-tiles")
    if cluster > 1:
        text += (f"; for a cluster of {cluster} sharing B's k-tile, {kb(2 * cluster * partial)} "
                 f"against {kb(pair_load)}: {2 * cluster * partial / pair_load:.1f} k-tiles")
    text += (f". A slice of MIN_SLICE = {min_slice} k-tiles, the shallowest, moves its partial's "
             f"{2 * partial / load:.1f} k-tiles on top of its {min_slice}: "
             f"{100 * 2 * partial / load / min_slice:.0f}% more than its loads")
    if cluster > 1:
        text += f" ({100 * 2 * cluster * partial / pair_load / min_slice:.0f}% for the cluster)"
    return text + "."


def block_setting(root, args):
    """A setting of the code stated in the text: `NAME = VALUE` at the start of a line of FILE."""
    if len(args) != 3 or args[2] not in UNITS:
        raise Error("setting needs FILE NAME UNIT (UNIT one of " + ", ".join(UNITS) + ")")
    path, name, unit = args
    try:
        with open(os.path.join(root, path)) as f:
            text = f.read()
    except OSError as e:
        raise Error(f"setting: {path}: {e.strerror}")
    m = re.search(rf"^\s*(?:constexpr \w+ )?{re.escape(name)}\s*=\s*([0-9.]+)", text, re.M)
    if not m:
        raise Error(f"setting: no line '{name} = NUMBER' in {path}")
    return f"`{name}` = {float(m.group(1)):g}{unit} (`{path}`)"


def generate(root, kind, args):
    if kind == "rows" and len(args) == 1:
        return block_rows(root, args[0])
    if kind == "ladder" and not args:
        return block_ladder(root)
    if kind == "table" and len(args) == 1:
        return block_table(root, args[0])
    if kind == "suite" and len(args) == 1:
        return block_suite(root, args[0])
    if kind == "ceilings" and not args:
        return block_ceilings(root)
    if kind == "map" and not args:
        return block_map(root)
    if kind == "waves":
        return block_waves(root, args)
    if kind == "partial":
        return block_partial(args)
    if kind == "setting":
        return block_setting(root, args)
    raise Error(f"no block '{kind} {' '.join(args)}' (kinds: rows, ladder, table, suite, ceilings, map, "
                "waves, partial, setting)")


# --- The Markdown files --------------------------------------------------------------------------
def markdown_files(root):
    p = subprocess.run(["git", "ls-files", "*.md"], cwd=root, capture_output=True, text=True)
    files = p.stdout.split() if p.returncode == 0 and p.stdout.strip() else None
    if files is None:  # not a git checkout (a copy): every *.md but build folders
        files = []
        for d, dirs, names in os.walk(root):
            dirs[:] = [x for x in dirs if not x.startswith((".", "build"))]
            files += [rel(root, os.path.join(d, n)) for n in names if n.endswith(".md")]
    return sorted(f for f in files if os.path.exists(os.path.join(root, f)))


def generated_page(path):
    """Result pages a tool writes (the archive is history by its place)."""
    return (path.startswith("plots/archive/") or path.startswith("plots/latest/") or
            re.match(r"plots/[^/]+/(results|sanitize)\.md$", path) is not None or
            path.endswith("/ncu/profile.md"))


def blocks(text):
    """[(kind, args, start of content, end of content)] of the file's blocks."""
    out = []
    for m in BEGIN_RE.finditer(text):
        end = text.find("\n" + END, m.end())
        if end < 0:
            raise Error(f"'{m.group(0)}' has no '{END}'")
        out.append((m.group(1), m.group(2).split(), m.end() + 1, end + 1))
    return out


def regenerate(root, text):
    """The text with every block regenerated."""
    out, pos = [], 0
    for kind, args, a, b in blocks(text):
        out += [text[pos:a], generate(root, kind, args), "\n"]
        pos = b
    return "".join(out) + text[pos:]


# --- Figures -------------------------------------------------------------------------------------
NUMBER = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
UNIT = r"%|TFLOP/s|GB/s|µs|us\b"
FIGURE_RE = re.compile(rf"(?<![\w.,/])(?:({NUMBER})\s?[–-]\s?)?({NUMBER})\s?({UNIT})")
GIT_SHOW_RE = re.compile(r"git show ([0-9a-f]{7,40}):([\w./<>*{}-]+)")
PATH_RE = re.compile(r"(?<![\w])(?:\.\./)*(plots/[\w./*<>{}-]+)")


def figures(text):
    """[(number text, unit)] of a passage: a range "A–B%" gives A and B."""
    out = []
    for m in FIGURE_RE.finditer(text):
        unit = "µs" if m.group(3) == "us" else m.group(3)
        if m.group(1):
            out.append((m.group(1), unit))
        out.append((m.group(2), unit))
    return out


def passages(text):
    """[(first line number, text)]: blocks cut out, then paragraphs, list items and fenced code."""
    lines = text.split("\n")
    # Blank out generated blocks (their numbers are the results', checked by regeneration) and
    # HTML comments.
    keep = [True] * len(lines)
    inside = False
    for i, l in enumerate(lines):
        if BEGIN_RE.match(l) or l.startswith(ladder.BEGIN_TABLE):
            inside = True
        if inside:
            keep[i] = False
        if l.strip() in (END, ladder.END_TABLE):
            inside = False
    out, cur, start, fence = [], [], 0, False
    for i, l in enumerate(lines):
        if not keep[i]:
            l = ""
        if l.startswith("```"):
            fence = not fence
        new_item = not fence and re.match(r"^\s{0,3}([-*]|\d+\.) ", l) is not None
        if (not fence and not l.strip()) or new_item:
            if cur:
                out.append((start + 1, "\n".join(cur)))
            cur, start = ([l], i) if new_item else ([], i + 1)
            continue
        if not cur:
            start = i
        cur.append(l)
    if cur:
        out.append((start + 1, "\n".join(cur)))
    return out


def citations(text):
    """(git sources [(commit, path)], plots/ paths) named in a passage."""
    git = GIT_SHOW_RE.findall(text)
    spans = [m.span() for m in GIT_SHOW_RE.finditer(text)]
    paths = [m.group(1).rstrip(".") for m in PATH_RE.finditer(text)
             if not any(a <= m.start() < b for a, b in spans)]
    return git, paths


UNITS = ("%", "TFLOP/s", "GB/s", "µs")


def column_units(name, row):
    """[(unit, scale)] a CSV column's numbers can be quoted in."""
    name = name.lower()
    if "pct" in name:
        return [("%", 1.0)]
    if "gflops" in name or (name == "value" and row.get("unit") == "GFLOPS"):
        return [("TFLOP/s", 1e-3)]
    if "gbs" in name or (name == "value" and row.get("unit") == "GB/s"):
        return [("GB/s", 1.0)]
    if name.startswith("ms") or name.endswith("_ms_median") or name.endswith("_ms"):
        return [("µs", 1e3)]
    if name.endswith("_us") or name == "us":
        return [("µs", 1.0)]
    if name in ("min", "max"):
        return [("TFLOP/s", 1e-3) if row.get("unit") == "GFLOPS" else ("GB/s", 1.0)]
    return []


def numbers_of(text, is_csv):
    """{unit: [values]}: a CSV's numbers by their column, other text's numbers as any unit (a
    GFLOPS or ms number also as TFLOP/s or µs, an ns number as µs)."""
    out = {u: [] for u in UNITS}
    # Nsight Compute's --csv output: the profiled program's own lines, then one row per metric;
    # a kernel's time ("Metric Unit" ns, us or ms) can be quoted in µs, a percentage metric in %.
    ncu_at = text.find('"ID","Process ID"') if is_csv else -1
    if ncu_at >= 0:
        scale = {"ns": 1e-3, "nsecond": 1e-3, "us": 1.0, "usecond": 1.0, "ms": 1e3, "msecond": 1e3}
        for row in csv.DictReader(io.StringIO(text[ncu_at:])):
            x = num((row.get("Metric Value") or "").replace(",", ""))
            if x is not None and row.get("Metric Unit") in scale:
                out["µs"].append(x * scale[row["Metric Unit"]])
            elif x is not None and row.get("Metric Unit") == "%":
                out["%"].append(x)
        return out
    if is_csv:
        try:
            rows = list(csv.DictReader(io.StringIO(text)))
        except csv.Error:
            rows = None
        if rows is not None:
            for row in rows:
                for name, cell in row.items():
                    x = num(cell)
                    if x is None or name is None:
                        continue
                    for unit, scale in column_units(name, row):
                        out[unit].append(x * scale)
            return out
    for t in re.findall(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?(?:[eE][+-]?\d+)?", text):
        x = float(t.replace(",", ""))
        for u in UNITS:
            out[u].append(x)
        out["TFLOP/s"].append(x / 1000.0)
        out["µs"].append(x * 1000.0)
        out["µs"].append(x / 1000.0)  # ns, as Nsight Compute gives a kernel's time
    return out


def merge(into, more):
    for u, vs in more.items():
        into.setdefault(u, []).extend(vs)
    return into


class Sources:
    """The numbers of cited files, read once."""

    def __init__(self, root):
        self.root, self.cache, self.notes = root, {}, []

    def shallow(self):
        p = subprocess.run(["git", "-C", self.root, "rev-parse", "--is-shallow-repository"],
                           capture_output=True, text=True)
        return p.returncode != 0 or p.stdout.strip() != "false"  # no git, or a shallow clone

    def _git(self, commit, path):
        p = subprocess.run(["git", "-C", self.root, "cat-file", "-e", f"{commit}^{{commit}}"],
                           capture_output=True)
        if p.returncode != 0:
            return None  # not in this checkout
        if re.search(r"[<>*{}]", path):  # a pattern: the folder before it
            path = path[:re.search(r"[<>*{}]", path).start()].rsplit("/", 1)[0]
        ls = subprocess.run(["git", "-C", self.root, "ls-tree", "-r", "--name-only", commit, "--",
                             path], capture_output=True, text=True)
        vals = {}
        for name in ls.stdout.split()[:400]:
            if name.endswith((".csv", ".txt", ".md", ".log")):
                show = subprocess.run(["git", "-C", self.root, "show", f"{commit}:{name}"],
                                      capture_output=True, text=True, errors="replace")
                merge(vals, numbers_of(show.stdout, name.endswith(".csv")))
        return vals

    def _file(self, path):
        full = os.path.join(self.root, path)
        if re.search(r"[<>*{}]", path):
            full = os.path.join(self.root, path[:re.search(r"[<>*{}]", path).start()])
            full = full if os.path.isdir(full) else os.path.dirname(full)
        names = []
        if os.path.isdir(full):
            for d, _, fs in os.walk(full):
                names += [os.path.join(d, f) for f in sorted(fs)]
        elif os.path.exists(full):
            names = [full]
        vals = {}
        for name in names[:400]:
            if name.endswith((".csv", ".txt", ".md", ".log")):
                with open(name, errors="replace") as f:
                    merge(vals, numbers_of(f.read(), name.endswith(".csv")))
        return vals if names else None

    def values(self, key):
        if key not in self.cache:
            self.cache[key] = self._git(*key) if isinstance(key, tuple) else self._file(key)
        return self.cache[key]


def matches(figure, values):
    """The figure is one of the values of its unit at its precision (a whole number ending in 0
    also at its significant digits: "about 600")."""
    text, unit = figure
    v = float(text.replace(",", ""))
    decimals = len(text.split(".")[1]) if "." in text else 0
    sig = len(text.replace(",", "").rstrip("0")) if decimals == 0 and text.endswith("0") else 0
    for c in values.get(unit, []):
        if abs(c - v) <= 0.5 * 10 ** -decimals + 1e-9:
            return True
        if sig and c > 0 and float(f"{c:.{sig}g}") == v:
            return True
    return False


def figure_key(path, figs):
    return f"{path} | " + " ".join(f"{t}{u}" for t, u in figs)


def read_unsourced(root):
    try:
        with open(os.path.join(root, UNSOURCED)) as f:
            return [l.rstrip("\n") for l in f if l.strip() and not l.startswith("#")]
    except OSError:
        return []


def check_figures(root, report=None):
    """(problems, unsourced keys) over every Markdown file."""
    sources = Sources(root)
    problems, unsourced = [], []
    listed = read_unsourced(root)
    remaining = list(listed)
    for path in markdown_files(root):
        if generated_page(path):
            continue
        with open(os.path.join(root, path), errors="replace") as f:
            text = f.read()
        ps = passages(text)
        section_git, after_heading = [], False
        for i, (line, body) in enumerate(ps):
            # A section's history source: the `git show` citations of the first passage after
            # its heading (docs/history.md: "Moved from ... (in place: `git show C:P`)") hold for
            # every passage of the section.
            if body.lstrip().startswith("#"):
                section_git, after_heading = [], True
                continue
            if after_heading:
                section_git, after_heading = citations(body)[0], False
            figs = figures(body)
            if not figs:
                continue
            git, paths = citations(body)
            git = git + [c for c in section_git if c not in git]
            if body.lstrip().startswith("|"):  # a table: its caption before and after
                for j in (i - 1, i + 1):
                    if 0 <= j < len(ps):
                        g2, p2 = citations(ps[j][1])
                        git, paths = git + g2, paths + p2
            values, cited, unreadable = {}, False, []
            for commit, p in git:
                cited = True
                v = sources.values((commit, p))
                if v is None:
                    unreadable.append(f"git show {commit}:{p}")
                else:
                    merge(values, v)
            for p in paths:
                v = sources.values(p)
                if v is not None:
                    cited = True
                    merge(values, v)
            bad = [f for f in figs if not matches(f, values)] if cited else figs
            if unreadable and not sources.shallow():
                problems.append(f"{path}:{line}: cites {', '.join(unreadable)}: the commit is not "
                                "in this repository")
            elif unreadable and bad:
                sources.notes.append(f"{path}:{line}: cited {', '.join(unreadable)}, not in this "
                                     "shallow checkout: taken as cited")
                bad = []
            verdict = "ok" if not bad else "unsourced"
            key = figure_key(path, figs)
            listed_here = key in remaining  # a line of the list is used wherever its passage is
            if listed_here:
                remaining.remove(key)
            if bad:
                if listed_here:
                    verdict = "listed"
                else:
                    unsourced.append(key)
                    problems.append(
                        f"{path}:{line}: " + ", ".join(f"{t}{u}" for t, u in bad) +
                        (" not in the cited " + ", ".join([f"git show {c}:{p}" for c, p in git] +
                                                          paths) if cited else
                         " cite no source") +
                        ": put the figure in a generated block (tools/reporting/text_numbers.py), cite the "
                        "file it comes from (history: `git show COMMIT:PATH`), or correct it")
            if report is not None:
                report.append(f"{path}:{line}: {verdict}: " + " ".join(f"{t}{u}" for t, u in figs))
    for key in remaining:
        problems.append(f"{UNSOURCED}: '{key}' is no longer a passage of the text with exactly these "
                        "figures: remove the line (the list only shrinks)")
    return problems, unsourced, sources.notes


def check_blocks(root):
    problems = []
    for path in markdown_files(root):
        with open(os.path.join(root, path), errors="replace") as f:
            text = f.read()
        try:
            if blocks(text) and regenerate(root, text) != text:
                problems.append(f"{path}: a generated block is not what the committed results make "
                                "(python3 -m tools.reporting.text_numbers --write)")
        except Error as e:
            problems.append(f"{path}: {e}")
    return problems


def write(root):
    n = 0
    for path in markdown_files(root):
        full = os.path.join(root, path)
        with open(full, errors="replace") as f:
            text = f.read()
        if not blocks(text):
            continue
        new = regenerate(root, text)
        if new != text:
            with open(full, "w") as f:
                f.write(new)
            n += 1
            print(f"wrote {path}")
    print(f"text_numbers: {n} file(s) regenerated")


def main(argv):
    root = os.environ.get("GEMM_SOURCE_ROOT") or chapter_list.ROOT
    if "--root" in argv:
        i = argv.index("--root")
        root, argv = argv[i + 1], argv[:i] + argv[i + 2:]
    root = os.path.abspath(root)
    try:
        if argv == ["--write"]:
            write(root)
            return 0
        if argv == ["--check"]:
            problems = check_blocks(root)
            figs, _, notes = check_figures(root)
            for n in notes:
                print("note:", n)
            for p in problems + figs:
                print("FAIL:", p)
            print(f"text_numbers: {len(problems + figs)} problem(s)")
            return 1 if problems or figs else 0
        if argv[:1] == ["--figures"]:
            report = []
            check_figures(root, report)
            for r in report:
                if len(argv) == 1 or any(r.startswith(a + ":") for a in argv[1:]):
                    print(r)
            return 0
        if argv == ["--unsourced"]:
            _, unsourced, _ = check_figures(root)
            print("\n".join(unsourced))
            return 0
    except Error as e:
        print(f"text_numbers.py: error: {e}", file=sys.stderr)
        return 2
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

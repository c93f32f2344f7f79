#!/usr/bin/env python3
"""The ladder run's bookkeeping (tools/gpu_session.sh ladder): plan, profile table, stamp, check.

    tools/ladder.py plan [--steps LIST] [--rounds N] [--sizes LIST] [--chapters IDS] [--from DIR]
        the napkin time of each step of a ladder run, from the chapter list (sizes, kinds) and the
        rates an earlier run measured (the CSVs in DIR, default plots/*/ and plots/archive/)
    tools/ladder.py suites
        the chapters whose shape suite the ladder runs: the last fp16 and the last fp8 chapter
    tools/ladder.py metrics [--available FILE]
        the Nsight Compute metric list of the ladder's profile (one line, comma-separated); with
        FILE (the output of `ncu --query-metrics`), only the metrics it lists
    tools/ladder.py profile DIR
        DIR/ncu/<chapter>.csv (ncu --csv --print-units base) -> DIR/ncu/profile.csv and profile.md:
        one row per chapter, its longest kernel: tensor and FMA pipe busy, issue active, L2 and
        DRAM bytes, achieved occupancy and the two largest stall reasons
    tools/ladder.py stamp DIR [COMMAND...]
        DIR/stamp.txt: the commit, whether the tree was dirty, the date, the GPU and the command
    tools/ladder.py check DIR
        every CSV under DIR that has a commit column names the stamp's commit, clean: exit 1 if not

Everything is read from the chapter list (tools/chapters.py): no chapter id is written here.
Exit: 0 done, 1 check failed, 2 a bad command line or input.
"""
import csv
import glob
import math
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import chapters as chapter_list  # noqa: E402

ROOT = chapter_list.ROOT

# Nsight Compute metrics of the ladder's profile (docs/profiling.md explains each).
METRICS = {
    "tensor_pct": "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active",
    "fma_pct": "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active",
    "issue_pct": "smsp__issue_active.avg.pct_of_peak_sustained_active",
    "l2_bytes": "lts__t_bytes.sum",
    "dram_read_bytes": "dram__bytes_read.sum",
    "dram_write_bytes": "dram__bytes_write.sum",
    "occupancy_pct": "sm__warps_active.avg.pct_of_peak_sustained_active",
    "time_us": "gpu__time_duration.sum",
}
# The stall reasons of compute capability 9.0 (smsp__warp_issue_stalled_<reason>_per_warp_active.pct:
# the share of a resident warp's cycles stalled for that reason). `selected` is a warp issuing, not
# a stall: collected, never ranked.
STALLS = ["barrier", "branch_resolving", "dispatch_stall", "drain", "gmma", "imc_miss",
          "lg_throttle", "long_scoreboard", "math_pipe_throttle", "membar", "mio_throttle", "misc",
          "no_instruction", "not_selected", "selected", "short_scoreboard", "sleeping",
          "tex_throttle", "wait"]
STALL_METRIC = "smsp__warp_issue_stalled_{}_per_warp_active.pct"
PROFILE_COLUMNS = (["chapter", "kernel", "kernels", "size"] + list(METRICS) +
                   ["stall_1", "stall_1_pct", "stall_2", "stall_2_pct", "commit"])

# Napkin constants of `plan` (seconds): what a step costs besides the GEMMs it times.
PROCESS_S = 5.0  # a chapter process: CUDA context, cuBLAS handle, inputs
RUN_OVERHEAD_S = 60e-6  # an L2 flush and a launch per timed run
REFERENCE_MACS_PER_S = 2e9  # the double-precision CPU reference (full check up to 2^30)
NCU_PROCESS_S = 15.0  # ncu's start, its replay passes of the few kernels of one launch
SUITE_S = 90.0  # the fp16 suite on the H200 (docs/shapes.md)
CEILINGS_S = 25.0  # tools/ceilings: 1 s warm-up + 2 s per ceiling, and its set-up
BUILD_S = 120.0  # meson setup + ninja for one architecture on 16 cores
GUESS_GFLOPS = {"cpu": 50.0, "fp32": 20000.0, "fp16": 300000.0, "fp8": 600000.0}


class InputError(Exception):
    pass


def shape_of(text):
    dims = [int(d) for d in text.split("x")]
    return tuple(dims * 3 if len(dims) == 1 else dims)


def rates(dirs):
    """{(chapter, (M, N, K)): (chapter GFLOPS, yardstick GFLOPS)} from earlier results CSVs."""
    found = {}
    files = []
    for d in dirs:
        files += sorted(glob.glob(os.path.join(d, "**", "[0-9][0-9]_*.csv"), recursive=True))
    for path in files:
        try:
            with open(path, newline="") as f:
                for row in csv.DictReader(f):
                    try:
                        key = (row["chapter"], (int(row["M"]), int(row["N"]), int(row["K"])))
                        g = float(row["gflops"])
                        y = float(row.get("yardstick_gflops") or 0)
                    except (KeyError, ValueError, TypeError):
                        continue
                    if g > 0:
                        found[key] = (g, y)
        except (OSError, csv.Error, UnicodeDecodeError):
            continue
    return found


def bench_seconds(c, sizes, rounds, known, reps=10, warmup=3):
    """(seconds, how many sizes had a measured rate) for one chapter at its sizes."""
    total, measured = PROCESS_S, 0
    for text in sizes:
        M, N, K = shape_of(text)
        flop = 2.0 * M * N * K
        g, y = known.get((c.id, (M, N, K)), (0.0, 0.0))
        if g > 0:
            measured += 1
        else:
            g = GUESS_GFLOPS["cpu" if c.kind == "cpu" else c.precision]
        y = y or g
        per_run = flop / (g * 1e9) + flop / (y * 1e9) + RUN_OVERHEAD_S
        runs = warmup + (rounds * reps if c.kind != "cpu" else rounds * 3)
        check = M * N * K / REFERENCE_MACS_PER_S if M * N * K <= 1 << 30 else 1.0
        total += runs * per_run + check
    return total, measured


def plan(args):
    steps = ["build", "bench", "suites", "ceilings", "ncu", "plot"]
    rounds, sizes, ids, dirs = 5, None, None, None
    while args:
        a = args.pop(0)
        if a in ("--steps", "--rounds", "--sizes", "--chapters", "--from") and not args:
            raise InputError(f"{a} needs a value")
        if a == "--steps":
            steps = [s for s in args.pop(0).replace(",", " ").split() if s]
        elif a == "--rounds":
            try:
                rounds = int(args.pop(0))
            except ValueError:
                raise InputError("--rounds: expected a whole number")
            if rounds < 1:
                raise InputError("--rounds: at least 1")
        elif a == "--sizes":
            sizes = [s for s in args.pop(0).split(",") if s]
            for s in sizes:
                try:
                    shape_of(s)
                except ValueError:
                    raise InputError(f"--sizes: '{s}' is not N or MxNxK")
        elif a == "--chapters":
            ids = args.pop(0).replace(",", " ").split()
        elif a == "--from":
            dirs = [args.pop(0)]
        else:
            raise InputError(f"plan: unknown argument '{a}'")
    chapters = chapter_list.load()
    if ids:
        chosen = [c for c in chapters if c.id in ids or c.id[:2] in ids]
        unknown = [i for i in ids if not any(c.id == i or c.id[:2] == i for c in chapters)]
        if unknown:
            raise InputError(f"--chapters: no chapter {', '.join(unknown)}")
        chapters = chosen
    known = rates(dirs or [os.path.join(ROOT, "plots")])
    gpu = [c for c in chapters if c.kind != "cpu"]
    rows, total = [], 0.0
    for step in steps:
        if step == "build":
            s, how = BUILD_S, "napkin: one architecture on 16 cores"
        elif step == "bench":
            s, measured, n = 0.0, 0, 0
            for c in chapters:
                mine = c.sizes if (sizes is None or c.kind == "cpu") else sizes
                t, m = bench_seconds(c, mine, rounds, known)
                s += t
                measured += m
                n += len(mine)
            how = (f"{len(chapters)} chapters, {n} sizes, {rounds} rounds; rates of {measured} of "
                   f"the {n} sizes from an earlier run, the rest guessed")
        elif step == "suites":
            picked = suite_chapters(chapter_list.load())
            s, how = SUITE_S * len(picked), "napkin per suite: " + ", ".join(picked)
        elif step == "ceilings":
            s, how = CEILINGS_S, "napkin: 5 ceilings of about 3 s, set-up"
        elif step == "ncu":
            s = NCU_PROCESS_S * len(gpu) + sum(
                bench_seconds(c, ["4096"], 1, known, reps=1, warmup=0)[0] - PROCESS_S for c in gpu)
            how = f"napkin: {len(gpu)} GPU chapters at 4096, one launch each"
        elif step == "plot":
            s, how = 20.0, "napkin: tools/plot.py on the folder"
        else:
            raise InputError(f"plan: no step '{step}' (steps: build bench suites ceilings ncu plot)")
        rows.append((step, s, how))
        total += s
    for step, s, how in rows:
        print(f"{step:9s} ~{minutes(s):>8s}  ({how})")
    print(f"{'total':9s} ~{minutes(total):>8s}  (the device allows 10 min a command: split the "
          f"steps over commands where the total is above)")


def minutes(s):
    return f"{int(s // 60)} min {int(s % 60):02d} s" if s >= 60 else f"{math.ceil(s)} s"


def suite_chapters(chapters):
    """The last fp16 and the last fp8 GPU chapter of the list: the suite's chapters."""
    out = []
    for precision in ("fp16", "fp8"):
        mine = [c.id for c in chapters if c.kind != "cpu" and c.precision == precision]
        if mine:
            out.append(mine[-1])
    return out


def metric_list(available=None):
    """The metrics, less those whose base name `ncu --query-metrics` (the file `available`) does
    not list: an unknown metric would stop ncu. An empty or unreadable list keeps them all."""
    names = list(METRICS.values()) + [STALL_METRIC.format(s) for s in STALLS]
    listed = ""
    if available:
        try:
            with open(available, errors="replace") as f:
                listed = f.read()
        except OSError:
            pass
    bases = {w for w in listed.split() if "__" in w}
    if bases:
        names = [n for n in names if n.split(".")[0] in bases]
    return ",".join(names)


# --- The profile table --------------------------------------------------------------------------
def value_of(text):
    text = (text or "").replace(",", "").strip()
    try:
        v = float(text)
    except ValueError:
        return None
    return v if math.isfinite(v) else None


def read_ncu_csv(path):
    """{kernel id: (kernel name, {metric: value})} from an ncu --csv log (its other lines skipped)."""
    with open(path, newline="", errors="replace") as f:
        lines = f.read().splitlines()
    start = next((i for i, l in enumerate(lines) if l.startswith('"ID",')), None)
    if start is None:
        raise InputError(f"{path}: no ncu CSV header (\"ID\",...): did ncu profile anything?")
    kernels = {}
    for row in csv.DictReader(lines[start:]):
        kid = row.get("ID")
        name, metric = row.get("Kernel Name", ""), row.get("Metric Name", "")
        if kid is None or not metric:
            continue
        unit = (row.get("Metric Unit") or "").strip()
        v = value_of(row.get("Metric Value"))
        if v is not None and unit in ("nsecond", "ns") and metric == METRICS["time_us"]:
            v /= 1000.0
        elif v is not None and unit in ("usecond", "us") and metric == METRICS["time_us"]:
            pass
        elif v is not None and unit and unit not in ("%", "byte", "") and metric != METRICS[
                "time_us"]:
            raise InputError(f"{path}: {metric} is in '{unit}', not a base unit "
                             f"(run ncu with --print-units base)")
        kernels.setdefault(kid, [name, {}])[1][metric] = v
    return {k: (n, m) for k, (n, m) in kernels.items()}


def profile_row(chapter, kernels, commit=""):
    """The chapter's row: its longest kernel's metrics and two largest stall reasons."""
    timed = [(m.get(METRICS["time_us"]) or 0.0, n, m) for n, m in kernels.values()]
    if not timed:
        raise InputError(f"{chapter}: no kernel in the profile")
    _, name, m = max(timed, key=lambda t: t[0])
    row = {"chapter": chapter, "kernel": name.split("(")[0].split("<")[0].strip() or name,
           "kernels": len(kernels), "size": "4096", "commit": commit}
    for key, metric in METRICS.items():
        row[key] = m.get(metric)
    stalls = sorted(((m.get(STALL_METRIC.format(s)) or 0.0, s) for s in STALLS
                     if s != "selected" and m.get(STALL_METRIC.format(s)) is not None),
                    reverse=True)
    for i in (1, 2):
        pct, reason = stalls[i - 1] if len(stalls) >= i else (None, "")
        row[f"stall_{i}"], row[f"stall_{i}_pct"] = reason, pct
    return row


def fmt(v, kind):
    if v is None or v == "":
        return "-"
    if kind == "pct":
        return f"{v:.1f}%"
    if kind == "bytes":
        return f"{v / 1e9:.2f} GB"
    if kind == "us":
        return f"{v:,.0f} µs"
    return str(v)


def profile(directory):
    ncu_dir = os.path.join(directory, "ncu")
    stamp = read_stamp(directory)
    order = [c.id for c in chapter_list.load()]
    files = {os.path.splitext(os.path.basename(p))[0]: p
             for p in glob.glob(os.path.join(ncu_dir, "*.csv")) if not p.endswith("profile.csv")}
    if not files:
        raise InputError(f"{ncu_dir}: no ncu CSV (tools/gpu_session.sh ncu_ladder writes them)")
    rows, problems = [], []
    for ch in sorted(files, key=lambda c: order.index(c) if c in order else len(order)):
        try:
            rows.append(profile_row(ch, read_ncu_csv(files[ch]), stamp.get("commit", "")))
        except InputError as e:
            problems.append(str(e))
    with open(os.path.join(ncu_dir, "profile.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=PROFILE_COLUMNS)
        w.writeheader()
        for r in rows:
            w.writerow({k: ("" if r[k] is None else r[k]) for k in PROFILE_COLUMNS})
    lines = ["| chapter | kernel | tensor pipe | FMA pipe | issue active | L2 bytes | DRAM read + "
             "write | occupancy | top stalls |", "|---|---|---:|---:|---:|---:|---:|---:|---|"]
    for r in rows:
        stalls = ", ".join(f"{r[f'stall_{i}']} {fmt(r[f'stall_{i}_pct'], 'pct')}"
                           for i in (1, 2) if r[f"stall_{i}"])
        dram = None if r["dram_read_bytes"] is None else (r["dram_read_bytes"] +
                                                          (r["dram_write_bytes"] or 0))
        lines.append(f"| {r['chapter']} | `{r['kernel']}` | {fmt(r['tensor_pct'], 'pct')} | "
                     f"{fmt(r['fma_pct'], 'pct')} | {fmt(r['issue_pct'], 'pct')} | "
                     f"{fmt(r['l2_bytes'], 'bytes')} | {fmt(dram, 'bytes')} | "
                     f"{fmt(r['occupancy_pct'], 'pct')} | {stalls or '-'} |")
    head = (f"# Nsight Compute at 4096, every GPU chapter\n\nOne launch of each chapter "
            f"(`--sizes 4096 --reps 1 --warmup 0 --no-baseline --check off --l2-flush off`), its "
            f"longest kernel; written by `tools/ladder.py profile` from `ncu/*.csv`"
            + (f", commit {stamp['commit']}" if stamp.get("commit") else "") + ".\n\n")
    with open(os.path.join(ncu_dir, "profile.md"), "w") as f:
        f.write(head + "\n".join(lines) + "\n")
    for p in problems:
        print(f"ladder.py: {p}", file=sys.stderr)
    print(f"wrote {os.path.join(ncu_dir, 'profile.csv')} and profile.md: {len(rows)} chapters"
          + (f", {len(problems)} without a profile" if problems else ""))


# --- Stamp and check ----------------------------------------------------------------------------
def git(*args):
    p = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True)
    return p.stdout.strip() if p.returncode == 0 else ""


def stamp(directory, command):
    os.makedirs(directory, exist_ok=True)
    commit = git("rev-parse", "HEAD") or "unknown"
    dirty = "yes" if git("status", "--porcelain", "--untracked-files=no") else "no"
    if commit == "unknown":
        dirty = "unknown"
    gpu = ""
    try:
        gpu = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,"
                              "noheader"], capture_output=True, text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        pass
    with open(os.path.join(directory, "stamp.txt"), "w") as f:
        f.write(f"commit={commit}\ndirty={dirty}\n"
                f"date={time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())}\n"
                f"gpu={gpu or 'unknown'}\ncommand={' '.join(command)}\n")
    print(f"stamp: commit {commit[:12]}, dirty {dirty}, gpu {gpu or 'unknown'}")


def read_stamp(directory):
    out = {}
    try:
        with open(os.path.join(directory, "stamp.txt")) as f:
            for line in f:
                if "=" in line:
                    k, v = line.rstrip("\n").split("=", 1)
                    out[k] = v
    except OSError:
        pass
    return out


def check(directory):
    """Every CSV with a commit column names the stamp's commit, and a clean tree."""
    s = read_stamp(directory)
    if not s.get("commit"):
        raise InputError(f"{directory}: no stamp.txt with a commit (tools/ladder.py stamp)")
    bad, checked = [], 0
    for path in sorted(glob.glob(os.path.join(directory, "**", "*.csv"), recursive=True)):
        try:
            with open(path, newline="") as f:
                rows = list(csv.DictReader(f))
        except (OSError, csv.Error, UnicodeDecodeError):
            continue
        if not rows or "commit" not in rows[0]:
            continue
        checked += 1
        commits = {(r.get("commit") or "").strip() for r in rows} - {""}
        dirty = {(r.get("dirty") or "").strip().lower() for r in rows} - {"", "no", "false", "0"}
        if commits and any(not s["commit"].startswith(c) and not c.startswith(s["commit"])
                           for c in commits):
            bad.append(f"{path}: commit {', '.join(sorted(commits))}, the stamp says "
                       f"{s['commit']}")
        if dirty:
            bad.append(f"{path}: made from a dirty tree (dirty = {', '.join(sorted(dirty))})")
    for b in bad:
        print("ladder.py: " + b, file=sys.stderr)
    print(f"check: {checked} CSV(s) with a commit column, {len(bad)} problem(s)")
    return 1 if bad else 0


def main(argv):
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    cmd, args = argv[0], list(argv[1:])
    try:
        if cmd == "plan":
            plan(args)
        elif cmd == "suites" and not args:
            print("\n".join(suite_chapters(chapter_list.load())))
        elif cmd == "metrics" and (not args or (len(args) == 2 and args[0] == "--available")):
            print(metric_list(args[1] if args else None))
        elif cmd == "profile" and len(args) == 1:
            profile(args[0])
        elif cmd == "stamp" and args:
            stamp(args[0], args[1:])
        elif cmd == "check" and len(args) == 1:
            return check(args[0])
        else:
            raise InputError(f"bad command line: {' '.join(argv)}\n{__doc__}")
    except (InputError, chapter_list.ListError) as e:
        print(f"ladder.py: error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

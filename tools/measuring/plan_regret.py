#!/usr/bin/env python3
"""Chapter 19's cost model against every plan, measured: what the dispatcher's choice misses.

    python3 -m tools.measuring.plan_regret run BINARY --shapes FILE --out DIR [--rounds R]
                                             [--sms S] [--costs-tool PROGRAM]
    python3 -m tools.measuring.plan_regret table DIR [--costs CSV]
    python3 -m tools.measuring.plan_regret fit DIR [--costs CSV]

run: the chapter 19 binary once per plan (GEMM_PLAN=KERNEL/TILE, every kernel times every tile),
each over every shape of FILE (the suite's format, tools/measuring/suite_shapes.txt) with the
harness's protocol (`--sizes ... --rounds R --out DIR/KERNEL/TILE`, through suite.py's
run_chapter), then once plain (DIR/chosen: the plan choose() picks); first it writes
DIR/costs.csv, every plan's price and its terms from `dispatch_costs --all S` (default: the
tools/dispatch_costs beside the binary's build; S the SM count, 132 on the H200 and H100).
A shape gemm() sends to chapter 18 (small_m) is refused: its plain run is not a plan.

table: per shape, the plan the model chooses and its time and % of cuBLAS (in its own GEMM_PLAN
run; the plain run's % beside it), the fastest measured plan and its %, the regret (the chosen
plan's time over the fastest's) and where the model ranks the fastest among the plans it prices
("not tried": a tile choose() does not try at that M). Summary: the geomean % of the chosen plans
against the fastest ones, the geomean regret, the shapes above 5 % regret. Written to
DIR/regret.txt and DIR/regret.csv too. A plan whose check failed is never the fastest.

fit: the constants of chapters/19_dispatcher/costs.hpp that the terms expose (KTILE of rows128,
n128 and n64 -- cluster2's is the unit --, SPLIT_FIXED, PARTIAL_PER_MB, SK_FIXED, PIECE, SCATTERED),
by coordinate search: each constant in turn over its value times 2^(i/4), i = -8..8, keeping the
value that lowers the geomean regret of the plans the model then chooses (ties: the lower
least-squares misfit of log(time) against log(cost) + a constant over every priced plan, then the
smaller change), until a pass changes nothing. Prints the proposed constants beside costs.hpp's and
the regret before and after; it changes no file. With a dozen shapes and eight constants the fit
can overfit: it also prints the regret of each shape chosen by constants fitted without it (leave
one out); check the proposal on shapes outside DIR before adopting it.

Exit: 0 done, 1 a plan's run stopped or a check failed (run), 2 a bad command line or input,
77 no usable GPU (the chapter's).
"""
import argparse
import contextlib
import csv
import math
import os
import subprocess
import sys
import time

from tools.measuring import suite

KERNELS = ("whole", "split_k", "stream_k", "hybrid")
TILES = ("cluster2", "rows128", "n128", "n64")
PLANS = tuple(f"{k}/{t}" for k in KERNELS for t in TILES)
TERMS = ("path", "scattered", "split_fixed", "partial_mb", "sk_fixed", "piece_partials")
# The constants fit changes (KTILE_cluster2 = 1 is the unit of cost).
FITTED = ("KTILE_rows128", "KTILE_n128", "KTILE_n64", "SPLIT_FIXED", "PARTIAL_PER_MB", "SK_FIXED",
          "PIECE", "SCATTERED")
TIMING = ("M", "N", "K", "ms_median", "pct_of_yardstick", "pct_min", "pct_max", "pass")
REGRET_LIMIT = 1.05


class InputError(Exception):
    """A bad command line or input: the message on stderr, exit 2."""


# --- The model's prices (dispatch_costs --all) ---------------------------------------------------
def read_constants(line, path):
    """{name: value} of the `# constants: KTILE=a,b,c,d NAME=v ...; sms=S` line."""
    body = line.split(":", 1)[1].split(";")[0].split()
    out = {}
    try:
        for item in body:
            name, value = item.split("=")
            if name == "KTILE":
                values = value.split(",")
                if len(values) != len(TILES):
                    raise ValueError(value)
                for tile, v in zip(TILES, values):
                    out["KTILE_" + tile] = float(v)
            else:
                out[name] = float(value)
    except ValueError:
        raise InputError(f"{path}: cannot read the constants line '{line.strip()}'")
    missing = set(FITTED + ("KTILE_cluster2",)) - set(out)
    if missing:
        raise InputError(f"{path}: the constants line lacks {', '.join(sorted(missing))}")
    return out


def cost_of(row, c):
    """plan_cost from its terms (the formula dispatch_costs --all prints and checks)."""
    if row["terms"] is None:
        return math.inf
    t = row["terms"]
    tile = row["plan"].split("/")[1]
    return (c["KTILE_" + tile] * (t["path"] + c["SCATTERED"] * t["scattered"]) +
            c["SPLIT_FIXED"] * t["split_fixed"] + c["PARTIAL_PER_MB"] * t["partial_mb"] +
            c["SK_FIXED"] * t["sk_fixed"] + c["PIECE"] * t["piece_partials"])


def read_costs(path):
    """(constants, {shape: [plan rows in choose()'s order]}) of a dispatch_costs --all CSV."""
    try:
        with open(path) as f:
            lines = f.read().splitlines()
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(f"{path}: cannot read the costs ({getattr(e, 'strerror', e)}); "
                         f"`run` writes it, or dispatch_costs --all")
    if not lines or not lines[0].startswith("# constants:"):
        raise InputError(f"{path}: not dispatch_costs --all output (no '# constants:' line)")
    constants = read_constants(lines[0], path)
    reader = csv.DictReader(lines[1:])
    need = {"shape", "plan", "candidate", "chosen", "small_m", "cost", *TERMS}
    if not need <= set(reader.fieldnames or []):
        raise InputError(f"{path}: columns {', '.join(sorted(need - set(reader.fieldnames or [])))} "
                         f"missing")
    shapes = {}
    for n, r in enumerate(reader, start=3):
        try:
            if r["plan"] not in PLANS:
                raise ValueError(f"plan '{r['plan']}'")
            none = r["cost"] == "inf"
            row = {"plan": r["plan"], "candidate": r["candidate"] == "1",
                   "chosen": r["chosen"] == "1", "small_m": r["small_m"] == "1",
                   "cost": math.inf if none else float(r["cost"]),
                   "terms": None if none else {t: float(r[t]) for t in TERMS}}
        except (ValueError, TypeError) as e:
            raise InputError(f"{path}:{n}: cannot read the row ({e})")
        if not none and abs(cost_of(row, constants) - row["cost"]) > 1e-6 * row["cost"]:
            raise InputError(f"{path}:{n}: {r['shape']} {r['plan']}: the terms do not give the "
                             f"cost {row['cost']} with the constants of line 1")
        shapes.setdefault(r["shape"], []).append(row)
    if not shapes:
        raise InputError(f"{path}: no shapes")
    for shape, rows in shapes.items():
        chosen = [r["plan"] for r in rows if r["chosen"]]
        if len(chosen) != 1 or choose(rows, constants) != chosen[0]:
            raise InputError(f"{path}: {shape}: the plan marked chosen ({', '.join(chosen) or 'none'}) "
                             f"is not the first cheapest candidate")
    return constants, shapes


def choose(rows, c):
    """The plan choose() picks with constants `c`: the first of the cheapest candidates."""
    best = None
    for r in rows:
        if r["candidate"] and (best is None or cost_of(r, c) < cost_of(best, c)):
            best = r
    return best["plan"]


# --- The measurements -----------------------------------------------------------------------------
def read_timings(folder):
    """{shape: row} of one run's harness CSV in `folder` (suite.read_raw), {} if none."""
    header, rows, _ = suite.read_raw(folder)
    if not rows:
        return {}
    missing = [c for c in TIMING if c not in header]
    if missing:
        raise InputError(f"{folder}: the CSV lacks {', '.join(missing)}")
    out = {}
    for r in rows:
        shape = f"{r['M']}x{r['N']}x{r['K']}"
        ms = suite.number(r, "ms_median")
        if ms <= 0:
            raise InputError(f"{folder}: {shape}: ms_median '{r['ms_median']}' is not a time")
        out[shape] = {"ms": ms, "pct": suite.number(r, "pct_of_yardstick"),
                      "pct_min": suite.number(r, "pct_min"), "pct_max": suite.number(r, "pct_max"),
                      "pass": (r.get("pass") or "true").strip().lower() != "false"}
    return out


def read_dir(folder, costs_path):
    if not os.path.isdir(folder):
        raise InputError(f"{folder}: no such directory")
    constants, shapes = read_costs(costs_path or os.path.join(folder, "costs.csv"))
    measured = {p: read_timings(os.path.join(folder, *p.split("/"))) for p in PLANS}
    measured = {p: m for p, m in measured.items() if m}
    if not measured:
        raise InputError(f"{folder}: no plan measured (expected KERNEL/TILE/*.csv from `run`)")
    plain = read_timings(os.path.join(folder, "chosen"))
    return constants, shapes, measured, plain


def fastest(shape, measured):
    """(plan, timing) of the fastest measured plan whose check passed, or (None, None)."""
    times = [(m[shape]["ms"], p) for p, m in measured.items() if shape in m and m[shape]["pass"]]
    if not times:
        return None, None
    p = min(times)[1]
    return p, measured[p][shape]


# --- table -------------------------------------------------------------------------------------------
def regret_rows(shapes, measured, plain, constants):
    out = []
    for shape, rows in shapes.items():
        chosen = choose(rows, constants)
        best, best_t = fastest(shape, measured)
        got = measured.get(chosen, {}).get(shape)
        ranked = sorted((r for r in rows if r["candidate"]), key=lambda r: cost_of(r, constants))
        names = [r["plan"] for r in ranked]
        rank = (str(names.index(best) + 1) if best in names else "not tried") if best else "-"
        out.append({"shape": shape, "chosen": chosen, "chosen_ms": got["ms"] if got else None,
                    "chosen_pct": got["pct"] if got else None,
                    "chosen_pass": got["pass"] if got else True,
                    "plain_pct": plain[shape]["pct"] if shape in plain else None,
                    "best": best, "best_ms": best_t["ms"] if best_t else None,
                    "best_pct": best_t["pct"] if best_t else None,
                    "regret": got["ms"] / best_t["ms"] if got and best_t else None,
                    "rank": rank, "of": len(names)})
    return out


def pct(v):
    return "-" if v is None else f"{v:.1f}"


def render(rows):
    w = max(len(r["shape"]) for r in rows + [{"shape": "shape"}])
    lines = [f"{'shape':<{w}}  {'chosen':<17} {'ms':>8} {'%':>6} {'plain %':>7}  {'fastest':<17} "
             f"{'ms':>8} {'%':>6} {'regret':>7}  model's rank of the fastest"]
    for r in rows:
        ms = lambda v: "-" if v is None else f"{v:.4f}"
        reg = "-" if r["regret"] is None else f"{100 * (r['regret'] - 1):+.1f}%"
        fail = "" if r["chosen_pass"] else "  (chosen plan FAILED its check)"
        rank = r["rank"] if r["rank"] in ("-", "not tried") else f"{r['rank']} of {r['of']}"
        lines.append(f"{r['shape']:<{w}}  {r['chosen']:<17} {ms(r['chosen_ms']):>8} "
                     f"{pct(r['chosen_pct']):>6} {pct(r['plain_pct']):>7}  {r['best'] or '-':<17} "
                     f"{ms(r['best_ms']):>8} {pct(r['best_pct']):>6} {reg:>7}  {rank}{fail}")
    both = [r for r in rows if r["regret"] is not None]
    if both:
        lines.append("")
        lines.append(f"{len(both)} shapes: geomean % of cuBLAS {suite.geomean(r['chosen_pct'] for r in both):.1f} "
                     f"chosen, {suite.geomean(r['best_pct'] for r in both):.1f} fastest plan; geomean "
                     f"regret {100 * (suite.geomean(r['regret'] for r in both) - 1):.1f}%; "
                     f"{sum(r['regret'] > REGRET_LIMIT for r in both)} above "
                     f"{100 * (REGRET_LIMIT - 1):.0f}% regret")
    missing = [r["shape"] for r in rows if r["regret"] is None]
    if missing:
        lines.append(f"not measured (the chosen or every plan): {', '.join(missing)}")
    return "\n".join(lines)


def do_table(args):
    constants, shapes, measured, plain = read_dir(args.dir, args.costs)
    rows = regret_rows(shapes, measured, plain, constants)
    text = render(rows)
    print(text)
    try:
        with open(os.path.join(args.dir, "regret.txt"), "w") as f:
            f.write(text + "\n")
        with open(os.path.join(args.dir, "regret.csv"), "w", newline="") as f:
            w = csv.DictWriter(f, ["shape", "chosen", "chosen_ms", "chosen_pct", "plain_pct", "best",
                                   "best_ms", "best_pct", "regret", "rank"])
            w.writeheader()
            for r in rows:
                w.writerow({k: ("" if r[k] is None else r[k]) for k in w.fieldnames})
    except OSError as e:
        raise InputError(f"{args.dir}: cannot write regret.txt / regret.csv ({e.strerror})")
    return 0


# --- fit ---------------------------------------------------------------------------------------------
def fit_data(shapes, measured):
    """[(rows with a time each, fastest time)] of the shapes every candidate of which is measured
    and passed; the shapes left out, with why."""
    data, left = [], []
    for shape, rows in shapes.items():
        cands = [r for r in rows if r["candidate"]]
        lost = [r["plan"] for r in cands if shape not in measured.get(r["plan"], {})]
        failed = [r["plan"] for r in cands if r["plan"] not in lost and
                  not measured[r["plan"]][shape]["pass"]]
        _, best = fastest(shape, measured)
        if lost or best is None:
            left.append(f"{shape} ({', '.join(lost) or 'every plan'} not measured)")
            continue
        timed = [dict(r, ms=measured[r["plan"]][shape]["ms"]) for r in rows
                 if r["candidate"] and r["plan"] not in failed]
        if failed:
            left.append(f"{shape}: {', '.join(failed)} failed its check, left out of the choice")
        data.append((shape, timed, best["ms"]))
    return data, left


def score(data, c):
    """(geomean regret, rms misfit of log time against log cost + a constant, shapes above 5 %)."""
    logs, resid, above = [], [], 0
    for _, rows, best in data:
        pick = choose(rows, c)
        ms = next(r["ms"] for r in rows if r["plan"] == pick)
        logs.append(math.log(ms / best))
        above += ms / best > REGRET_LIMIT
        resid += [math.log(r["ms"]) - math.log(cost_of(r, c)) for r in rows]
    mean = sum(resid) / len(resid)
    rms = math.sqrt(sum((x - mean) ** 2 for x in resid) / len(resid))
    return math.exp(sum(logs) / len(logs)), rms, above


def fit(data, start):
    c = dict(start)

    def key(cand, name):
        g, rms, _ = score(data, cand)
        return (round(g, 12), round(rms, 12), abs(math.log(cand[name] / start[name])))

    for _ in range(20):  # passes; each moves a constant only when the score improves
        moved = False
        for name in FITTED:
            here = key(c, name)
            best_v, best_k = c[name], here
            for i in range(-8, 9):
                v = c[name] * 2 ** (i / 4)
                k = key(dict(c, **{name: v}), name)
                if k < best_k:
                    best_v, best_k = v, k
            if best_v != c[name] and best_k[:2] < here[:2]:
                c[name], moved = best_v, True
        if not moved:
            break
    return c


def do_fit(args):
    constants, shapes, measured, _ = read_dir(args.dir, args.costs)
    data, left = fit_data(shapes, measured)
    for why in left:
        print(f"note: {why}")
    if not data:
        raise InputError(f"{args.dir}: no shape with every candidate plan measured: nothing to fit")
    proposed = fit(data, constants)
    before, after = score(data, constants), score(data, proposed)
    print(f"fit over {len(data)} shapes (coordinate search, geomean regret first, then the "
          f"least-squares misfit of log time):")
    print(f"{'constant':<16} {'costs.hpp':>10} {'proposed':>10}")
    for name in FITTED:
        mark = "" if proposed[name] == constants[name] else "  *"
        print(f"{name:<16} {constants[name]:>10.4g} {proposed[name]:>10.4g}{mark}")
    for label, s in (("before", before), ("after", after)):
        print(f"{label}: geomean regret {100 * (s[0] - 1):.1f}%, {s[2]} of {len(data)} shapes above "
              f"{100 * (REGRET_LIMIT - 1):.0f}%, log-time misfit (rms) {s[1]:.3f}")
    for shape, rows, best in data:
        old, new = choose(rows, constants), choose(rows, proposed)
        if old != new:
            ms = {r["plan"]: r["ms"] for r in rows}
            print(f"  {shape}: {old} ({100 * (ms[old] / best - 1):+.1f}%) -> {new} "
                  f"({100 * (ms[new] / best - 1):+.1f}%)")
    if len(data) > 2:  # each shape chosen by constants fitted to the others: what overfit hides
        held = [score([one], fit(data[:i] + data[i + 1:], constants))[0]
                for i, one in enumerate(data)]
        print(f"each shape held out of the fit in turn: geomean regret "
              f"{100 * (suite.geomean(held) - 1):.1f}% (costs.hpp's: {100 * (before[0] - 1):.1f}%)")
    print("KTILE = {1.0, %.4g, %.4g, %.4g}  (cluster2, rows128, n128, n64)" %
          (proposed["KTILE_rows128"], proposed["KTILE_n128"], proposed["KTILE_n64"]))
    return 0


# --- run ---------------------------------------------------------------------------------------------
def do_run(args):
    if not (os.path.isfile(args.binary) and os.access(args.binary, os.X_OK)):
        raise InputError(f"{args.binary}: not an executable chapter binary")
    if not 1 <= args.rounds <= 1000:
        raise InputError(f"--rounds {args.rounds}: expected 1 to 1000")
    if args.sms < 1:
        raise InputError(f"--sms {args.sms}: expected at least 1")
    tool = args.costs_tool or os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(
        args.binary))), "tools", "dispatch_costs")
    if not (os.path.isfile(tool) and os.access(tool, os.X_OK)):
        raise InputError(f"{tool}: no dispatch_costs program (--costs-tool)")
    shapes = suite.read_shapes(args.shapes)
    try:
        os.makedirs(args.out, exist_ok=True)
    except OSError as e:
        raise InputError(f"--out {args.out}: cannot create it ({e.strerror})")
    p = subprocess.run([tool, "--all", str(args.sms)], input="".join(s.text + "\n" for s in shapes),
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise InputError(f"{tool} --all: exit {p.returncode}: {p.stderr.strip()}")
    costs = os.path.join(args.out, "costs.csv")
    with open(costs, "w") as f:
        f.write(p.stdout)
    _, priced = read_costs(costs)
    sent = [s for s, rows in priced.items() if rows[0]["small_m"]]
    if sent:
        raise InputError(f"{args.shapes}: gemm() sends {', '.join(sent)} to chapter 18 (small_m): "
                         f"its plain run is no plan; leave it out")
    gpu, host, _, _ = suite.estimate(shapes, 650.0, rounds=args.rounds)
    # suite.py's napkin time ran 1.4 times short on the H200 suite (102 s against 2 min 25 s),
    # and each run starts the GPU, cuBLAS and the inputs anew (about 2 s, a guess).
    minutes = (len(PLANS) + 1) * ((gpu + host) * 1.5 + 2.0) / 60
    print(f"{len(PLANS)} plans and the plain binary over {len(shapes)} shapes, {args.rounds} rounds: "
          f"about {minutes:.1f} min", flush=True)
    worst = 0
    for plan in PLANS + ("chosen",):
        folder = os.path.join(args.out, *plan.split("/"))
        os.makedirs(folder, exist_ok=True)
        if plan == "chosen":
            os.environ.pop("GEMM_PLAN", None)
        else:
            os.environ["GEMM_PLAN"] = plan
        started = time.monotonic()
        with open(os.path.join(folder, "output.txt"), "w") as log, \
                open(os.devnull, "w") as quiet, contextlib.redirect_stdout(quiet):
            rc, _, rows, _ = suite.run_chapter(args.binary, shapes, folder,
                                               ["--rounds", str(args.rounds)], log)
        print(f"{plan:<17} {len(rows)} of {len(shapes)} shapes, exit {rc}, "
              f"{time.monotonic() - started:.0f} s", flush=True)
        if rc in (2, 77):
            return rc
        worst = max(worst, rc)
    os.environ.pop("GEMM_PLAN", None)
    print(f"wrote {suite.shown(args.out)}/ (costs.csv, KERNEL/TILE/, chosen/); next: "
          f"python3 -m tools.measuring.plan_regret table {suite.shown(args.out)}")
    return 1 if worst else 0


def parse(argv):
    parser = argparse.ArgumentParser(prog="plan_regret", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run", help="measure every plan and the plain binary")
    r.add_argument("binary", help="chapter 19's binary, e.g. build/chapters/19_dispatcher")
    r.add_argument("--shapes", required=True, help="the shape list (suite format)")
    r.add_argument("--out", required=True, help="the folder of the runs")
    r.add_argument("--rounds", type=int, default=2, help="the harness's rounds [2]")
    r.add_argument("--sms", type=int, default=132, help="SMs the model prices for [132]")
    r.add_argument("--costs-tool", help="dispatch_costs [BUILD/tools/dispatch_costs]")
    for name, text in (("table", "the regret table"), ("fit", "propose costs.hpp's constants")):
        t = sub.add_parser(name, help=text)
        t.add_argument("dir", help="the folder `run` wrote")
        t.add_argument("--costs", help="dispatch_costs --all's CSV [DIR/costs.csv]")
    return parser.parse_args(argv)


def main(argv):
    args = parse(argv)  # argparse exits 2 on a bad command line
    try:
        return {"run": do_run, "table": do_table, "fit": do_fit}[args.command](args)
    except (InputError, suite.InputError) as e:
        print(f"plan_regret: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

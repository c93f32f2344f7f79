#!/usr/bin/env python3
"""tools/measuring/plan_regret.py without a GPU, and dispatch_costs --all as it reads it.

    python3 -m tests.run tests.tools.test_plan_regret [DISPATCH_COSTS]

`run` with a stand-in chapter binary (its time per plan from a table, GEMM_PLAN read as the real
one reads it) and a stand-in dispatch_costs (the prices of three made-up shapes), then `table` and
`fit` on what it wrote: on 512x1024x1024 the model chooses whole/n128 and hybrid/cluster2 is 20 %
faster (the model ranks it 2nd), and a lower SCATTERED or a dearer n128 k-tile mends it without
breaking 1024x1024x1024; on 256x2048x1024 the fastest is a tile choose() does not try, so no
constant helps; a plan whose check failed is never the fastest. Bad input exits 2. With the real
program: every shape of tools/measuring/regret_shapes.txt has its 16 plans, the choice
dispatch_costs gives without --all, and goes to a plan (not to chapter 18); and the committed
evidence for chapter 19's constants, plots/h200/plan_regret/costs_committed.csv and
regret_committed.txt, is what dispatch_costs and plan_regret table give now.
"""
import csv
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile

from tests.check import expect
from tools import ROOT, python_env

HEAD = ("shape,plan,candidate,chosen,small_m,cost,splits,waves,whole_waves,range,equal,pieces,"
        "path,scattered,split_fixed,partial_mb,sk_fixed,piece_partials,note")
CONSTANTS = ("# constants: KTILE=1,1,0.623417722,0.483791749 SPLIT_FIXED=4 PARTIAL_PER_MB=0.4 "
             "SK_FIXED=8 PIECE=6 SCATTERED=1.5; sms=132")


KTILE = {"cluster2": 1, "rows128": 1, "n128": 0.623417722, "n64": 0.483791749}


def row(shape, plan, candidate, chosen, path=0, scattered=0, sk=0, piece=0, small_m=0):
    """A line of dispatch_costs --all with its cost from the terms and CONSTANTS."""
    cost = KTILE[plan.split("/")[1]] * (path + 1.5 * scattered) + 8 * sk + 6 * piece
    return (f"{shape},{plan},{candidate},{chosen},{small_m},{cost:.9g},0,0,0,0,0,0,{path},{scattered},0,0,"
            f"{sk},{piece},{'' if candidate else 'tile_not_tried'}")


S1, S2, S3 = "512x1024x1024", "1024x1024x1024", "256x2048x1024"
COSTS = [CONSTANTS, HEAD,
         row(S1, "whole/cluster2", 1, 0, path=100),
         row(S1, "hybrid/cluster2", 1, 0, scattered=40, sk=1, piece=1),
         row(S1, "whole/n128", 1, 1, path=100),
         row(S1, "whole/rows128", 0, 0, path=100),
         row(S2, "whole/cluster2", 1, 1, path=64),
         row(S2, "hybrid/cluster2", 1, 0, scattered=50, sk=1, piece=1),
         row(S2, "whole/n128", 1, 0, path=110),
         row(S2, "stream_k/n64", 1, 0, path=206.7),
         row(S2, "whole/rows128", 0, 0, path=64),
         row(S3, "whole/cluster2", 1, 1, path=32),
         row(S3, "whole/n128", 1, 0, path=64),
         row(S3, "hybrid/cluster2", 1, 0, sk=4),  # a tie with whole/cluster2: the first wins
         row(S3, "whole/rows128", 0, 0, path=32)]
# ms per (plan, shape); a plan not here takes 1 ms. stream_k/n64 at S2 is fastest but fails.
TIMES = {("whole/cluster2", S1): 0.070, ("hybrid/cluster2", S1): 0.050, ("whole/n128", S1): 0.060,
         ("whole/rows128", S1): 0.080,
         ("whole/cluster2", S2): 0.030, ("hybrid/cluster2", S2): 0.040, ("whole/n128", S2): 0.045,
         ("stream_k/n64", S2): 0.001, ("whole/rows128", S2): 0.035,
         ("whole/cluster2", S3): 0.050, ("whole/n128", S3): 0.055, ("hybrid/cluster2", S3): 0.060, ("whole/rows128", S3): 0.040}
CHOSEN = {S1: "whole/n128", S2: "whole/cluster2", S3: "whole/cluster2"}

CHAPTER = f'''#!{sys.executable}
import csv, os, sys
args = sys.argv[1:]
sizes = args[args.index("--sizes") + 1].split(",")
out = args[args.index("--out") + 1]
assert args[args.index("--rounds") + 1] == "2", args
times, chosen = {TIMES!r}, {CHOSEN!r}
with open(os.path.join(out, "19_dispatcher.csv"), "w", newline="") as f:
    w = csv.writer(f)
    w.writerow("device,chapter,M,N,K,ms_median,pct_of_yardstick,pct_min,pct_max,pass".split(","))
    for s in sizes:
        plan = os.environ.get("GEMM_PLAN") or chosen[s]
        ms = times.get((plan, s), 1.0)
        pct = 100 * 0.04 / ms
        w.writerow(["Stub GPU", "19_dispatcher", *s.split("x"), ms, pct, pct - 1, pct + 1,
                    "false" if (plan, s) == ("stream_k/n64", "{S2}") else "true"])
        print(s, plan, ms)
'''


def script(folder, name, text):
    path = os.path.join(folder, name)
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, os.stat(path).st_mode | stat.S_IEXEC)
    return path


def costs_stand_in(folder, lines):
    return script(folder, "dispatch_costs", f"#!{sys.executable}\nimport sys\nsys.stdin.read()\n"
                  f"print({chr(10).join(lines)!r})\n")


def run(*args):
    return subprocess.run([sys.executable, "-m", "tools.measuring.plan_regret", *args],
                          capture_output=True, text=True, env=python_env(), timeout=120)


def write(path, text):
    with open(path, "w") as f:
        f.write(text)
    return path


with tempfile.TemporaryDirectory() as d:
    chapter = script(d, "19_dispatcher", CHAPTER)
    tool = costs_stand_in(d, COSTS)
    shapes = write(os.path.join(d, "shapes.txt"), "".join(f"{s.replace('x', ' ')} test\n"
                                                          for s in (S1, S2, S3)))
    out = os.path.join(d, "out")
    p = run("run", chapter, "--shapes", shapes, "--out", out, "--costs-tool", tool)
    expect(p.returncode == 0 and os.path.isfile(os.path.join(out, "whole", "n128", "19_dispatcher.csv"))
           and os.path.isfile(os.path.join(out, "chosen", "19_dispatcher.csv")),
           "run: every plan and the plain binary, each in its folder", p)
    expect(p.stdout.count(" 3 of 3 shapes, exit 0") == 17, "run: 16 plans and the plain run", p)

    # table
    p = run("table", out)
    lines = {l.split()[0]: l.split() for l in p.stdout.splitlines() if re.match(r"\d+x\d+x\d+ ", l)}
    expect(p.returncode == 0 and set(lines) == {S1, S2, S3}, "table: one line per shape", p)
    l1, l2, l3 = (lines.get(s, [""] * 12) for s in (S1, S2, S3))
    expect(l1[1:3] == ["whole/n128", "0.0600"] and l1[5:7] == ["hybrid/cluster2", "0.0500"],
           "table: at 512x1024x1024 the chosen plan and the fastest", p)
    expect(l1[8:11] == ["+20.0%", "2", "of"], "table: 20 % regret, the model ranks the fastest 2nd", p)
    expect(l1[4] == "66.7", "table: the plain run's % (the chosen plan, 0.04 / 0.06)", p)
    expect(l2[5] == "whole/cluster2" and l2[8] == "+0.0%",
           "table: a plan whose check failed (stream_k/n64, 0.001 ms) is never the fastest", p)
    expect(l3[5] == "whole/rows128" and l3[8] == "+25.0%" and " ".join(l3[9:]) == "not tried",
           "table: the fastest is a tile choose() does not try", p)
    expect("geomean regret 14.5%; 2 above 5% regret" in p.stdout,
           "table: the summary (regrets 1.2, 1.0, 1.25)", p)
    got = {}
    if os.path.isfile(os.path.join(out, "regret.csv")):
        with open(os.path.join(out, "regret.csv")) as f:
            got = {r["shape"]: r for r in csv.DictReader(f)}
    expect(abs(float(got.get(S1, {}).get("regret", 0)) - 1.2) < 1e-9, "table: regret.csv written")

    # fit: S1 mended, S2 kept, S3 out of reach.
    p = run("fit", out)
    expect(p.returncode == 0 and "before: geomean regret 14.5%, 2 of 3" in p.stdout,
           "fit: the regret before", p)
    expect("after: geomean regret 7.7%, 1 of 3" in p.stdout,
           "fit: the regret after: S1 mended, S2 kept, S3 a tile not tried", p)
    expect(f"{S1}: whole/n128 (+20.0%) -> hybrid/cluster2 (+0.0%)" in p.stdout and f"  {S2}:" not in p.stdout,
           "fit: the shapes whose choice it changes", p)
    expect("held out of the fit in turn: geomean regret" in p.stdout and "(costs.hpp's: 14.5%)" in p.stdout,
           "fit: leave one out, beside costs.hpp's regret", p)
    moved = [l.split()[0] for l in p.stdout.splitlines() if l.endswith("  *")]
    expect(moved and set(moved) <= {"KTILE_n128", "SCATTERED", "SK_FIXED", "PIECE"},
           "fit: what moved is what mends S1", p)

    # Bad input: exit 2 with a message.
    p = run("table", os.path.join(d, "nowhere"))
    expect(p.returncode == 2 and "no such directory" in p.stderr, "table: no directory", p)
    bad = write(os.path.join(d, "bad.csv"), "\n".join(COSTS[1:]) + "\n")
    p = run("table", out, "--costs", bad)
    expect(p.returncode == 2 and "constants" in p.stderr, "table: costs without the constants line", p)
    doctored = write(os.path.join(d, "doctored.csv"),
                     "\n".join(COSTS).replace(",74,0,0", ",70,0,0") + "\n")
    p = run("fit", out, "--costs", doctored)
    expect(p.returncode == 2 and "do not give the cost" in p.stderr, "fit: terms against cost", p)
    wrong = write(os.path.join(d, "wrong.csv"), "\n".join(COSTS).replace(
        f"{S1},whole/n128,1,1", f"{S1},whole/n128,1,0").replace(
        f"{S1},whole/cluster2,1,0", f"{S1},whole/cluster2,1,1") + "\n")
    p = run("table", out, "--costs", wrong)
    expect(p.returncode == 2 and "not the first cheapest" in p.stderr,
           "table: a chosen plan the costs do not choose", p)
    only = os.path.join(d, "only")
    os.makedirs(os.path.join(only, "whole", "n128"))
    write(os.path.join(only, "costs.csv"), "\n".join(COSTS) + "\n")
    write(os.path.join(only, "whole", "n128", "x.csv"), f"M,N,K,ms_median\n512,1024,1024,0.06\n")
    p = run("table", only)
    expect(p.returncode == 2 and "pct_of_yardstick" in p.stderr, "table: a CSV without the % columns", p)
    write(os.path.join(only, "whole", "n128", "x.csv"),
          "M,N,K,ms_median,pct_of_yardstick,pct_min,pct_max,pass\n512,1024,1024,0.06,66,65,67,true\n")
    p = run("fit", only)
    expect(p.returncode == 2 and "nothing to fit" in p.stderr, "fit: one plan measured", p)
    p = run("run", shapes, "--shapes", shapes, "--out", out, "--costs-tool", tool)
    expect(p.returncode == 2 and "not an executable" in p.stderr, "run: not a binary", p)
    p = run("run", chapter, "--shapes", shapes, "--out", out, "--costs-tool", tool, "--rounds", "0")
    expect(p.returncode == 2 and "--rounds" in p.stderr, "run: --rounds 0", p)
    sent = costs_stand_in(d, [l.replace(f"{S3},whole/cluster2,1,1,0", f"{S3},whole/cluster2,1,1,1")
                              for l in COSTS])
    p = run("run", chapter, "--shapes", shapes, "--out", os.path.join(d, "o2"), "--costs-tool", sent)
    expect(p.returncode == 2 and "chapter 18" in p.stderr, "run: a shape gemm() sends to chapter 18", p)
    p = run("sideways", out)
    expect(p.returncode == 2, "a bad command", p)

# The real dispatch_costs on the committed list.
if len(sys.argv) == 2:
    from tools.measuring import plan_regret, suite
    listed = [s.text for s in suite.read_shapes(os.path.join(ROOT, "tools", "measuring",
                                                             "regret_shapes.txt"))]
    text = "".join(s + "\n" for s in listed)
    p = subprocess.run([sys.argv[1], "--all"], input=text, capture_output=True, text=True)
    plain = subprocess.run([sys.argv[1]], input=text, capture_output=True, text=True)
    expect(p.returncode == 0 and plain.returncode == 0, "dispatch_costs --all runs", p)
    with tempfile.TemporaryDirectory() as d:
        path = write(os.path.join(d, "costs.csv"), p.stdout)
        try:
            _, priced = plan_regret.read_costs(path)
        except plan_regret.InputError as e:
            priced = {}
            expect(False, f"dispatch_costs --all reads back: {e}")
    expect(list(priced) == listed, "dispatch_costs --all: every shape of regret_shapes.txt, in order")
    choice = {l.split(",")[0]: l.split(",")[1] for l in plain.stdout.splitlines()[1:]}
    for s, rows in priced.items():
        expect(sorted(r["plan"] for r in rows) == sorted(plan_regret.PLANS),
               f"dispatch_costs --all: {s} has the 16 plans")
        expect([r["plan"] for r in rows if r["chosen"]] == [choice.get(s)],
               f"dispatch_costs --all: {s}'s chosen plan is choose()'s")
        expect(not rows[0]["small_m"], f"regret_shapes.txt: gemm() sends {s} to chapter 18")
        expect(sum(r["candidate"] for r in rows) >= 6, f"dispatch_costs --all: {s}: 3 tiles priced")

    # The committed evidence for costs.hpp (plots/h200/plan_regret/): the 20 timed shapes priced by
    # the constants as they are now are costs_committed.csv, and their table regret_committed.txt,
    # so the constants cannot change without their measured regret being shown again.
    folder = os.path.join(ROOT, "plots", "h200", "plan_regret")
    timed = listed + [s.text for s in suite.read_shapes(os.path.join(folder, "regret_extra_shapes.txt"))]
    p = subprocess.run([sys.argv[1], "--all"], input="".join(s + "\n" for s in timed),
                       capture_output=True, text=True)
    with open(os.path.join(folder, "costs_committed.csv")) as f:
        expect(p.returncode == 0 and p.stdout == f.read(),
               "plots/h200/plan_regret/costs_committed.csv is what dispatch_costs --all prints now "
               "(costs.hpp changed: time the plans again, plan_regret table)", p)
    with tempfile.TemporaryDirectory() as d:
        copy = shutil.copytree(folder, os.path.join(d, "plan_regret"))
        t = run("table", copy, "--costs", os.path.join(copy, "costs_committed.csv"))
        with open(os.path.join(folder, "regret_committed.txt")) as f, \
                open(os.path.join(copy, "regret.txt")) as g:
            expect(t.returncode == 0 and g.read() == f.read(),
                   "plots/h200/plan_regret/regret_committed.txt is plan_regret table's", t)

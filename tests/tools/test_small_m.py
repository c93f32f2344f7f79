#!/usr/bin/env python3
"""Chapter 19's few-rows tools: tools/measuring/predict_small_m.py and fit_small_m.py.

    python3 -m tests.run tests.tools.test_small_m DISPATCH_COSTS ROOT

With a stand-in for build/tools/dispatch_costs: a shape the price alone sent to chapter 18 and the
rule as built does not (past one wave) is predicted from the run before; one it still sends, from
the run after; one the rule would send that neither run did is refused. With the real program:
the committed plots/h200/few_rows/fit.txt and predicted_rule.txt are what the tools print now (a
rule or a constant changed without them fails here).
"""
import os
import stat
import subprocess
import sys
import tempfile

from tests.check import expect
from tools import python_env

HEAD = "M,N,K,ms_median,yardstick_ms_median,pct_of_yardstick,category\n"
COSTS_HEAD = "shape,plan,plan_cost,small_m_path,small_m_split,small_m_cost,small_m_waves,small_m"


def run(module, *args):
    return subprocess.run([sys.executable, "-m", f"tools.measuring.{module}", *args],
                          capture_output=True, text=True, env=python_env())


def stand_in(folder, rows):
    """A dispatch_costs that prints `rows` ({shape: the line's other columns}) for its input."""
    path = os.path.join(folder, "dispatch_costs")
    with open(path, "w") as f:
        f.write(f"#!{sys.executable}\nimport sys\nrows = {rows!r}\nprint({COSTS_HEAD!r})\n"
                "for s in sys.stdin.read().split():\n    print(s + ',' + rows[s])\n")
    os.chmod(path, os.stat(path).st_mode | stat.S_IEXEC)
    return path


def suite(folder, name, lines):
    path = os.path.join(folder, name)
    with open(path, "w") as f:
        f.write(HEAD + "".join(l + "\n" for l in lines))
    return path


with tempfile.TemporaryDirectory() as d:
    before = suite(d, "before.csv", ["128,100,64,0.010,0.008,80.0,x", "128,200,64,0.020,0.018,90.0,x",
                                     "128,300,64,0.030,0.015,50.0,x", "4096,4096,4096,1,1,99.0,x"])
    after = suite(d, "after.csv", ["128,100,64,0.012,0.008,66.7,x", "128,200,64,0.018,0.018,100.0,x",
                                   "128,300,64,0.031,0.015,48.4,x", "4096,4096,4096,1,1,98.0,x"])
    # 128x100x64: priced below its plan, five waves (back to the plan); 128x200x64: one wave, sent
    # (kept); 128x300x64: the plan by price (kept).
    costs = stand_in(d, {"128x100x64": "whole/n128,10,8,0,8,5,0", "128x200x64": "whole/n128,10,8,0,8,1,1",
                         "128x300x64": "whole/n128,10,8,0,12,1,0"})
    p = run("predict_small_m", before, after, "--costs", costs)
    lines = {l.split()[0]: l for l in p.stdout.splitlines() if l[:1].isdigit()}
    expect(p.returncode == 0 and set(lines) == {"128x100x64", "128x200x64", "128x300x64"},
           "predict_small_m: the three few-row shapes, not 4096^3", p)
    expect(lines.get("128x100x64", "").endswith("80.0  (before)"),
           "predict_small_m: past one wave, the plan's % from the run before", p)
    expect(lines.get("128x200x64", "").split()[-1] == "100.0",
           "predict_small_m: still chapter 18, the % from the run after", p)
    expect(lines.get("128x300x64", "").split()[-1] == "48.4",
           "predict_small_m: the plan in both, the % from the run after", p)
    expect("geomean 68.6 % after, 72.9 % predicted" in p.stdout,
           "predict_small_m: the few rows' geomeans (66.7, 100, 48.4; predicted 80, 100, 48.4)", p)
    odd = stand_in(d, {"128x100x64": "whole/n128,10,8,0,12,1,1", "128x200x64": "whole/n128,10,8,0,8,1,1",
                       "128x300x64": "whole/n128,10,8,0,12,1,0"})
    p = run("predict_small_m", before, after, "--costs", odd)
    expect(p.returncode == 2 and "in neither run" in p.stderr,
           "predict_small_m: chapter 18 where neither run sent it is not predicted", p)
    p = run("predict_small_m", before)
    expect(p.returncode == 2, "predict_small_m: one CSV is a bad command line", p)
    p = run("predict_small_m", before, after, "--costs")
    expect(p.returncode == 2, "predict_small_m: --costs without a program", p)

    # fit_small_m: a shape chapter 18 won, priced below its plan but past one wave, is not sent.
    log = "shape ms GFLOPS yard % yard\n{} {} 1.0 1.0 {}%  x\n"
    with open(os.path.join(d, "18.txt"), "w") as f:
        f.write(log.format("128x100x64", "0.010", "90.0") + log.format("128x200x64", "0.010", "90.0"))
    with open(os.path.join(d, "19.txt"), "w") as f:
        f.write(log.format("128x100x64", "0.020", "45.0") + log.format("128x200x64", "0.020", "45.0"))
    costs = stand_in(d, {"128x100x64": "whole/n128,10,8,0,8,5,0", "128x200x64": "whole/n128,10,8,0,8,1,1"})
    p = run("fit_small_m", os.path.join(d, "18.txt"), os.path.join(d, "19.txt"), "--costs", costs)
    table = [l.split() for l in p.stdout.splitlines() if l.strip()[:2] == "0."]
    expect(p.returncode == 0 and table and all(r[1] == "1" for r in table),
           "fit_small_m: the five-wave shape never counts as sent to chapter 18", p)
    expect("one wave on 1 of the 2" in p.stdout, "fit_small_m: how many shapes are one wave", p)

# The committed outputs, remade with the real program.
if len(sys.argv) == 3:
    tool, root = sys.argv[1], sys.argv[2]
    few = os.path.join(root, "plots", "h200", "few_rows")
    p = run("fit_small_m", os.path.join(few, "18_small_m.txt"), os.path.join(few, "19_dispatcher_before.txt"),
            "--costs", tool)
    with open(os.path.join(few, "fit.txt")) as f:
        expect(p.returncode == 0 and p.stdout == f.read(),
               "plots/h200/few_rows/fit.txt is what fit_small_m prints now (regenerate: its README)", p)
    with open(os.path.join(few, "predicted_rule.txt")) as f:
        committed = f.read()
    # The two runs, as committed: the ladder of 010feb4 (before the rule; in the tree at 7d64173)
    # and the ladder of 7d64173 (the rule priced alone; in the tree at 970e186).
    runs = [subprocess.run(["git", "-C", root, "show",
                            f"{c}:plots/h200/suite/19_dispatcher/suite_19_dispatcher.csv"],
                           capture_output=True, text=True) for c in ("7d64173", "970e186")]
    if any(r.returncode != 0 for r in runs):
        print("SKIP (part): no git history for predicted_rule.txt's two runs")
    else:
        with tempfile.TemporaryDirectory() as d:
            paths = [os.path.join(d, name) for name in ("before.csv", "after.csv")]
            for path, r in zip(paths, runs):
                with open(path, "w") as f:
                    f.write(r.stdout)
            p = run("predict_small_m", *paths, "--costs", tool)
            body = "".join(l + "\n" for l in committed.splitlines() if not l.startswith("#"))
            expect(p.returncode == 0 and p.stdout == body,
                   "plots/h200/few_rows/predicted_rule.txt is what predict_small_m prints now", p)

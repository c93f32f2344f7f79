#!/usr/bin/env python3
"""Chapter 19's few-rows rule on the suite, predicted from two committed runs (no GPU).

    python3 -m tools.measuring.predict_small_m BEFORE AFTER [--costs build/tools/dispatch_costs]

BEFORE and AFTER: chapter 19's suite CSVs (tools/measuring/suite.py) before the few-rows rule
(every shape at choose()'s plan) and with it priced alone (chapter 18 where small_m_price was below
the plan's cost, no wave limit). For each shape with 65 <= M <= 256, build/tools/dispatch_costs
gives the plan's cost, chapter 18's price and waves, and the rule as built (small_m): the predicted
% is AFTER's where the rule as built makes AFTER's choice, else BEFORE's. Prints the table, then
the geomeans of the few rows and of the whole suite (and without `odd`) in AFTER and as predicted.
Exit 2 on a bad command line or when a shape would go to chapter 18 that neither run sent there.
"""
import csv
import subprocess
import sys

from tools.measuring.fit_small_m import two_inputs_and_costs
from tools.reporting.plot_text import geomean


def read_suite(path):
    """{(M, N, K): (chapter ms, cuBLAS ms, % of cuBLAS, category)} of a suite CSV."""
    out = {}
    with open(path) as f:
        for r in csv.DictReader(f):
            out[(int(r["M"]), int(r["N"]), int(r["K"]))] = (
                float(r["ms_median"]), float(r["yardstick_ms_median"]), float(r["pct_of_yardstick"]),
                r["category"])
    return out


def main(argv):
    parsed = two_inputs_and_costs(argv, __doc__)
    if parsed is None:
        return 2
    args, tool = parsed
    before, after = read_suite(args[0]), read_suite(args[1])
    few = sorted((s for s in after if s in before and 65 <= s[0] <= 256), key=lambda s: (s[0], s[1], s[2]))
    if not few:
        print("no shape with 65 <= M <= 256 in both runs", file=sys.stderr)
        return 2
    names = [f"{m}x{n}x{k}" for m, n, k in few]
    out = subprocess.run([tool], input="\n".join(names) + "\n", capture_output=True, text=True,
                         check=True).stdout.splitlines()
    row = {}
    for line in out[1:]:
        shape, plan, plan_cost, _, _, small_cost, waves, small = line.split(",")
        row[shape] = (plan, float(plan_cost), float(small_cost), int(waves), small == "1")
    print("shape              ch18 price / plan cost  waves  before: plan, %    after: choice, %"
          "         now: choice, predicted %")
    predicted = {}
    for s, name in zip(few, names):
        plan, plan_cost, small_cost, waves, now18 = row[name]
        then18 = small_cost < plan_cost  # AFTER's rule: the price alone
        if now18 and not then18:
            print(f"{name}: chapter 18 now, in neither run: not predicted", file=sys.stderr)
            return 2
        src = after if now18 == then18 else before
        predicted[s] = src[s][2]
        pick = lambda is18: "chapter 18" if is18 else plan
        us = lambda run: f"{run[s][0] * 1e3:5.1f}/{run[s][1] * 1e3:5.1f} us"
        print(f"{name:18s} {small_cost:8.1f} / {plan_cost:7.1f}   {waves:5d}  "
              f"{before[s][2]:5.1f} ({us(before)})  {pick(then18):16s} {after[s][2]:5.1f} "
              f"({us(after)})  {pick(now18):16s} {predicted[s]:5.1f}"
              f"{'' if now18 == then18 else '  (before)'}")
    print("(us: chapter 19 / cuBLAS, medians; predicted: after's run where the choice is after's, "
          "else before's)")
    print(f"few rows ({len(few)}): geomean {geomean([after[s][2] for s in few]):.1f} % after, "
          f"{geomean(list(predicted.values())):.1f} % predicted "
          f"(before {geomean([before[s][2] for s in few]):.1f} %)")
    whole = {s: predicted.get(s, v[2]) for s, v in after.items()}
    plain = [s for s in after if after[s][3] != "odd"]
    print(f"suite ({len(after)}): geomean {geomean([v[2] for v in after.values()]):.1f} % after, "
          f"{geomean(list(whole.values())):.1f} % predicted; without odd "
          f"{geomean([after[s][2] for s in plain]):.1f} and {geomean([whole[s] for s in plain]):.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

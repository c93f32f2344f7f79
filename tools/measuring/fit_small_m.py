#!/usr/bin/env python3
"""Chapter 19's SMALL_M_KTILE (chapters/19_dispatcher/costs.hpp) from a measured sweep.

    python3 -m tools.measuring.fit_small_m LOG18 LOG19 [--costs build/tools/dispatch_costs]

LOG18 and LOG19: the output of chapter 18's and chapter 19's binaries on the same shapes (before
chapter 19 sent any of them to chapter 18), e.g. plots/h200/few_rows/. The time of one cost unit
is chapter 19's time over its plan's cost (the median over the shapes); chapter 18's time in those
units, less its split's price, over its critical path's k-tiles gives one value of SMALL_M_KTILE
per shape. Prints the median, and for values around it how many shapes the rule (chapter 18 where
its blocks make one wave and its price is the lower) sends to the faster chapter and the geomean %
of the yardstick that follows. Exit 2 on a bad command line.
"""
import re
import statistics
import subprocess
import sys

from tools.reporting.plot_text import geomean

ROW = re.compile(r"^(\d+x\d+x\d+)\s+([\d.]+)\s+[\d.]+\s+[\d.]+\s+([\d.]+)%")


def read_log(path):
    """{shape: (ms, % of the yardstick)} of a chapter binary's table."""
    out = {}
    with open(path) as f:
        for line in f:
            m = ROW.match(line)
            if m:
                out[m.group(1)] = (float(m.group(2)), float(m.group(3)))
    return out


def two_inputs_and_costs(argv, doc):
    """(the two inputs, the dispatch_costs program) of a command line `A B [--costs PROGRAM]`, or
    None after printing what is wrong (exit 2). Shared with predict_small_m."""
    args = list(argv)
    tool = "build/tools/dispatch_costs"
    if "--costs" in args:
        i = args.index("--costs")
        if i + 1 >= len(args):
            print("--costs needs a program", file=sys.stderr)
            return None
        tool = args[i + 1]
        del args[i:i + 2]
    if len(args) != 2:
        print(doc.strip().split("\n\n")[1], file=sys.stderr)
        return None
    return args, tool


def main(argv):
    parsed = two_inputs_and_costs(argv, __doc__)
    if parsed is None:
        return 2
    args, tool = parsed
    t18, t19 = read_log(args[0]), read_log(args[1])
    shapes = [s for s in t18 if s in t19]
    if not shapes:
        print("no shape in both logs", file=sys.stderr)
        return 2
    out = subprocess.run([tool], input="\n".join(shapes) + "\n", capture_output=True, text=True,
                         check=True).stdout.splitlines()
    cost = {}
    for line in out[1:]:
        shape, plan, plan_cost, path, split, _, waves, _ = line.split(",")
        cost[shape] = (plan, float(plan_cost), float(path), float(split), int(waves))
    unit = statistics.median(t19[s][0] / cost[s][1] for s in shapes)
    per_shape = [(t18[s][0] / unit - cost[s][3]) / cost[s][2] for s in shapes]
    fit = statistics.median(per_shape)
    print(f"{len(shapes)} shapes; one cost unit {unit * 1e3:.2f} us (median of chapter 19's time "
          f"over its plan's cost)")
    print(f"SMALL_M_KTILE per shape: median {fit:.2f}, quartiles "
          f"{' '.join(f'{q:.2f}' for q in statistics.quantiles(per_shape, n=4))}")
    best = geomean([max(t18[s][1], t19[s][1]) for s in shapes])
    print(f"geomean % of the yardstick: chapter 19 alone {geomean([t19[s][1] for s in shapes]):.1f}, "
          f"chapter 18 alone {geomean([t18[s][1] for s in shapes]):.1f}, each shape at its faster "
          f"chapter {best:.1f}")
    one_wave = sum(cost[s][4] == 1 for s in shapes)
    print(f"chapter 18's blocks one wave on {one_wave} of the {len(shapes)} (the rule's limit)")
    print("SMALL_M_KTILE  to the faster chapter  geomean %")
    for k in [round(fit + d / 100, 2) for d in range(-8, 9, 2)]:
        picks = {s: cost[s][4] == 1 and cost[s][2] * k + cost[s][3] < cost[s][1] for s in shapes}
        right = sum(picks[s] == (t18[s][0] < t19[s][0]) for s in shapes)
        g = geomean([t18[s][1] if picks[s] else t19[s][1] for s in shapes])
        print(f"{k:13.2f}  {right:6d} of {len(shapes):<3d}        {g:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

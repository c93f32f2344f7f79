#!/usr/bin/env python3
"""Two benchmark runs of the same chapters, side by side: is the new one the same within noise?

    python3 -m tools.reporting.compare OLD_DIR NEW_DIR [--points 3]

Reads every chapter CSV (NN_slug.csv) of both folders and pairs the rows by chapter and shape.
A row is "the same within noise" when the new median % of the yardstick lies inside the old run's
range of rounds (pct_min..pct_max) widened by --points on each side, or when the two medians differ
by at most --points. Used after a change that must not change speed (a refactoring of the
harness): the issue asks for "the same results as before within noise", and this says it per row.
Exit 0 when every paired row is within noise, 1 when one is not, 2 on bad input.
"""
import csv
import glob
import os
import statistics
import sys


def rows(folder):
    out = {}
    for path in sorted(glob.glob(os.path.join(folder, "[0-9][0-9]_*.csv"))):
        with open(path, newline="", encoding="utf-8") as f:
            for r in csv.DictReader(f):
                try:
                    key = (r["chapter"], int(r["M"]), int(r["N"]), int(r["K"]))
                    out[key] = (float(r["pct_of_yardstick"]), float(r["pct_min"]),
                                float(r["pct_max"]), float(r["gflops"]))
                except (KeyError, ValueError):
                    continue  # a row without a yardstick (no baseline) cannot be compared
    return out


def compare(old, new, points):
    """[(key, old, new, within)] for every shape present in both."""
    result = []
    for key in sorted(set(old) & set(new)):
        o, n = old[key], new[key]
        within = (o[1] - points <= n[0] <= o[2] + points) or abs(n[0] - o[0]) <= points
        result.append((key, o, n, within))
    return result


def main(argv):
    args, points = [], 3.0
    it = iter(argv)
    for a in it:
        if a == "--points":
            try:
                points = float(next(it))
            except (StopIteration, ValueError):
                points = -1
            if not points >= 0:
                print("compare.py: --points takes a number >= 0", file=sys.stderr)
                return 2
        elif a in ("-h", "--help"):
            print(__doc__.strip())
            return 0
        else:
            args.append(a)
    if len(args) != 2 or not all(os.path.isdir(a) for a in args):
        print("usage: compare.py OLD_DIR NEW_DIR [--points P] (two folders of chapter CSVs)",
              file=sys.stderr)
        return 2
    old, new = rows(args[0]), rows(args[1])
    pairs = compare(old, new, points)
    if not pairs:
        print(f"compare.py: no shape of {args[1]} is also in {args[0]}", file=sys.stderr)
        return 2
    print(f"{'chapter':26} {'shape':>18} {'old %':>7} {'(rounds)':>15} {'new %':>7} {'delta':>6}")
    outside = 0
    for (ch, m, n, k), o, nw, within in pairs:
        mark = "" if within else "  <- outside the noise"
        outside += not within
        print(f"{ch:26} {f'{m}x{n}x{k}':>18} {o[0]:7.1f} {f'({o[1]:.1f}-{o[2]:.1f})':>15} "
              f"{nw[0]:7.1f} {nw[0] - o[0]:+6.1f}{mark}")
    deltas = [nw[0] - o[0] for _, o, nw, _ in pairs]
    print(f"{len(pairs)} shapes in both; median change {statistics.median(deltas):+.1f} points; "
          f"{outside} outside the old rounds' range widened by {points:g} points")
    only = sorted(set(old) ^ set(new))
    if only:
        print(f"{len(only)} shapes in only one of the two runs (not compared)")
    return 1 if outside else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

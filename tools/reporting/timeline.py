#!/usr/bin/env python3
"""Per-SM Gantt charts of the phases tools/timeline records inside chapters 14 and 15.

    python3 -m tools.reporting.timeline CSV... [--out DIR]

Each CSV (tools/timeline's output) becomes DIR/NAME.svg (DIR: the CSV's folder): one row per SM,
time across; per output tile the first consumer warpgroup's main loop (from its first landed
k-tile to its last wgmma) and its epilogue, and above them, thin, the producer's copies of that
tile. Prints per chart the kernel's span, the SMs used and the tail (from the first SM that runs
out of tiles to the end). Needs matplotlib for the charts; the numbers need nothing.
"""
import argparse
import csv
import os
import sys
from collections import defaultdict

COLUMNS = ("chapter", "M", "N", "K", "sm", "block", "role", "phase", "tile", "ns")
NO_MATPLOTLIB = "no matplotlib: charts skipped (apt-get install python3-matplotlib)"
SHADES = ["#9fd4e0", "#fde9b6"]  # alternate tiles on one SM; greys differ too
EPILOGUE = "#555555"
PRODUCER = "#bbbbbb"


def read(path):
    rows = []
    with open(path) as f:
        for n, r in enumerate(csv.DictReader(f), 2):
            try:
                rows.append({k: (r[k] if k == "phase" else int(r[k])) for k in COLUMNS})
            except (KeyError, ValueError) as e:
                sys.exit(f"timeline.py: {path}:{n}: {e}")
    if not rows:
        sys.exit(f"timeline.py: {path}: no events")
    return rows


def spans(rows):
    """{sm: [(kind, begin_us, end_us, tile)]} and the summary numbers."""
    at = defaultdict(dict)  # (block, tile, role) -> {phase: ns}
    sm_of = {}
    for r in rows:
        key = (r["block"], r["tile"], r["role"])
        at[key][r["phase"]] = r["ns"]
        sm_of[key] = r["sm"]
    bars = defaultdict(list)
    for key, ph in at.items():
        sm, role = sm_of[key], key[2]
        if role == 0 and "load_begin" in ph and "load_end" in ph:
            bars[sm].append(("load", ph["load_begin"] / 1e3, ph["load_end"] / 1e3, key[1]))
        if role == 1 and "math_begin" in ph and "math_end" in ph:
            bars[sm].append(("math", ph["math_begin"] / 1e3, ph["math_end"] / 1e3, key[1]))
            if "store_end" in ph:
                bars[sm].append(("store", ph["math_end"] / 1e3, ph["store_end"] / 1e3, key[1]))
    end = max(r["ns"] for r in rows) / 1e3
    last = {sm: max(b[2] for b in bs if b[0] != "load") for sm, bs in bars.items()
            if any(b[0] != "load" for b in bs)}
    first_idle = min(last.values()) if last else end
    return bars, {"span_us": end, "sms": len(bars), "tail_us": end - first_idle,
                  "tiles": len({(r["block"], r["tile"]) for r in rows
                                if r["phase"] == "math_begin"})}


def draw(rows, bars, stats, path):
    import matplotlib
    matplotlib.use("Agg")
    matplotlib.rcParams.update({"svg.fonttype": "none", "svg.hashsalt": "gemm-timeline"})
    import matplotlib.pyplot as plt
    sms = sorted(bars)
    row = {sm: i for i, sm in enumerate(sms)}
    fig, ax = plt.subplots(figsize=(11, 1.5 + 0.055 * len(sms)))
    for sm, bs in bars.items():
        y = row[sm]
        maths = sorted(b for b in bs if b[0] == "math")
        shade = {b[3]: SHADES[i % 2] for i, b in enumerate(sorted(maths, key=lambda b: b[1]))}
        for kind, b, e, tile in bs:
            if kind == "load":
                ax.barh(y - 0.33, e - b, left=b, height=0.18, color=PRODUCER, linewidth=0)
            elif kind == "math":
                ax.barh(y + 0.08, e - b, left=b, height=0.62, color=shade[tile],
                        edgecolor="#333333", linewidth=0.2)
            else:
                ax.barh(y + 0.08, max(e - b, 0.05), left=b, height=0.62, color=EPILOGUE,
                        linewidth=0)
    r0 = rows[0]
    ax.set_ylim(len(sms) - 0.5, -0.8)
    ax.set_yticks(range(0, len(sms), 8), [str(sms[i]) for i in range(0, len(sms), 8)], fontsize=6)
    ax.set_ylabel("SM", fontsize=8)
    ax.set_xlabel("µs since the first event (%globaltimer)", fontsize=8)
    ax.tick_params(axis="x", labelsize=7)
    ax.set_title(f"chapter {r0['chapter']}, {r0['M']} x {r0['N']} x {r0['K']}: {stats['tiles']} "
                 f"block tiles on {stats['sms']} SMs, {stats['span_us']:.0f} µs, the last "
                 f"{stats['tail_us']:.0f} µs with SMs idle\nbars: a tile's main loop (first "
                 "consumer warpgroup; shades alternate), dark: its epilogue, thin grey above: the "
                 "producer's copies", fontsize=8)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    fig.tight_layout()
    fig.savefig(path, metadata={"Date": None})
    plt.close(fig)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("csv", nargs="+")
    ap.add_argument("--out")
    args = ap.parse_args(argv)
    for p in args.csv:
        if not os.path.isfile(p):
            print(f"timeline.py: {p}: no such file", file=sys.stderr)
            return 2
    try:
        import matplotlib  # noqa: F401
        have = True
    except ImportError:
        have = False
        print(NO_MATPLOTLIB)
    for p in args.csv:
        rows = read(p)
        bars, stats = spans(rows)
        print(f"{p}: span {stats['span_us']:.1f} us, {stats['tiles']} block tiles on "
              f"{stats['sms']} SMs, tail {stats['tail_us']:.1f} us")
        if have:
            out = args.out or os.path.dirname(os.path.abspath(p))
            os.makedirs(out, exist_ok=True)
            name = os.path.splitext(os.path.basename(p))[0] + ".svg"
            draw(rows, bars, stats, os.path.join(out, name))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

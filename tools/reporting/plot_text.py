"""Numbers, lines, names and colours as a reader wants them, shared by tools/reporting/plot.py's table and
charts."""

import math
import re
import statistics


# Chapters' colours: matplotlib's tab10, then six darker ones (greys and black are the
# yardsticks' and the roofs').
PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
           "#bcbd22", "#17becf", "#393b79", "#637939", "#843c39", "#7b4173", "#3182bd",
           "#8c6d31", "#5254a3"]

def thousands(v):
    """2.6, 12.7, 104, 1,907, 717,442: three significant digits below 100, whole numbers above."""
    if v < 100:
        return f"{v:.{2 if v < 10 else 3}g}"
    return f"{round(v):,}"


def geomean(values):
    values = [v for v in values if v > 0]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else 0.0


def pct_text(r):
    """"103.1%" or, with the spread of the rounds, "103.1%, 101.2–104.0"."""
    text = f"{r.pct:.1f}%"
    if r.has_spread:
        text += f", {r.pct_min:.1f}\u2013{r.pct_max:.1f}"
    return text


def span(values, unit):
    """"1980 MHz" or "1755–1980 MHz" over the rows that know the value."""
    nums = []
    for v in values:
        try:
            x = float(v)
        except ValueError:
            continue
        if math.isfinite(x):
            nums.append(x)
    if not nums:
        return ""
    lo, hi = f"{min(nums):.0f}", f"{max(nums):.0f}"
    return (lo if lo == hi else f"{lo}\u2013{hi}") + f" {unit}"


def distinct(values):
    return list(dict.fromkeys(v for v in values if v))


def setup_line(rows):
    """The software and the settings the timing ran with, in one line ("" when unknown)."""
    c = lambda name: distinct(r.conditions[name] for r in rows)
    parts = [f"{label} {', '.join(c(name))}" for name, label in
             (("driver", "driver"), ("cuda_runtime", "CUDA runtime"), ("cublas", "cuBLAS"))
             if c(name)]
    limit = span((r.conditions["power_limit_w"] for r in rows), "W")
    if limit:
        parts.append("power limit " + limit)
    flush = c("l2_flush")
    if flush:
        parts.append({("yes",): "L2 flushed before each run", ("no",): "L2 not flushed"}.get(
            tuple(flush), "L2 flushed: " + ", ".join(flush)))
    return ", ".join(parts)


def while_timing(rows):
    """SM clock, board power (medians while timing; their range over the rows) and throttling."""
    clock = span((r.conditions["sm_clock_mhz"] for r in rows), "MHz")
    power = span((r.conditions["power_w"] for r in rows), "W")
    throttle = distinct(r.conditions["throttle"] for r in rows)
    parts = ([f"SM clock {clock}"] if clock else []) + ([f"board power {power}"] if power else [])
    if throttle:
        parts.append("throttling: " + ", ".join(throttle))
    return ", ".join(parts)


def conditions_lines(rows):
    setup, timing = setup_line(rows), while_timing(rows)
    return ([setup] if setup else []) + (["while timing: " + timing] if timing else [])


def timing_line(rows):
    rounds = distinct(str(int(r.rounds)) for r in rows if r.rounds)
    reps = distinct(str(int(r.reps)) for r in rows if r.reps)
    if rounds:
        return (f"median of {'/'.join(rounds)} rounds alternating with the yardstick; the bars "
                f"span the lowest to the highest round")
    if reps:
        return f"median of {'/'.join(reps)} timed runs"
    return ""


def devices_of(rows):
    return " + ".join(distinct(r.device for r in rows)) or "an unnamed device"


def rate_text(gflops):
    """TFLOP/s as a bar's label: 735, 43.1, 0.50; below 0.1 TFLOP/s, GFLOPS: 12.3G."""
    t = gflops / 1000.0
    if t < 0.1:
        return f"{gflops:.3g}G"
    return f"{t:.0f}" if t >= 100 else f"{t:.1f}" if t >= 10 else f"{t:.2f}"


def slug(name):
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_")


def yardstick_series(rows):
    """[(name, [(shape, GFLOPS)])]: each yardstick at the median of its timings at a shape."""
    series = {}
    for r in rows:
        if r.yardstick:
            series.setdefault(r.yardstick, {}).setdefault(r.shape, []).append(r.yard_gflops)
    return [(name, sorted(((s, statistics.median(v)) for s, v in by_shape.items()),
                          key=lambda p: p[0][0] * p[0][1] * p[0][2]))
            for name, by_shape in series.items()]

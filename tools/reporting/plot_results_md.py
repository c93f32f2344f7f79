"""results.md: the table of every results CSV, written by tools/reporting/plot.py (needs no matplotlib)."""

from tools.reporting.plot_text import devices_of, distinct, pct_text, setup_line, thousands, while_timing, yardstick_series


def results_table(rows):
    shapes = sorted({r.shape for r in rows}, key=lambda s: (s[0] * s[1] * s[2], s))
    name = lambda s: str(s[0]) if s[0] == s[1] == s[2] else f"{s[0]}x{s[1]}x{s[2]}"
    chapters = sorted({r.chapter for r in rows})
    by = {(r.chapter, r.shape): r for r in rows}  # a later row of the same size wins
    lines = ["| chapter | in | " + " | ".join(name(s) for s in shapes) + " |",
             "|---|---|" + "---:|" * len(shapes)]
    for ch in chapters:
        cells, precision = [], ""
        for s in shapes:
            r = by.get((ch, s))
            if r is None:
                cells.append("-")
                continue
            precision = r.precision or precision
            cell = thousands(r.gflops)
            if r.yardstick:
                cell += f" ({pct_text(r)})"
            if not r.passed:
                cell += " FAIL"
            cells.append(cell)
        lines.append(f"| {ch} | {precision} | " + " | ".join(cells) + " |")
    for yard, points in yardstick_series(rows):
        at = dict(points)
        lines.append(f"| *{yard}* | | " + " | ".join(
            thousands(at[s]) if s in at else "-" for s in shapes) + " |")
    return "\n".join(lines) + "\n"


def results_md(rows):
    text = [f"# Results on {devices_of(rows)}", ""]
    for dev in distinct(r.device for r in rows):
        setup = setup_line([r for r in rows if r.device == dev])
        if setup:
            text += [f"{dev}: {setup}.", ""]
    spread = any(r.has_spread for r in rows)
    text.append("GFLOPS (2·M·N·K / median time) and, in brackets, the percentage of the "
                "chapter's yardstick timed in the same run" +
                ("; where a range follows, the percentage is the median of the ratios of "
                 "alternating rounds and the range their lowest to highest" if spread else "") +
                ". Written by `tools/reporting/plot.py`; regenerate with `./tutorial run`.")
    text += ["", results_table(rows)]
    timing = [(ch, while_timing([r for r in rows if r.chapter == ch]))
              for ch in sorted({r.chapter for r in rows})]
    if any(t for _, t in timing):
        text += ["While timing (medians over each size's timed runs, range over the sizes):", "",
                 "| chapter | conditions |", "|---|---|"]
        text += [f"| {ch} | {t or '-'} |" for ch, t in timing]
        text.append("")
    return "\n".join(text)

"""suite_CHAPTER.svg: the shape suite (tools/measuring/suite.py), one bar per shape."""

import sys

from tools.reporting.plot_text import conditions_lines, devices_of, geomean, PALETTE, timing_line


def suite(self, stem, rows):
    order = list(dict.fromkeys(r.category for r in rows))  # the list's order of categories
    rows = [r for r in rows if r.yardstick and r.pct > 0]
    if not rows:
        print(f"plot.py: note: {stem}: no ratio to cuBLAS in it (--no-baseline?): no chart",
              file=sys.stderr)
        return
    rows.sort(key=lambda r: (r.pct, r.M * r.N * r.K))  # the lowest on top
    colour = {c: PALETTE[i % len(PALETTE)] for i, c in enumerate(order)}
    fig, ax = self.plt.subplots(figsize=(10.5, 2.4 + 0.19 * len(rows)))
    y = list(range(len(rows)))
    for cat in order:
        mine = [(i, r) for i, r in enumerate(rows) if r.category == cat]
        if not mine:
            continue
        bars = ax.barh([i for i, _ in mine], [r.pct for _, r in mine], height=0.72,
                       color=colour[cat], label=f"{cat}: geomean "
                       f"{geomean(r.pct for _, r in mine):.1f}% ({len(mine)})")
        for (_, r), bar in zip(mine, bars.patches):
            bar.set_gid(f"bar-{r.M}x{r.N}x{r.K}")
    spread = [r for r in rows if r.has_spread]
    if spread:
        whiskers = ax.errorbar([r.pct for r in spread], [rows.index(r) for r in spread],
                               xerr=[[r.pct - r.pct_min for r in spread],
                                     [r.pct_max - r.pct for r in spread]],
                               fmt="none", ecolor="#333333", elinewidth=0.8, capsize=1.8)
        whiskers[2][0].set_gid("suite-spread")
    ax.axvline(100, color="#222222", ls="--", lw=1.2, label="100%: as fast as cuBLAS"
               ).set_gid("suite-100")
    ax.axvline(95, color="#777777", ls=":", lw=1.2, label="95%").set_gid("suite-95")
    right = max([110] + [r.pct_max if r.has_spread else r.pct for r in rows])
    for i, r in enumerate(rows):
        text = f"{r.pct:.1f}%"
        if r.memory_bound and r.pct_copy > 0:
            share = f"{r.pct_copy:.0f}" if r.pct_copy >= 10 else f"{r.pct_copy:.2g}"
            text += f"  {share}% of copy bandwidth"
        end = r.pct_max if r.has_spread else r.pct
        ax.annotate(text, xy=(end, i), xytext=(4, 0), textcoords="offset points",
                    va="center", fontsize=7, color="#444444")
        if not r.passed:
            ax.annotate("check FAILED", xy=(0, i), xytext=(3, 0), textcoords="offset points",
                        va="center", fontsize=7, color="#d62728", fontweight="bold")
    name = lambda r: f"{r.M}x{r.N}x{r.K}" + (f"  {r.note}" if r.note else "")
    ax.set_yticks(y)
    ax.set_yticklabels([name(r) for r in rows], fontsize=7)
    ax.set_ylim(len(rows) - 0.4, -0.6)  # the first row on top
    ax.set_xlim(0, right * 1.28)
    ax.grid(axis="y", visible=False)
    ax.set_xlabel("% of cuBLAS (median of the rounds' ratios of time)")
    ax.legend(loc="upper right", fontsize=8, framealpha=0.95, title="category",
              title_fontsize=8)
    chapter = rows[0].chapter
    memory = [r for r in rows if r.memory_bound]
    lines = [f"{len(rows)} shapes, lowest first; " + timing_line(rows)]
    if memory:
        lines.append(f"{len(memory)} shapes below the ridge (memory-bound) also show the % of "
                     f"the device's copy bandwidth they reach on their minimum bytes "
                     f"(A + B read, C written)")
    self.title(ax, f"{chapter} against cuBLAS on {devices_of(rows)}: geomean "
                   f"{geomean(r.pct for r in rows):.1f}%",
               [w for line in lines for w in self.wrap(line)] +
               [w for line in conditions_lines(rows) for w in self.wrap(line)])
    self.save(fig, stem)

"""NN_chapter.svg (one chapter against its yardstick) and all_chapters.svg."""

import math

from tools.reporting.plot_text import conditions_lines, devices_of, PALETTE, slug, timing_line, yardstick_series


def chapter(self, stem, rows):
    rows = [r for r in rows if r.M * r.N * r.K > 0]
    if not rows:
        return
    rows.sort(key=lambda r: r.size)
    yard = [r for r in rows if r.yardstick]
    fig, axes = self.plt.subplots(2 if yard else 1, 1, sharex=True, squeeze=False,
                                  figsize=(8.5, 7.2 if yard else 4.8),
                                  gridspec_kw={"height_ratios": [3, 2] if yard else [1]})
    top = axes[0][0]
    tera = max(max(r.gflops for r in rows), max((r.yard_gflops for r in yard), default=0)) \
        >= 10000
    scale = 1e-3 if tera else 1.0
    chapter = rows[0].chapter
    line, = top.plot([r.size for r in rows], [r.gflops * scale for r in rows], "o-",
                     color="#1f77b4", lw=2, label=chapter)
    line.set_gid("series-" + slug(chapter))
    for name, points in yardstick_series(yard):
        ys, = top.plot([(s[0] * s[1] * s[2]) ** (1 / 3) for s, _ in points],
                       [g * scale for _, g in points], "s--", color="#555555", lw=1.5, ms=4,
                       label=name)
        ys.set_gid("yardstick-" + slug(name))
    failed = [r for r in rows if not r.passed]
    if failed:
        top.plot([r.size for r in failed], [r.gflops * scale for r in failed], "x",
                 color="#d62728", ms=12, mew=2.5, label="check failed", zorder=5)
    top.set_ylim(bottom=0, top=top.get_ylim()[1] * 1.05)
    top.set_ylabel(("TFLOP/s" if tera else "GFLOPS") + " (2·M·N·K / time)")
    top.legend(loc="upper left", fontsize=9)
    self.size_axis(top, [r.size for r in rows])
    self.title(top, f"{chapter} on {devices_of(rows)}",
               self.wrap(timing_line(rows)) +
               [w for line in conditions_lines(rows) for w in self.wrap(line)])
    bottom = top
    if yard:
        bottom = axes[1][0]
        pct = [r.pct for r in yard]
        lo = [r.pct - r.pct_min if r.has_spread else 0 for r in yard]
        hi = [r.pct_max - r.pct if r.has_spread else 0 for r in yard]
        spread = any(r.has_spread for r in yard)
        bars = bottom.errorbar([r.size for r in yard], pct, yerr=[lo, hi] if spread else None,
                               fmt="o-", color="#1f77b4", lw=1.5, capsize=4)
        bars[0].set_gid("ratio-" + slug(chapter))
        if spread:
            bars[2][0].set_gid("spread-" + slug(chapter))  # the bars of the rounds
        bottom.axhline(100, color="#555555", ls="--", lw=1)
        # From 0 unless every point is well above it: then the spread of the rounds shows.
        low = min(r.pct_min if r.has_spread else r.pct for r in yard)
        high = max([100] + [r.pct_max if r.has_spread else r.pct for r in yard])
        floor = 0 if low < 60 else 10 * math.floor((low - 5) / 10)
        bottom.set_ylim(floor, high + 0.12 * (high - floor))
        bottom.set_ylabel("% of the yardstick (dashed)")
    bottom.set_xlabel("problem size: cube root of M·N·K (log scale)")
    fig.align_ylabels([a[0] for a in axes])
    self.save(fig, stem)


def all_chapters(self, rows):
    rows = [r for r in rows if r.M * r.N * r.K > 0]
    if not rows:
        return
    fig, ax = self.plt.subplots(figsize=(11, 6.2))
    chapters = sorted({r.chapter for r in rows})
    markers = "os^Dv<>ph*"
    for i, ch in enumerate(chapters):
        mine = sorted((r for r in rows if r.chapter == ch), key=lambda r: r.size)
        line, = ax.plot([r.size for r in mine], [r.gflops for r in mine],
                        marker=markers[i % len(markers)], ms=4, lw=1.6,
                        color=PALETTE[i % len(PALETTE)], label=ch)
        line.set_gid("series-" + slug(ch))
    greys = ["#000000", "#666666", "#999999"]
    for i, (name, points) in enumerate(yardstick_series(rows)):
        line, = ax.plot([(s[0] * s[1] * s[2]) ** (1 / 3) for s, _ in points],
                        [g for _, g in points], "--", color=greys[i % 3], lw=2, label=name)
        line.set_gid("yardstick-" + slug(name))
    self.log_gflops_axis(ax)
    self.size_axis(ax, [r.size for r in rows])
    ax.set_xlabel("problem size: cube root of M·N·K (log scale)")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=9, frameon=False)
    self.title(ax, f"Every chapter on {devices_of(rows)}",
               self.wrap("chapters solid, the libraries they are measured against dashed; "
                         + timing_line(rows)))
    self.save(fig, "all_chapters")

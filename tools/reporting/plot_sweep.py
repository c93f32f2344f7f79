"""NAME.svg of a shape sweep (tools/shape_sweep) with its predicted tile and wave steps."""

from tools.reporting.plot_text import conditions_lines, devices_of, slug, timing_line, yardstick_series


def sweep(self, stem, rows, steps):
    info = steps[0]
    dims = {"M": lambda r: r.M, "N": lambda r: r.N, "K": lambda r: r.K}
    swept = next((d for d in "MNK" if len({dims[d](r) for r in rows}) > 1), info["swept"])
    rows = sorted(rows, key=dims[swept])
    if not rows:
        return
    x = [dims[swept](r) for r in rows]
    tera = max(max(r.gflops for r in rows), max(r.yard_gflops for r in rows)) >= 10000
    scale = 1e-3 if tera else 1.0
    fig, ax = self.plt.subplots(figsize=(10, 5.4))
    line, = ax.plot(x, [r.gflops * scale for r in rows], "o-", ms=3.5, lw=1.8,
                    color="#1f77b4", label=info["chapter"])
    line.set_gid("series-" + slug(info["chapter"]))
    for name, points in yardstick_series(rows):
        index = {"M": 0, "N": 1, "K": 2}[swept]
        ys, = ax.plot([s[index] for s, _ in points], [g * scale for _, g in points], "s--",
                      ms=3, lw=1.5, color="#555555", label=name)
        ys.set_gid("yardstick-" + slug(name))
    failed = [r for r in rows if not r.passed]
    if failed:
        ax.plot([dims[swept](r) for r in failed], [r.gflops * scale for r in failed], "x",
                color="#d62728", ms=10, mew=2.5, label="check failed", zorder=5)
    ax.set_ylim(0, ax.get_ylim()[1] * 1.18)
    marks = [s for s in steps if s["x"] is not None and min(x) <= s["x"] <= max(x)]
    tiles = [s for s in marks if not s["new_wave"]]
    label_tiles = len(tiles) <= 12
    for i, s in enumerate(marks):
        wave = s["new_wave"]
        line = ax.axvline(s["x"], color="#333333" if wave else "#999999",
                          ls="--" if wave else ":", lw=1.2 if wave else 1,
                          label=(("one more wave" if wave else
                                  f"one more {'row' if swept == 'M' else 'column'} of tiles")
                                 if s is next(m for m in marks if m["new_wave"] == wave)
                                 else None))
        line.set_gid(f"step-{int(s['x'])}")
        if wave or label_tiles:
            ax.annotate(f"{int(s['waves'])} waves, {int(s['tiles'])} tiles" if wave
                        else f"{int(s['tiles'])} tiles",
                        xy=(s["x"], 1), xycoords=("data", "axes fraction"),
                        xytext=(3, -12 - 10 * (i % 2)), textcoords="offset points",
                        fontsize=7.5, color="#333333" if wave else "#777777")
    ax.set_xlabel(swept)
    # A short sweep gets a tick at every shape; a long one round numbers.
    ax.xaxis.set_major_locator(self.ticker.FixedLocator(x) if len(x) <= 12 else
                               self.ticker.MaxNLocator(integer=True, steps=[1, 2, 4, 5, 10]))
    ax.xaxis.set_major_formatter(self.ticker.FuncFormatter(lambda v, _: f"{v:.0f}"))
    ax.set_ylabel(("TFLOP/s" if tera else "GFLOPS") + " (2·M·N·K / time)")
    ax.legend(loc="lower right", fontsize=9)
    fixed = ", ".join(f"{d} {dims[d](rows[0])}" for d in "MNK" if d != swept)
    lines = []
    if info["BM"]:
        slots = int(info["sms"] * info["blocks_per_sm"])
        lines.append(f"predicted steps from {int(info['BM'])}x{int(info['BN'])} block tiles, "
                     f"{int(info['blocks_per_sm'])} block(s) per SM x {int(info['sms'])} SMs "
                     f"= {slots} at once" + ("" if marks else "; no step in this range"))
    else:
        lines.append("no tile model for this chapter: no predicted steps")
    self.title(ax, f"{info['chapter']} against {swept} ({fixed}) on {devices_of(rows)}",
               lines + self.wrap(timing_line(rows)) +
               [w for line in conditions_lines(rows) for w in self.wrap(line)])
    self.save(fig, stem)

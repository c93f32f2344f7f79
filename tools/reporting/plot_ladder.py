"""ladder.svg: one bar per chapter of chapters/chapters.txt, grouped by era."""

import sys

from tools.reporting.plot_text import devices_of, distinct, rate_text, slug, timing_line


# The one table of eras: the first row whose kind, precision (a prefix: fp8 is every fp8_*) and id
# range (the chapter's number, both ends included; None: open) match a chapter of
# chapters/chapters.txt gives its era.
ERAS = [  # (era, kind, precision, first id, last id)
    ("CPU", "cpu", None, None, None),
    ("CUDA cores", "cuda", "fp32", None, None),
    ("WMMA", "cuda", "fp16", None, 10),
    ("mma.sync", "cuda", "fp16", 11, None),
    ("Hopper", "hopper", "fp16", None, 15),
    ("every shape", "hopper", "fp16", 16, None),
    ("FP8", None, "fp8", None, None),
]
LADDER_SIZES = (4096, 8192)  # the squares each GPU chapter's bars show


def era_of(chapter):
    """The era of a chapters.Chapter, from ERAS ("other" when no row matches)."""
    number = int(chapter.id[:2])
    for era, kind, precision, first, last in ERAS:
        if ((kind is None or chapter.kind == kind) and
                (precision is None or chapter.precision.startswith(precision)) and
                (first is None or number >= first) and (last is None or number <= last)):
            return era
    return "other"


def chapter_list():
    """The chapters of chapters/chapters.txt (tools/build/chapters.py), or [] when it cannot be read."""
    try:
        from tools.build import chapters
        return chapters.load()
    except Exception as e:  # the tools without the list: no ladder
        print(f"plot.py: note: no chapter list ({e}): no ladder chart", file=sys.stderr)
        return []


def ladder_bars(rows, chapters):
    """[(chapter, era, [(label, Result)])] in the list's order: each chapter's results at
    LADDER_SIZES (squares), or for a chapter with none of them its largest square; chapters
    without a result are left out, results of chapters not on the list too."""
    out = []
    for c in chapters:
        mine = {r.shape: r for r in rows if r.chapter == c.id and r.M == r.N == r.K and r.pct > 0}
        picked = [(str(n), mine[(n, n, n)]) for n in LADDER_SIZES if (n, n, n) in mine]
        if not picked and mine:
            n = max(s[0] for s in mine)
            picked = [(str(n), mine[(n, n, n)])]
        if picked:
            out.append((c, era_of(c), picked))
    return out


def ladder(self, rows, chapters):
    """ladder.svg: one group of bars per chapter, % of its yardstick, eras shaded."""
    bars = ladder_bars(rows, chapters)
    if not bars:
        return
    fig, ax = self.plt.subplots(figsize=(max(9.0, 0.62 * len(bars) + 3), 6.2))
    width = 0.38
    shades = {"4096": "#1f77b4", "8192": "#9ecae1"}
    labelled, top, x = set(), 110.0, 0
    eras = []  # (era, first x, last x)
    for i, (c, era, picked) in enumerate(bars):
        if not eras or eras[-1][0] != era:
            eras.append([era, i, i])
        eras[-1][2] = i
        for j, (size, r) in enumerate(picked):
            offset = (j - (len(picked) - 1) / 2) * width
            colour = shades.get(size, "#bbbbbb")
            label = (f"at {size}" if size in shades else "a CPU chapter at its largest "
                     "size") if colour not in labelled else None
            labelled.add(colour)
            bar = ax.bar(i + offset, r.pct, width * 0.94, color=colour, label=label,
                         edgecolor="#333333" if not r.passed else colour)
            bar.patches[0].set_gid(f"ladder-{c.id}-{size}")
            if r.has_spread:
                ax.errorbar([i + offset], [r.pct], yerr=[[r.pct - r.pct_min],
                                                         [r.pct_max - r.pct]],
                            fmt="none", ecolor="#333333", elinewidth=0.8, capsize=2)
            end = r.pct_max if r.has_spread else r.pct
            top = max(top, end)
            ax.annotate(rate_text(r.gflops), xy=(i + offset, end), xytext=(0, 2),
                        textcoords="offset points", ha="center", va="bottom", fontsize=6.5,
                        rotation=90, color="#222222")
            if not r.passed:
                ax.annotate("FAIL", xy=(i + offset, end), xytext=(0, 28),
                            textcoords="offset points", ha="center", fontsize=7,
                            color="#d62728", fontweight="bold")
    ax.set_ylim(0, top * 1.22)
    for k, (era, lo, hi) in enumerate(eras):
        if k % 2 == 0:
            ax.axvspan(lo - 0.5, hi + 0.5, color="#f2f2f2",
                       zorder=0).set_gid("era-" + slug(era))
        ax.annotate(era, xy=((lo + hi) / 2, 1), xycoords=("data", "axes fraction"),
                    xytext=(0, -12), textcoords="offset points", ha="center", fontsize=8.5,
                    fontweight="bold", color="#444444")
    ax.axhline(100, color="#222222", ls="--", lw=1.2, label="100%: as fast as the yardstick"
               ).set_gid("ladder-100")
    ax.set_xticks(range(len(bars)))
    ax.set_xticklabels([c.id[:2] + " " + c.id[3:].replace("_", " ") + "".join(
        f" (at {size})" for size, _ in picked if size not in shades)
        for c, _, picked in bars], rotation=55, ha="right", fontsize=8)
    ax.set_xlim(-0.6, len(bars) - 0.4)
    ax.grid(axis="x", visible=False)
    ax.set_ylabel("% of the chapter's yardstick (median of the rounds)")
    ax.legend(loc="upper left", fontsize=8, framealpha=0.95, bbox_to_anchor=(0.0, 0.93))
    used = [r for _, _, picked in bars for _, r in picked]
    yards = distinct(f"{r.yardstick} ({r.precision})" for r in used if r.yardstick)
    commits = distinct((getattr(r, "commit", "") or "")[:12] for r in used)
    lines = ["TFLOP/s on each bar (G: GFLOP/s); whiskers: the lowest and highest round. "
             "Yardsticks: "
             + ", ".join(yards)]
    if commits:
        lines.append("commit " + ", ".join(commits))
    self.title(ax, f"The ladder on {devices_of(used)}: each chapter against its yardstick",
               [w for line in lines for w in self.wrap(line, 150)] + self.wrap(
                   timing_line(used), 150))
    self.save(fig, "ladder")

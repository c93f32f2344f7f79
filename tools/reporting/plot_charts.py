"""The charts' common ground for tools/reporting/plot.py: matplotlib's set-up, saving, the axes; each
chart is drawn by a module of its own (plot_chapter, plot_ladder, plot_roofline, plot_suite,
plot_accuracy, plot_sweep), attached here as a method of Charts."""

import math
import os
import textwrap

from tools.reporting import plot_accuracy, plot_chapter, plot_ladder, plot_roofline, plot_suite, plot_sweep


class Charts:
    """Every chart, drawn with matplotlib (imported here so that the table needs none of it)."""

    def __init__(self, out_dir, png):
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib import ticker

        matplotlib.rcParams.update({"svg.fonttype": "none", "svg.hashsalt": "gemm-tutorial",
                                    "font.size": 10, "axes.grid": True, "grid.color": "#e4e4e4",
                                    "axes.axisbelow": True})
        self.plt, self.ticker = plt, ticker
        self.out_dir, self.png = out_dir, png
        self.written = []

    def save(self, fig, name, extra=None):
        # extra: artists the tight bounding box must hold besides the figure's own (a second
        # legend); None leaves matplotlib to find them.
        tight = {"bbox_inches": "tight", "bbox_extra_artists": extra}
        path = os.path.join(self.out_dir, name + ".svg")
        fig.savefig(path, metadata={"Date": None}, **tight)
        self.written.append(path)
        if self.png:
            fig.savefig(os.path.join(self.out_dir, name + ".png"), dpi=110, **tight)
        self.plt.close(fig)

    # Sizes on a log2 axis, ticks at the powers of two written out (256, 1024, 16384).
    def size_axis(self, ax, xs):
        ax.set_xscale("log", base=2)
        # Rounded first: the cube root of 256^3 comes back as 255.99999.
        lo = math.floor(round(math.log2(min(xs)), 6))
        hi = math.ceil(round(math.log2(max(xs)), 6))
        if hi == lo:
            lo, hi = lo - 1, hi + 1
        ax.set_xlim(2 ** (lo - 0.25), 2 ** (hi + 0.25))
        ax.xaxis.set_major_locator(self.ticker.FixedLocator([2.0 ** e for e in range(lo, hi + 1)]))
        ax.xaxis.set_major_formatter(self.ticker.FuncFormatter(lambda v, _: f"{v:.0f}"))
        ax.xaxis.set_minor_locator(self.ticker.NullLocator())

    def log_gflops_axis(self, ax, label="GFLOPS (2·M·N·K / time), log scale"):
        ax.set_yscale("log")
        ax.yaxis.set_major_formatter(self.ticker.FuncFormatter(
            lambda v, _: f"{v:,.0f}" if v >= 1 else f"{v:g}"))
        ax.set_ylabel(label)

    def title(self, ax, title, lines):
        ax.set_title(title, fontsize=12, loc="left", pad=8 + 13 * len(lines))
        for i, line in enumerate(lines):
            ax.annotate(line, xy=(0, 1), xycoords="axes fraction", xytext=(0, 6 + 13 * (
                len(lines) - 1 - i)), textcoords="offset points", fontsize=8, color="#555555")

    @staticmethod
    def wrap(line, width=110):
        return textwrap.wrap(line, width) if line else []

    chapter = plot_chapter.chapter
    all_chapters = plot_chapter.all_chapters
    ladder = plot_ladder.ladder
    roofline = plot_roofline.roofline
    suite = plot_suite.suite
    accuracy = plot_accuracy.accuracy
    sweep = plot_sweep.sweep

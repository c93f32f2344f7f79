"""fp8_accuracy.svg: relative error against K of each FP8 kernel and cuBLASLt."""

from tools.reporting.plot_text import PALETTE, slug


def accuracy(self, stem, rows):
    """Relative error (Frobenius) against K, log-log, one panel per input distribution."""
    dists = sorted({r["dist"] for r in rows})
    fig, axes = self.plt.subplots(1, len(dists), figsize=(6.5 * len(dists), 4.8), squeeze=False)
    for ax, dist in zip(axes[0], dists):
        kernels = []
        for r in rows:
            if r["dist"] == dist and r["kernel"] not in kernels:
                kernels.append(r["kernel"])
        for i, k in enumerate(kernels):
            pts = sorted((r["K"], r["rel_err"]) for r in rows
                         if r["dist"] == dist and r["kernel"] == k and r["rel_err"] > 0)
            if not pts:
                continue
            dashed = k.startswith("cuBLASLt")
            line, = ax.plot([p[0] for p in pts], [p[1] for p in pts], "--" if dashed else "o-",
                            ms=3.5, lw=1.6, color=PALETTE[i % len(PALETTE)], label=k)
            line.set_gid("accuracy-" + slug(dist) + "-" + slug(k))
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("K")
        worst_row = "worst row" in dist  # fp8_accuracy's quantization experiment
        ax.set_ylabel("relative error ||C - C_ref|| / ||C_ref||" +
                      (", the worst row's" if worst_row else ""))
        ax.set_title(dist if worst_row else f"{dist} inputs")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    self.save(fig, stem)

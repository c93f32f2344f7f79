"""roofline.svg: each chapter's napkin intensity against its GFLOPS under the device's roofs."""

import math
import sys

from tools.build import chapter_facts  # the chapters' own tiles
from tools.reporting.plot_text import PALETTE, slug, thousands


# --- The napkin model of each chapter's global-memory traffic (the roofline's x) --------------
# Bytes a chapter's tiling asks of global memory. Each chapter owns its model: the `napkin` rows of
# chapters/NN_*/configs.hpp (read by tools/build/chapter_facts.py, checked there by static_asserts against
# the tiles of the kernel's gemm()), rows (largest M or 0 for any, BM, BN): the first row whose
# largest M holds M gives the block tile. e = bytes per element of A and B (4 for fp32, 2 for fp16,
# 1 for e4m3); C (fp32, bf16 for FP8) is written once, and read once more when beta != 0.
#   a (BM, BN) tile of C is computed from a (BM, K) panel of A and a (K, BN) panel of B, each
#   loaded once: A is read ceil(N/BN) times and B ceil(M/BM) times,
#       e (M K ceil(N/BN) + K N ceil(M/BM)) bytes + C's bytes.
#   One thread per element of C (chapters 03, 04) is a 1 x 1 tile: 2 e M N K bytes (0.25 FLOP/byte
#   fp32). Clusters sharing B by multicast (15, 16, 17, 22, 23) count as one tile of the cluster's
#   rows. Split-K's and stream-K's fp32 partials (16-18, 24: 2 * 4 bytes per element of C per
#   extra slice) are left out: the slice count comes from the SM count, which a CSV does not record
#   (configs.hpp of 16-18 and 24 give the formula), so for those the napkin is a lower bound on
#   traffic.
# These are requests to global memory: what the L2 catches never reaches DRAM, so the DRAM bytes
# are at most this and the chapter's true DRAM intensity at least this.
NAPKIN = chapter_facts.napkin_table()  # {chapter id: [(largest M, BM, BN)]}


def _precision(r):
    """The list's row for a CSV's precision name (tools/build/chapters.py), or None if unknown."""
    try:
        from tools.build import chapters
        return chapters.precision(r.precision)
    except Exception:  # an unknown name, or the tools without the list: fp32's sizes below
        return None


def element_bytes(r):
    """Bytes of one element of A and B (the list's precision table)."""
    p = _precision(r)
    return float(p.ab) if p else 4.0


def c_bytes(r):
    """Bytes of one element of C: bf16 for the FP8 chapters, fp32 for the others."""
    p = _precision(r)
    return float(p.c) if p else 4.0


def min_traffic_bytes(r):
    """A and B read once, C written once (and read once when beta != 0)."""
    c = c_bytes(r) * r.M * r.N * (2 if r.beta != 0 else 1)
    return element_bytes(r) * (r.M * r.K + r.K * r.N) + c


def napkin_bytes(r):
    """The global-memory bytes of the chapter's tiling (NAPKIN), or None when unknown."""
    rows = NAPKIN.get(r.chapter)
    if rows is None:
        return None
    e, M, N, K = element_bytes(r), r.M, r.N, r.K
    c = c_bytes(r) * M * N * (2 if r.beta != 0 else 1)
    BM, BN = chapter_facts.napkin_tile(rows, M)
    return e * (M * K * math.ceil(N / BN) + K * N * math.ceil(M / BM)) + c


def intensity(r):
    """(FLOP per byte, True when from the chapter's napkin model, False when the minimum)."""
    flop = 2.0 * r.M * r.N * r.K
    nb = napkin_bytes(r)
    return (flop / nb, True) if nb else (flop / min_traffic_bytes(r), False)


def roofline(self, device, peaks, ceilings, rows):
    rows = [r for r in rows if r.device == device and r.M * r.N * r.K > 0 and r.gflops > 0]
    # The memory roof and the compute roofs: measured (ceilings.csv) where there, else theory.
    if "copy_bandwidth" in ceilings:
        bw, bw_label = ceilings["copy_bandwidth"][0], "measured copy bandwidth"
    elif peaks.get("bandwidth"):
        bw, bw_label = peaks["bandwidth"], "theoretical DRAM bandwidth"
    else:
        print(f"plot.py: note: no bandwidth known for {device}: no roofline", file=sys.stderr)
        return
    names = {"cublas_sgemm": "fp32: cuBLAS SGEMM", "mma_sync_f16f32": "fp16: mma.sync",
             "wgmma_f16f32": "fp16: wgmma",
             "cublas_gemmex_f16f32": "fp16: cuBLAS GemmEx"}
    roofs = [(names[k] + ", measured", v[0]) for k, v in ceilings.items() if k in names]
    if not roofs:
        roofs = [(label + ", theoretical", peaks[key]) for key, label in
                 (("fp32", "fp32 CUDA cores"), ("fp16", "fp16 tensor cores"))
                 if peaks.get(key)]
    roofs.sort(key=lambda r: -r[1])
    points = {}
    for r in rows:
        x, napkin = intensity(r)
        points.setdefault(r.chapter, []).append((r.size, x, r.gflops, napkin))
    xs = [p[1] for ps in points.values() for p in ps] + [peak / bw for _, peak in roofs]
    x_lo, x_hi = min(xs + [1.0]) / 2, max(xs + [1.0]) * 6
    fig, ax = self.plt.subplots(figsize=(11, 6.4))
    # One memory roof up to the highest ridge, then each compute roof flat from its ridge on.
    top_ridge = max([peak / bw for _, peak in roofs] + [x_lo])
    line, = ax.plot([x_lo, top_ridge], [x_lo * bw, top_ridge * bw], color="#222222", lw=1.6,
                    label=f"memory: {bw_label}, {thousands(bw)} GB/s")
    line.set_gid("roof-memory")
    styles = ["-", "--", "-.", ":"]
    roof_lines = [line]
    for i, (label, peak) in enumerate(roofs):
        ridge = peak / bw
        line, = ax.plot([ridge, x_hi], [peak, peak], color="#222222", lw=1.6,
                        ls=styles[i % len(styles)],
                        label=f"{label}: {thousands(peak)} GFLOPS, ridge {ridge:.0f} FLOP/byte")
        line.set_gid("roof-" + slug(label))
        roof_lines.append(line)
    chapter_lines = []
    for i, ch in enumerate(sorted(points)):
        ps = sorted(points[ch])
        napkin = all(p[3] for p in ps)
        color = PALETTE[i % len(PALETTE)]
        line, = ax.plot([p[1] for p in ps], [p[2] for p in ps], "o-", ms=4, lw=1,
                        color=color, alpha=0.9,
                        label=ch if napkin else ch + " (minimum traffic)")
        line.set_gid("point-" + slug(ch))
        chapter_lines.append(line)
        big = ps[-1]
        ax.annotate(ch[:2], xy=(big[1], big[2]), xytext=(5, -3), textcoords="offset points",
                    fontsize=8, color=color, fontweight="bold")
    ax.set_xscale("log", base=2)
    ax.set_xlim(x_lo, x_hi)
    ax.xaxis.set_major_formatter(self.ticker.FuncFormatter(lambda v, _: f"{v:g}"))
    self.log_gflops_axis(ax, "GFLOPS, log scale")
    top = max([p for _, p in roofs] + [p[2] for ps in points.values() for p in ps])
    bottom = min([p[2] for ps in points.values() for p in ps] + [x_lo * bw])
    ax.set_ylim(bottom / 2, top * 2.5)
    ax.set_xlabel("arithmetic intensity: FLOP per byte the chapter's tiling asks of global "
                  "memory (napkin model, tools/reporting/plot.py), log scale")
    roof_legend = ax.legend(handles=roof_lines, loc="lower left", bbox_to_anchor=(1.01, 0.0),
                            fontsize=8, title="roofs", title_fontsize=8, frameon=False)
    ax.add_artist(roof_legend)
    chapter_legend = ax.legend(handles=chapter_lines, loc="upper left",
                               bbox_to_anchor=(1.01, 1.0), fontsize=9, frameon=False,
                               title="each point one size,\nthe largest labelled",
                               title_fontsize=8)
    source = ("measured ceilings (ceilings.csv)" if ceilings
              else "theoretical peaks (peaks.csv)")
    self.title(ax, f"Roofline of {device}", self.wrap(
        f"roofs: {source}. x counts the bytes each chapter's tiling requests; the caches "
        f"serve part of them, so a point can sit above the memory roof."))
    self.save(fig, "roofline", extra=[roof_legend, chapter_legend])

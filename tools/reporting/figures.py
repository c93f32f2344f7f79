#!/usr/bin/env python3
"""The layout figures of chapters 11-19, drawn from the kernels' own index functions.

    python3 -m tools.reporting.figures [--out DIR] LAYOUTS

LAYOUTS is the tools/layouts binary (built by meson: build/tests/layouts; run here, no GPU
needed) or the JSON it printed. DIR defaults to docs/figures. Every figure is computed first as
cells (a position, a label, a shade) from that JSON alone -- figure_cells() --, then drawn as
SVG; tests/tools/test_figures.py checks the cells against the JSON element by element, the drawing
against the cells, and each committed SVG's digest against the cells the current code gives (a
figure that drifted from its kernel fails the test: run this script again).

Needs matplotlib to draw (Debian: python3-matplotlib); figure_cells() needs nothing but Python.
"""
import argparse
import hashlib
import json
import os
import subprocess
import sys
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NO_MATPLOTLIB = "no matplotlib: figures not drawn (apt-get install python3-matplotlib)"

# Light fills whose greys differ (luminance falls with the index), so that a shade still reads
# printed in black and white; the labels carry the information in any case
# (matplotlib's YlGnBu from 0 to 0.54: luminance 1.0, 0.96, 0.92, 0.88, 0.80, 0.71, 0.65, 0.58.)
PALETTE = ["#ffffff", "#f4fbc0", "#e3f4b2", "#caeab4", "#a0dab8", "#73c8bd", "#50bbc2", "#35aac3"]


def load(path):
    """The layouts JSON: from the binary's output if `path` is executable, else from the file."""
    if os.access(path, os.X_OK) and not path.endswith(".json"):
        p = subprocess.run([path], capture_output=True, text=True)
        if p.returncode != 0:
            sys.exit(f"figures.py: {path} failed (exit {p.returncode}): {p.stderr.strip()}")
        return json.loads(p.stdout)
    with open(path) as f:
        return json.load(f)


def cell(x, y, label, shade=0, w=1, h=1, hatch=""):
    return {"x": x, "y": y, "w": w, "h": h, "label": label, "shade": shade, "hatch": hatch}


def panel(title, cols, rows, cells, xlabel="", ylabel="", xticks=None, yticks=None, notes=(),
          font=7):
    """A grid of `rows` x `cols` units, row 0 at the top. notes: ("span", x, y0, y1, text) draws a
    bracket beside rows y0..y1 at column x; ("text", x, y, text) a line of text."""
    return {"title": title, "cols": cols, "rows": rows, "cells": cells, "xlabel": xlabel,
            "ylabel": ylabel, "xticks": xticks, "yticks": yticks, "notes": list(notes),
            "font": font}


# ---- the figures, as cells --------------------------------------------------------------------


def ch11_swizzle(d):
    rows = max(r for r, _, _ in d["ch11_swizzle"]) + 1
    logical = [cell(c, r, str(c), c) for r, c, _ in d["ch11_swizzle"]]
    stored = [cell(s, r, str(c), c) for r, c, s in d["ch11_swizzle"]]
    ticks = [(r, f"row {r}") for r in range(rows)]
    return {
        "title": "Chapter 11: an As tile of 64 halves a row, swizzle<64>(r, c)",
        "size": (9, 5.2),
        "panels": [
            panel("as in A: 16-byte chunk c of row r (8 halves of K)", 8, rows, logical,
                  xlabel="chunk", yticks=ticks),
            panel("as stored: chunk c at c ^ (r % 8); an ldmatrix phase (8 rows, one c) "
                  "hits 8 bank groups", 8, rows, stored, xlabel="16-byte slot of the 128-byte row",
                  yticks=ticks),
        ]}


def ch11_ldmatrix(d):
    elems = [cell(col, row, f"T{lane} a{i}", i) for lane, i, h, row, col in d["ch11_ldmatrix_a"]]
    addrs = [cell(chunk, row, f"T{lane}", lane // 8) for lane, row, chunk in d["ch11_addresses"]]
    return {
        "title": "Chapter 11: one ldmatrix.x4 loads a 16x16 block of A as four 8x8 matrices",
        "size": (10, 6.4),
        "widths": [16, 3],
        "panels": [
            panel("what each lane receives: matrix i into register a[i], lane l holding "
                  "row l/4, columns 2(l%4), +1 of it", 16, 16, elems,
                  xlabel="column of the block (k)",
                  ylabel="row (m)", xticks=[(c, str(c)) for c in range(16)],
                  yticks=[(r, str(r)) for r in range(16)], font=6),
            panel("who gives the address\nof each 16-byte row", 2, 16, addrs,
                  xlabel="chunk", xticks=[(0, "0"), (1, "1")],
                  yticks=[(r, str(r)) for r in range(16)]),
        ]}


def ch11_mma(d):
    a = [cell(col, row, f"T{lane} a{i}", i) for lane, i, h, row, col in d["mma_a"]]
    ticks = [(r, str(r)) for r in range(16)]
    return {
        "title": "mma.sync m16n8k16's A fragment: which lane holds which element, in which "
                 "register",
        "size": (10, 6.4),
        "panels": [
            panel("A (16 x 16): registers a[0..3] of lane T, two halves each (lane l: rows l/4 and "
                  "l/4 + 8, columns 2(l%4), +1 and + 8)", 16, 16, a, xlabel="k", ylabel="m",
                  xticks=[(x, str(x)) for x in range(16)], yticks=ticks, font=6),
        ]}


def ch11_mma_bc(d):
    b = [cell(col, row, f"T{lane} b{i}", i) for lane, i, h, row, col in d["mma_b"]]
    c = [cell(col, row, f"T{lane} c{e}", e) for lane, e, row, col in d["mma_c"]]
    ticks = [(r, str(r)) for r in range(16)]
    return {
        "title": "mma.sync m16n8k16's B and C fragments",
        "size": (10, 6.4),
        "panels": [
            panel("B (16 x 8) as (k, n): b[0..1]", 8, 16, b, xlabel="n", ylabel="k",
                  xticks=[(x, str(x)) for x in range(8)], yticks=ticks, font=6),
            panel("C and D (16 x 8): c[0..3] (the accumulators)", 8, 16, c, xlabel="n",
                  ylabel="m", xticks=[(x, str(x)) for x in range(8)], yticks=ticks, font=6),
        ]}


def chunks_of(rows, k_of, mn_name, k_name):
    """Cells of an operand's 16-byte chunks from [kk, mn, k, byte] rows: where the chunk's first
    element is read, labelled with the chunk's (mn, first k) or (k, first mn)."""
    cells = []
    for kk, mn, k, byte in rows:
        kabs = 16 * kk + k
        first = (mn % 8 == 0) if mn_name == "n" else (kabs % 8 == 0)
        if not first:
            continue
        label = f"m{mn}\nk{kabs}-{kabs + 7}" if mn_name == "m" else f"k{kabs}\nn{mn}-{mn + 7}"
        cells.append((byte, label, kk))
    return cells


def ch12_kmajor(d):
    steps = d["ch12_a_steps"]
    sbo = steps[0][3]
    cells = [cell((b % 128) // 16, b // 128, label, kk)
             for b, label, kk in chunks_of(d["ch12_a"], None, "m", "k")]
    rows = max(c["y"] for c in cells) + 1
    starts = ", ".join(f"{s[1]}" for s in steps)
    return {
        "title": "Chapter 12: A, K-major, as wgmma reads it (the first 16 rows of a warpgroup's "
                 "(64, 64) stage)",
        "size": (9, 6.2),
        "panels": [
            panel(f"each cell: 16 bytes = 8 k of one row m; shade: wgmma step kk (starting "
                  f"+{starts} bytes);\na core matrix: the 8 cells of one k-range in 8 rows", 8,
                  rows, cells,
                  xlabel="16-byte slot of the 128-byte row (swizzled)", ylabel="byte / 128",
                  yticks=[(r, str(r)) for r in range(rows)],
                  notes=[("span", 7.6, 0, 7, "8 rows\n1024 B"),
                         ("span", 7.6, 8, 15, f"SBO =\n{sbo} B\nfurther"),
                         ("text", 0, rows + 0.9,
                          f"LBO = {steps[0][2]}: unused (a step's 16 k fit in one 128-byte row)")]),
        ]}


def ch12_mnmajor(d):
    steps = d["ch12_b_steps"]
    lbo, sbo = steps[0][2], steps[0][3]
    keep = [r for r in d["ch12_b"] if r[0] == 0]  # step 0: k-rows 0..15
    cells = []
    for b, label, _ in chunks_of(keep, None, "n", "k"):
        p = b // lbo  # the panel (next 64 columns of N)
        k = (b % lbo) // 128
        cells.append(cell(9 * p + (b % 128) // 16, k, label, 1 + 2 * p + k // 8))
    rows = max(c["y"] for c in cells) + 1
    return {
        "title": "Chapter 12: B, MN-major, as wgmma reads it (step kk = 0: k-rows 0-15 of two of "
                 "the stage's four (64, 64) panels)",
        "size": (11, 5.6),
        "panels": [
            panel(f"each cell: 16 bytes = 8 n of one k-row; a core matrix: the 8 cells of one "
                  f"n-range in 8 k-rows; step kk starts {steps[1][1]} kk bytes further", 17,
                  rows, cells,
                  xlabel="16-byte slot of the 128-byte row (swizzled): panel 0 (n 0-63) | panel 1 "
                  "(n 64-127)", ylabel="k-row (byte / 128 in the panel)",
                  xticks=[(x, str(x)) for x in range(8)] + [(9 + x, str(x)) for x in range(8)],
                  yticks=[(r, str(r)) for r in range(rows)],
                  notes=[("span", 16.6, 0, 7, "8 k-rows\n1024 B"),
                         ("span", 16.6, 8, 15, f"SBO =\n{sbo} B\nfurther"),
                         ("text", 0, rows + 1.1,
                          f"LBO = {lbo} B: from panel 0 to panel 1, the next 64 columns of N")],
                  font=6.5),
        ]}


def ch13_tma(d):
    logical = [cell(c, r, str(c), c) for r, c, _ in d["tma_box"]]
    stored = [cell(s, r, str(c), c) for r, c, s in d["tma_box"]]
    ticks = [(r, f"row {r}") for r in range(8)]
    return {
        "title": "Chapter 13: a TMA box lands in the 128-byte swizzle (byte address bits 4-6 ^= "
                 "bits 7-9)",
        "size": (9, 3.4),
        "panels": [
            panel("the box in global memory: chunk c (16 bytes) of row r", 8, 8, logical,
                  xlabel="chunk", yticks=ticks),
            panel("in shared memory (1024-byte aligned): chunk c at c ^ (r % 8)", 8, 8, stored,
                  xlabel="16-byte slot of the 128-byte row", yticks=ticks),
        ]}


DESC_FIELDS = ["start address >> 4", "LBO >> 4", "SBO >> 4", "swizzle"]  # layouts.cu's order


def ch12_descriptor(d):
    fields = d["desc_fields"]
    cells, used = [], set()
    for f, (lo, bits) in enumerate(fields):
        name = f"{DESC_FIELDS[f]}\nbits {lo}-{lo + bits - 1}" if bits > 4 else DESC_FIELDS[f]
        cells.append(cell(64 - lo - bits, 0, name, f + 1, w=bits))
        used |= set(range(lo, lo + bits))
    gaps, lo = [], None
    for bit in range(65):
        if bit < 64 and bit not in used:
            lo = bit if lo is None else lo
        elif lo is not None:
            gaps.append((lo, bit - lo))
            lo = None
    for lo, bits in gaps:
        cells.append(cell(64 - lo - bits, 0, "0" if bits < 4 else "0 (unused)", 7, w=bits,
                          hatch="//"))
    for row, (base, lbo, sbo, low, high) in enumerate(d["desc_examples"], 1):
        value = low | high << 32
        for f, (lo, bits) in enumerate(fields):
            v = (value >> lo) & ((1 << bits) - 1)
            text = f"{v}\n= {v * 16} B" if f < 3 else str(v)
            cells.append(cell(64 - lo - bits, row, text, f + 1, w=bits))
    names = ["field", f"A, step 0\n(tile at {d['desc_examples'][0][0]:#x})",
             f"B, step 0\n(tile at {d['desc_examples'][1][0]:#x})"]
    return {
        "title": "Chapter 12: the wgmma shared-memory descriptor (swizzle 1 = 128 bytes), and "
                 "chapter 12's first two",
        "size": (11, 3.2),
        "panels": [
            panel("64 bits, bit 63 on the left", 64, 3, cells,
                  xticks=[(64 - b - 1, str(b)) for b in (63, 62, 45, 32, 29, 16, 13, 0)],
                  yticks=list(enumerate(names)), font=7),
        ]}


def ch14_barriers(d):
    stages = d["ch14_stages"]
    rows = d["ch14_phases"]
    cells = []
    for kt, s, full, empty in rows:
        cells.append(cell(kt, 0, str(s), s + 1))
        cells.append(cell(kt, 1, str(full), s + 1))
        cells.append(cell(kt, 2, "-" if empty < 0 else str(empty), s + 1))
    return {
        "title": "Chapter 14: one stage's barriers, and the parities each k-tile waits for",
        "size": (10, 5.6),
        "heights": [3, 1.6],
        "diagram": stages,
        "panels": [
            panel(f"the parities (STAGES = {stages}): stage_of(kt), full_parity(kt), "
                  "empty_parity(kt)", len(rows), 3, cells, xlabel="k-tile kt",
                  xticks=[(kt, str(kt)) for kt, _, _, _ in rows],
                  yticks=[(0, "stage s"), (1, "consumers wait\nfull[s], parity"),
                          (2, "producer waits\nempty[s], parity")], font=8),
        ]}


def streamk(d, s):
    """Chapter 17's worker x k-tile map of one schedule (d["schedules"][name])."""
    KT = s["KT"]
    many = s["workers"] > 16
    cells, at = [], {}
    for w, tile, kb, ke in s["units"]:
        x = at.get(w, 0)
        at[w] = x + ke - kb
        piece = kb > 0 or ke < KT
        cells.append((w, tile, kb, ke, x, piece))
    width = max(at.values())
    out = []
    for w, tile, kb, ke, x, piece in cells:
        # A piece shows its k-tiles [kb, ke) where the bar has room: one line in a tall figure.
        label = f"t{tile}"
        if piece and not many:
            label += f"\n{kb}-{ke}"
        elif piece and 8 * (ke - kb) >= width:
            label += f" {kb}-{ke}"
        out.append(cell(x, w, label, tile % 7 + 1, w=ke - kb, hatch="//" if piece else ""))
    cells = out
    split = d["split_names"].get(str(s["split"]), "?")
    sk = s["tiles"] - s["dp_tiles"]
    parts = []
    if s["dp_tiles"]:
        parts.append(f"{s['dp_tiles']} whole tiles round-robin first")
    if sk:
        equal = sk <= s["sk_workers"] and s["sk_workers"] % sk == 0
        parts.append(f"{sk} tiles' {sk * KT} k-tiles cut into {s['sk_workers']} ranges"
                     + (f" (equal depths: {s['sk_workers'] // sk} a tile)" if equal else ""))
    about = f"{s['about']}; " if s["about"] else ""
    title = (f"Chapter {d['schedule_chapter']}'s schedule, {split}: {about}{s['tiles']} "
             f"tiles of {KT} k-tiles on {s['workers']} of {s['max_workers']} workers ("
             + ", then ".join(parts) + f"; at most {s['max_pieces']} pieces a tile)")
    # Ticks at whole tiles when a worker computes two or more, else at quarters of its range.
    step = KT * max(1, width // (4 * KT)) if width >= 2 * KT else max(1, width // 4)
    return {
        "title": title,
        "size": (11, 1.2 + 0.17 * s["workers"]) if many else (9, 1.4 + 0.35 * s["workers"]),
        "top": 0.95,
        "panels": [
            panel("each bar: one unit, tile t (k-tiles kb-ke if a piece), in the order the worker "
                  "computes them; hatched: a piece, its partial added by the fix-up", width,
                  s["workers"], cells,
                  xlabel="k-tiles computed by the worker", ylabel="worker",
                  xticks=[(t - 0.5, str(t)) for t in range(0, width + 1, step)],
                  yticks=[(w, str(w)) for w in range(0, s["workers"], 4 if many else 1)],
                  font=4.5 if many else 7),
        ]}


SMALL_M = "small_m\n(ch18)"  # the dispatcher's cells that gemm() sends to chapter 18


def dispatcher_label(d, small, kernel, tile):
    if small:
        return SMALL_M
    return f"{d['kernel_names'][str(kernel)]}\n{d['tile_names'][str(tile)]}"


def dispatcher(d):
    rows = d["dispatcher"]
    ms = sorted({r[0] for r in rows})
    ns = sorted({r[1] for r in rows})
    ch = d["dispatcher_chapter"]
    cells = [cell(ns.index(n), ms.index(m), dispatcher_label(d, small, k, t),
                  0 if small else k + 1, hatch="//" if small else "")
             for m, n, small, k, t in rows]
    return {
        "title": f"Chapter {ch}'s gemm() at K = {d['dispatcher_K']} on 132 SMs: the plan (kernel "
                 "and tile) for each M x N; hatched: sent to chapter 18 (decode batches, and "
                 "up to 256 rows where its price is lower)",
        "size": (11, 7.5),
        "panels": [
            panel(f"ch{ch}::small_m(M, N, K, 132) ? chapter 18 : ch{ch}::choose(M, N, K, 132)", len(ns),
                  len(ms), cells, xlabel="N", ylabel="M",
                  xticks=list(enumerate(map(str, ns))), yticks=list(enumerate(map(str, ms))),
                  font=6),
        ]}


def figure_cells(d):
    """{file name: figure} for every figure, computed from the layouts JSON alone."""
    figs = {
        "ch11_swizzle": ch11_swizzle(d),
        "ch11_ldmatrix": ch11_ldmatrix(d),
        "ch11_mma_a": ch11_mma(d),
        "ch11_mma_bc": ch11_mma_bc(d),
        "ch12_kmajor": ch12_kmajor(d),
        "ch12_mnmajor": ch12_mnmajor(d),
        "ch12_descriptor": ch12_descriptor(d),
        "ch13_tma_swizzle": ch13_tma(d),
        "ch14_barriers": ch14_barriers(d),
        f"ch{d['dispatcher_chapter']}_dispatcher": dispatcher(d),
    }
    for key, s in d["schedules"].items():
        figs[f"ch{d['schedule_chapter']}_{key}"] = streamk(d, s)
    return figs


def digest(fig):
    """The digest of what a figure shows (its cells and words), written into its SVG."""
    return hashlib.sha256(json.dumps(fig, sort_keys=True).encode()).hexdigest()[:16]


# ---- drawing ----------------------------------------------------------------------------------


def draw_panel(ax, p):
    from matplotlib.patches import Rectangle
    ax.set_xlim(-0.5, p["cols"] - 0.5)
    ax.set_ylim(p["rows"] - 0.5, -0.5)
    # A panel's shades spread over the palette: four groups get greys as far apart as eight do.
    used = sorted({c["shade"] % len(PALETTE) for c in p["cells"]})
    fill = {s: PALETTE[round(i * (len(PALETTE) - 1) / max(1, len(used) - 1))]
            for i, s in enumerate(used)}
    for c in p["cells"]:
        x0, y0 = c["x"] - 0.5, c["y"] - 0.5
        ax.add_patch(Rectangle((x0, y0), c["w"], c["h"], facecolor=fill[c["shade"] % len(PALETTE)],
                               edgecolor="#444444", linewidth=0.4, hatch=c["hatch"] or None))
        ax.text(x0 + c["w"] / 2, y0 + c["h"] / 2, c["label"], ha="center", va="center",
                fontsize=p["font"], linespacing=0.95,
                rotation=90 if c["w"] <= 2 and p["cols"] >= 32 and len(c["label"]) > 3 else 0)
    for note in p["notes"]:
        if note[0] == "span":
            _, x, y0, y1, text = note
            ax.annotate("", xy=(x, y0 - 0.4), xytext=(x, y1 + 0.4), annotation_clip=False,
                        arrowprops=dict(arrowstyle="|-|", linewidth=0.8))
            ax.text(x + 0.25, (y0 + y1) / 2, text, ha="left", va="center", fontsize=7,
                    clip_on=False)
        else:
            _, x, y, text = note
            ax.text(x - 0.5, y, text, ha="left", va="center", fontsize=7, clip_on=False)
    ax.set_title(p["title"], fontsize=8, wrap=True)
    ax.set_xlabel(p["xlabel"], fontsize=8)
    ax.set_ylabel(p["ylabel"], fontsize=8)
    if p["xticks"] is not None:
        ax.set_xticks([t for t, _ in p["xticks"]], [s for _, s in p["xticks"]], fontsize=6)
    else:
        ax.set_xticks([])
    if p["yticks"] is not None:
        ax.set_yticks([t for t, _ in p["yticks"]], [s for _, s in p["yticks"]], fontsize=6)
    else:
        ax.set_yticks([])
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)


def draw_stage_cycle(ax, stages):
    """Chapter 14's stage as a cycle of four states, the barrier operations on the arrows."""
    from matplotlib.patches import FancyBboxPatch
    ax.set_xlim(0, 10)
    ax.set_ylim(0, 3)
    ax.axis("off")
    states = [(1.5, 2.3, "free\n(empty[s] phase done)"),
              (8.5, 2.3, "loading\n(TMA bytes in flight)"),
              (8.5, 0.6, "full\n(full[s] phase done)"),
              (1.5, 0.6, "being read\n(the consumers' wgmmas)")]
    for x, y, text in states:
        ax.add_patch(FancyBboxPatch((x - 1.3, y - 0.38), 2.6, 0.76, boxstyle="round,pad=0.05",
                                    facecolor=PALETTE[2], edgecolor="#333333"))
        ax.text(x, y, text, ha="center", va="center", fontsize=8)
    arrows = [((2.9, 2.3), (7.1, 2.3),
               "producer: wait empty[s], parity empty_parity(kt)\n"
               "(none for the first tile of s); arrive.expect_tx; TMA A, B"),
              ((8.5, 1.9), (8.5, 1.0), "the bytes land:\nfull[s] completes"),
              ((7.1, 0.6), (2.9, 0.6), "consumers: wait full[s], parity full_parity(kt);\n"
                                        "wgmmas; wait_group 0"),
              ((1.5, 1.0), (1.5, 1.9), "every consumer warp\narrives: empty[s]\ncompletes")]
    for start, end, text in arrows:
        ax.annotate("", xy=end, xytext=start, arrowprops=dict(arrowstyle="-|>", linewidth=1.2))
        mx, my = (start[0] + end[0]) / 2, (start[1] + end[1]) / 2
        vertical = start[0] == end[0]
        ax.text(mx + (0.15 if vertical else 0), my + (0 if vertical else 0.3), text,
                ha="left" if vertical else "center", va="center", fontsize=7)
    ax.text(5, 1.45, f"tile kt uses stage kt % {stages}; each completion flips the\nbarrier's "
            "phase parity, so a wait names the parity of the phase it needs", ha="center",
            va="center", fontsize=7, style="italic")


def draw(fig_spec, path):
    """Draws one figure into path (SVG); returns {panel index: [(x, y, label)]} of its text."""
    import matplotlib
    matplotlib.use("Agg")
    matplotlib.rcParams.update({"svg.fonttype": "none", "svg.hashsalt": "gemm-figures",
                                "hatch.linewidth": 0.5, "font.family": "DejaVu Sans"})
    import matplotlib.pyplot as plt
    panels = fig_spec["panels"]
    extra = 1 if "diagram" in fig_spec else 0
    if extra:
        fig, axes = plt.subplots(2, 1, figsize=fig_spec["size"],
                                 gridspec_kw={"height_ratios": fig_spec["heights"]})
        draw_stage_cycle(axes[0], fig_spec["diagram"])
        axes = axes[1:]
    else:
        fig, axes = plt.subplots(1, len(panels), figsize=fig_spec["size"], squeeze=False,
                                 gridspec_kw={"width_ratios": fig_spec.get("widths",
                                                                           [1] * len(panels))})
        axes = axes[0]
    drawn = {}
    for i, (ax, p) in enumerate(zip(axes, panels)):
        before = len(ax.texts)
        draw_panel(ax, p)
        drawn[i] = [(t.get_position()[0], t.get_position()[1], t.get_text())
                    for t in ax.texts[before:before + len(p["cells"])]]
    # Tall figures: the title 0.1 inch from the top, not 2% of the height.
    top = 1 - 0.1 / fig_spec["size"][1] if "top" in fig_spec else 0.98
    fig.suptitle("\n".join(textwrap.wrap(fig_spec["title"], 120)), fontsize=10, y=top)
    fig.tight_layout()
    if "top" in fig_spec:  # inches kept above the panels for the title (tall figures)
        fig.subplots_adjust(top=1 - fig_spec["top"] / fig_spec["size"][1])
    fig.savefig(path, metadata={"Date": None,
                                "Description": "tools/reporting/figures.py from tools/layouts; "
                                f"cells {digest(fig_spec)}"})
    plt.close(fig)
    return drawn


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("layouts", help="the tools/layouts binary, or its JSON")
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "figures"))
    args = ap.parse_args(argv)
    if not os.path.exists(args.layouts):
        print(f"figures.py: {args.layouts}: no such file", file=sys.stderr)
        return 2
    figs = figure_cells(load(args.layouts))
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print(NO_MATPLOTLIB)
        return 0
    os.makedirs(args.out, exist_ok=True)
    for name, spec in figs.items():
        draw(spec, os.path.join(args.out, name + ".svg"))
        print(os.path.join(args.out, name + ".svg"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

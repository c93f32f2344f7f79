#!/usr/bin/env python3
"""The layout figures (tools/reporting/figures.py) against the kernels' own functions
(tools/layouts): every element each figure draws shows what the C++ function gives for it (said
again here from the binary's rows, independently of figures.py); every committed SVG in docs/figures
was drawn from the cells the current code gives (its digest); and, where matplotlib is installed,
each drawing puts exactly its cells' labels at their places.

Usage: python3 -m tests.run tests.tools.test_figures LAYOUTS_BINARY REPO_ROOT
"""
import os
import re
import subprocess
import sys
import tempfile

from tests.check import expect
from tools import python_env
from tools.reporting import figures

BINARY, ROOT = sys.argv[1], sys.argv[2]


def at(fig, i=0):
    """{(x, y): cell} of panel i."""
    cells = fig["panels"][i]["cells"]
    out = {(c["x"], c["y"]): c for c in cells}
    expect(len(out) == len(cells), f"{fig['title']}: no two cells of panel {i} at one place")
    return out


def check_grid(name, fig, i, want):
    """want: {(x, y): label}: the panel holds exactly these cells."""
    got = {k: c["label"] for k, c in at(fig, i).items()}
    wrong = [(k, got.get(k), v) for k, v in want.items() if got.get(k) != v]
    expect(not wrong, f"{name} panel {i}: {len(wrong)} cells differ from the function, first "
                      f"(x, y), drawn, wanted: {wrong[:1]}")
    expect(set(got) == set(want), f"{name} panel {i}: draws {len(got)} cells, the function "
                                   f"gives {len(want)}")


d = figures.load(BINARY)
figs = figures.figure_cells(d)

# Chapter 11: the swizzle, ldmatrix and the mma fragments.
sw = d["ch11_swizzle"]
check_grid("ch11_swizzle", figs["ch11_swizzle"], 0, {(c, r): str(c) for r, c, s in sw})
check_grid("ch11_swizzle", figs["ch11_swizzle"], 1, {(s, r): str(c) for r, c, s in sw})
expect(len(d["ch11_swizzle"]) == 16 * 8, "ch11_swizzle: 16 rows of 8 chunks")
check_grid("ch11_ldmatrix", figs["ch11_ldmatrix"], 0,
           {(col, row): f"T{lane} a{i}" for lane, i, h, row, col in d["ch11_ldmatrix_a"]})
check_grid("ch11_ldmatrix", figs["ch11_ldmatrix"], 1,
           {(chunk, row): f"T{lane}" for lane, row, chunk in d["ch11_addresses"]})
check_grid("ch11_mma_a", figs["ch11_mma_a"], 0,
           {(col, row): f"T{lane} a{i}" for lane, i, h, row, col in d["mma_a"]})
check_grid("ch11_mma_bc", figs["ch11_mma_bc"], 0,
           {(col, row): f"T{lane} b{i}" for lane, i, h, row, col in d["mma_b"]})
check_grid("ch11_mma_bc", figs["ch11_mma_bc"], 1,
           {(col, row): f"T{lane} c{e}" for lane, e, row, col in d["mma_c"]})
# ldmatrix's picture is the A fragment's: what chapter 11's host tests (chapters/11_mma_ldmatrix/test.cu) prove, seen here.
expect({k: c["label"] for k, c in at(figs["ch11_ldmatrix"]).items()} ==
       {k: c["label"] for k, c in at(figs["ch11_mma_a"]).items()},
       "ch11: the block ldmatrix delivers is the A fragment mma.sync reads")

# Chapter 12: every element wgmma reads lies in the 16-byte cell drawn for its chunk, at its place.
kmajor = at(figs["ch12_kmajor"])
want = {}
for kk, m, k, byte in d["ch12_a"]:
    kabs = 16 * kk + k
    key = ((byte % 128) // 16, byte // 128)
    label = f"m{m}\nk{kabs - kabs % 8}-{kabs - kabs % 8 + 7}"
    expect(byte % 16 == 2 * (kabs % 8), f"ch12_kmajor: A({m}, {kabs}) at byte {byte} is element "
                                        f"{kabs % 8} of its chunk")
    expect(want.setdefault(key, label) == label, f"ch12_kmajor: byte {byte} holds one chunk")
check_grid("ch12_kmajor", figs["ch12_kmajor"], 0, want)
steps = d["ch12_b_steps"]
lbo = steps[0][2]
want = {}
for kk, n, k, byte in d["ch12_b"]:
    if kk != 0:  # the figure draws step 0
        continue
    key = (9 * (byte // lbo) + (byte % 128) // 16, (byte % lbo) // 128)
    label = f"k{k}\nn{n - n % 8}-{n - n % 8 + 7}"
    expect(byte % 16 == 2 * (n % 8), f"ch12_mnmajor: B({k}, {n}) at byte {byte} is element "
                                     f"{n % 8} of its chunk")
    expect(want.setdefault(key, label) == label, f"ch12_mnmajor: byte {byte} holds one chunk")
check_grid("ch12_mnmajor", figs["ch12_mnmajor"], 0, want)
text = " ".join(n[-1] for n in figs["ch12_mnmajor"]["panels"][0]["notes"])
expect(f"LBO = {lbo} B" in text and f"{steps[0][3]} B" in text,
       "ch12_mnmajor: the LBO and SBO marked are the kernel's")

# The descriptor: the fields where the code puts them, the examples decoded from its encoding.
fields = d["desc_fields"]
desc = at(figs["ch12_descriptor"])
for f, (lo, bits) in enumerate(fields):
    expect(desc.get((64 - lo - bits, 0), {}).get("w") == bits,
           f"ch12_descriptor: field {f} drawn over bits {lo}..{lo + bits - 1}")
    for row, (base, lbo_e, sbo_e, low, high) in enumerate(d["desc_examples"], 1):
        v = ((low | high << 32) >> lo) & ((1 << bits) - 1)
        got = desc.get((64 - lo - bits, row), {}).get("label", "")
        expect(got.split("\n")[0] == str(v), f"ch12_descriptor: example {row} field {f} shows {v}")
for row, (base, lbo_e, sbo_e, low, high) in enumerate(d["desc_examples"], 1):
    lbo_field = ((low | high << 32) >> fields[1][0]) & ((1 << fields[1][1]) - 1)
    expect(lbo_field * 16 == lbo_e, f"ch12_descriptor: example {row}'s LBO decodes to {lbo_e} B")

# Chapter 13: the TMA box.
box = d["tma_box"]
check_grid("ch13_tma_swizzle", figs["ch13_tma_swizzle"], 0, {(c, r): str(c) for r, c, s in box})
check_grid("ch13_tma_swizzle", figs["ch13_tma_swizzle"], 1, {(s, r): str(c) for r, c, s in box})

# Chapter 14: the parities.
want = {}
for kt, s, full, empty in d["ch14_phases"]:
    want[(kt, 0)], want[(kt, 1)] = str(s), str(full)
    want[(kt, 2)] = "-" if empty < 0 else str(empty)
check_grid("ch14_barriers", figs["ch14_barriers"], 0, want)
expect(figs["ch14_barriers"]["diagram"] == d["ch14_stages"], "ch14_barriers: the kernel's STAGES")

# Chapter 17: each schedule's units as bars, in each worker's order, covering every k-tile once.
schedules = d["schedules"]
expect(len(schedules) >= 3, "ch17: the schedules are in the layouts")
for key, s in schedules.items():
    fig = figs[f"ch{d['schedule_chapter']}_" + key]
    bars = at(fig)
    x, covered, pieces = {}, {}, {}
    for w, tile, kb, ke in s["units"]:
        c = bars.get((x.get(w, 0), w))
        piece = kb > 0 or ke < s["KT"]
        ok = c is not None and c["w"] == ke - kb and c["label"].split()[0] == f"t{tile}" and \
            bool(c["hatch"]) == piece
        expect(ok, f"{key}: worker {w}'s unit tile {tile} [{kb}, {ke}) is drawn where it runs")
        if ok and len(c["label"].split()) > 1:
            expect(c["label"].split()[1] == f"{kb}-{ke}", f"{key}: the bar of worker {w}, tile "
                                                           f"{tile} names its k-tiles {kb}-{ke}")
        x[w] = x.get(w, 0) + ke - kb
        pieces[tile] = pieces.get(tile, 0) + 1
        for k in range(kb, ke):
            covered[(tile, k)] = covered.get((tile, k), 0) + 1
    expect(len(bars) == len(s["units"]), f"{key}: one bar per unit")
    expect(set(x) == set(range(s["workers"])), f"{key}: a row of bars for each of the "
                                                f"{s['workers']} workers")
    expect(len(covered) == s["tiles"] * s["KT"] and set(covered.values()) == {1},
           f"{key}: every k-tile of every tile computed once")
    expect(max(pieces.values()) <= s["max_pieces"],
           f"{key}: no tile in more pieces than the max_pieces its title says")
    expect(all(pieces[t] == 1 for t in range(s["dp_tiles"])),
           f"{key}: the first {s['dp_tiles']} tiles whole")
# The README's three small schedules and its worked examples, each with the split it names.
names = {v: int(k) for k, v in d["split_names"].items()}
for key, tiles, KT, workers, split in [("stream_k_small", 5, 8, 4, "stream_k"),
                                        ("equal_depth_small", 3, 24, 7, "equal_depth"),
                                        ("hybrid_small", 8, 12, 3, "hybrid"),
                                        ("hybrid_4096x4096x4096_cluster2", 256, 64, 66, "hybrid")]:
    s = schedules.get(key, {})
    expect((s.get("tiles"), s.get("KT"), s.get("max_workers"), s.get("split")) ==
           (tiles, KT, workers, names[split]), f"{key}: the example chapter 17's README draws")

# Chapter 19: the plan gemm() runs, chapter 18 where small_m names it.
disp = d["dispatcher"]
ms, ns = sorted({r[0] for r in disp}), sorted({r[1] for r in disp})
check_grid("dispatcher", figs[f"ch{d['dispatcher_chapter']}_dispatcher"], 0,
           {(ns.index(n), ms.index(m)): "small_m\n(ch18)" if small else
            f"{d['kernel_names'][str(k)]}\n{d['tile_names'][str(t)]}"
            for m, n, small, k, t in disp})
expect(all(small == (n >= 1024) for m, n, small, k, t in disp if m <= 64),
       "dispatcher: chapter 18 for M <= 64, N >= 1024 (chapter 19's small_m, its README's rule)")
expect(not any(small for m, n, small, k, t in disp if m > 256),
       "dispatcher: past 256 rows, always the cost model (chapter 19's small_m)")
expect(any(small for m, n, small, k, t in disp) and not all(small for m, n, small, k, t in disp),
       "dispatcher: the map holds both chapter 18's and the cost model's shapes")

# The committed SVGs: one per figure, each drawn from the cells the code gives now.
out = os.path.join(ROOT, "docs", "figures")
for name, fig in figs.items():
    path = os.path.join(out, name + ".svg")
    if expect(os.path.exists(path),
              f"docs/figures/{name}.svg is committed (tools/reporting/figures.py draws it)"):
        with open(path) as f:
            svg = f.read()
        expect(f"cells {figures.digest(fig)}" in svg,
               f"docs/figures/{name}.svg was drawn from the current code (if not: "
               f"python3 -m tools.reporting.figures build/tests/layouts)")
extra = sorted(set(f[:-4] for f in os.listdir(out) if f.endswith(".svg")) - set(figs)) \
    if os.path.isdir(out) else []
expect(not extra, f"docs/figures holds no figure the script no longer draws: {extra}")
# Every figure listed in docs/README.md, and shown in the README of its chapter (chNN_...).
with open(os.path.join(ROOT, "docs", "README.md")) as f:
    index = f.read()
chapters = {n[:2]: n for n in os.listdir(os.path.join(ROOT, "chapters")) if n[:2].isdigit()}
for name in figs:
    expect(f"figures/{name}.svg" in index, f"docs/README.md lists docs/figures/{name}.svg")
    readme = os.path.join(ROOT, "chapters", chapters.get(name[2:4], "?"), "README.md")
    if os.path.exists(readme):
        with open(readme) as f:
            expect(f"docs/figures/{name}.svg" in f.read(),
                   f"{os.path.relpath(readme, ROOT)} shows docs/figures/{name}.svg")

# The drawing: every cell's label at its centre, nothing else (where matplotlib is installed:
# this Python's, else the system's, which Debian's python3-matplotlib serves).
try:
    import matplotlib  # noqa: F401
    have_mpl = True
except ImportError:
    have_mpl = False
    system = "/usr/bin/python3"
    if sys.executable != system and os.path.exists(system) and subprocess.run(
            [system, "-c", "import matplotlib"], capture_output=True).returncode == 0:
        print(f"this Python has no matplotlib: the checks again with {system}", flush=True)
        os.execve(system, [system, "-m", "tests.run", __spec__.name] + sys.argv[1:], python_env())
    print("SKIP the drawing check: " + figures.NO_MATPLOTLIB)
if have_mpl:
    with tempfile.TemporaryDirectory() as tmp:
        for name, fig in figs.items():
            drawn = figures.draw(fig, os.path.join(tmp, name + ".svg"))
            for i, p in enumerate(fig["panels"]):
                want = sorted((round(c["x"] - 0.5 + c["w"] / 2, 3),
                               round(c["y"] - 0.5 + c["h"] / 2, 3), c["label"]) for c in p["cells"])
                got = sorted((round(x, 3), round(y, 3), t) for x, y, t in drawn[i])
                expect(got == want, f"{name} panel {i}: the drawing shows its cells' labels at "
                                    f"their places")
            with open(os.path.join(tmp, name + ".svg")) as f:
                expect(re.search(r"cells [0-9a-f]{16}", f.read()) is not None,
                       f"{name}: the SVG carries its digest")

print(f"{len(figs)} figures")

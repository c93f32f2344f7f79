#!/usr/bin/env python3
"""The facts each chapter owns about itself, read from chapters/<id>/configs.hpp.

A chapter's configs.hpp (beside its kernel, never included by it, so the kernel's source hash does
not move) names, in C++ that the compiler checks against the kernel's own constants:
  napkin              its traffic model for the roofline (tools/reporting/plot.py): rows {largest M (0: any),
                      BM, BN}, the first row whose largest M holds M gives the tile
  for_each_candidate  the configurations tools/measuring/tune.cu times: f("name", gemm function)
  not_tuned           the kernel's named configurations that are not candidates
  chosen_kernel       (chapters 10 and 11) the configuration gemm() picks, for tools/measuring/shape_sweep.cu
This module reads the first three with a small parser, so Python and C++ read one list.

    python3 -m tools.build.chapter_facts      prints every chapter's napkin tiles and candidates
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CHAPTERS = os.path.join(ROOT, "chapters")


def _strip_comments(text):
    return re.sub(r"//[^\n]*", "", text)


def configs_path(chapter_id, root=CHAPTERS):
    return os.path.join(root, chapter_id, "configs.hpp")


def read(chapter_id, root=CHAPTERS):
    """The text of the chapter's configs.hpp without comments, or None when it has none."""
    path = configs_path(chapter_id, root)
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return _strip_comments(f.read())


def napkin(text):
    """[(largest M, BM, BN)] from `napkin[][3] = {{...}, ...};`, or None when absent."""
    m = re.search(r"napkin\s*\[\s*\]\s*\[\s*3\s*\]\s*=\s*\{(.*?)\}\s*;", text, re.S)
    if not m:
        return None
    rows = re.findall(r"\{\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*\}", m.group(1) + "}")
    if not rows:
        raise ValueError("napkin: expected rows {largest M, BM, BN}")
    return [tuple(int(v) for v in row) for row in rows]


def candidates(text):
    """[(name, the configuration's name or None)] of for_each_candidate, in order."""
    m = re.search(r"for_each_candidate\s*\([^)]*\)\s*\{(.*?)\n\}", text, re.S)
    if not m:
        return []
    out = []
    for call in re.finditer(r'f\(\s*"([^"]+)"\s*,\s*([^;]*)\)\s*;', m.group(1)):
        cfg = re.search(r"configs::(\w+)", call.group(2))
        out.append((call.group(1), cfg.group(1) if cfg else None))
    return out


def not_tuned(text):
    m = re.search(r"not_tuned\s*\[\s*\]\s*=\s*\{(.*?)\}\s*;", text, re.S)
    return re.findall(r'"([^"]+)"', m.group(1)) if m else []


def napkin_table(root=CHAPTERS):
    """{chapter id: [(largest M, BM, BN)]} of every chapter folder with a napkin."""
    table = {}
    if not os.path.isdir(root):  # a copy of the tools without the chapters: no napkin models
        return table
    for cid in sorted(os.listdir(root)):
        text = read(cid, root)
        rows = napkin(text) if text is not None else None
        if rows:
            table[cid] = rows
    return table


def napkin_tile(rows, M):
    """(BM, BN) of the first row whose largest M (0: any) holds M."""
    for largest, BM, BN in rows:
        if largest == 0 or M <= largest:
            return BM, BN
    return rows[-1][1], rows[-1][2]


def main():
    for cid, rows in napkin_table().items():
        tiles = ", ".join(f"{BM}x{BN}" + (f" (M <= {lim})" if lim else "") for lim, BM, BN in rows)
        names = [n for n, _ in candidates(read(cid))]
        print(f"{cid}: napkin {tiles}" + (f"; candidates {', '.join(names)}" if names else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())

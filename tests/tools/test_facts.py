#!/usr/bin/env python3
"""Chapters own their facts (chapters/<id>/configs.hpp, read by tools/build/chapter_facts.py): the tools
list none of their own, and a chapter's list agrees with its kernel.

Checked, on the repository and then on doctored copies that must fail:
  - every named configuration of a kernel's `namespace configs` is a candidate of its configs.hpp
    or named in its not_tuned list, and every name there is one of the kernel's;
  - tools/measuring/tune.cu re-lists no configuration (no gemm_cfg<, no quoted candidate name) and calls
    for_each_candidate of every chapter whose configs.hpp has one (and includes that file);
  - tools/measuring/shape_sweep.cu names no kernel instance of its own (it asks chosen_kernel);
  - every GPU chapter of chapters/chapters.txt has a napkin model whose last row takes any M, in
    a configs.hpp that tools/measuring/tune.cu includes (its static_asserts compile there);
  - tools/reporting/plot.py's napkin table is the chapters' (plot_roofline.NAPKIN).

Usage: python3 -m tests.run tests.tools.test_facts REPO_ROOT     Exit: 0 pass, 1 fail.
"""
import os
import re
import shutil
import sys
import tempfile

from tests.check import expect
from tools.build import chapter_facts
from tools.build import chapters as chapter_list
from tools.reporting import plot_roofline

ROOT = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else os.path.dirname(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def read(path):
    with open(path) as f:
        return f.read()


def kernel_configs(root, cid):
    """The names of the kernel's `namespace configs { using NAME = ...; }`."""
    folder = os.path.join(root, "chapters", cid)
    names = []
    for f in sorted(os.listdir(folder)):
        if f.startswith("kernel.cu"):
            text = chapter_facts._strip_comments(read(os.path.join(folder, f)))
            for block in re.findall(r"namespace configs\s*\{([^{}]*)\}", text):
                names += re.findall(r"\busing\s+(\w+)\s*=", block)
    return names


def problems(root):
    """Every disagreement between the chapters' facts and the tools, as sentences."""
    out = []
    chapters_dir = os.path.join(root, "chapters")
    tune = chapter_facts._strip_comments(read(os.path.join(root, "tools", "measuring", "tune.cu")))
    sweep = chapter_facts._strip_comments(read(os.path.join(root, "tools", "measuring", "shape_sweep.cu")))
    if "gemm_cfg<" in tune:
        out.append("tools/measuring/tune.cu names a configuration (gemm_cfg<...>): list it in the chapter's "
                   "configs.hpp instead")
    quoted = re.findall(r'"(\d\d_\w+)"', tune)
    if quoted:
        out.append(f"tools/measuring/tune.cu lists candidates of its own: {quoted}")
    if re.search(r"\w+_kernel<", sweep):
        out.append("tools/measuring/shape_sweep.cu names a kernel instance: ask the chapter's chosen_kernel")
    seen = {}
    for c in chapter_list.load(os.path.join(chapters_dir, "chapters.txt")):
        text = chapter_facts.read(c.id, chapters_dir)
        if c.kind == "cpu":
            continue
        if text is None:
            out.append(f"{c.id}: no configs.hpp (its napkin model at least)")
            continue
        if f'#include "{c.id}/configs.hpp"' not in tune:
            out.append(f"{c.id}: tools/measuring/tune.cu does not include {c.id}/configs.hpp (its "
                       "static_asserts compile there)")
        rows = chapter_facts.napkin(text)
        if not rows or rows[-1][0] != 0 or any(r[1] <= 0 or r[2] <= 0 for r in rows):
            out.append(f"{c.id}: napkin rows {rows}: expected {{largest M, BM, BN}} rows, the last "
                       "with largest M 0 (any M)")
        cands = chapter_facts.candidates(text)
        named = kernel_configs(root, c.id)
        listed = {cfg for _, cfg in cands if cfg} | set(chapter_facts.not_tuned(text))
        for n in named:
            if n not in listed:
                out.append(f"{c.id}: the kernel's configs::{n} is neither a candidate nor in "
                           "not_tuned of its configs.hpp")
        for n in sorted(listed - set(named)):
            out.append(f"{c.id}: configs.hpp names configs::{n}, which the kernel does not have")
        for name, _ in cands:
            if not name.startswith(c.id[:3]):
                out.append(f"{c.id}: candidate {name} does not start with {c.id[:3]}")
            if name in seen:
                out.append(f"{c.id}: candidate {name} also in {seen[name]}")
            seen[name] = c.id
        if cands:
            ns = "ch" + c.id[:2]
            if f"{ns}::facts::for_each_candidate(" not in tune:
                out.append(f"{c.id}: tools/measuring/tune.cu does not time its candidates "
                           f"({ns}::facts::for_each_candidate)")
    return out


# The repository as it is.
for p in problems(ROOT):
    expect(False, p)

# plot.py's roofline reads the same table.
expect(plot_roofline.NAPKIN == chapter_facts.napkin_table(),
       "tools/reporting/plot.py's napkin table is the chapters' (chapter_facts.napkin_table)")
expect(chapter_facts.napkin_tile([(8, 8, 64), (0, 64, 64)], 8) == (8, 64) and
       chapter_facts.napkin_tile([(8, 8, 64), (0, 64, 64)], 9) == (64, 64),
       "napkin_tile: the first row whose largest M holds M")

# Doctored copies: each change must be reported (the checks can fail).
with tempfile.TemporaryDirectory() as tmp:
    def doctored(path, old, new):
        copy = os.path.join(tmp, "repo")
        shutil.rmtree(copy, ignore_errors=True)
        for d in ("chapters", "tools"):
            shutil.copytree(os.path.join(ROOT, d), os.path.join(copy, d),
                            ignore=shutil.ignore_patterns("__pycache__", "*.md"))
        target = os.path.join(copy, path)
        text = read(target)
        expect(old in text, f"doctoring {path}: '{old}' not found")
        with open(target, "w") as f:
            f.write(text.replace(old, new, 1))
        return problems(copy)

    cases = [
        ("chapters/07_cuda_warp_tiled/kernel.cuh", "using Default = c128x128x16;",
         "using Default = c128x128x16;\nusing c32x32x8 = Config<32, 32, 8, 16, 16, 4, 4, 4>;",
         "configs::c32x32x8 is neither"),
        ("chapters/16_split_k/configs.hpp", '    f("16_n64_split", ch16::gemm_cfg<configs::n64>);\n',
         "", "configs::n64 is neither"),
        ("tools/measuring/tune.cu", "return worst;",
         'candidate(argc, argv, "06_c64x64x8", ch06::gemm_cfg<ch06::configs::c64x64x8>);\n'
         "    return worst;", "names a configuration"),
        ("tools/measuring/tune.cu", "    ch09::facts::for_each_candidate(gpu);\n", "",
         "09_wmma_smem: tools/measuring/tune.cu does not time"),
        ("chapters/18_small_m/configs.hpp", "{0, 64, 64}", "{64, 64, 64}", "18_small_m: napkin"),
        ("tools/measuring/tune.cu", '#include "05_cuda_smem_tiled/configs.hpp"\n', "",
         "does not include 05_cuda_smem_tiled/configs.hpp"),
    ]
    for path, old, new, needle in cases:
        found = doctored(path, old, new)
        expect(any(needle in p for p in found),
               f"a doctored {path} is reported ('{needle}'), got {found}")

#!/usr/bin/env python3
"""The one list of chapters (chapters/chapters.txt, tools/build/chapters.py): every chapter folder
is on it and every line has its folder, in reading order; a malformed line is refused with exit 2
and the line's number; the generated C++ table and kernel header hold what the list says.

Usage: python3 -m tests.run tests.tools.test_chapters REPO_ROOT
"""
import os
import subprocess
import sys
import tempfile

from tests.check import expect
from tools import python_env
from tools.build import chapters

ROOT = sys.argv[1]
TOOL = [sys.executable, "-m", "tools.build.chapters"]


listed = chapters.load()
ids = [c.id for c in listed]
folders = sorted(d for d in os.listdir(os.path.join(ROOT, "chapters"))
                 if os.path.isdir(os.path.join(ROOT, "chapters", d)))
expect(sorted(ids) == folders, f"the list names exactly the chapter folders ({len(ids)} of them; "
       f"listed only: {sorted(set(ids) - set(folders))}, folders only: {sorted(set(folders) - set(ids))})")
expect(ids == sorted(ids), "the list is in reading order")
expect(len({i[:2] for i in ids}) == len(ids), "no two chapters share a number")
for c in listed:
    d = os.path.join(ROOT, "chapters", c.id)
    main = os.path.join(d, "main.cpp" if c.kind == "cpu" else "main.cu")
    expect(os.path.exists(main) and os.path.exists(os.path.join(d, "README.md")),
           f"{c.id} has its main and README")
    if os.path.exists(main):
        with open(main) as f:
            expect(f'chapter_info("{c.id}")' in f.read(), f"{c.id}'s main asks the list for its info")

# What each precision means to the tools: one entry each, found by the list's name or the CSV's,
# an unknown one refused (the harness's own table, common/harness/precision.hpp, is compared with
# this one by the `precision` test).
expect(sorted({c.precision for c in listed}) == sorted(chapters.PRECISIONS),
       "every precision of the table has a chapter, and no chapter another")
for c in listed:
    expect(chapters.precision(c.precision).name == c.precision, f"{c.id}'s precision is in the table")
expect([chapters.precision(n).ab for n in ("fp32", "fp16", "fp8_fast", "e4m3-block")] == [4, 2, 1, 1],
       "bytes of an element of A and B, by list name and by CSV name")
expect([chapters.precision(n).family for n in ("fp8_fast", "fp8", "fp8_block", "e4m3")] == ["fp8"] * 4,
       "the FP8 precisions are one family")
for bad in ("fp64", "", "FP8", "e4m3_fast"):
    try:
        chapters.precision(bad)
        expect(False, f"precision('{bad}') is refused")
    except chapters.ListError as e:
        expect(f"'{bad}'" in str(e), f"precision('{bad}') is refused, naming it")

out = subprocess.run([*TOOL, "ids", "--kind", "hopper"], capture_output=True, text=True, env=python_env())
expect(out.returncode == 0 and out.stdout.split() == [c.id for c in listed if c.kind == "hopper"],
       "ids --kind hopper prints the sm_90a chapters")


def run_on(text, *args):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "list.txt")
        with open(path, "w") as f:
            f.write(text)
        outp = os.path.join(d, "out")
        p = subprocess.run([*TOOL, *args, path, outp], capture_output=True, text=True, env=python_env())
        body = open(outp).read() if os.path.exists(outp) else ""
        return p, body


good = "# a comment\n03_x | cuda | fp32 | 75- | 64,1x2x3 | A \"quoted\" title\n" \
       "13_y | hopper | fp16 | 90-90 | 256 | Hopper\n"
p, table = run_on(good, "cpp")
expect(p.returncode == 0 and '{"03_x", "A \\"quoted\\" title", 75, {{64}, {1, 2, 3}}, 0, "cuda", "fp32"}'
       in table, "the C++ table holds each column, sizes as shapes, the title escaped")
p, header = run_on(good, "kernels", "--kind", "hopper")
expect(p.returncode == 0 and '#include "13_y/kernel.cuh"' in header and
       'visit("13_y", ch13::gemm);' in header and "03_x" not in header,
       "the kernel header includes and visits the chapters of one kind only")
for bad, why in [("03_x | cuda | fp32 | 75- | 64\n", "5 columns"),
                 ("03_x | gpu | fp32 | 75- | 64 | t\n", "an unknown kind"),
                 ("03_x | cuda | fp64 | 75- | 64 | t\n", "an unknown precision"),
                 ("03_x | cuda | fp32 | 7.5 | 64 | t\n", "a malformed compute capability"),
                 ("03_x | cuda | fp32 | 75- | 64,,8 | t\n", "a malformed size list"),
                 ("3_x | cuda | fp32 | 75- | 64 | t\n", "an id without two digits"),
                 ("01_x | cpu | fp32 | 75- | 64 | t\n", "a CPU chapter with a compute capability"),
                 ("03_x | cuda | fp32 | 75- | 64 | t\n03_x | cuda | fp32 | 75- | 64 | t\n", "a repeated id")]:
    p, _ = run_on("# header\n" + bad, "cpp")
    line = bad.count("\n") + 1
    expect(p.returncode == 2 and f"list.txt:{line}:" in p.stderr, f"{why} is refused naming its line")

# docs/reading-order.md holds the sizes of the steps as they are now.
with open(os.path.join(ROOT, "docs", "reading-order.md")) as f:
    doc = f.read()
begin = "<!-- diff sizes: generated by tools/build/chapters.py diffs -->\n"
end = "<!-- end of diff sizes -->"
if begin in doc and end in doc:
    shown = doc[doc.index(begin) + len(begin):doc.index(end)]
    expect(shown == chapters.diff_table(listed),
           "docs/reading-order.md's table of step sizes matches the kernel files "
           "(regenerate it with tools/build/chapters.py diffs)")
else:
    expect(False, "docs/reading-order.md has the generated table of step sizes")

#!/usr/bin/env python3
"""Committed results against the kernels they were measured with (tools/build/stamps.py stale).

Usage: python3 -m tests.run tests.tools.test_stale_results SOURCE_ROOT
First on small made-up trees, that the check fails for a stale result a README cites and only
for that (a kernel or a header it includes changed, not a comment; cited by its path, its folder,
or a chart drawn from it), then on the repository: exit 1 when a result cited by README.md or a
chapter's README was measured with sources that have changed since. Stale results nobody cites,
and results from before the stamps, are listed, not failed.
"""
import os
import subprocess
import sys
import tempfile

from tests.check import expect
from tools import python_env

ROOT = os.path.abspath(sys.argv[1])
STAMPS = ["-m", "tools.build.stamps"]  # this repository's, from any directory (python_env)


def stamps(*args):
    p = subprocess.run([sys.executable, *STAMPS, *args], capture_output=True, text=True, env=python_env())
    return p.returncode, p.stdout + p.stderr


def write(root, path, text):
    os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
    with open(os.path.join(root, path), "w") as f:
        f.write(text)


HEADER = "device,chapter,precision,M,N,K,gflops,pass,commit,dirty,source_hash\n"


def made_up_tree(tmp):
    """A chapter whose kernel includes a shared header, one stamped CSV of it measured now; returns
    the kernel's hash."""
    write(tmp, "chapters/05_x/kernel.cuh", '#include "shared.cuh"\nint five() { return helper(); }\n')
    write(tmp, "common/shared.cuh", "// shared\ninline int helper() { return 5; }\n")
    rc, out = stamps("hash", "--root", tmp, "05_x")
    fields = out.split()
    expect(rc == 0 and len(fields) >= 2 and len(fields[1]) == 16, f"hash prints 16 hex digits: {out}")
    expect("common/shared.cuh" in out, f"the hash covers the included header: {out}")
    h = fields[1] if len(fields) > 1 else ""
    write(tmp, "plots/run/05_x.csv", HEADER + f"GPU,05_x,fp16,64,64,64,1,true,0123456789ab,false,{h}\n"
          + f"GPU,05_c64x64,fp16,64,64,64,1,true,0123456789ab,false,{h}\n")
    write(tmp, "plots/old/05_x.csv", "device,chapter,M,N,K,gflops\nGPU,05_x,64,64,64,1\n")
    return h


with tempfile.TemporaryDirectory() as tmp:
    h = made_up_tree(tmp)
    rc, out = stamps("stale", "--root", tmp)
    expect(rc == 0 and "no stamped result is stale" in out, f"current results pass ({rc}): {out}")
    expect("plots/old: 1 rows" in out, f"a CSV from before the stamps is listed: {out}")

    # The build's table (meson runs `cpp`): outside a git checkout of its own the commit and the
    # dirty flag come from the environment, when it has them, and are empty otherwise.
    write(tmp, "chapters/chapters.txt", "05_x | cuda | fp16 | 75- | 64 | made up\n")
    table = os.path.join(tmp, "stamps.cpp")
    for given, stamp in [({"GEMM_SOURCE_COMMIT": "0123456789abcdef0123", "GEMM_SOURCE_DIRTY": "true"},
                          '{"0123456789ab", "true", {'),
                         ({"GEMM_SOURCE_COMMIT": "not a commit"}, '{"", "", {')]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("GEMM_SOURCE_")}
        p = subprocess.run([sys.executable, *STAMPS, "cpp", tmp, table], env=python_env(dict(env, **given)),
                           capture_output=True, text=True)
        text = open(table).read() if p.returncode == 0 else p.stderr
        expect(stamp in text and f'{{"05_x", "{h}"}}' in text,
               f"the table holds {stamp!r} and the chapter's hash {h} with {given}: {text}")

    # A comment or the indentation changes: the kernel did not.
    write(tmp, "common/shared.cuh", "// shared, with a longer comment\n\ninline   int helper() {\n"
          "    return 5;  /* five */ }\n")
    rc_same, out_same = stamps("stale", "--root", tmp)
    # The code changes (in the included header, not the kernel file), nobody cites it.
    write(tmp, "common/shared.cuh", "inline int helper() { return 6; }\n")
    rc_stale, out_stale = stamps("stale", "--root", tmp)
    expect(rc_same == 0 and "no stamped result is stale" in out_same,
           f"a comment or blank space is no change ({rc_same}): {out_same}")
    expect(rc_stale == 0 and "stale, not cited" in out_stale and "plots/run/05_x.csv" in out_stale,
           f"a stale result nobody cites is listed, not failed ({rc_stale}): {out_stale}")
    expect("05_c64x64" in out_stale, f"a tool's configuration of chapter 05 is its kernel's: {out_stale}")

    # Cited by the top README (its folder), by a chapter's README (a chart drawn from it), by path.
    for readme, text in [("README.md", "See [the run](plots/run/).\n"),
                         ("chapters/05_x/README.md", "![chart](../../plots/run/05_x.svg)\n"),
                         ("chapters/05_x/README.md", "Numbers from plots/run/05_x.csv.\n"),
                         ("README.md", "[table](plots/run/results.md)\n")]:
        write(tmp, readme, text)
        rc, out = stamps("stale", "--root", tmp)
        expect(rc == 1 and "STALE AND CITED" in out and f"cited by {readme}" in out,
               f"cited by {readme} as {text.strip()!r}: exit 1 naming both ({rc}): {out}")
        os.remove(os.path.join(tmp, readme))
    # Naming another folder, or a sibling's chart, does not cite it.
    write(tmp, "README.md", "[other](plots/runs/) and plots/run/06_y.svg and plots/\n")
    rc, out = stamps("stale", "--root", tmp)
    expect(rc == 0, f"another folder or chart is no citation ({rc}): {out}")

    # A chapter that is gone is stale too.
    write(tmp, "README.md", "plots/run/\n")
    os.rename(os.path.join(tmp, "chapters/05_x"), os.path.join(tmp, "chapters/07_y"))
    rc, out = stamps("stale", "--root", tmp)
    expect(rc == 1 and "now gone" in out, f"a chapter without a kernel any more is stale ({rc}): {out}")

rc, out = stamps("stale", "--root", os.path.join(ROOT, "no_such_dir"))
expect(rc == 2, f"a --root that does not exist exits 2 ({rc}): {out}")
rc, out = stamps("hash", "--root", ROOT, "00_none")
expect(rc == 2 and "00_none" in out, f"an unknown chapter exits 2 naming it ({rc}): {out}")

# The repository itself: no README cites a result whose kernel has changed since.
rc, out = stamps("stale", "--root", ROOT)
print(out)
expect(rc == 0, "a README cites a stale result (above): rerun it, or cite something else")

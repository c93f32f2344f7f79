#!/usr/bin/env python3
"""The chapter binaries link nothing of grading (docs/harness.md, "Where things are").

Usage: python3 -m tests.run tests.harness.test_no_grading NM --grading-libs LIB... --grading-exes EXE... --chapters EXE...
Reads the symbols of the built binaries with `nm -C`. A chapter binary fails when it defines a
symbol that a grading library (LIB: libgemm_grading.a, libgemm_grading_gpu.a) defines, or when it
calls the process control that only the --remote grade uses (fork, exec, waitpid): a grading
object linked back in brings both. Every grading binary (EXE after --grading-exes), which links the
grading library, must be found out by the same check, or the check could not fail.
Exit: 0 pass, 1 fail.
"""
import re
import subprocess
import sys

from tests.check import expect, failures

# What only the grade's child process needs: starting it and waiting for it (remote.cpp). Not
# `kill`, which remote.cpp calls too: the CUDA runtime linked statically (libcudart_static.a, what
# nvcc links by default where no shared libcudart is found) refers to it in every GPU binary.
PROCESS_CONTROL = {"fork", "vfork", "execl", "execv", "execve", "execvp", "waitpid"}
STRONG = set("TDBR")  # defined, global, not weak: what an object of the library brings alone


def symbols(nm, path):
    """[(type letter, demangled name)] of every symbol `nm -C` lists for `path`."""
    p = subprocess.run([nm, "-C", path], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"FAIL: {nm} -C {path}: {p.stderr.strip()}")
    out = []
    for line in p.stdout.splitlines():
        m = re.match(r"^(?:[0-9a-fA-F]+)?\s+([A-Za-z?])\s+(.+)$", line)
        if m:
            out.append((m.group(1), m.group(2)))
    return out


def grading_found(nm, binary, grading):
    """What of grading `binary` holds: the grading libraries' symbols it defines, the process
    control it calls (both sorted, at most five of each)."""
    defined, called = set(), set()
    for kind, name in symbols(nm, binary):
        if kind == "U":
            called.add(name.split("@")[0])
        elif kind not in "wvU":
            defined.add(name)
    return sorted(defined & grading)[:5], sorted(called & PROCESS_CONTROL)[:5]


def main(argv):
    nm = argv[0]
    groups, key = {"--grading-libs": [], "--grading-exes": [], "--chapters": []}, None
    for a in argv[1:]:
        if a in groups:
            key = a
        elif key is None:
            sys.exit(f"usage: {__doc__.splitlines()[2]}")
        else:
            groups[key].append(a)
    if not all(groups.values()):
        sys.exit(f"usage: {__doc__.splitlines()[2]}")

    grading = set()
    for lib in groups["--grading-libs"]:
        grading |= {name for kind, name in symbols(nm, lib) if kind in STRONG}
    expect(any(name.startswith("gemm::grade(") for name in grading),
           f"the grading libraries {groups['--grading-libs']} define gemm::grade() (the libraries "
           "this test is about)")
    for exe in groups["--grading-exes"]:  # the check finds grading where it is linked
        syms, calls = grading_found(nm, exe, grading)
        expect(syms and calls, f"{exe}: a grading binary, and the check finds grading in it "
                               f"(grading symbols {syms}, process control {calls}), or it could not fail")
    for exe in groups["--chapters"]:
        syms, calls = grading_found(nm, exe, grading)
        expect(not syms, f"{exe} defines no grading symbols: {'; '.join(syms)}")
        expect(not calls, f"{exe} calls no process control that only grading uses: {', '.join(calls)}")
    if not failures:
        print(f"ok: {len(groups['--chapters'])} chapter binaries, none with any of the {len(grading)} "
              f"symbols of the grading libraries or their process control; the grading binaries have both")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

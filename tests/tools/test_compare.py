#!/usr/bin/env python3
"""tools/reporting/compare.py: a run the same within noise passes, one that is slower fails."""
import os
import subprocess
import sys
import tempfile

from tests.check import expect
from tools import python_env

HEAD = "chapter,M,N,K,gflops,pct_of_yardstick,pct_min,pct_max\n"


def write(folder, lines):
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "15_x.csv"), "w") as f:
        f.write(HEAD + "".join(l + "\n" for l in lines))


def run(*args):
    return subprocess.run([sys.executable, "-m", "tools.reporting.compare", *args], capture_output=True,
                          text=True, env=python_env())


def expect_exit(what, proc, rc, text=None):
    """`proc` exits `rc`, with `text` in its output when given."""
    expect(proc.returncode == rc and (not text or text in proc.stdout + proc.stderr),
           f"{what} (exit {rc} wanted{f', saying {text!r}' if text else ''})", proc)


with tempfile.TemporaryDirectory() as d:
    old, same, slow, other = (os.path.join(d, x) for x in ("old", "same", "slow", "other"))
    write(old, ["15_x,4096,4096,4096,700000,99.0,98.0,100.5", "15_x,8192,8192,8192,720000,101,100,102"])
    write(same, ["15_x,4096,4096,4096,702000,100.2,99,101", "15_x,8192,8192,8192,719000,100.4,99,101"])
    write(slow, ["15_x,4096,4096,4096,600000,85.0,84,86", "15_x,8192,8192,8192,719000,100.4,99,101"])
    write(other, ["15_x,256,256,256,1000,50,49,51"])
    expect_exit("same within noise", run(old, same), 0, "0 outside")
    p = run(old, slow)
    expect_exit("a slower row fails and is named", p, 1, "4096x4096x4096")
    expect_exit("the slower row is marked", p, 1, "outside the noise")
    expect_exit("wider noise admits it", run(old, slow, "--points", "15"), 0)
    expect_exit("no common shape is bad input", run(old, other), 2)
    expect_exit("one folder is bad input", run(old), 2, "usage")
    expect_exit("a negative --points is bad input", run(old, same, "--points", "-1"), 2)

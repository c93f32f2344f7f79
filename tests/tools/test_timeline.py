#!/usr/bin/env python3
"""tools/timeline's command line without a GPU: each bad argument is refused with exit 2 and a
line that names it, before any CUDA call; tools/reporting/timeline.py draws nothing from a missing
file.

Usage: python3 -m tests.run tests.tools.test_timeline TIMELINE_BINARY
"""
import subprocess
import sys

from tests.check import expect
from tools import python_env

BIN = sys.argv[1]


for args, names in [([], "expected 5 arguments"), (["16", "1", "1", "1", "x.csv"], "'16'"),
                    (["14", "0", "1", "1", "x.csv"], "1 to 65536"),
                    (["15", "64", "64x", "64", "x.csv"], "1 to 65536"),
                    (["14", "64", "64", "70000", "x.csv"], "1 to 65536")]:
    p = subprocess.run([BIN] + args, capture_output=True, text=True)
    expect(p.returncode == 2 and names in p.stderr and "usage:" in p.stderr,
           f"timeline {' '.join(args)}: exit 2 naming {names}")
p = subprocess.run([sys.executable, "-m", "tools.reporting.timeline", "/nonexistent.csv"], capture_output=True,
                   text=True, env=python_env())
expect(p.returncode == 2 and "/nonexistent.csv" in p.stderr, "timeline.py: a missing CSV is exit 2")

#!/usr/bin/env python3
"""An edited kernel rebuilds its chapter: ninja must know each GPU chapter's object depends on its
kernel.cuh and on common/ (meson before 1.4 gives nvcc no dependency-file options; meson.build adds
them), and every other CUDA object its headers. Reads `ninja -t deps` of the build this test runs in.

Usage: python3 -m tests.run tests.tools.test_build_deps BUILD_DIR CHAPTER...
"""
import os
import subprocess
import sys

build, chapters = sys.argv[1], sys.argv[2:]
failures = 0
for ch in chapters:
    obj = f"chapters/{ch}.p/{ch}_main.cu.o"
    p = subprocess.run(["ninja", "-C", build, "-t", "deps", obj], capture_output=True, text=True)
    deps = p.stdout
    want = [f"chapters/{ch}/kernel.cuh", "common/device/cuda_check.cuh"]
    missing = [w for w in want if w not in deps]
    ok = p.returncode == 0 and not missing
    print(("ok   " if ok else "FAIL ") + f"{obj} depends on {', '.join(want)}"
          + ("" if ok else f" (missing: {', '.join(missing) or 'ninja -t deps failed: ' + p.stderr.strip()})"))
    failures += not ok
# Every other CUDA object of the build (tools, tests, the harness's libraries: meson.build's
# nvcc_deps) knows its headers too: an edited configs.hpp rebuilds tools/tune_hopper.
objects = []
for line in open(f"{build}/build.ninja"):
    if line.startswith("build ") and ": cuda_COMPILER " in line:
        objects.append(line[len("build "):line.index(": cuda_COMPILER ")].replace("$ ", " "))
bare, built = [], 0
for obj in objects:
    if not os.path.exists(os.path.join(build, obj)):
        continue  # not built (meson test builds what the tests need; tools/tune is not among it)
    built += 1
    p = subprocess.run(["ninja", "-C", build, "-t", "deps", obj], capture_output=True, text=True)
    first = p.stdout.splitlines()[0] if p.stdout else ""
    if p.returncode != 0 or "#deps 0," in first or "#deps" not in first:
        bare.append(f"{obj} ({first or p.stderr.strip()})")
ok = built > 0 and not bare
print(("ok   " if ok else "FAIL ") + f"{built} of {len(objects)} CUDA objects built, each with its headers"
      + ("" if ok else ": none built" if not built else ": not " + "; ".join(bare)))
failures += not ok
print(f"{failures} failed")
sys.exit(1 if failures else 0)

#!/usr/bin/env python3
"""Checks that the GPU code builds with CUDA 12.0, the oldest toolkit the README promises (Ubuntu
24.04's), on a machine that has a newer one.

  python3 -m tools.build.cuda120_check BUILD [--wheels DIR] [--jobs N]

BUILD is a configured and built build directory whose gpu_archs include 90 (so that chapters
12-13 are in it). Two parts of CUDA 12.0 come from PyPI (pip download, no install): its runtime
headers (nvidia-cuda-runtime-cu12) and its PTX assembler and compiler headers
(nvidia-cuda-nvcc-cu12; the wheel has no nvcc or cicc). Every CUDA file in BUILD's
compile_commands.json is then compiled to PTX for compute capability 9.0 (9.0a where the build
compiles it for sm_90a) by this machine's nvcc with CUDA 12.0's headers first on the include
path: its front end reads host and device code against 12.0's runtime API. The PTX, declared as
PTX ISA 8.0 (CUDA 12.0's), is assembled by 12.0's ptxas: an instruction or a form that 12.0 does
not know fails there. The newer nvcc's own code generation stays (no wheel has 12.0's), so this
is evidence for 12.0, not a 12.0 build. A file that includes cuBLAS (common/harness/yardsticks.cu) is
left out: 12.0's cuBLAS headers come only with its 400 MB library wheel, and the newer cuBLAS
headers do not compile against 12.0's runtime headers. What 12.0's ptxas says about performance
(e.g. wgmma serialized) is printed.
Exit: 0 every file passed, 1 one failed, 2 bad usage, 77 the wheels could not be had (offline).
"""
import argparse
import concurrent.futures
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time
import zipfile

WHEELS = ["nvidia-cuda-nvcc-cu12==12.0.140", "nvidia-cuda-runtime-cu12==12.0.146"]
PTX_ISA = "8.0"  # CUDA 12.0's PTX ISA version


def fetch(wheel_dir):
    """Downloads and unpacks the two wheels once; returns (crt include, runtime include, ptxas)."""
    root = os.path.join(wheel_dir, "unpacked")
    ptxas = os.path.join(root, "nvidia", "cuda_nvcc", "bin", "ptxas")
    if not os.path.exists(ptxas):
        os.makedirs(wheel_dir, exist_ok=True)
        p = subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--quiet",
                            "--only-binary=:all:", "--dest", wheel_dir, *WHEELS],
                           capture_output=True, text=True)
        if p.returncode != 0:
            print(f"could not download {' '.join(WHEELS)} with pip:\n{p.stderr.strip()}")
            sys.exit(77)
        for name in sorted(os.listdir(wheel_dir)):
            if name.endswith(".whl"):
                with zipfile.ZipFile(os.path.join(wheel_dir, name)) as z:
                    z.extractall(root)
        os.chmod(ptxas, 0o755)
    return (os.path.join(root, "nvidia", "cuda_nvcc", "include"),
            os.path.join(root, "nvidia", "cuda_runtime", "include"), ptxas)


def ptx_command(entry, includes, out):
    """The build's nvcc command for one file, turned into: CUDA 12.0 headers first, PTX for 9.0."""
    args = shlex.split(entry["command"])
    hopper = any("sm_90a" in a for a in args)
    kept, skip = [], False
    for a in args[1:]:
        if skip:
            skip = False
            continue
        if a in ("-o", "-MQ", "-MF"):
            skip = True
            continue
        if a in ("-c", "-MD") or a.startswith("-gencode") or a.startswith("-arch"):
            continue
        kept.append(a)
    arch = "compute_90a" if hopper else "compute_90"
    return [args[0], *(f"-I{d}" for d in includes), *kept, "--ptx",
            f"-gencode=arch={arch},code={arch}", "-o", out], hopper


def includes_cublas(entry):
    with open(os.path.join(entry["directory"], entry["file"])) as f:
        return re.search(r"#include\s*[<\"]cublas", f.read()) is not None


def check(entry, includes, ptxas, tmp):
    """Returns (file, arch, None, notes) when it passes, or (file, arch, what failed, notes)."""
    name = re.sub(r"[^A-Za-z0-9_.]", "_", entry["output"])
    ptx = os.path.join(tmp, name + ".ptx")
    cmd, hopper = ptx_command(entry, includes, ptx)
    arch = "sm_90a" if hopper else "sm_90"
    what = f"{entry['file']} ({entry['output']})"
    notes = []
    p = subprocess.run(cmd, cwd=entry["directory"], capture_output=True, text=True)
    if p.returncode != 0:
        return what, arch, f"nvcc with CUDA 12.0's headers failed:\n{p.stdout}{p.stderr}", notes
    text = open(ptx).read()
    text, n = re.subn(r"^\.version \d+\.\d+$", f".version {PTX_ISA}", text, count=1, flags=re.M)
    if n != 1:
        return what, arch, f"{ptx}: no .version line to set to {PTX_ISA}", notes
    with open(ptx, "w") as f:
        f.write(text)
    p = subprocess.run([ptxas, f"-arch={arch}", ptx, "-o", ptx + ".cubin"], capture_output=True,
                       text=True)
    # e.g. "(C7515) Potential Performance Loss: wgmma.mma_async instructions are serialized due
    # to ... in the function '_ZN4ch13...'": kept as code, what, and the function.
    notes = sorted({f"{code} {what} in {func}" for code, what, func in re.findall(
        r"\((C\d+)\) Potential Performance Loss: (.*?) due to .*? in the function '([^']+)'",
        p.stderr)})
    if p.returncode != 0:
        return what, arch, f"CUDA 12.0's ptxas (PTX ISA {PTX_ISA}) failed:\n{p.stdout}{p.stderr}", notes
    return what, arch, None, notes


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("build")
    ap.add_argument("--wheels", help="where the wheels are kept (default BUILD/cuda-12.0)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = ap.parse_args()
    db = os.path.join(args.build, "compile_commands.json")
    if not os.path.exists(db):
        ap.error(f"{db} not found: configure and build {args.build} first")
    entries = [e for e in json.load(open(db)) if e["file"].endswith(".cu")]
    for e in [e for e in entries if includes_cublas(e)]:
        print(f"left out: {e['file']} (includes cuBLAS)")
        entries.remove(e)
    if not any("sm_90a" in e["command"] for e in entries):
        ap.error(f"{args.build} compiles nothing for sm_90a: configure it with gpu_archs including 90")
    crt, runtime, ptxas = fetch(os.path.abspath(args.wheels or os.path.join(args.build, "cuda-12.0")))
    start = time.time()
    failed = 0
    with tempfile.TemporaryDirectory() as tmp, \
            concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        for what, arch, error, notes in pool.map(lambda e: check(e, (crt, runtime), ptxas, tmp),
                                                 entries):
            if error:
                failed += 1
                print(f"FAIL {what} for {arch}: {error}")
            else:
                print(f"ok   {what} for {arch}")
            for note in notes:
                print(f"     12.0's ptxas: {note}...")
    print(f"CUDA 12.0 headers and ptxas: {len(entries) - failed} of {len(entries)} files passed "
          f"({time.time() - start:.0f} s)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

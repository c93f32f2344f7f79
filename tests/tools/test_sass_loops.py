#!/usr/bin/env python3
"""tools/reporting/sass_loops.py on a listing written here: loops by backward branches, the
innermost one around each tensor-core instruction (overlapping loops included), predicates and
modifiers stripped, -k, and the command line's errors; and --ncu-source on a source page written
here: runs of equally executed instructions with their samples. No GPU, no CUDA toolkit needed."""
import gzip
import os
import subprocess
import sys
import tempfile

from tests.check import expect
from tools import python_env


def listing(name, body):
    """A cuobjdump -sass function from (opcode text) lines, addresses 0x10 apart from 0."""
    lines = [f"\t\tFunction : {name}", "\t.headerflags\t@\"EF_CUDA_SM90\""]
    for i, text in enumerate(body):
        lines.append(f"        /*{16 * i:04x}*/                   {text} ;   /* 0x000000000000 */")
        lines.append("                                                   /* 0x000fe20000000f00 */")
    return "\n".join(lines) + "\n"


# Kernel one: a setup, a chunk loop of 2 QGMMA and 3 other instructions (indices 2-6, branch back
# to 0x20), a tail loop of 1 QGMMA (indices 8-11, back to 0x80), and an outer loop from index 9 to
# 13 that holds the tail's QGMMA but starts inside the tail loop (as the compiler's rotated loops
# do): the tail loop, the smaller, is the QGMMA's innermost loop and the outer one is not reported.
ONE = [
    "S2R R0, SR_TID.X",                                              # 0
    "MOV R1, 0x1",                                                   # 1
    "QGMMA.64x128x32.F32.E4M3.E4M3 R24, gdesc[UR4], RZ, !UPT",      # 2 <- 0x20
    "@!P0 SYNCS.ARRIVE.TRANS64.RED.A1T0 RZ, [R4+URZ], RZ",           # 3
    "QGMMA.64x128x32.F32.E4M3.E4M3 R24, gdesc[UR8], R24, gsb0",     # 4
    "FADD R100, R24, R100",                                          # 5
    "@!P1 BRA 0x20",                                                 # 6
    "IADD3 R2, R2, 0x1, RZ",                                         # 7
    "IADD3 R3, R3, 0x1, RZ",                                         # 8 <- 0x80
    "QGMMA.64x128x32.F32.E4M3.E4M3 R24, gdesc[UR4], RZ, !UPT",      # 9 <- 0x90
    "WARPGROUP.DEPBAR.LE gsb0, 0x0",                                 # 10
    "@P2 BRA 0x80",                                                  # 11
    "STG.E desc[UR6][R8.64], R100",                                  # 12
    "@!P3 BRA 0x90",                                                 # 13
    "EXIT",                                                          # 14
    "BRA 0xf0",                                                      # 15 (the end: a branch to itself)
]
# Kernel two: no tensor-core instruction in its loop; kernel three: HMMA (mma.sync) in a loop.
TWO = ["MOV R1, 0x1", "FFMA R2, R2, R2, R2", "@P0 BRA 0x10", "EXIT"]
THREE = ["LDSM.16.M88.4 R4, [R2]", "HMMA.16816.F32 R8, R4, R6, R8", "HMMA.16816.F32 R12, R4, R6, R12",
         "@P0 BRA 0x0", "EXIT"]


def run(*args):
    return subprocess.run([sys.executable, "-m", "tools.reporting.sass_loops", *args],
                          capture_output=True, text=True, env=python_env())


with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, "k.sass")
    with open(path, "w") as f:
        f.write(listing("_Z3onev", ONE) + listing("_Z3twov", TWO) + listing("_Z5threev", THREE))

    p = run("--sass", path)
    out = p.stdout
    expect(p.returncode == 0, "a listing with tensor-core loops: exit 0", p)
    expect("one()" in out or "_Z3onev" in out, "kernel one is reported", p)
    expect("loop 0x0020-0x0060: 5 instructions, 2 QGMMA: 2.5 per tensor-core instruction" in out,
           "the chunk loop: 5 instructions (its branch included), 2 QGMMA", p)
    rest = [line for line in out.splitlines() if line.startswith("  the rest:")]
    expect(rest and "SYNCS 1" in rest[0] and "FADD 1" in rest[0] and "BRA 1" in rest[0]
           and not any("@" in line or "ARRIVE" in line for line in rest),
           "the rest of the chunk loop by opcode, predicates and modifiers stripped (SYNCS, not @!P0)", p)
    expect("loop 0x0080-0x00b0: 4 instructions, 1 QGMMA: 4.0 per tensor-core instruction" in out,
           "the tail loop is the innermost loop around its QGMMA", p)
    expect("0x0090-0x00d0" not in out,
           "the overlapping outer loop (its QGMMA is in the smaller tail loop) is not reported", p)
    expect("0x00f0" not in out, "a branch to itself holds no tensor-core instruction", p)
    expect("two" not in out, "a kernel whose loop has no tensor-core instruction is not reported", p)
    expect("loop 0x0000-0x0030: 4 instructions, 2 HMMA: 2.0 per tensor-core instruction" in out,
           "mma.sync's HMMA counts as a tensor-core instruction", p)

    p = run("--sass", path, "-k", "three")
    expect(p.returncode == 0 and "HMMA" in p.stdout and "QGMMA" not in p.stdout,
           "-k keeps the matching kernels alone", p)
    p = run("--sass", path, "-k", "two")
    expect(p.returncode == 1 and "no kernel matching 'two'" in p.stderr,
           "-k matching only a kernel without tensor-core loops: exit 1 with the reason", p)

    for args, what in [((), "no file"), (("--sass", path, "x.cubin"), "a binary and a listing"),
                       (("--sass", path, "-k", "("), "a bad regex"),
                       (("--sass", path, "--top", "0"), "--top 0")]:
        p = run(*args)
        expect(p.returncode == 2, f"{what}: exit 2", p)
    p = run("--sass", os.path.join(d, "missing.sass"))
    expect(p.returncode == 2 and "missing.sass" in p.stderr, "an unreadable listing: exit 2, named", p)
    env = dict(python_env(), PATH=d)  # no cuobjdump on PATH
    p = subprocess.run([sys.executable, "-m", "tools.reporting.sass_loops", path],
                       capture_output=True, text=True, env=env)
    expect(p.returncode == 2 and "cuobjdump" in p.stderr, "no cuobjdump: exit 2, saying so", p)

# --ncu-source: Nsight Compute's source page (the columns the tool reads, and one it does not),
# gzipped: runs of equally executed instructions, their samples and shares, stall reasons.
HEAD = ['"Address"', '"Source"', '"Warp Stall Sampling (All Samples)"', '"Instructions Executed"',
        '"stall_wait"', '"stall_barrier"', '"stall_wait (Not Issued)"', '"L1 Wavefronts Shared"']
ROWS = [  # address, source, samples, executed, wait, barrier
    (0x7f0000000000, "S2R R0, SR_TID.X", 2, 100, 2, 0),
    (0x7f0000000010, "IMAD R1, R0, 0x2, RZ", 0, 100, 0, 0),
    (0x7f0000000020, "QGMMA.64x128x32.F32.E4M3.E4M3 R24, gdesc[UR4], RZ, !UPT", 30, 800, 20, 0),
    (0x7f0000000030, "@!P0 BRA 0x7f0000000020", 10, 800, 10, 0),
    (0x7f0000000040, "BAR.SYNC.DEFER_BLOCKING R100, 0x80", 8, 100, 0, 8),
    (0x7f0000000050, "EXIT", 0, 100, 0, 0),
]
page = '"Kernel Name","void k<1>(int)",\n' + ",".join(HEAD) + "\n" + "".join(
    f'"{a:#x}","      {t}","{n}","{e}","{w}","{b}","0","0"\n' for a, t, n, e, w, b in ROWS)
with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, "page.csv.gz")
    with gzip.open(path, "wt") as f:
        f.write(page)
    p = run("--ncu-source", path)
    out = p.stdout
    expect(p.returncode == 0 and "== void k<1>(int)" in out and "50 samples" in out,
           "the source page is read (gzipped), with its kernel and total samples", p)
    expect("0x00000-0x00010       100      2        2   4.0%  wait 2;" in out,
           "the first run: two instructions executed 100 times, 2 samples, 4.0 % of 50", p)
    expect("0x00020-0x00030       800      2       40  80.0%  wait 30;" in out,
           "the loop's run: 40 samples (80.0 %), its stall reasons summed", p)
    expect("0x00040-0x00050       100      2        8  16.0%  barrier 8;" in out,
           "the run after the loop is its own run, though executed as often as the first", p)
    p = run("--ncu-source", path, "--min-samples", "10")
    expect(p.returncode == 0 and "0x00020" in p.stdout and "0x00040" not in p.stdout,
           "--min-samples leaves the runs with fewer samples out", p)
    bad = os.path.join(d, "other.csv")
    with open(bad, "w") as f:
        f.write('"Kernel Name","k",\n"Address","Source"\n"0x0","EXIT"\n')
    p = run("--ncu-source", bad)
    expect(p.returncode == 2 and "not Nsight Compute's source page" in p.stderr,
           "a CSV without the source page's columns: exit 2, saying so", p)
    p = run("--ncu-source", path, "--sass", path)
    expect(p.returncode == 2, "--ncu-source with --sass: exit 2", p)

print("sass_loops: ok")

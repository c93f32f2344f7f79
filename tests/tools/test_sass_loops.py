#!/usr/bin/env python3
"""tools/reporting/sass_loops.py on listings written here: loops found by dominance (a jump back from
out-of-line code, a forward branch over an MMA and a branch to itself are not loops around MMAs),
the innermost loop around each MMA, in-line and out-of-line code, loops and conditional branches
inside, predicates and modifiers stripped, -k, --top, two architectures, the command line's errors;
and --ncu-source on source pages written here: runs of equally executed instructions with their
samples, two kernels in one file, --min-samples, bad files. No GPU, no CUDA toolkit needed."""
import gzip
import os
import subprocess
import sys
import tempfile

from tests.check import expect
from tools import python_env


def listing(name, body, arch="sm_90a"):
    """A cuobjdump -sass function from (opcode text) lines, addresses 0x10 apart from 0."""
    lines = [f"\tcode for {arch}", f"\t\tFunction : {name}", "\t.headerflags\t@\"EF_CUDA_SM90\""]
    for i, text in enumerate(body):
        lines.append(f"        /*{16 * i:04x}*/                   {text} ;   /* 0x000000000000 */")
        lines.append("                                                   /* 0x000fe20000000f00 */")
    return "\n".join(lines) + "\n"


Q = "QGMMA.64x128x32.F32.E4M3.E4M3 R24, gdesc[UR4], R24"
# Kernel one, as the compiler lays out a consumer: a chunk loop (indices 2-8, back to 0x20) whose
# barrier wait spins out of line (index 3 branches to the retry at 13-14, which jumps back to its
# continuation, index 4); a tail loop (9-11) with a forward branch over its MMA; after EXIT, a
# retry block whose jump back (to index 6) does not come after its own start on every path.
ONE = [
    "S2R R0, SR_TID.X",                                   # 0
    "MOV R1, 0x1",                                        # 1
    "SYNCS.PHASECHK.TRANS64.TRYWAIT P1, [UR8], R4",       # 2 <- 0x20 chunk loop header
    "@!P1 BRA 0xd0",                                      # 3   to the wait's retry, out of line
    Q + ", !UPT",                                         # 4 <- 0x40 (the retry comes back here)
    "@!P0 SYNCS.ARRIVE.TRANS64.RED.A1T0 RZ, [R4+URZ], RZ",  # 5
    Q + ", gsb0",                                         # 6
    "FADD R100, R24, R100",                               # 7
    "@!P2 BRA 0x20",                                      # 8   back to the header
    "@P3 BRA 0xb0",                                       # 9 <- 0x90 tail loop: over its MMA
    Q,                                                    # 10
    "@P4 BRA 0x90",                                       # 11 <- 0xb0 back to 0x90
    "EXIT",                                               # 12
    "SYNCS.PHASECHK.TRANS64.TRYWAIT P1, [UR8], R4",       # 13 <- 0xd0 the retry
    "@!P1 BRA 0xd0",                                      # 14   spins on itself
    "BRA 0x40",                                           # 15   back to the continuation
    "@P5 BRA 0x60",                                       # 16   unreachable: no loop
    "BRA 0x100",                                          # 17   a branch to itself
]
# Kernel two: no tensor-core instruction in its loop. Kernel three: HMMA (mma.sync) in a loop
# with a loop inside it (indices 1-2, with an HMMA of its own: its innermost loop is that one) and a
# conditional branch in line (index 4).
TWO = ["MOV R1, 0x1", "FFMA R2, R2, R2, R2", "@P0 BRA 0x10", "EXIT"]
THREE = ["LDSM.16.M88.4 R4, [R2]",                        # 0 <- 0x0 outer header
         "HMMA.16816.F32 R16, R4, R6, R16",               # 1 <- 0x10 inner loop, its own HMMA
         "@P1 BRA 0x10",                                  # 2
         "HMMA.16816.F32 R8, R4, R6, R8",                 # 3
         "@P2 BRA 0x60",                                  # 4   forward, in line
         "HMMA.16816.F32 R12, R4, R6, R12",               # 5
         "@P0 BRA 0x0",                                   # 6 <- 0x60
         "EXIT"]

# Kernel four: code after an EXIT that only a fall-through could reach (no loop). Kernel five: a
# latch `BRA P2, ..` (taken when P2 is set, so the code after it is reached too), then a second loop.
FOUR = [Q, "EXIT", "@P0 BRA 0x0"]
FIVE = [Q, "BRA P2, 0x0", "HMMA.16816.F32 R8, R4, R6, R8", "@P1 BRA 0x20", "EXIT"]


def run(*args, env=None):
    return subprocess.run([sys.executable, "-m", "tools.reporting.sass_loops", *args],
                          capture_output=True, text=True, env=env or python_env())


with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, "k.sass")
    with open(path, "w") as f:
        f.write(listing("_Z3onev", ONE) + listing("_Z3twov", TWO) + listing("_Z5threev", THREE)
                + listing("_Z4fourv", FOUR) + listing("_Z4fivev", FIVE))

    p = run("--sass", path)
    out = p.stdout
    expect(p.returncode == 0, "a listing with tensor-core loops: exit 0", p)
    expect(("== one()" in out or "== _Z3onev" in out) and "[sm_" not in out,
           "kernel one is reported, without an architecture label (the listing has one)", p)
    expect("loop 0x0020-0x0080: 7 instructions in line (+ 3 out of line), 2 QGMMA: 3.5 per "
           "tensor-core instruction; straight-line" in out,
           "the chunk loop: 7 in line, its wait's retry (3) out of line, a straight line", p)
    rest = [line for line in out.splitlines() if line.startswith("  the rest:")]
    expect(rest and "SYNCS 2" in rest[0] and "FADD 1" in rest[0] and "BRA 2" in rest[0]
           and not any("@" in line or "ARRIVE" in line for line in rest),
           "the rest of the chunk loop by opcode, predicates and modifiers stripped (SYNCS, not @!P0)", p)
    expect("loop 0x0090-0x00b0: 3 instructions in line, 1 QGMMA: 3.0 per tensor-core instruction; "
           "0 loops inside, 1 conditional branches in line" in out,
           "the tail loop, its forward branch over the MMA counted as a conditional branch", p)
    expect("0x0040-" not in out and "0x0060-" not in out and "0x00f0" not in out,
           "no loop from a jump back out of line, an unreachable branch or a branch to itself", p)
    expect("two" not in out, "a kernel whose loop has no tensor-core instruction is not reported", p)
    expect("loop 0x0010-0x0020: 2 instructions in line, 1 HMMA: 2.0 per tensor-core instruction; "
           "straight-line" in out,
           "an HMMA in a loop inside a loop: reported with the inner loop, the innermost", p)
    expect("loop 0x0000-0x0060: 7 instructions in line, 3 HMMA: 2.3 per tensor-core instruction; "
           "1 loops inside, 2 conditional branches in line" in out,
           "mma.sync's HMMA counts; the loop inside and the branches in line (the forward one, the "
           "inner loop's) are named", p)

    expect("four" not in out, "code after an EXIT is not reached by falling through: no loop", p)
    expect("loop 0x0000-0x0010: 2 instructions in line, 1 QGMMA" in out
           and "loop 0x0020-0x0030: 2 instructions in line, 1 HMMA" in out,
           "`BRA P2, ..` is conditional: the loop after it is reached and reported", p)

    p = run("--sass", path, "-k", "three")
    expect(p.returncode == 0 and "HMMA" in p.stdout and "QGMMA" not in p.stdout,
           "-k keeps the matching kernels alone", p)
    p = run("--sass", path, "-k", "two")
    expect(p.returncode == 1 and "no kernel matching 'two'" in p.stderr,
           "-k matching only a kernel without tensor-core loops: exit 1 with the reason", p)
    p = run("--sass", path, "-k", "one", "--top", "1")
    expect(p.returncode == 0 and "  the rest: SYNCS 2, 2 more opcodes" in p.stdout,
           "--top 1: one opcode besides the MMAs, and how many more", p)

    two_archs = os.path.join(d, "two.sass")
    with open(two_archs, "w") as f:
        f.write(listing("_Z5threev", THREE, "sm_80") + listing("_Z5threev", THREE, "sm_90a"))
    p = run("--sass", two_archs)
    expect(p.returncode == 0 and "[sm_80]" in p.stdout and "[sm_90a]" in p.stdout,
           "a listing of two architectures labels each kernel with its own", p)

    empty = os.path.join(d, "empty.sass")
    open(empty, "w").close()
    for args, what in [((), "no file"), (("--sass", path, "x.cubin"), "a binary and a listing"),
                       (("--sass", path, "-k", "("), "a bad regex"),
                       (("--sass", path, "--top", "0"), "--top 0"),
                       (("--sass", path, "--min-samples", "3"), "--min-samples without --ncu-source"),
                       (("--sass", empty), "an empty listing")]:
        p = run(*args)
        expect(p.returncode == 2, f"{what}: exit 2", p)
    p = run("--sass", os.path.join(d, "missing.sass"))
    expect(p.returncode == 2 and "missing.sass" in p.stderr, "an unreadable listing: exit 2, named", p)
    p = run(path, env=dict(python_env(), PATH=d))  # no cuobjdump on PATH
    expect(p.returncode == 2 and "cuobjdump" in p.stderr, "no cuobjdump: exit 2, saying so", p)

# --ncu-source: Nsight Compute's source page (the columns the tool reads, and some it does not),
# gzipped: runs of equally executed instructions, their samples and shares, stall reasons.
HEAD = ['"Address"', '"Source"', '"Warp Stall Sampling (All Samples)"', '"Instructions Executed"',
        '"stall_wait"', '"stall_barrier"', '"stall_wait (Not Issued)"', '"L1 Wavefronts Shared"']
ROWS = [  # address, source, samples, executed, wait, barrier
    (0x7f0000000000, "S2R R0, SR_TID.X", 2, 100, 2, 0),
    (0x7f0000000010, "IMAD R1, R0, 0x2, RZ", 0, 100, 0, 0),
    (0x7f0000000020, "QGMMA.64x128x32.F32.E4M3.E4M3 R24, gdesc[UR4], RZ, !UPT", 25, 800, 20, 0),
    (0x7f0000000030, "@!P0 BRA 0x7f0000000020", 10, 800, 10, 5),
    (0x7f0000000040, "BAR.SYNC.DEFER_BLOCKING R100, 0x80", 8, 100, 0, 8),
    (0x7f0000000050, "EXIT", 0, 100, 0, 0),
]


def page(kernel, rows, not_issued=0):
    return (f'"Kernel Name","{kernel}",\n' + ",".join(HEAD) + "\n" + "".join(
        f'"{a:#x}","      {t}","{n}","{e}","{w}","{b}","{not_issued}","-"\n' for a, t, n, e, w, b in rows))


with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, "page.csv.gz")
    with gzip.open(path, "wt") as f:  # two kernels; the second's Not Issued column is not a reason
        f.write(page("void k<1>(int)", ROWS) + page("void k<2>(int)", ROWS[2:4], not_issued=99))
    p = run("--ncu-source", path)
    out = p.stdout
    expect(p.returncode == 0 and "== void k<1>(int)" in out and "45 samples" in out,
           "the source page is read (gzipped), with its kernel and total samples", p)
    expect("0x00000-0x00010       100      2        2   4.4%  wait 2;" in out,
           "the first run: two instructions executed 100 times, 2 samples, 4.4 % of 45", p)
    expect("0x00020-0x00030       800      2       35  77.8%  wait 30, barrier 5;" in out,
           "the loop's run: 35 samples (77.8 % of 45), its stall reasons summed, largest first", p)
    expect("0x00040-0x00050       100      2        8  17.8%  barrier 8;" in out,
           "the run after the loop is its own run, though executed as often as the first", p)
    second = out.split("== void k<2>(int)")[-1] if "== void k<2>(int)" in out else ""
    expect("35 samples" in second and "0x00000-0x00010       800      2       35 100.0%  wait 30,"
           in second and "Not Issued" not in out,
           "the second kernel of the file on its own, from its own first address; Not Issued "
           "columns are not stall reasons", p)
    p = run("--ncu-source", path, "--min-samples", "8")
    expect(p.returncode == 0 and "0x00020" in p.stdout and "0x00040" in p.stdout
           and "0x00000-0x00010       100" not in p.stdout,
           "--min-samples 8 keeps the run of 8 samples and leaves out the run of 2", p)
    bad = os.path.join(d, "other.csv")
    with open(bad, "w") as f:
        f.write('"Kernel Name","k",\n"Address","Source"\n"0x0","EXIT"\n')
    p = run("--ncu-source", bad)
    expect(p.returncode == 2 and "not Nsight Compute's source page" in p.stderr,
           "a CSV without the source page's columns: exit 2, saying so", p)
    cut = os.path.join(d, "cut.csv.gz")
    with open(path, "rb") as f, open(cut, "wb") as g:
        g.write(f.read()[:-20])
    p = run("--ncu-source", cut)
    expect(p.returncode == 2 and "cut.csv.gz" in p.stderr and "Traceback" not in p.stderr,
           "a truncated gzip file: exit 2, named, no traceback", p)
    for args, what in [(("--ncu-source", path, "--sass", path), "--ncu-source with --sass"),
                       (("--ncu-source", path, "-k", "k"), "-k with --ncu-source"),
                       (("--ncu-source", path, "--top", "3"), "--top with --ncu-source"),
                       (("--ncu-source", path, "--min-samples", "-1"), "--min-samples -1")]:
        p = run(*args)
        expect(p.returncode == 2, f"{what}: exit 2", p)

print("sass_loops: ok")

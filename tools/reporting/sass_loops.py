#!/usr/bin/env python3
"""The instructions of a kernel's tensor-core loops, counted in its machine code: no GPU needed.

    python3 -m tools.reporting.sass_loops FILE [-k REGEX] [--top N]
    python3 -m tools.reporting.sass_loops --sass LISTING [-k REGEX] [--top N]
    python3 -m tools.reporting.sass_loops --ncu-source CSV [--min-samples N]

FILE is a chapter's binary (build/chapters/22_fp8_persistent) or a cubin: its SASS is read with
`cuobjdump -sass` (cuobjdump comes with the CUDA toolkit, or from PyPI: pip install
nvidia-cuda-cuobjdump). --sass reads a listing that cuobjdump already wrote. -k keeps the kernels
whose name (demangled when c++filt is there) matches REGEX.

For every kernel with tensor-core instructions (HMMA: mma.sync and WMMA; HGMMA, QGMMA, ...: wgmma),
each innermost loop that issues them: a loop is the code from a backward branch's target to the
branch, and the innermost loop of a tensor-core instruction is the smallest around it. Per loop: its instructions
per trip, the tensor-core instructions among them, the instructions per tensor-core instruction and
the opcodes that make up the rest. What the count says: every instruction of the loop is issued by
every warp that runs it, so the loop's length beside its tensor-core instructions is the issue work
a warp does to keep the tensor cores fed (docs/profiling.md: "Counting a loop's instructions
without a GPU"). Nsight Compute's source page counts the same instructions as executed.

--ncu-source reads what the GPU did instead: Nsight Compute's source page as CSV (ncu -i REPORT
--page source --csv --print-source sass, gzipped or not), and cuts each kernel's code into runs of
consecutive instructions executed the same number of times (a loop's body, the code around it): per
run, its addresses (from the kernel's first), that count, its instructions, the warp-state samples
taken there (the share of the kernel's samples: where the warps spent their time) and the largest
stall reasons. Runs with fewer than --min-samples samples (default 1) are left out.

Exit: 0, 1 when no kernel matched has a tensor-core loop, 2 on a bad command line or an unreadable
file (with the reason).
"""
import argparse
import collections
import csv
import gzip
import io
import re
import shutil
import subprocess
import sys

TENSOR = re.compile(r"^[A-Z]*MMA$")  # HMMA, IMMA, DMMA, HGMMA, QGMMA, IGMMA, BGMMA, ...
INSTRUCTION = re.compile(r"^\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;")
BRANCH = re.compile(r"\bBRA(?:\.[A-Z.]+)?\s+(?:`?\()?(0x[0-9a-f]+)")


def opcode(text):
    """The opcode's name without its modifiers or predicate: '@!P0 SYNCS.ARRIVE...' -> 'SYNCS'."""
    words = text.split()
    if words and words[0].startswith("@"):
        words = words[1:]
    return words[0].split(".")[0] if words else ""


def functions(listing):
    """[(name, [(address, text), ...])] for every function of a cuobjdump -sass listing."""
    out = []
    for part in listing.split("Function : ")[1:]:
        name = part.split("\n", 1)[0].strip()
        code = [(int(m.group(1), 16), m.group(2)) for line in part.split("\n")
                for m in [INSTRUCTION.match(line)] if m]
        out.append((name, code))
    return out


def loops(code):
    """(first, last) indices of every loop: a branch back to an address at or before its own."""
    at = {address: i for i, (address, _) in enumerate(code)}
    found = set()
    for i, (address, text) in enumerate(code):
        m = BRANCH.search(text)
        if m and opcode(text) == "BRA":
            target = int(m.group(1), 16)
            if target <= address and target in at:
                found.add((at[target], i))
    return sorted(found)


def tensor_loops(code):
    """The innermost loops that issue tensor-core instructions, in address order: each the smallest
    loop around at least one of them (the compiler's loops can overlap without nesting)."""
    all_loops = loops(code)
    found = set()
    for i, (_, text) in enumerate(code):
        if TENSOR.match(opcode(text)):
            around = [(b - a, a, b) for a, b in all_loops if a <= i <= b]
            if around:
                found.add(min(around)[1:])
    return sorted(found)


def demangle(names):
    """The demangled names (c++filt), or the names themselves when it is not there."""
    tool = shutil.which("c++filt")
    if not tool or not names:
        return list(names)
    p = subprocess.run([tool], input="\n".join(names), capture_output=True, text=True)
    out = p.stdout.split("\n")
    return out[:len(names)] if p.returncode == 0 and len(out) >= len(names) else list(names)


def report(listing, pattern=None, top=12):
    """The report's lines, and how many loops it found."""
    lines, count = [], 0
    funcs = functions(listing)
    for (mangled, code), name in zip(funcs, demangle([f for f, _ in funcs])):
        if pattern and not (re.search(pattern, name) or re.search(pattern, mangled)):
            continue
        found = tensor_loops(code)
        if not found:
            continue
        lines.append(f"== {name}")
        for a, b in found:
            body = code[a:b + 1]
            ops = collections.Counter(opcode(t) for _, t in body)
            mma = {op: n for op, n in ops.items() if TENSOR.match(op)}
            n_mma = sum(mma.values())
            lines.append(f"loop {body[0][0]:#06x}-{body[-1][0]:#06x}: {len(body)} instructions, "
                         + ", ".join(f"{n} {op}" for op, n in sorted(mma.items()))
                         + f": {len(body) / n_mma:.1f} per tensor-core instruction")
            rest = [(op, n) for op, n in ops.most_common() if op not in mma]
            lines.append("  the rest: " + ", ".join(f"{op} {n}" for op, n in rest[:top])
                         + (f", {len(rest) - top} more opcodes" if len(rest) > top else ""))
            count += 1
    return lines, count


def source_runs(text, min_samples=1):
    """The report of --ncu-source: runs of equally executed instructions, kernel by kernel."""
    lines, count = [], 0
    blocks = [b for b in re.split(r'(?m)^(?="Kernel Name")', text) if b.strip()]
    for block in blocks:
        rows = list(csv.reader(io.StringIO(block)))
        if len(rows) < 3 or not rows[0] or rows[0][0] != "Kernel Name":
            continue
        head = rows[1]
        try:
            at, src = head.index("Address"), head.index("Source")
            executed = head.index("Instructions Executed")
            samples = head.index("Warp Stall Sampling (All Samples)")
        except ValueError as e:
            raise ValueError(f"not Nsight Compute's source page: {e}") from None
        stalls = [(i, h[len("stall_"):]) for i, h in enumerate(head)
                  if h.startswith("stall_") and "Not Issued" not in h]
        code = [r for r in rows[2:] if len(r) == len(head)]
        if not code:
            continue
        base = int(code[0][at], 16)
        total = sum(int(r[samples] or 0) for r in code) or 1
        runs = []
        for r in code:
            n = int(r[executed] or 0)
            if runs and runs[-1]["n"] == n:
                runs[-1]["rows"].append(r)
            else:
                runs.append({"n": n, "rows": [r]})
        lines.append(f"== {rows[0][1]}")
        lines.append(f"{total} samples; runs of instructions executed the same number of times:")
        lines.append(f"{'addresses':>15} {'executed':>9} {'instr':>6} {'samples':>8} {'share':>6}  "
                     "stall reasons; first .. last instruction")
        for run in runs:
            got = sum(int(r[samples] or 0) for r in run["rows"])
            if got < min_samples:
                continue
            why = collections.Counter()
            for r in run["rows"]:
                for i, name in stalls:
                    why[name] += int(r[i] or 0)
            first, last = (int(run["rows"][k][at], 16) - base for k in (0, -1))
            reasons = ", ".join(f"{name} {v}" for name, v in why.most_common(3) if v)
            lines.append(f"{first:#07x}-{last:#07x} {run['n']:9d} {len(run['rows']):6d} {got:8d} "
                         f"{100 * got / total:5.1f}%  {reasons}; {run['rows'][0][src].strip()[:40]}"
                         f" .. {run['rows'][-1][src].strip()[:40]}")
        count += 1
    return lines, count


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("file", nargs="?", help="a binary or cubin (read with cuobjdump -sass)")
    ap.add_argument("--sass", help="a listing written by cuobjdump -sass")
    ap.add_argument("--ncu-source", help="Nsight Compute's source page as CSV (.gz too)")
    ap.add_argument("--min-samples", type=int, default=1, help="--ncu-source: runs with fewer left out")
    ap.add_argument("-k", dest="pattern", help="only the kernels whose name matches this regex")
    ap.add_argument("--top", type=int, default=12, help="opcodes listed per loop besides the MMAs")
    args = ap.parse_args(argv)
    if sum(map(bool, (args.file, args.sass, args.ncu_source))) != 1:
        ap.error("give a binary, --sass LISTING or --ncu-source CSV (one of them)")
    if args.ncu_source:
        try:
            opener = gzip.open if args.ncu_source.endswith(".gz") else open
            with opener(args.ncu_source, "rt", errors="replace") as f:
                lines, count = source_runs(f.read(), args.min_samples)
        except (OSError, ValueError) as e:
            print(f"sass_loops: {args.ncu_source}: {getattr(e, 'strerror', None) or e}", file=sys.stderr)
            return 2
        if not count:
            print(f"sass_loops: {args.ncu_source}: no kernel's source page in it", file=sys.stderr)
            return 2
        print("\n".join(lines))
        return 0
    if args.top < 1:
        ap.error("--top must be at least 1")
    if args.pattern:
        try:
            re.compile(args.pattern)
        except re.error as e:
            ap.error(f"-k {args.pattern!r}: {e}")
    if args.sass:
        try:
            with open(args.sass, errors="replace") as f:
                listing = f.read()
        except OSError as e:
            print(f"sass_loops: {args.sass}: {e.strerror}", file=sys.stderr)
            return 2
    else:
        tool = shutil.which("cuobjdump")
        if not tool:
            print("sass_loops: cuobjdump is not on PATH (it is in the CUDA toolkit's bin/, or: "
                  "pip install nvidia-cuda-cuobjdump)", file=sys.stderr)
            return 2
        p = subprocess.run([tool, "-sass", args.file], capture_output=True, text=True)
        if p.returncode != 0:
            print(f"sass_loops: cuobjdump -sass {args.file}: {p.stderr.strip()}", file=sys.stderr)
            return 2
        listing = p.stdout
    lines, count = report(listing, args.pattern, args.top)
    if not count:
        print("sass_loops: no kernel" + (f" matching {args.pattern!r}" if args.pattern else "")
              + " has a loop with tensor-core instructions", file=sys.stderr)
        return 1
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

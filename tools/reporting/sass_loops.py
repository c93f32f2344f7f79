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
the innermost loop around each of them. The loops are found as a compiler does: the code is cut
into basic blocks, and a loop is a branch back to a block that every path from the kernel's start
to the branch goes through (its header); its body is what can reach the branch without passing the
header. (A jump back from code the compiler moved out of line, such as a barrier wait's retry after
the kernel's EXITs, is not a loop: its target does not come before it on every path.) Per loop: its
instructions laid out from the header to the last branch back ("in line"), the body's blocks placed
elsewhere ("out of line": the retries of the barrier waits, run only when a wait must spin), the
tensor-core instructions, the instructions per tensor-core instruction, the loops inside it and its
conditional branches, and the opcodes of the rest. When a loop has no loop inside and no
conditional branch in line but those into its out-of-line blocks, every trip issues every in-line
instruction, and its length beside its tensor-core instructions is the issue work a warp does to
keep the tensor cores fed (docs/profiling.md: "Counting a loop's instructions without a GPU").
Nsight Compute's source page shows the same instructions executed.

--ncu-source reads what the GPU did instead: Nsight Compute's source page as CSV (ncu -i REPORT
--page source --csv --print-source sass, gzipped or not), and cuts each kernel's code into runs of
consecutive instructions executed the same number of times (a loop's body, the code around it): per
run, its addresses (from the kernel's first), that count, its instructions, the warp-state samples
taken there (the share of the kernel's samples: where the warps spent their time) and the largest
stall reasons. Runs with fewer than --min-samples samples (default 1) are left out.

Exit: 0, 1 when no kernel matched has a tensor-core loop, 2 on a bad command line or an unreadable
or unrecognized file (with the reason).
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
# A branch's target: `BRA 0x..`, `BRA.U.ANY 0x..`, `BRA P2, 0x..` (taken when P2 is set).
BRANCH = re.compile(r"^BRA(?:\.[A-Z.]+)?\s+(?:(!?U?P[T0-6]),\s*)?`?\(?(0x[0-9a-f]+)")


def opcode(text):
    """The opcode's name without its modifiers or predicate: '@!P0 SYNCS.ARRIVE...' -> 'SYNCS'."""
    words = text.split()
    if words and words[0].startswith("@"):
        words = words[1:]
    return words[0].split(".")[0] if words else ""


ENDS = ("BRA", "BRX", "JMX", "JMP", "EXIT", "RET", "KILL")  # no fall-through unless predicated


def branch(text):
    """(the target address of a branch, or None; whether the instruction is conditional: a guard
    predicate `@P0 ...` or a `BRA P2, ..`)."""
    words = text.split()
    guarded = bool(words) and words[0].startswith("@")
    m = BRANCH.match(" ".join(words[1:] if guarded else words))
    target = int(m.group(2), 16) if m else None
    return target, guarded or bool(m and m.group(1) and m.group(1) != "PT")


def functions(listing):
    """[(name, architecture, [(address, text), ...])] for every function of a cuobjdump -sass
    listing; the architecture from the `code for sm_XX` line before it ('' when there is none)."""
    out, arch = [], ""
    for k, part in enumerate(re.split(r"(?m)^[ \t]*Function : ", listing)):
        if k:
            code = [(int(m.group(1), 16), m.group(2)) for line in part.split("\n")
                    for m in [INSTRUCTION.match(line)] if m]
            out.append((part.split("\n", 1)[0].strip(), arch, code))
        found = re.findall(r"(?m)^\s*code for (sm_\w+)", part)
        if found:
            arch = found[-1]
    return out


def blocks(code):
    """The basic blocks, as (first, last) indices, and each block's successors (block numbers)."""
    n = len(code)
    at = {address: i for i, (address, _) in enumerate(code)}
    leaders = {0}
    target = [None] * n  # the index a branch goes to
    for i, (_, text) in enumerate(code):
        t = at.get(branch(text)[0])
        if t is not None:
            target[i] = t
            leaders.add(t)
        if opcode(text) in ENDS and i + 1 < n:
            leaders.add(i + 1)
    starts = sorted(leaders)
    spans = [(a, (starts[k + 1] if k + 1 < len(starts) else n) - 1) for k, a in enumerate(starts)]
    number = {a: k for k, (a, _) in enumerate(spans)}
    succ = []
    for k, (a, b) in enumerate(spans):
        out = [number[target[b]]] if target[b] is not None else []
        if (opcode(code[b][1]) not in ENDS or branch(code[b][1])[1]) and k + 1 < len(spans):
            out.append(k + 1)
        succ.append(out)
    return spans, succ


def dominators(succ):
    """dom[b]: the blocks every path from block 0 to b goes through (b included); None when b
    cannot be reached from block 0."""
    n = len(succ)
    order, seen, stack = [], {0}, [(0, iter(succ[0]))] if n else []
    while stack:  # depth-first, for a reverse postorder
        b, it = stack[-1]
        nxt = next((s for s in it if s not in seen), None)
        if nxt is None:
            order.append(b)
            stack.pop()
        else:
            seen.add(nxt)
            stack.append((nxt, iter(succ[nxt])))
    order.reverse()
    pred = collections.defaultdict(list)
    for b in order:
        for s in succ[b]:
            pred[s].append(b)
    dom = [None] * n
    if n:
        dom[0] = {0}
    changed = True
    while changed:
        changed = False
        for b in order[1:]:
            ps = [dom[p] for p in pred[b] if dom[p] is not None]
            new = set.intersection(*ps) | {b} if ps else {b}
            if new != dom[b]:
                dom[b], changed = new, True
    return dom


def natural_loops(code):
    """Every loop: {'header', 'body' (block numbers), 'latch_end' (index of its last branch back)},
    with the blocks (spans); loops that share a header are one loop."""
    spans, succ = blocks(code)
    dom = dominators(succ)
    pred = collections.defaultdict(list)
    for b, ss in enumerate(succ):
        for s in ss:
            pred[s].append(b)
    loops = {}
    for u, ss in enumerate(succ):
        for h in ss:
            if dom[u] is not None and h in dom[u]:  # u -> h goes back to a block that dominates u
                body, stack = ({h}, []) if u == h else ({h, u}, [u])  # never past the header
                while stack:
                    x = stack.pop()
                    for p in pred[x]:
                        if p not in body and dom[p] is not None:
                            body.add(p)
                            stack.append(p)
                loop = loops.setdefault(h, {"header": h, "body": set(), "latch_end": 0})
                loop["body"] |= body
                loop["latch_end"] = max(loop["latch_end"], spans[u][1])
    return spans, list(loops.values())


def tensor_loops(code):
    """For each innermost loop around a tensor-core instruction, in address order: (its in-line
    indices, its out-of-line indices, how many loops it holds in line, its conditional branches in
    line but those back to its header and those into its out-of-line blocks)."""
    spans, loops = natural_loops(code)
    at = {address: i for i, (address, _) in enumerate(code)}
    for lp in loops:
        lo, hi = spans[lp["header"]][0], lp["latch_end"]
        inside = {i for b in lp["body"] for i in range(spans[b][0], spans[b][1] + 1)}
        lp["all"] = inside
        lp["in"] = sorted(i for i in inside if lo <= i <= hi)
        lp["out"] = sorted(i for i in inside if not lo <= i <= hi)
    found = {}
    for i, (_, text) in enumerate(code):
        if TENSOR.match(opcode(text)):
            around = [lp for lp in loops if i in lp["all"]]
            if around:
                lp = min(around, key=lambda x: len(x["all"]))
                found[lp["header"]] = lp
    result = []
    for lp in sorted(found.values(), key=lambda x: spans[x["header"]][0]):
        head, outside, inline = spans[lp["header"]][0], set(lp["out"]), set(lp["in"])
        inner = sum(1 for other in loops  # loops in line (an out-of-line one is a wait's spin)
                    if other is not lp and spans[other["header"]][0] in inline)
        branches = 0
        for i in lp["in"]:
            address, conditional = branch(code[i][1])
            if opcode(code[i][1]) == "BRA" and conditional:
                t = at.get(address)
                if t != head and t not in outside:
                    branches += 1
        result.append((lp["in"], lp["out"], inner, branches))
    return result


def demangle(names):
    """The demangled names (c++filt), or the names themselves when it is not there."""
    tool = shutil.which("c++filt")
    if not tool or not names:
        return list(names)
    p = subprocess.run([tool], input="\n".join(names), capture_output=True, text=True)
    out = p.stdout.split("\n")
    return out[:len(names)] if p.returncode == 0 and len(out) >= len(names) else list(names)


def report(listing, pattern=None, top=12):
    """The report's lines, how many loops it found and how many functions the listing has."""
    lines, count = [], 0
    funcs = functions(listing)
    archs = {arch for _, arch, _ in funcs}
    for (mangled, arch, code), name in zip(funcs, demangle([f for f, _, _ in funcs])):
        if pattern and not (re.search(pattern, name) or re.search(pattern, mangled)):
            continue
        found = tensor_loops(code)
        if not found:
            continue
        lines.append(f"== {name}" + (f" [{arch}]" if len(archs) > 1 else ""))
        for inline, outside, inner, branches in found:
            ops = collections.Counter(opcode(code[i][1]) for i in inline)
            mma = {op: n for op, n in ops.items() if TENSOR.match(op)}
            n_mma = sum(mma.values()) or sum(1 for i in outside if TENSOR.match(opcode(code[i][1])))
            shape = ("straight-line" if not inner and not branches else
                     f"{inner} loops inside, {branches} conditional branches in line")
            lines.append(f"loop {code[inline[0]][0]:#06x}-{code[inline[-1]][0]:#06x}: "
                         f"{len(inline)} instructions in line"
                         + (f" (+ {len(outside)} out of line)" if outside else "") + ", "
                         + ", ".join(f"{n} {op}" for op, n in sorted(mma.items()))
                         + f": {len(inline) / max(n_mma, 1):.1f} per tensor-core instruction; {shape}")
            rest = [(op, n) for op, n in ops.most_common() if op not in mma]
            lines.append("  the rest: " + ", ".join(f"{op} {n}" for op, n in rest[:top])
                         + (f", {len(rest) - top} more opcodes" if len(rest) > top else ""))
            count += 1
    return lines, count, len(funcs)


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
    ap.add_argument("--min-samples", type=int, help="--ncu-source: runs with fewer samples left out "
                    "(default 1)")
    ap.add_argument("-k", dest="pattern", help="only the kernels whose name matches this regex")
    ap.add_argument("--top", type=int, help="opcodes listed per loop besides the MMAs (default 12)")
    args = ap.parse_args(argv)
    if sum(map(bool, (args.file, args.sass, args.ncu_source))) != 1:
        ap.error("give a binary, --sass LISTING or --ncu-source CSV (one of them)")
    if args.ncu_source:
        if args.pattern is not None or args.top is not None:
            ap.error("-k and --top go with a binary or --sass, not --ncu-source")
        if args.min_samples is not None and args.min_samples < 0:
            ap.error("--min-samples must be 0 or more")
        try:
            opener = gzip.open if args.ncu_source.endswith(".gz") else open
            with opener(args.ncu_source, "rt", errors="replace") as f:
                lines, count = source_runs(f.read(), 1 if args.min_samples is None else args.min_samples)
        except (OSError, ValueError, EOFError, csv.Error) as e:
            print(f"sass_loops: {args.ncu_source}: {getattr(e, 'strerror', None) or e}", file=sys.stderr)
            return 2
        if not count:
            print(f"sass_loops: {args.ncu_source}: no kernel's source page in it", file=sys.stderr)
            return 2
        return emit(lines)
    if args.min_samples is not None:
        ap.error("--min-samples goes with --ncu-source")
    top = 12 if args.top is None else args.top
    if top < 1:
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
    lines, count, n_functions = report(listing, args.pattern, top)
    if not n_functions:
        print(f"sass_loops: {args.sass or args.file}: no function in its SASS listing", file=sys.stderr)
        return 2
    if not count:
        print("sass_loops: no kernel" + (f" matching {args.pattern!r}" if args.pattern else "")
              + " has a loop with tensor-core instructions", file=sys.stderr)
        return 1
    return emit(lines)


def emit(lines):
    """Prints the report; a reader that stops early (| head) is not an error."""
    try:
        print("\n".join(lines))
        sys.stdout.flush()
    except BrokenPipeError:
        sys.stdout = None
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

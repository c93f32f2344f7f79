#!/usr/bin/env python3
"""The one list of chapters (chapters/chapters.txt), for everything that needs it.

    python3 -m tools.build.chapters ids [--kind cpu,cuda,hopper]
                                        [--precision fp32,fp16,fp8_fast,fp8,fp8_block]
        the chapters' ids in reading order, one per line (./tutorial,
        tools/measuring/gpu_session.sh)
    python3 -m tools.build.chapters field ID FIELD
        one field of one chapter: kind, precision, min_cc, max_cc, sizes, title, ns
    python3 -m tools.build.chapters cpp LIST OUT
        the harness's table of ChapterInfo (title, sizes, compute capabilities), built by meson
    python3 -m tools.build.chapters kernels LIST OUT --kind cuda|hopper
        a header that includes every such chapter's kernel and visits their gemm() in order
        (the tools that time or sweep any chapter by name), built by meson
    python3 -m tools.build.chapters diffs
        the Markdown table of each chapter's kernel diff against the chapter before it (or the one
        its kernel names in a line `// Builds on: NN_slug`) and the PTX wrapper headers it
        introduces (common/device/chNN_*.cuh, whole), with its size in changed lines
        (docs/reading-order.md holds it; tests/tools/test_chapters.py compares)

Python code imports it: `chapters.load()` gives Chapter tuples. A malformed line is an error that
names the line. Two readers parse the file themselves, the same columns: meson.build (id, kind,
precision) and ./tutorial (in bash, before Python is known to be there).
"""
import json
import os
import re
import subprocess
import sys
from collections import namedtuple

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LIST = os.path.join(ROOT, "chapters", "chapters.txt")
KINDS = ("cpu", "cuda", "hopper")
# What each precision of the list means to a tool, named once (the harness's own table, with the
# tolerance and the yardstick: common/harness/precision.hpp; chapters.txt says it in words).
#   name      the list's precision column          csv      the harness's name (the CSV's column)
#   family    fp32, fp16 or fp8 (an FP8 chapter)     ab, c    bytes of an element of A and B, of C
#   b         B's layout: "KxN", or "NxK" (K-major, as FP8 wgmma reads it)
Precision = namedtuple("Precision", "name csv family ab c b")
PRECISION_TABLE = (
    Precision("fp32", "fp32", "fp32", 4, 4, "KxN"),
    Precision("fp16", "fp16", "fp16", 2, 4, "KxN"),
    Precision("fp8_fast", "e4m3-fast", "fp8", 1, 2, "NxK"),
    Precision("fp8", "e4m3", "fp8", 1, 2, "NxK"),
    Precision("fp8_block", "e4m3-block", "fp8", 1, 2, "NxK"),
)
PRECISIONS = tuple(p.name for p in PRECISION_TABLE)

Chapter = namedtuple("Chapter", "id kind precision min_cc max_cc sizes title ns")


class ListError(Exception):
    pass


def parse_cc(text, where):
    """'-' -> (0, 0); '75-' -> (75, 0): no upper limit; '90-90' -> (90, 90)."""
    if text == "-":
        return 0, 0
    m = re.fullmatch(r"(\d+)-(\d*)", text)
    if not m:
        raise ListError(f"{where}: compute capability '{text}' is not '-', 'NN-' or 'NN-NN'")
    return int(m.group(1)), int(m.group(2) or 0)


def load(path=LIST):
    chapters = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            where = f"{path}:{n}"
            cols = [c.strip() for c in line.split("|")]
            if len(cols) != 6:
                raise ListError(f"{where}: expected 6 columns separated by '|', found {len(cols)}")
            cid, kind, precision, cc, sizes, title = cols
            if not re.fullmatch(r"\d\d_[a-z0-9_]+", cid):
                raise ListError(f"{where}: id '{cid}' is not NN_snake_case")
            if kind not in KINDS:
                raise ListError(f"{where}: kind '{kind}' is not one of {', '.join(KINDS)}")
            if precision not in PRECISIONS:
                raise ListError(f"{where}: precision '{precision}' is not one of {', '.join(PRECISIONS)}")
            min_cc, max_cc = parse_cc(cc, where)
            if (kind == "cpu") != (min_cc == 0):
                raise ListError(f"{where}: a CPU chapter has cc '-', a GPU chapter a range")
            if not re.fullmatch(r"\d+(x\d+x\d+)?(,\d+(x\d+x\d+)?)*", sizes):
                raise ListError(f"{where}: sizes '{sizes}' is not a comma-separated list of N or MxNxK")
            if any(c.id == cid for c in chapters):
                raise ListError(f"{where}: chapter '{cid}' is listed twice")
            chapters.append(Chapter(cid, kind, precision, min_cc, max_cc, sizes.split(","), title,
                                    "ch" + cid[:2]))
    return chapters


def precision(name):
    """The Precision of `name`, the list's name of it (fp8_block) or the harness's in a CSV
    (e4m3-block). Anything else: ListError naming it."""
    for p in PRECISION_TABLE:
        if name in (p.name, p.csv):
            return p
    raise ListError(f"precision '{name}' is not one of {', '.join(PRECISIONS)} "
                    f"(in a CSV: {', '.join(p.csv for p in PRECISION_TABLE)})")


def select(chapters, kinds=None, precisions=None):
    return [c for c in chapters
            if (not kinds or c.kind in kinds) and (not precisions or c.precision in precisions)]


def c_string(s):
    return json.dumps(s)  # the titles are ASCII: a JSON string is a C string literal


def shape_cpp(size):
    dims = size.split("x")
    return "{" + ", ".join(dims) + "}"


def write_if_changed(path, text):
    try:
        with open(path) as f:
            if f.read() == text:
                return
    except OSError:
        pass
    with open(path, "w") as f:
        f.write(text)


def cpp_table(chapters):
    rows = []
    for c in chapters:
        sizes = ", ".join(shape_cpp(s) for s in c.sizes)
        rows.append(f"        {{{c_string(c.id)}, {c_string(c.title)}, {c.min_cc}, {{{sizes}}}, "
                    f"{c.max_cc}, {c_string(c.kind)}, {c_string(c.precision)}}},")
    return ("// Generated from chapters/chapters.txt by tools/build/chapters.py: do not edit.\n"
            "#include \"chapter.hpp\"\n\n"
            "namespace gemm {\n\n"
            "const std::vector<ChapterInfo>& chapter_list() {\n"
            "    static const std::vector<ChapterInfo> list = {\n" + "\n".join(rows) + "\n"
            "    };\n    return list;\n}\n\n}  // namespace gemm\n")


def kernels_header(chapters, kind):
    chosen = select(chapters, [kind], ["fp32", "fp16"])
    includes = "".join(f'#include "{c.id}/kernel.cuh"\n' for c in chosen)
    visits = "".join(f'    visit("{c.id}", {c.ns}::gemm);\n' for c in chosen)
    return ("// Generated from chapters/chapters.txt by tools/build/chapters.py: do not edit.\n"
            f"// Every {kind} chapter with the common gemm() contract, in reading order.\n"
            "#pragma once\n\n" + includes + "\n"
            "namespace gemm {\n\n"
            "// Calls visit(id, gemm) for each chapter: gemm takes float or __half operands.\n"
            "template <class Visit>\n"
            "void for_each_chapter(Visit&& visit) {\n" + visits + "}\n\n"
            "}  // namespace gemm\n")


def kernel_file(cid):
    for name in ("kernel.cuh", "kernel.hpp"):
        if os.path.exists(os.path.join(ROOT, "chapters", cid, name)):
            return f"chapters/{cid}/{name}"
    raise ListError(f"chapters/{cid} has no kernel.cuh or kernel.hpp")


def changed_lines(a, b):
    """Lines added plus lines removed, as `git diff --no-index --numstat` counts them."""
    p = subprocess.run(["git", "diff", "--no-index", "--numstat", a, b], cwd=ROOT,
                       capture_output=True, text=True)
    if p.returncode not in (0, 1) or (p.returncode == 1 and not p.stdout):
        raise ListError(f"git diff --no-index {a} {b} failed: {p.stderr.strip()}")
    added, removed = (p.stdout.split() + ["0", "0"])[:2]
    return int(added) + int(removed)


BASE_LINE = re.compile(r"^// Builds on: (\d\d_[a-z0-9_]+)\s*$", re.M)


def diff_base(chapters, i):
    """The chapter that chapter i's kernel is read against: the one before it in the list, unless
    its kernel file says otherwise in a line `// Builds on: NN_slug` (an earlier chapter)."""
    c = chapters[i]
    with open(os.path.join(ROOT, kernel_file(c.id))) as f:
        m = BASE_LINE.search(f.read())
    if not m:
        return chapters[i - 1]
    earlier = [p for p in chapters[:i] if p.id == m.group(1)]
    if not earlier:
        raise ListError(f"{kernel_file(c.id)}: 'Builds on: {m.group(1)}' names no earlier chapter")
    return earlier[0]


WRAPPERS = "common/device"
# A kernel with no kernel of its own to diff (a dispatcher) says `// Read whole: FILE...` (besides its
# kernel file); a wrapper header that extends an earlier one says `// Builds on: common/device/NAME`
# and is diffed against it rather than counted whole.
READ_WHOLE = re.compile(r"^// Read whole: (.+?)\s*$", re.M)
HEADER_BASE = re.compile(r"^// Builds on: (common/device/\S+)\s*$", re.M)


def _first(pattern, path):
    with open(os.path.join(ROOT, path)) as f:
        m = pattern.search(f.read())
    return m.group(1) if m else None


def line_count(path):
    with open(os.path.join(ROOT, path)) as f:
        return sum(1 for _ in f)


def wrapper_files(cid):
    """The PTX wrapper headers chapter cid introduces: common/device/chNN_*.cuh, NN its number."""
    folder = os.path.join(ROOT, WRAPPERS)
    names = os.listdir(folder) if os.path.isdir(folder) else []
    return [f"{WRAPPERS}/{n}" for n in sorted(names)
            if n.startswith(f"ch{cid[:2]}_") and n.endswith((".cuh", ".hpp"))]


def diff_table(chapters):
    """A step's size is its kernel's diff plus the whole of each wrapper header it introduces (new
    to the reader at that step, so the step that teaches an instruction shows it)."""
    rows = ["| step | changed lines | see it with |", "|---|---:|---|"]
    for i, c in enumerate(chapters[1:], 1):
        prev = diff_base(chapters, i)
        a, b = kernel_file(prev.id), kernel_file(c.id)
        whole = _first(READ_WHOLE, b)
        if whole:  # no kernel of its own: the files to read, whole, and their lines
            files = [b] + [f"chapters/{c.id}/{n}" for n in whole.split()]
            rows.append(f"| {c.id[:2]} | read whole ({sum(line_count(f) for f in files)} lines) | " +
                        " and ".join(f"`{f}`" for f in files) + " |")
            continue
        size = changed_lines(a, b)
        see = f"`git diff --no-index {a} {b}`"
        for h in wrapper_files(c.id):
            base = _first(HEADER_BASE, h)
            size += changed_lines(base or "/dev/null", h)
            see += f" and `git diff --no-index {base} {h}`" if base else f" and `{h}`"
        rows.append(f"| {prev.id[:2]} → {c.id[:2]} | {size} | {see} |")
    return "\n".join(rows) + "\n"


def usage(msg):
    print(f"chapters.py: {msg}\n" + __doc__, file=sys.stderr)
    sys.exit(2)


def option(args, name):
    if name in args:
        i = args.index(name)
        if i + 1 >= len(args):
            usage(f"{name} needs a value")
        value = args[i + 1]
        del args[i:i + 2]
        return value.split(",")
    return None


def main(argv):
    if not argv:
        usage("no command")
    cmd, args = argv[0], list(argv[1:])
    try:
        if cmd == "ids":
            kinds, precisions = option(args, "--kind"), option(args, "--precision")
            if args:
                usage(f"unexpected arguments: {' '.join(args)}")
            for c in select(load(), kinds, precisions):
                print(c.id)
        elif cmd == "field":
            if len(args) != 2:
                usage("field needs ID FIELD")
            found = [c for c in load() if c.id == args[0] or c.id[:2] == args[0]]
            if not found:
                print(f"chapters.py: no chapter '{args[0]}' in {LIST}", file=sys.stderr)
                sys.exit(2)
            if args[1] not in Chapter._fields:
                usage(f"no field '{args[1]}' (fields: {', '.join(Chapter._fields)})")
            value = getattr(found[0], args[1])
            print(",".join(value) if isinstance(value, list) else value)
        elif cmd == "diffs":
            if args:
                usage(f"unexpected arguments: {' '.join(args)}")
            sys.stdout.write(diff_table(load()))
        elif cmd == "cpp":
            if len(args) != 2:
                usage("cpp needs LIST OUT")
            write_if_changed(args[1], cpp_table(load(args[0])))
        elif cmd == "kernels":
            kind = option(args, "--kind")
            if len(args) != 2 or not kind or kind[0] not in ("cuda", "hopper"):
                usage("kernels needs LIST OUT --kind cuda|hopper")
            write_if_changed(args[1], kernels_header(load(args[0]), kind[0]))
        else:
            usage(f"unknown command '{cmd}'")
    except ListError as e:
        print(f"chapters.py: {e}", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main(sys.argv[1:])

#!/usr/bin/env python3
"""Which sources a result came from: every CSV row the harness writes carries three stamps.

    commit       the commit the binary was built from (12 hex digits), "" when unknown
    dirty        "true" when the tree had uncommitted changes (untracked files included), "false",
                 "" when unknown
    source_hash  a hash of the chapter's kernel file and of every file it includes, transitively,
                 within chapters/ and common/ (#include "..."); comments, indentation and line
                 breaks do not count, so a comment edited or a line re-wrapped leaves it alone

Commands:

    python3 -m tools.build.stamps cpp ROOT OUT
        the harness's table of stamps (meson runs it at every build; OUT changes only when a stamp
        does, so nothing relinks otherwise)
    python3 -m tools.build.stamps hash [--root ROOT] ID...
        each chapter's current source hash and the files it covers
    python3 -m tools.build.stamps stale [--root ROOT]
        the committed results under plots/ whose kernel changed since they were measured. Exit 1
        when one of them is cited by README.md or a chapter's README; the other stale results, and
        the CSVs written before the stamps, are listed without failing

Outside a git checkout (a copy of the tree on another machine), the commit and the dirty flag come
from the environment when it has them: GEMM_SOURCE_COMMIT and GEMM_SOURCE_DIRTY (true or false).
A row's chapter is a chapter id ("07_cuda_warp_tiled") or a tool's name for one of its
configurations (tools/tune's "07_" plus a tile name): the chapter with that number.
"""
import csv
import glob
import hashlib
import os
import re
import subprocess
import sys

from tools.build import chapters  # the one list of chapters

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# Where a quoted #include is looked for after the including file's own folder: the build's
# include directories (meson.build's common_inc: common/ for "device/NAME.cuh" and its three rooms
# for bare names, and chapters/ for "NN_slug/kernel.cuh").
INCLUDE_DIRS = ("common", "common/device", "common/harness", "common/grading", "chapters")
KERNEL_FILES = ("kernel.cuh", "kernel.hpp")
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)
# What a README may name: a CSV, its folder, or a chart or table drawn from it.
CITING = ["README.md", "chapters/*/README.md"]
DRAWN_FROM_FOLDER = ("results.md", "all_chapters.svg", "all_chapters.png", "roofline.svg",
                     "roofline.png")


class StampError(Exception):
    pass


# --- The source hash ---------------------------------------------------------------------------

def code_only(text):
    """The text without its comments and with blank space normalized: what the compiler reads,
    whatever the comments, the indentation or the line breaks (strings kept as they are)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if c == "/" and text.startswith("//", i):
            while i < n and text[i] != "\n":
                i += 1
        elif c == "/" and text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = n if end < 0 else end + 2
            out.append(" ")
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        else:
            out.append(c)
            i += 1
    # Tokens apart by one space; only a preprocessor directive keeps its own line.
    code = []
    for line in "".join(out).split("\n"):
        line = " ".join(line.split())
        if line.startswith("#"):
            code.append("\n" + line + "\n")
        elif line:
            code.append(line + " ")
    return "".join(code)


def kernel_file(root, chapter):
    """The kernel file of a chapter id, or of a tool's configuration name (its NN_ prefix)."""
    folder = os.path.join(root, "chapters")
    candidates = [chapter]
    if os.path.isdir(folder) and re.match(r"\d\d_", chapter):
        candidates += sorted(d for d in os.listdir(folder) if d[:3] == chapter[:3])
    for cid in candidates:
        for name in KERNEL_FILES:
            path = os.path.join(folder, cid, name)
            if os.path.isfile(path):
                return path
    return None


def resolve(root, including, name):
    for d in [os.path.dirname(including)] + [os.path.join(root, x) for x in INCLUDE_DIRS]:
        path = os.path.normpath(os.path.join(d, name))
        if os.path.isfile(path):
            return path
    return None  # outside the repository (a system or a generated header): not a kernel source


def sources(root, kernel):
    """The kernel file and everything it includes within the repository, transitively."""
    seen, todo = [], [os.path.normpath(kernel)]
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.append(path)
        with open(path, encoding="utf-8") as f:
            for name in INCLUDE.findall(code_only(f.read())):
                found = resolve(root, path, name)
                if found and found not in seen:
                    todo.append(found)
    return sorted(seen)


def source_hash(root, chapter):
    """16 hex digits, or "" when the chapter has no kernel file here."""
    kernel = kernel_file(root, chapter)
    if not kernel:
        return ""
    digests = []
    for path in sources(root, kernel):
        with open(path, encoding="utf-8") as f:
            digests.append(hashlib.sha256(code_only(f.read()).encode()).hexdigest())
    # Sorted digests of the contents alone: a file moved or renamed unchanged keeps the hash.
    return hashlib.sha256("\n".join(sorted(digests)).encode()).hexdigest()[:16]


# --- The commit --------------------------------------------------------------------------------

def git(root, *args):
    p = subprocess.run(["git", "-C", root] + list(args), capture_output=True, text=True)
    return p.stdout.strip() if p.returncode == 0 else None


def commit_and_dirty(root):
    # What the caller says first: a copy of the tree sent to another machine can carry a .git
    # that is not the tree's (the device copy held the session's first commit, 2026-11-26).
    commit = os.environ.get("GEMM_SOURCE_COMMIT", "")
    dirty = os.environ.get("GEMM_SOURCE_DIRTY", "")
    if re.fullmatch(r"[0-9a-f]{12,40}", commit) and dirty in ("true", "false"):
        return commit[:12], dirty
    top = git(root, "rev-parse", "--show-toplevel")
    # Only the tree's own repository: a copy inside another checkout must not take its commit.
    if top and os.path.realpath(top) == os.path.realpath(root):
        commit = git(root, "rev-parse", "--short=12", "HEAD")
        status = git(root, "status", "--porcelain")
        if commit and status is not None:
            return commit, "true" if status else "false"
    commit = os.environ.get("GEMM_SOURCE_COMMIT", "")
    dirty = os.environ.get("GEMM_SOURCE_DIRTY", "")
    return (commit[:12] if re.fullmatch(r"[0-9a-f]{12,40}", commit) else "",
            dirty if dirty in ("true", "false") else "")


# --- The generated table -----------------------------------------------------------------------

def chapter_ids(root):
    try:
        return [c.id for c in chapters.load(os.path.join(root, "chapters", "chapters.txt"))]
    except chapters.ListError as e:
        raise StampError(str(e))


def cpp_table(root):
    commit, dirty = commit_and_dirty(root)
    rows = "".join(f'        {{"{cid}", "{source_hash(root, cid)}"}},\n' for cid in chapter_ids(root))
    return ("// Generated at build time by tools/build/stamps.py: do not edit.\n"
            '#include "stamp.hpp"\n\n'
            "namespace gemm {\n\n"
            "const BuildStamps& build_stamps() {\n"
            f'    static const BuildStamps stamps = {{"{commit}", "{dirty}", {{\n' + rows +
            "    }};\n    return stamps;\n}\n\n"
            "}  // namespace gemm\n")


# --- Stale results -----------------------------------------------------------------------------

def cited_paths(root):
    """{path under the root: [README citing it]} for every plots/... path a README names."""
    cited = {}
    for pattern in CITING:
        for readme in sorted(glob.glob(os.path.join(root, pattern))):
            rel = os.path.relpath(readme, root)
            with open(readme, encoding="utf-8") as f:
                for m in re.finditer(r"(?:\.\./)*(plots(?:/[\w.\-]+)*)", f.read()):
                    path = m.group(1).rstrip(".")
                    cited.setdefault(path, []).append(rel)
    return cited


def citations(cited, csv_path):
    """The READMEs that cite this CSV: by its path, its folder, or what is drawn from it."""
    folder, stem = os.path.dirname(csv_path), os.path.splitext(os.path.basename(csv_path))[0]
    names = [csv_path, folder] + [f"{folder}/{x}" for x in DRAWN_FROM_FOLDER] + \
        [f"{folder}/{stem}.{x}" for x in ("svg", "png", "txt")]
    return sorted({readme for n in names for readme in cited.get(n, [])})


def scan(root):
    """(stale, unstamped): stale is [(csv, chapter, commit, was, now)], unstamped {folder: rows}."""
    stale, unstamped, now = [], {}, {}
    for folder, _, files in sorted(os.walk(os.path.join(root, "plots"))):
        for name in sorted(files):
            if not name.endswith(".csv"):
                continue
            path = os.path.join(folder, name)
            rel = os.path.relpath(path, root)
            with open(path, newline="", encoding="utf-8") as f:
                rows = list(csv.DictReader(f))
            if not rows or "chapter" not in rows[0]:
                continue  # not results (peaks, ceilings, a sweep's steps)
            seen = set()
            for row in rows:
                chapter, was = row.get("chapter") or "", row.get("source_hash") or ""
                if not was:
                    unstamped[os.path.dirname(rel)] = unstamped.get(os.path.dirname(rel), 0) + 1
                    continue
                if chapter not in now:
                    now[chapter] = source_hash(root, chapter)
                key = (chapter, row.get("commit", ""), was)
                if now[chapter] != was and key not in seen:
                    seen.add(key)
                    stale.append((rel, chapter, row.get("commit", ""), was, now[chapter]))
    return stale, unstamped


def stale_report(root):
    stale, unstamped = scan(root)
    cited = cited_paths(root)
    failing = [(s, citations(cited, s[0])) for s in stale if citations(cited, s[0])]
    others = [s for s in stale if not citations(cited, s[0])]

    def line(s):
        rel, chapter, commit, was, now = s
        return (f"  {rel}: {chapter} measured at commit {commit or '?'} with sources {was}, "
                f"now {now or 'gone'}")
    if failing:
        print("STALE AND CITED: the kernel changed since these results were measured; rerun them, "
              "or stop citing them:")
        for s, readmes in failing:
            print(line(s) + "\n    cited by " + ", ".join(readmes))
    if others:
        print("stale, not cited by a README (history; kept as they are):")
        for s in others:
            print(line(s))
    if unstamped:
        print(f"unstamped (written before the stamps): {sum(unstamped.values())} rows in "
              f"{len(unstamped)} folders:")
        for folder, n in sorted(unstamped.items()):
            print(f"  {folder}: {n} rows")
    if not stale:
        print("no stamped result is stale")
    return 1 if failing else 0


# --- The command line --------------------------------------------------------------------------

def usage(msg):
    print(f"stamps.py: {msg}\n" + __doc__, file=sys.stderr)
    sys.exit(2)


def root_option(args):
    if "--root" in args:
        i = args.index("--root")
        if i + 1 >= len(args):
            usage("--root needs a directory")
        root = args[i + 1]
        del args[i:i + 2]
        if not os.path.isdir(root):
            usage(f"--root {root}: not a directory")
        return os.path.abspath(root)
    return ROOT


def main(argv):
    if not argv:
        usage("no command")
    cmd, args = argv[0], list(argv[1:])
    try:
        if cmd == "cpp":
            if len(args) != 2:
                usage("cpp needs ROOT OUT")
            chapters.write_if_changed(args[1], cpp_table(os.path.abspath(args[0])))
        elif cmd == "hash":
            root = root_option(args)
            if not args:
                usage("hash needs at least one chapter id")
            for cid in args:
                kernel = kernel_file(root, cid)
                if not kernel:
                    print(f"stamps.py: chapter '{cid}' has no kernel file under {root}/chapters",
                          file=sys.stderr)
                    sys.exit(2)
                files = ", ".join(os.path.relpath(p, root) for p in sources(root, kernel))
                print(f"{cid} {source_hash(root, cid)} {files}")
        elif cmd == "stale":
            root = root_option(args)
            if args:
                usage(f"unexpected arguments: {' '.join(args)}")
            sys.exit(stale_report(root))
        else:
            usage(f"unknown command '{cmd}'")
    except (StampError, OSError, UnicodeDecodeError, csv.Error) as e:
        print(f"stamps.py: {e}", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main(sys.argv[1:])

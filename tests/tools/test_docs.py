#!/usr/bin/env python3
"""The text held to the code: links, paths, the chapter map and the chapter lists of the docs.

Usage: python3 -m tests.run tests.tools.test_docs REPOSITORY_ROOT

Checked:
- every relative link of every tracked *.md leads to a file or folder, and every committed path
  under plots/ and every source file of tools/ or tests/ that a Markdown file outside plots/ names
  exists (code blocks, fenced or indented, are commands and HTML comments notes: skipped;
  plots/latest/ is never committed; a path with *, {, NN, < or $ is a pattern). A link to chapters/<id>/ of a chapter agreed in docs/reading-order.md's numbering
  table but not yet on the list is reported, not failed;
- every citation by commit, "git show COMMIT:PATH" or "git archive COMMIT PATH" (history pruned
  from the tree, docs/history.md), code blocks included, names a commit of this repository's
  history and a file or folder at that commit (git cat-file -e COMMIT:PATH; {a,b} alternatives
  each, as the shell expands them; no * or ?, which git show does not expand); then doctored
  citations (a path changed, an unknown commit, a pattern) must be reported. Without the history (not a git checkout, or a shallow clone) these checks cannot run:
  the test says so and exits 77 (skipped) if nothing else failed;
- the README's chapter map: every chapter of chapters/chapters.txt in it, in order, each with its
  link and "9.0 only" exactly for the Hopper chapters; a row for an agreed chapter not yet on the
  list says "in progress", a row for a listed one does not; a listed chapter may be missing only
  where the agreed numbering gives its number to another id (it is being replaced);
- the sentences that name ranges of chapters (README.md, docs/running.md, docs/profiling.md,
  docs/glossary.md, docs/results.md, docs/toolkits.md): "Chapters AA–BB are fp32", "take fp16",
  "use instructions that exist on Hopper alone", "the fp16 chapters (AA–BB)" name exactly those
  chapters of the list;
- docs/glossary.md defines each term once;
- a chapter README's block "<!-- ladder table ... -->" is what tools/measuring/ladder.py table
  makes from plots/<gpu>/<chapter>.csv;
- a chapter README's "N changed lines" under its `diff -u A B` is what git counts;
- docs/profiling.md's table of kernel names: each name is a __global__ function of a kernel of
  the chapters its row names;
- the tools' code (tools/**/*.py, tools/**/*.sh, ./tutorial) names no chapter id that is not on the
  list or agreed (an old id, e.g. an example of before a renumbering).
Exit: 0 pass, 1 fail, 77 skipped: the citations by commit could not be checked (no git history)
and everything else passed.
"""
import glob
import os
import re
import subprocess
import sys

from tests.check import expect, failures
from tools.build import chapters as chapter_list
from tools.measuring import ladder

ROOT = os.path.abspath(sys.argv[1])
os.chdir(ROOT)  # paths in generated text are relative to the repository

notes = []
listed = chapter_list.load()
ids = [c.id for c in listed]


def read(rel):
    with open(os.path.join(ROOT, rel), errors="replace") as f:
        return f.read()


def agreed_numbering():
    """{id: number} of docs/reading-order.md's table of agreed chapter numbers."""
    text = read("docs/reading-order.md")
    m = re.search(r"^## Numbering.*?\n(.*?)(?=^## )", text, re.S | re.M)
    if not m:
        return {}
    return {cid: int(n) for n, cid in re.findall(r"^\| (\d\d) \| `(\d\d_[a-z0-9_]+)` \|",
                                                 m.group(1), re.M)}


agreed = agreed_numbering()
planned = {cid for cid in agreed if cid not in ids}  # agreed, not yet on the list


def tracked_markdown():
    p = subprocess.run(["git", "ls-files", "*.md"], cwd=ROOT, capture_output=True, text=True)
    if p.returncode == 0 and p.stdout.strip():
        return p.stdout.split()
    out = []  # not a git checkout: every *.md but build folders
    for d, dirs, files in os.walk(ROOT):
        dirs[:] = [x for x in dirs if not x.startswith((".", "build"))]
        out += [os.path.relpath(os.path.join(d, f), ROOT) for f in files if f.endswith(".md")]
    return out


# --- Links and committed paths ------------------------------------------------------------------
LINK = re.compile(r"\]\(([^()\s]+)\)")
PLOTS = re.compile(r"(?<![\w/.])(plots/[A-Za-z0-9_./+{},*$<>-]*)")
# A source file of tools/ or tests/ named in the text (not build/tools/NAME, a binary): it exists.
SOURCES = re.compile(r"(?<![\w/.$])((?:tools|tests)/[A-Za-z0-9_/]+"
                     r"\.(?:py|sh|cu|cuh|cpp|hpp|txt|md))(?!\w)")
# --- Citations by commit: `git show COMMIT:PATH` ------------------------------------------------
# The citation may break across a line (git show\nCOMMIT:PATH); PATH ends at a space, a backtick, a
# closing bracket or the end of a sentence; <, NN and $ make it a pattern, as for plots/ paths.
CITATION = re.compile(r"git\s+show\s+([0-9a-f]{7,40}):([^\s`)\]]+)")
# `git archive COMMIT PATH` brings a folder back: the same check, PATH at COMMIT.
ARCHIVE = re.compile(r"git\s+archive\s+([0-9a-f]{7,40})\s+([^\s`)\]|;>]+)")


def git(*args):
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True)


def history_missing():
    """Why citations by commit cannot be checked here, or None when they can."""
    p = git("rev-parse", "--is-shallow-repository")
    if p.returncode != 0:
        return "not a git checkout"
    if p.stdout.strip() == "true":
        return "a shallow clone (git fetch --unshallow brings the history)"
    return None


def expand(path):
    """PATH with each {a,b,...} replaced by its alternatives, as the shell expands it."""
    m = re.search(r"\{([^{}]*)\}", path)
    if not m:
        return [path]
    return [x for alt in m.group(1).split(",")
            for x in expand(path[:m.start()] + alt + path[m.end():])]


def citation_problems(commit, path):
    """What is wrong with `git show COMMIT:PATH` in this repository ([] if nothing)."""
    if any(c in path for c in "*?"):
        return [f"git show {commit}:{path}: git show does not expand * or ?; cite the folder"]
    if git("cat-file", "-e", f"{commit}^{{commit}}").returncode != 0:
        return [f"git show {commit}:{path}: {commit} is no commit of this repository (or this "
                f"checkout lacks part of its history: git fetch)"]
    return [f"git show {commit}:{path}: {p} is not in commit {commit}"
            for p in expand(path) if git("cat-file", "-e", f"{commit}:{p}").returncode != 0]


def citations(text):
    """[(commit, path)] of the text's citations by commit, patterns (<, NN, $) left out."""
    out = []
    for commit, path in CITATION.findall(text) + ARCHIVE.findall(text):
        path = path.rstrip(".,:;")
        if not any(s in path for s in ("<", "NN", "$")):
            out.append((commit, path))
    return out


no_history = history_missing()
cited_by_commit = 0
checked = 0
for md in tracked_markdown():
    if md.startswith("plots/latest/"):
        continue
    base = os.path.dirname(os.path.join(ROOT, md))
    # Citations by commit are checked in commands too (code blocks), not in notes (HTML comments).
    for commit, path in citations(re.sub(r"<!--.*?-->", "", read(md), flags=re.S)):
        cited_by_commit += 1
        if not no_history:
            for p in citation_problems(commit, path):
                expect(False, f"{md}: {p}")
    # A path inside a citation by commit is not one of the tree's.
    text = CITATION.sub("git show", re.sub(r"```.*?```|<!--.*?-->", "", read(md), flags=re.S))
    for line in text.splitlines():
        if line.startswith(("    ", "\t")):
            continue
        for target in LINK.findall(line):
            if re.match(r"^[a-z]+:", target) or target.startswith("#"):
                continue
            path = os.path.normpath(os.path.join(base, target.split("#")[0]))
            checked += 1
            if os.path.exists(path):
                continue
            rel = os.path.relpath(path, ROOT).split(os.sep)
            if len(rel) >= 2 and rel[0] == "chapters" and rel[1] in planned:
                notes.append(f"{md}: ({target}): agreed in docs/reading-order.md, not yet on "
                             f"the list")
            else:
                expect(False, f"{md}: link ({target}) leads nowhere")
        for path in PLOTS.findall(line):
            path = path.rstrip(".,:;")
            if (md.startswith("plots/") or path.startswith("plots/latest")
                    or any(s in path for s in ("*", "{", "NN", "<", "$"))):
                continue
            checked += 1
            expect(os.path.exists(os.path.join(ROOT, path)),
                   f"{md}: names {path}, which is not in the repository")
        for path in [] if md.startswith("plots/") else SOURCES.findall(line):
            checked += 1
            expect(os.path.exists(os.path.join(ROOT, path)),
                   f"{md}: names {path}, which is not in the repository (moved?)")

# --- The README's chapter map -------------------------------------------------------------------
readme = read("README.md")
m = re.search(r"<!-- chapter map.*?-->\n(.*?)<!-- end of chapter map -->", readme, re.S)
expect(m is not None, "README.md: a chapter map between <!-- chapter map ... --> and "
                      "<!-- end of chapter map -->")
ROW = r"^\| (\d\d) \| \[`(\d\d_[a-z0-9_]+)`\]\(chapters/([^)]*)/\) \| (.*?) \| (.*?) \|$"
rows = re.findall(ROW, m.group(1) if m else "", re.M)
mapped = [r[1] for r in rows]
expect(mapped == sorted(mapped) and len(set(mapped)) == len(mapped),
       f"README.md: the map's chapters in order, each once ({mapped})")
for number, cid, folder, idea, status in rows:
    expect(number == cid[:2] and folder == cid, f"README.md: row {number} links chapters/{cid}/")
    expect(cid in ids or cid in planned,
           f"README.md: {cid} is neither on chapters/chapters.txt nor agreed in reading-order.md")
    if cid in planned:
        expect("in progress" in status, f"README.md: {cid} is not on the list yet: its status "
                                        f"says 'in progress' (got {status!r})")
        expect("9.0 only" in status, f"README.md: {cid} (agreed as a Hopper chapter) says 9.0 only")
    elif cid in ids:
        c = listed[ids.index(cid)]
        expect("in progress" not in status, f"README.md: {cid} is on the list now: its status "
                                            f"is no longer 'in progress' (got {status!r})")
        expect(("9.0 only" in status) == (c.kind == "hopper"),
               f"README.md: {cid}'s status says '9.0 only' exactly when it is a Hopper chapter")
for c in listed:
    replaced = any(n == int(c.id[:2]) and a != c.id for a, n in agreed.items())
    expect(c.id in mapped or replaced, f"README.md: the chapter map lacks {c.id}")
for cid in planned:
    notes.append(f"README.md: {cid} is agreed but not on chapters/chapters.txt yet")

# --- Sentences that name ranges of chapters -----------------------------------------------------
def span(a, b):
    return [c.id for c in listed if int(a) <= int(c.id[:2]) <= int(b)]


RANGES = [
    (r"[Cc]hapters (\d\d)–(\d\d) are fp32", lambda c: c.precision == "fp32"),
    (r"[Cc]hapters (\d\d)–(\d\d) take fp16", lambda c: c.precision == "fp16"),
    (r"[Cc]hapters (\d\d)–(\d\d) use instructions that exist on Hopper alone",
     lambda c: c.kind == "hopper"),
    (r"fp16 chapters \((\d\d)–(\d\d)\)", lambda c: c.precision == "fp16"),
    (r"[Cc]hapters (\d\d)–(\d\d) run on the CPU", lambda c: c.kind == "cpu"),
]
OWNED = ["README.md", "docs/running.md", "docs/profiling.md", "docs/glossary.md",
         "docs/results.md", "docs/toolkits.md"]
for rel in OWNED:
    if not os.path.exists(os.path.join(ROOT, rel)):
        continue
    text = " ".join(read(rel).split())
    for pattern, rule in RANGES:
        for a, b in re.findall(pattern, text):
            want = [c.id for c in listed if rule(c)]
            expect(span(a, b) == want, f"{rel}: the sentence /{pattern}/ with {a}–{b} names "
                                       f"{span(a, b)}, the list says {want}")

# --- The glossary defines each term once ---------------------------------------------------------
terms = re.findall(r"^\*\*([^*]+)\*\*", read("docs/glossary.md"), re.M)
twice = sorted({t for t in terms if terms.count(t) > 1})
expect(not twice, f"docs/glossary.md defines {twice} more than once")

# --- A chapter README's ladder table is the ladder's (tools/measuring/ladder.py table) ------------
for c in listed:
    text = read(f"chapters/{c.id}/README.md")
    if ladder.BEGIN_TABLE not in text:
        continue
    runs = [d for d in sorted(glob.glob(os.path.join(ROOT, "plots", "*", c.id + ".csv")))
            if "/archive/" not in d and "/latest/" not in d]
    expect(runs, f"chapters/{c.id}/README.md has a ladder table but no plots/<gpu>/{c.id}.csv")
    for csv_path in runs[:1]:
        d = os.path.relpath(os.path.dirname(csv_path), ROOT)
        block = f"{ladder.BEGIN_TABLE}\n{ladder.chapter_table(d, c.id)}{ladder.END_TABLE}"
        expect(block in text, f"chapters/{c.id}/README.md: its ladder table is not {d}'s "
                              f"(python3 -m tools.measuring.ladder table {d} {c.id} --write "
                              f"chapters/{c.id}/README.md)")

# --- A chapter README's count of its diff's changed lines ----------------------------------------
for c in listed:
    text = read(f"chapters/{c.id}/README.md")
    for a, b, n in re.findall(r"^ +diff -u (\S+) (\S+)\n\n(\d+) changed lines", text, re.M):
        want = chapter_list.changed_lines(a, b)
        expect(int(n) == want, f"chapters/{c.id}/README.md: '{n} changed lines' after `diff -u {a} "
                               f"{b}`; git diff --no-index --numstat counts {want}")

# --- docs/profiling.md's kernel names -----------------------------------------------------------
prof = read("docs/profiling.md")
table = re.findall(r"^\| (\d\d)(?:–(\d\d))? \| `([A-Za-z_0-9]+)`", prof, re.M)
expect(table, "docs/profiling.md: a table of each chapter's kernel name")
for a, b, kernel in table:
    for cid in span(a, b or a):
        files = [chapter_list.kernel_file(cid)] + glob.glob(os.path.join(ROOT, "common", "**",
                                                                           "*.cuh"), recursive=True)
        found = any(re.search(r"__global__[^;{]*\b" + kernel + r"\b",
                              read(f) if os.path.isabs(f) else read(f)) for f in files)
        expect(found, f"docs/profiling.md: {cid}'s kernel `{kernel}` is no __global__ function of "
                      f"its kernel file or common/")

# --- The tools name only chapters of the list ---------------------------------------------------
numbers = {int(c.id[:2]): c.id for c in listed}
code = glob.glob(os.path.join(ROOT, "tools", "**", "*.py"), recursive=True) + glob.glob(
    os.path.join(ROOT, "tools", "**", "*.sh"), recursive=True) + [os.path.join(ROOT, "tutorial")]
for path in code:
    for token in set(re.findall(r"(?<![\w])(\d\d_[a-z][a-z0-9_]*)", read(path))):
        n = int(token[:2])
        ok = (n not in numbers or token.startswith(numbers[n]) or
              any(token.startswith(p) for p in planned))
        expect(ok, f"{os.path.relpath(path, ROOT)}: names {token}, not a chapter of the list "
                   f"(chapter {n:02d} is {numbers.get(n)})")

# --- Doctored citations by commit must be reported (the check can fail) --------------------------
if not no_history:
    head = git("rev-parse", "--short=7", "HEAD").stdout.strip()
    real = [(c, p) for md in tracked_markdown() if not md.startswith("plots/latest/")
            for c, p in citations(read(md)) if "{" not in p][:1]
    expect(real, "the text cites at least one file by commit (git show COMMIT:PATH)")
    for commit, path in real:
        expect(not citation_problems(commit, path), f"git show {commit}:{path} is found")
        doctored = [(commit, path.rstrip("/") + "_doctored"), ("0000000", path),
                    (commit, os.path.dirname(path.rstrip("/")) + "/*")]
        for c, p in doctored:
            text = f"the numbers (`git show {c}:{p}`)."
            found = [q for cc, pp in citations(text) for q in citation_problems(cc, pp)]
            expect(found, f"a doctored citation, git show {c}:{p}, is reported")
    expect(citations("`git show\n" + head + ":tests/tools/test_docs.py`.") ==
           [(head, "tests/tools/test_docs.py")], "a citation broken across a line is read whole")
    expect(citations(f"git archive {head} tests/tools | tar -x") == [(head, "tests/tools")],
           "git archive COMMIT PATH is a citation too")
    expect(not citation_problems(head, "tests/tools/{test_docs,test_report}.py"),
           "{a,b} alternatives that exist are found")
    expect(citation_problems(head, "tests/tools/{test_docs,test_nothing}.py"),
           "{a,b} alternatives: a missing one is reported")

for n in notes:
    print("note:", n)
print(f"docs: {checked} links and paths, {cited_by_commit} citations by commit, {len(rows)} map rows "
      f"checked; {len(failures)} failure(s)")
if no_history and cited_by_commit and not failures:
    print(f"SKIP: the {cited_by_commit} citations by commit (git show COMMIT:PATH) were not checked: "
          f"{no_history}. Everything else passed.")
    sys.exit(77)
sys.exit(1 if failures else 0)

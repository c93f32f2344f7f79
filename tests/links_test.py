#!/usr/bin/env python3
"""Every relative link of the repository's Markdown, and every committed results path it names,
points at a file or folder that exists.

Usage: links_test.py REPOSITORY_ROOT

Checked in every tracked *.md: the targets of [text](target) links that are not URLs (the part
before any #anchor), relative to the file; and the paths under plots/ written in backticks or
links, from the repository's root (code blocks, fenced or indented, are commands: skipped), except plots/latest/ (written by `./tutorial run`, never
committed), paths with a wildcard or a placeholder (*, {, NN, <), and the ladder's own files
under plots/<gpu>/, which `tools/gpu_session.sh ladder` writes (a line under them says which).
Exit: 0 pass, 1 fail.
"""
import os
import re
import subprocess
import sys

ROOT = os.path.abspath(sys.argv[1])
LINK = re.compile(r"\]\(([^()\s]+)\)")
PLOTS = re.compile(r"(?<![\w/.])(plots/[A-Za-z0-9_./+{},*-]*)")
SKIP = ("*", "{", "NN", "<", "$")


def tracked_markdown():
    p = subprocess.run(["git", "ls-files", "*.md"], cwd=ROOT, capture_output=True, text=True)
    if p.returncode == 0 and p.stdout.strip():
        return p.stdout.split()
    out = []  # not a git checkout (an unpacked archive): every *.md but build folders
    for d, dirs, files in os.walk(ROOT):
        dirs[:] = [x for x in dirs if not x.startswith((".", "build"))]
        out += [os.path.relpath(os.path.join(d, f), ROOT) for f in files if f.endswith(".md")]
    return out


failures = []
checked = 0
for md in tracked_markdown():
    if md.startswith("plots/latest/"):
        continue
    base = os.path.dirname(os.path.join(ROOT, md))
    text = open(os.path.join(ROOT, md), errors="replace").read()
    # Code blocks hold commands and output, not links.
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    for n, line in enumerate(text.splitlines(), 1):
        if line.startswith(("    ", "\t")):  # an indented code block: commands, not links
            continue
        for target in LINK.findall(line):
            if re.match(r"^[a-z]+:", target) or target.startswith("#"):
                continue
            path = target.split("#")[0]
            checked += 1
            if not os.path.exists(os.path.normpath(os.path.join(base, path))):
                failures.append(f"{md}: link ({target}) leads nowhere")
        for path in PLOTS.findall(line):
            path = path.rstrip(".,:;")
            if (path.startswith("plots/latest") or any(s in path for s in SKIP)
                    or md.startswith("plots/")):
                continue
            checked += 1
            if not os.path.exists(os.path.join(ROOT, path)):
                failures.append(f"{md}: names {path}, which is not in the repository")

for f in failures:
    print("FAIL:", f)
print(f"links: {checked} links and paths checked, {len(failures)} failure(s)")
sys.exit(1 if failures else 0)

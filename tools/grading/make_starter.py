#!/usr/bin/env python3
"""Turns a chapter into a student starter: its solution regions become TODO stubs that compile.

A solution region is the lines strictly between
    // BEGIN SOLUTION: <hint for the student>
    // END SOLUTION
in a chapter's kernel.hpp / kernel.cuh. The markers stay; what is between them becomes one line
`// TODO(student): <hint>`, indented like the marker.

  make_starter.py repo CHAPTER DEST     copy this repository (the files git tracks) to DEST with
                                        CHAPTER's kernel stubbed, plus DEST/ASSIGNMENT.md
  make_starter.py files KERNEL MAIN OUT_KERNEL OUT_MAIN
                                        stub one kernel and copy its main next to it (the build
                                        uses this to compile every starter)
"""
import os
import re
import shutil
import subprocess
import sys

BEGIN = re.compile(r"^(\s*)// BEGIN SOLUTION(?::\s*(.*))?$")
END = re.compile(r"^\s*// END SOLUTION\s*$")


def strip(text, name):
    out, inside, regions = [], False, 0
    for n, line in enumerate(text.splitlines(keepends=True), 1):
        if BEGIN.match(line.rstrip("\n")):
            if inside:
                sys.exit(f"{name}:{n}: BEGIN SOLUTION inside another region")
            m = BEGIN.match(line.rstrip("\n"))
            hint = m.group(2) or "write this part"
            out.append(line)
            out.append(f"{m.group(1)}// TODO(student): {hint}\n")
            inside, regions = True, regions + 1
        elif END.match(line.rstrip("\n")):
            if not inside:
                sys.exit(f"{name}:{n}: END SOLUTION without BEGIN")
            out.append(line)
            inside = False
        elif not inside:
            out.append(line)
    if inside:
        sys.exit(f"{name}: a BEGIN SOLUTION region is never closed")
    if regions == 0:
        sys.exit(f"{name}: no BEGIN SOLUTION regions: nothing to turn into an assignment")
    return "".join(out)


def kernel_of(chapter_dir):
    for k in ("kernel.cuh", "kernel.hpp"):
        if os.path.exists(os.path.join(chapter_dir, k)):
            return os.path.join(chapter_dir, k)
    sys.exit(f"{chapter_dir}: no kernel.cuh or kernel.hpp")


def tracked_files(root):
    """The files git tracks that the work tree holds (a tracked file deleted but not yet committed
    is left out); without git (an exported copy), every file but build outputs."""
    try:
        out = subprocess.run(["git", "ls-files"], cwd=root, capture_output=True, text=True, check=True)
        if out.stdout.strip():
            return [f for f in out.stdout.split() if os.path.isfile(os.path.join(root, f))]
    except (OSError, subprocess.CalledProcessError):
        pass
    skip = {".git", ".deps", "grades", "__pycache__"}
    files = []
    for d, dirs, names in os.walk(root):
        rel = os.path.relpath(d, root)
        dirs[:] = [x for x in dirs if x not in skip and not (rel == "." and x.startswith("build"))
                   and not (rel == "plots" and x == "latest")]
        files += [os.path.normpath(os.path.join(rel, n)) for n in names]
    return files


def main():
    if len(sys.argv) == 6 and sys.argv[1] == "files":
        kernel, main_src, out_kernel, out_main = sys.argv[2:]
        with open(out_kernel, "w") as f:
            f.write(strip(open(kernel).read(), kernel))
        text = open(main_src).read()
        base = os.path.basename(kernel)
        with open(out_main, "w") as f:
            f.write(text.replace(f'#include "{base}"', f'#include "{os.path.basename(out_kernel)}"'))
        return
    if len(sys.argv) == 4 and sys.argv[1] == "repo":
        chapter, dest = sys.argv[2], sys.argv[3]
        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        chapter_dir = os.path.join(root, "chapters", chapter)
        if not os.path.isdir(chapter_dir):
            sys.exit(f"no chapter {chapter} in {root}/chapters")
        if os.path.exists(dest) and os.listdir(dest):
            sys.exit(f"{dest} exists and is not empty")
        files = tracked_files(root)
        for rel in files:
            target = os.path.join(dest, rel)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            shutil.copy2(os.path.join(root, rel), target)
        kernel = kernel_of(os.path.join(dest, "chapters", chapter))
        stubbed = strip(open(kernel).read(), kernel)
        with open(kernel, "w") as f:
            f.write(stubbed)
        number = chapter.split("_")[0]
        with open(os.path.join(dest, "ASSIGNMENT.md"), "w") as f:
            f.write(f"""# Assignment: chapter {chapter}

Fill in every `// TODO(student)` in `{os.path.relpath(kernel, dest)}` (between the
`BEGIN SOLUTION` and `END SOLUTION` markers; leave the markers in place). Read the chapter's
README first: `chapters/{chapter}/README.md`.

Check your work as the grader will, on shapes drawn from a seed:

    ./tutorial grade {number}                 # correctness on awkward shapes + a short benchmark
    ./tutorial run {number}                   # the chapter's own run, with its default sizes

Your grade is computed the same way on a seed you have not seen, so make the kernel correct for
every shape, not only for the ones above.
""")
        print(f"wrote the starter for {chapter} to {dest} (stubbed {os.path.relpath(kernel, dest)})")
        return
    sys.exit(__doc__)


if __name__ == "__main__":
    main()

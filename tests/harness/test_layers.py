#!/usr/bin/env python3
"""common/'s three rooms keep their order (docs/harness.md, "Where things are").

Usage: python3 -m tests.run tests.harness.test_layers SOURCE_ROOT
The rooms, from the ground up: common/device/ (what a kernel file includes), common/harness/ (what
measures), common/grading/ (the grading binaries). Fails when
  - a file of common/ includes one of a room above its own (device nothing of the harness or of
    grading; the harness nothing of grading),
  - a file of the harness or of device/ names what grading defines or declares (a function defined
    at the top level of a grading source, or a function, type or constant its headers declare): a
    call into grading, or a declaration of a grading function in the harness's own words, ties the
    rooms together as surely as an include,
  - a chapter's kernel file (chapters/*/kernel.cu*, and what it includes within chapters/) includes
    anything of common/ but the kernels' room,
  - files include each other (a loop of #include, of two files or more),
  - two rooms hold a file of the same name (every room is an include directory: a bare name must
    name one file).
First on small made-up trees, that each of these is found (so that the test can fail), then on the
repository.
"""
import glob
import os
import re
import sys
import tempfile

from tests.check import expect, failures

ROOMS = ["device", "harness", "grading"]  # from the ground up
# meson.build's common_inc, in its order, then chapters/ ("NN_slug/kernel.cuh").
INCLUDE_DIRS = ["common", "common/device", "common/harness", "common/grading", "chapters"]
SOURCES = (".h", ".hpp", ".cuh", ".cpp", ".cu")
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)
# Top-level (unindented) definitions and declarations: a function's name before its parameters
# (a qualified one, Class::method, is a member and not counted), a type, a constant, an alias.
FUNCTION = re.compile(r"^(?:[\w:<>,*&]+[ \t]+)+[*&]?(\w+)\s*\([^;{}]*\)\s*(?:const\s*)?([{;])", re.M)
TYPE = re.compile(r"^(?:struct|class|enum class|enum)\s+(\w+)", re.M)
CONSTANT = re.compile(r"^(?:constexpr|using|extern)\b[^=;(]*?\b(\w+)\s*[=;]", re.M)
IDENTIFIER = re.compile(r"\b[A-Za-z_]\w*\b")


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def code_only(text):
    """The text without comments, string and character literals (a word in a message or a
    comment is no call)."""
    text = re.sub(r'"(?:\\.|[^"\\\n])*"', '""', strip_comments(text))
    return re.sub(r"'(?:\\.|[^'\\\n])*'", "''", text)


def grading_names(files, room_of):
    """{name: file} of what grading defines at the top level of its sources and declares in its
    headers; `main` (every binary has one) aside."""
    names = {}
    for f in files:
        if room_of(f) != "grading":
            continue
        with open(f, encoding="utf-8") as h:
            text = code_only(h.read())
        header = f.endswith((".h", ".hpp", ".cuh"))
        for m in FUNCTION.finditer(text):
            if m.group(2) == "{" or header:
                names.setdefault(m.group(1), f)
        if header:
            for pattern in (TYPE, CONSTANT):
                for m in pattern.finditer(text):
                    names.setdefault(m.group(1), f)
    names.pop("main", None)
    return names


def resolve(root, including, name):
    for d in [os.path.dirname(including)] + [os.path.join(root, x) for x in INCLUDE_DIRS]:
        path = os.path.normpath(os.path.join(d, name))
        if os.path.isfile(path):
            return path
    return None  # a system or generated header: no room of ours


def room(root, path):
    rel = os.path.relpath(path, os.path.join(root, "common")).split(os.sep)
    return rel[0] if len(rel) > 1 and rel[0] in ROOMS else None


def check(root):
    """The problems found in the tree at root, one sentence each."""
    root = os.path.abspath(root)
    rel = lambda p: os.path.relpath(p, root)  # noqa: E731
    files = sorted(f for f in glob.glob(os.path.join(root, "common", "**", "*"), recursive=True)
                   if f.endswith(SOURCES))
    problems = []
    for f in files:
        if room(root, f) is None:
            problems.append(f"{rel(f)}: in no room (common/{{{','.join(ROOMS)}}}/)")

    graph = {}  # file -> the files of the tree it includes

    def includes(f):
        if f not in graph:
            with open(f, encoding="utf-8") as h:
                names = INCLUDE.findall(strip_comments(h.read()))
            graph[f] = [p for p in (resolve(root, f, n) for n in names) if p]
        return graph[f]

    # No room includes one above it.
    for f in files:
        here = room(root, f)
        for g in includes(f):
            there = room(root, g)
            if here in ROOMS and there in ROOMS and ROOMS.index(there) > ROOMS.index(here):
                problems.append(f"{rel(f)} includes {rel(g)}: the {here} room includes nothing of "
                                f"the {there} room above it")

    # Nor does a room below grading name anything of it: no call, no declaration of its functions.
    names = grading_names(files, lambda f: room(root, f))
    for f in files:
        here = room(root, f)
        if here not in ("device", "harness"):
            continue
        with open(f, encoding="utf-8") as h:
            used = set(IDENTIFIER.findall(code_only(h.read())))
        for name in sorted(used & set(names)):
            problems.append(f"{rel(f)} names {name}, which {rel(names[name])} defines or declares: "
                            f"the {here} room calls and declares nothing of the grading room")

    # A kernel file reads the kernels' room and chapters/ alone.
    kernels = sorted(glob.glob(os.path.join(root, "chapters", "*", "kernel.cu*")) +
                     glob.glob(os.path.join(root, "chapters", "*", "kernel.hpp")))
    seen, todo = set(), [(k, k) for k in kernels]
    while todo:
        kernel, f = todo.pop()
        if (kernel, f) in seen:
            continue
        seen.add((kernel, f))
        for g in includes(f):
            there = room(root, g)
            if there not in (None, "device"):
                problems.append(f"{rel(f)} (read by {rel(kernel)}) includes {rel(g)}: a kernel "
                                f"file includes only common/device/")
            elif there is None and not rel(g).startswith("chapters" + os.sep):
                problems.append(f"{rel(f)} (read by {rel(kernel)}) includes {rel(g)}, outside "
                                f"chapters/ and common/device/")
            else:
                todo.append((kernel, g))

    # No loop of includes: a depth-first search that meets a file on its own path.
    state, path = {}, []

    def visit(f):
        state[f] = "open"
        path.append(f)
        for g in includes(f):
            if state.get(g) == "open":
                loop = path[path.index(g):] + [g]
                problems.append("files include each other: " + " -> ".join(rel(x) for x in loop))
            elif g not in state:
                visit(g)
        path.pop()
        state[f] = "done"

    for f in files:
        if f not in state:
            visit(f)

    # One file per name across the rooms.
    by_name = {}
    for f in files:
        by_name.setdefault(os.path.basename(f), []).append(rel(f))
    for name, where in sorted(by_name.items()):
        if len(where) > 1:
            problems.append(f"{name}: in more than one room ({', '.join(where)}); every room is an "
                            f"include directory, so a bare name must name one file")
    return problems


# --- That the check can fail -----------------------------------------------------------------


def write(root, path, text):
    os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
    with open(os.path.join(root, path), "w") as f:
        f.write(text)


def made_up(extra):
    """A small tree in the three rooms that keeps every rule, plus `extra` {path: text}."""
    tmp = tempfile.mkdtemp(prefix="layers_test_")
    files = {
        "common/device/check.cuh": "#pragma once\n",
        "common/device/tile.cuh": '#include "check.cuh"\n',
        "common/harness/loop.hpp": '#include "check.cuh"\n#include <vector>\n',
        "common/harness/loop.cpp": '#include "loop.hpp"\n',
        "common/grading/grade.cpp": '#include "loop.hpp"\n#include "device/tile.cuh"\n',
        "chapters/01_x/kernel.cuh": '#include "device/tile.cuh"\n#include "check.cuh"\n',
    }
    files.update(extra)
    for path, text in files.items():
        write(tmp, path, text)
    return tmp


expect(check(made_up({})) == [], f"a tree that keeps the rules passes: {check(made_up({}))}")
cases = [
    ("device includes the harness", {"common/device/tile.cuh": '#include "loop.hpp"\n'},
     "the device room includes nothing of the harness room"),
    ("the harness includes grading", {"common/harness/loop.cpp": '#include "grade.hpp"\n',
                                      "common/grading/grade.hpp": "#pragma once\n"},
     "the harness room includes nothing of the grading room"),
    ("a kernel includes the harness",
     {"chapters/01_x/kernel.cuh": '#include "loop.hpp"  // "check.cuh"\n'},
     "a kernel file includes only common/device/"),
    ("two headers include each other",
     {"common/harness/a.hpp": '#include "b.hpp"\n', "common/harness/b.hpp": '#include "a.hpp"\n'},
     "files include each other: common/harness/a.hpp -> common/harness/b.hpp -> "
     "common/harness/a.hpp"),
    ("a loop of three", {"common/harness/a.hpp": '#include "b.hpp"\n',
                         "common/harness/b.hpp": '#include "c.hpp"\n',
                         "common/harness/c.hpp": '#include "a.hpp"\n'}, "files include each other"),
    ("the harness declares what grading defines (in the harness's own words)",
     {"common/harness/modes.hpp": "#pragma once\nint grade(const Options& o,\n          int seed);\n",
      "common/grading/grade.cpp": '#include "loop.hpp"\nint grade(const Options& o,\n          int seed) {\n'
                                  "    return seed;\n}\n"},
     "common/harness/modes.hpp names grade, which common/grading/grade.cpp defines"),
    ("the harness calls what a grading header declares",
     {"common/harness/loop.cpp": '#include "loop.hpp"\nvoid run() {\n    remote_backend(1);\n}\n',
      "common/grading/remote.hpp": "#pragma once\nstd::unique_ptr<Backend> remote_backend(int x);\n"},
     "common/harness/loop.cpp names remote_backend, which common/grading/remote.hpp"),
    ("the harness uses a grading type",
     {"common/harness/loop.cpp": "void run() {\n    throw RemoteError(\"x\");\n}\n",
      "common/grading/remote.hpp": "#pragma once\nstruct RemoteError {};\n"},
     "names RemoteError"),
    ("a name in two rooms", {"common/grading/check.cuh": "#pragma once\n"},
     "check.cuh: in more than one room"),
    ("a file in no room", {"common/loose.hpp": "#pragma once\n"}, "common/loose.hpp: in no room"),
]
for what, extra, said in cases:
    found = check(made_up(extra))
    expect(any(said in p for p in found), f"{what}: found ({found})")
# A commented-out include is no include.
found = check(made_up({"common/device/tile.cuh": '// #include "loop.hpp"\n'}))
expect(found == [], f"a commented-out include counts for nothing: {found}")
# Nor does a grading name in a comment or a message, or a member of grading's own classes.
found = check(made_up({"common/grading/grade.cpp": "int grade(int x) {\n    return x;\n}\n"
                                                   "class R {\n    void load(int x) {}\n};\n",
                       "common/harness/loop.cpp": '// grade() is the grading binary\'s\n'
                                                  'const char* s = "see grade(";\nvoid load(int x);\n'}))
expect(found == [], f"a name in a comment or a string is no call, a member no definition: {found}")

# --- The repository ----------------------------------------------------------------------------

ROOT = os.path.abspath(sys.argv[1])
for p in check(ROOT):
    expect(False, p)
if not failures:
    print("ok: common/device <- common/harness <- common/grading, no include, call or declaration "
          "against that order, no include loop, one file per name")

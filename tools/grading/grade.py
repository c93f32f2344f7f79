#!/usr/bin/env python3
"""Grades submissions of one chapter with the instructor's own harness (docs/assignments.md).

  python3 -m tools.grading.grade CHAPTER SUBMISSION... [--build BUILD] [--seed N] [--out DIR] [--gradescope]
           [--timeout S] [--time-limit S] [--compile-limit S] [--perf-target PCT]
           [--perf-points P] [--correct-points P] [--unsandboxed] [-- GRADING-BINARY OPTIONS...]

A SUBMISSION is a student's copy of the repository, a folder holding the chapter's kernel file,
the kernel file itself, or a folder of such submissions (each subfolder is one; a link, a loose
file or a kernel file at its top gets a FAIL row of its own). From each, only the chapter's kernel
file is taken. It is scanned (a first, friendly filter), then compiled in a bubblewrap sandbox
that holds the toolchain alone: its includes are checked against an allow-list by that compile's
own dependency output (-MD), and it is compiled alone, as its own translation unit exporting
nothing but the contract's gemm, into a child process (tools/grading/grade_child.cu) that only
computes. The chapter's grading binary from the instructor's build (BUILD/chapters/grade_<chapter>
--remote) runs that child in a sandbox of its own, which holds the child, its libraries and the
static seal (tools/grading/grade_seal.c: limits, pinned CPUs and a seccomp filter before the
child's first instruction) and nothing else, makes the inputs from the secret seed, checks what
the child returns, times every run on its own clock (the yardstick with the child stopped) and
writes the verdict into a folder the child cannot see. One broken submission (rejected, not compiling, crashing,
hanging) costs that submission a FAIL with the reason, never the run or another row.

Performance points compare each submission with the instructor's own kernel, graded the same way
in the same run; --perf-target PCT compares with a percentage of the yardstick instead.

Writes OUT/<submission>/ (the kernel as built, the compiler's output, the child's log, the grade's
output and JSON: the instructor's evidence, which names the seed; and feedback.txt, the file to hand
back), OUT/class.csv (with each score), OUT/summary.txt (passes, scores, identical kernel files and
copies of the instructor's) and, with --gradescope, OUT/<submission>/results.json in Gradescope's
format. Every folder it writes holds a file .gemm-grade; it deletes no other.
Exit: 0 when every submission was graded (whatever the grades), 1 when the instructor's own kernel
fails the grade, 2 for a bad command line or a missing sandbox (found before anything is built),
3 when grade.py itself failed (on the run, or on a submission, whose row says so) or could not
write a file of what it graded (a full disk: every row is on the console; each file is written
whole or not at all), 77 when this machine has no GPU that can run the chapter.
Environment: GEMM_GRADE_BWRAP, the bubblewrap program (default: bwrap on PATH).
"""
import argparse
import concurrent.futures
import csv
import functools
import glob
import hashlib
import io
import json
import math
import os
import re
import select
import shlex
import shutil
import stat
import subprocess
import sys
import tempfile
import threading
import time
import traceback

from tools.build import chapters as chapter_list  # the one list of chapters

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HERE = os.path.dirname(os.path.abspath(__file__))  # tools/grading: the child, the entry

EXIT_REFERENCE_FAILED = 1  # the instructor's own kernel does not pass: nothing to compare with
EXIT_GRADER_ERROR = 3      # grade.py itself failed (on the run or on a row), or could not write a file
MARKER = ".gemm-grade"   # in every folder grade.py makes: the only folders it deletes
REFERENCE = ".reference"  # OUT/.reference: the instructor's own kernel, graded like the others
NOBODY = 65534            # the sandbox's user when grade.py runs as root
ENTRY = "grade_gemm"      # the one symbol the kernel's object file exports
KERNEL_BYTES = 1 << 20    # the largest kernel file read
LOG_BYTES = 1 << 20       # compile.log keeps the compiler's last MiB
SEED_MAX = (1 << 63) - 1  # the grading binary's --seed is a signed 64-bit number
# Headers any kernel may include (the chapters' own includes are added per chapter).
SAFE_CPU = ["<cstdint>", "<cstddef>", "<cstdio>", "<cstdlib>", "<cmath>", "<algorithm>",
            "<type_traits>", "<utility>"]
SAFE_GPU = SAFE_CPU + ["<cuda_runtime.h>", "<cuda_fp16.h>", '"cuda_check.cuh"']
# What a kernel has no reason to contain: each pattern with the reason it is refused.
FORBIDDEN = [
    (r"\bmain\s*\(", "defines or calls main"),
    (r"cublas|cblas|openblas|\bblas\b|cutlass|cudnn", "uses a BLAS or another GEMM library"),
    (r"\bdlopen\b|\bdlsym\b|\bLoadLibrary\b", "loads libraries at run time"),
    (r"\b(system|popen|fork|vfork|execv|execvp|execl|execlp|posix_spawn|syscall)\s*\(",
     "starts processes or makes system calls"),
    (r"\b(fopen|freopen|open|creat|unlink|remove|rename)\s*\(|ofstream|ifstream|fstream",
     "opens files"),
    (r"__attribute__\s*\(\s*\(\s*constructor|\bpragma\s+init\b", "runs code before main"),
]
# Sections of the kernel's object file that would run its code before the child's lock-down
# (tools/grading/grade_child.cu, a constructor of priority 101): refused by name.
EARLY_SECTIONS = re.compile(r"^(\.preinit_array|\.init|\.init_array\..+|\.ctors.*|\.dtors.*)$")
# Limits. Compiling: CPU seconds per process, address space, bytes per file written, the /tmp of
# the sandbox; the wall-clock limit of all of a submission's compiling is --compile-limit.
COMPILE_LIMITS = {"cpu": 900, "as": 16 << 30, "fsize": 256 << 20}
COMPILE_TMP = 2 << 30
# Running: bytes per file written (the child's log), the child's /tmp, processes and threads (set
# by the child itself, before the submission's code runs), and its memory: cgroup v2 memory.max
# where grade.py can make a cgroup, otherwise the address space of each process (CPU children:
# a GPU child's CUDA reserves address ranges as large as the machine's memory).
RUN_FSIZE = 16 << 20
RUN_TMP = 64 << 20
# The environment a sandboxed child may keep from the grader's (thread counts, the GPU to use);
# everything else is cleared.
PASS_ENV = re.compile(r"^(OMP_\w+|GOMP_\w+|CUDA_VISIBLE_DEVICES|CUDA_DEVICE_ORDER)$")


LOST = []  # the files grade.py could not write (a full disk): the run ends with EXIT_GRADER_ERROR


def keep(what, write):
    """Calls write(), which writes the file `what`; a failure (a full disk) costs that file, never
    a row or a verdict: it is listed in LOST and said on the console."""
    try:
        write()
    except OSError as e:
        LOST.append(f"{shown(what)} ({e.strerror or e})")
        print(f"grade.py: warning: could not write {shown(what)}: {e.strerror or e}", file=sys.stderr, flush=True)


def own_failure(e):
    """The reason of a row that grade.py itself failed on: the error, never a verdict."""
    what = f"{type(e).__name__}: {e.strerror}" if isinstance(e, OSError) and e.strerror else type(e).__name__
    return f"grade.py failed on this submission ({shown(what)}); see its console"


def die(msg, code=2):
    print(f"grade.py: error: {shown(msg)}", file=sys.stderr)
    sys.exit(code)


def shown(text):
    """Text as it may be printed or written anywhere: a name that is not UTF-8 (a folder from a
    zip made on Windows) keeps its bytes as \\xNN escapes instead of failing the whole run, and a
    control character (a newline, an escape sequence for the terminal) is shown as \\xNN too."""
    text = text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    return re.sub(r"[\x00-\x1f\x7f-\x9f]", lambda m: f"\\x{ord(m.group(0)):02x}", text)


def chapter_of(chapter):
    """The chapter (tools/build/chapters.py's tuple) named by its id or number."""
    chapters = chapter_list.load()  # chapters/chapters.txt
    for c in chapters:
        if c.id == chapter or c.id.split("_")[0] == chapter:
            return c
    die(f"no chapter '{chapter}' (chapters: {' '.join(c.id for c in chapters)})")


def kernel_name(c):
    name = "kernel.hpp" if c.kind == "cpu" else "kernel.cuh"
    if not os.path.isfile(os.path.join(ROOT, "chapters", c.id, name)):
        die(f"chapters/{c.id} has no {name}")
    return name


def find_kernel(sub, ch, kname):
    """The kernel file of one submission folder, or None."""
    for candidate in (os.path.join(sub, "chapters", ch, kname), os.path.join(sub, kname)):
        if os.path.isfile(candidate):
            return candidate
    return None


def is_submission(folder, ch, kname):
    return os.path.isdir(os.path.join(folder, "chapters")) or find_kernel(folder, ch, kname) is not None


class Sub:
    """One row of the class: its name, the kernel file (None: not found), the submission's folder
    (None when the kernel file was named itself), or why it is refused before it is read."""

    def __init__(self, name, kernel=None, root=None, refused=None):
        self.name, self.kernel, self.root, self.refused = name, kernel, root, refused
        self.out, self.shown = out_name(name), shown(name)


PROGRESS_S = 30   # a line on the console while one grade runs longer
NOISE_BAND = 10.0  # per cent: full performance points from (100 - NOISE_BAND)% of the target on
NAME_BYTES = 120  # the longest folder name of OUT (a file system allows 255 bytes)


def name_hash(name):
    return hashlib.sha256(name.encode("utf-8", "surrogateescape")).hexdigest()[:8]


def out_name(name):
    """The folder of OUT that holds a submission's evidence: its name, shown as text, never one of
    grade.py's own names, and at most NAME_BYTES bytes (a longer one is cut and ends with a hash of
    the whole name)."""
    n = shown(name).replace("/", "_")
    if n in (REFERENCE, "class.csv", "summary.txt", ".", "..", "") or n.startswith(".") or n.endswith(".part"):
        n = "_" + n + "_" + name_hash(name)
    if len(n.encode()) > NAME_BYTES:
        n = n.encode()[:NAME_BYTES - 9].decode("utf-8", "ignore") + "_" + name_hash(name)
    return n


def expand(paths, ch, kname):
    """The submissions the command line names, one Sub per row. A folder that holds submissions
    (subfolders with the kernel file or a chapters/ folder), or subfolders and no kernel file of
    its own, is a class: every entry of it but the hidden ones (.git) is a row, links, loose files and a kernel file at its top refused with the
    reason. A link named on the command line is refused as well: a submission is a plain folder
    or file of its own, never another's through a link."""
    out = []
    for arg in paths:
        path = os.path.abspath(arg)
        base = os.path.basename(path.rstrip("/")) or path
        if os.path.islink(path):
            out.append(Sub(base, refused="refused: the submission is a symbolic link"))
            continue
        if not os.path.exists(path):
            die(f"{arg}: no such file or folder")
        if os.path.isfile(path):
            out.append(Sub(os.path.splitext(base)[0], kernel=path))
            continue
        entries = sorted(e for e in os.listdir(path) if not e.startswith("."))
        inner = [e for e in entries if os.path.isdir(os.path.join(path, e)) and not
                 os.path.islink(os.path.join(path, e)) and is_submission(os.path.join(path, e), ch, kname)]
        folders = [e for e in entries if os.path.isdir(os.path.join(path, e))]
        top = find_kernel(path, ch, kname)
        if os.path.isdir(os.path.join(path, "chapters")) or not (inner or (folders and top is None)):
            out.append(Sub(base, kernel=top, root=path))
            continue
        for e in entries:  # a class
            full = os.path.join(path, e)
            if os.path.islink(full):
                out.append(Sub(e, refused="refused: the submission is a symbolic link"))
            elif e == kname:
                out.append(Sub(e, refused=f"refused: a {kname} at the top of the class folder "
                               f"{shown(base)} (each submission goes into a folder of its own)"))
            elif os.path.isdir(full):
                out.append(Sub(e, kernel=find_kernel(full, ch, kname), root=full))
            else:
                out.append(Sub(e, refused="refused: a loose file in the class folder (each submission "
                               "goes into a folder of its own)"))
    # Two names shown alike (b"M\\xfcller" and "M\\\\xfcller", two long names cut alike): each
    # keeps its row, with a hash of its own name after it.
    names = [s.out for s in out]
    for s in out:
        if names.count(s.out) > 1:
            s.shown = f"{s.shown} ({name_hash(s.name)})"
            s.out = out_name(s.out + "_" + name_hash(s.name))
    if len(set(x.out for x in out)) != len(out):
        die("two submissions have the same name: " + ", ".join(sorted(x.shown for x in out)))
    return out


def includes(text):
    return re.findall(r'^\s*#\s*include\s*([<"][^>"]+[>"])', text, re.M)


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", " ", text)


def scan(text, allowed):
    """Why this kernel file is refused, or None. A first filter with friendly reasons; what the
    compiler actually includes is checked in the sandbox (Chapter.check_deps)."""
    code = strip_comments(text)
    for inc in includes(code):
        if inc not in allowed:
            return f"includes {inc}, which a kernel of this chapter does not need (allowed: {', '.join(sorted(allowed))})"
    if re.search(r"^\s*#\s*(include_next|import|embed)\b", code, re.M):
        return "uses a preprocessor include other than #include"
    for pattern, why in FORBIDDEN:
        m = re.search(pattern, code, re.I if "blas" in pattern else 0)
        if m:
            return f"{why} ('{m.group(0).strip()}')"
    return None


def project_headers(names, dirs):
    """{include name: file} for the quoted includes `names`, found in `dirs`, and what they include
    in turn (the instructor's own files, so a regex is enough)."""
    found, todo = {}, list(names)
    while todo:
        name = todo.pop()
        if name in found:
            continue
        path = next((os.path.join(d, name) for d in dirs if os.path.isfile(os.path.join(d, name))), None)
        if path is None:
            die(f"{name}: not found in {', '.join(dirs)}")
        found[name] = path
        todo += [i.strip('"') for i in includes(strip_comments(open(path).read())) if i.startswith('"')]
    return found


def is_inside(path, folder):
    return os.path.commonpath([path, folder]) == folder


@functools.lru_cache(maxsize=None)  # asked once per run, not once per submission
def gpu_archs(build):
    """The architectures the instructor's build compiles for (meson's gpu_archs option)."""
    p = subprocess.run(["meson", "introspect", "--buildoptions", build], capture_output=True, text=True)
    if p.returncode == 0:
        for opt in json.loads(p.stdout):
            if opt["name"] == "gpu_archs":
                return tuple(a.strip() for a in opt["value"].split(",") if a.strip())
    return ("75", "80", "86", "89", "90")


def nvcc_path():
    found = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    return found if os.access(found, os.X_OK) else None


def host_memory():
    """Bytes of memory this machine has (MemTotal), or None."""
    try:
        for line in open("/proc/meminfo"):
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def memory_cgroup():
    """A cgroup v2 folder in which grade.py may make one cgroup per child with memory.max: its own
    cgroup, when that delegates the memory controller (the root cgroup, as root, on most machines
    with cgroup v2). None elsewhere: the children then get the rlimit of their address space."""
    try:
        own = next(l[3:].strip() for l in open("/proc/self/cgroup") if l.startswith("0::"))
        folder = os.path.join("/sys/fs/cgroup", own.lstrip("/"))
        if "memory" not in open(os.path.join(folder, "cgroup.subtree_control")).read().split():
            return None
        probe = tempfile.mkdtemp(prefix="gemm-grade-probe-", dir=folder)
        try:  # a limit can be set, and a process can join (as the launcher's shell will)
            with open(os.path.join(probe, "memory.max"), "w") as f:
                f.write(str(1 << 30))
            joined = subprocess.run(["sh", "-c", 'echo $$ > "$1"', "sh", os.path.join(probe, "cgroup.procs")],
                                    capture_output=True).returncode == 0
        finally:
            for _ in range(50):  # empty once the process has ended
                try:
                    os.rmdir(probe)
                    break
                except OSError:
                    time.sleep(0.02)
        return folder if joined else None
    except (OSError, StopIteration):
        return None


class Sandbox:
    """Runs a command in a bubblewrap sandbox: its own PID, network, IPC, UTS and user namespaces
    (every process it starts dies with it; the command is the namespace's PID 1, so that no
    process of bubblewrap's, with its command line, is in view), no capabilities, a root that is
    read-only but for a /tmp of capped size, only the folders it is given, an environment of only
    what it is given, the limits of prlimit(1). bubblewrap itself starts from an empty environment.
    system=True (the compilers): /usr, /bin, /lib and the CUDA toolkit read-only. system=False (the
    child): nothing but its own program and the libraries it is given. As root it runs as the user
    nobody (so that the process limit binds). With enabled=False (--unsandboxed) only the limits
    and the clean environment remain."""

    def __init__(self, enabled):
        self.enabled = enabled
        self.tools = {t: shutil.which(t) for t in ("env", "prlimit", "setpriv")}
        missing = [t for t, path in self.tools.items() if not path]
        if missing:
            die(f"{', '.join(missing)} not found (util-linux and coreutils)")
        self.bwrap = shutil.which(os.environ.get("GEMM_GRADE_BWRAP", "bwrap"))
        self.as_nobody = enabled and os.geteuid() == 0
        self.note = "UNSANDBOXED (--unsandboxed): the submissions ran with the grader's rights"
        if not enabled:
            return
        why = self.probe()
        if why and self.as_nobody:  # no user namespaces for nobody: root's own sandbox
            self.as_nobody = False
            if self.probe() is None:
                why = None
                print("grade.py: note: user namespaces are not open to other users here; the "
                      "sandbox runs as root, where the process-count limit does not bind",
                      file=sys.stderr)
        if why:
            die(f"no usable sandbox: {why}. Install bubblewrap (Debian/Ubuntu: apt-get install "
                "bubblewrap), or pass --unsandboxed to grade without one (not for grades that count: "
                "a submission can then read and write what you can)")
        version = subprocess.run([self.bwrap, "--version"], capture_output=True, text=True,
                                 env={}).stdout.strip()
        self.note = f"sandboxed ({version or 'bubblewrap'}" + (", as the user nobody)" if self.as_nobody else ")")

    def probe(self):
        """Why the sandbox does not work here, or None."""
        if not self.bwrap:
            return f"{os.environ.get('GEMM_GRADE_BWRAP', 'bwrap')} not found"
        try:
            p = subprocess.run(self.argv(["/usr/bin/true"], limits={}), capture_output=True, text=True,
                               timeout=60, stdin=subprocess.DEVNULL, env={})
        except (OSError, subprocess.TimeoutExpired) as e:
            return f"{self.bwrap}: {e}"
        return None if p.returncode == 0 else f"{self.bwrap} failed: {p.stderr.strip()[-300:]}"

    def own(self, path):
        """Hands a folder grade.py made to the sandbox's user, to write in."""
        if self.as_nobody:
            for d, subdirs, files in os.walk(path):
                for x in [d] + [os.path.join(d, f) for f in subdirs + files]:
                    os.lchown(x, NOBODY, NOBODY)

    def argv(self, cmd, limits, rw=(), ro=(), dev=(), env=None, cwd="/tmp", system=True,
             tmp_size=COMPILE_TMP, proc=True, sys_ro=False, copies=(), view=None):
        """The command line that runs `cmd` sandboxed, to be started with an empty environment.
        rw, ro: (host path, sandbox path) pairs; dev: device files to bind besides /dev/null;
        copies: (file descriptor, sandbox path) of programs bubblewrap copies into the sandbox
        from a descriptor the caller opens (a copy, unlike a bind, shows no host path in
        /proc/self/mountinfo); view (with system=True): the (host path, sandbox path) pairs that
        make up the system instead of /usr and the toolkit (toolchain_view); tmp_size None: no
        /tmp at all."""
        env = dict(env or {})
        if system:
            env.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
        env.update(HOME="/tmp", TMPDIR="/tmp")
        lim = [f"--{k}={v}" for k, v in limits.items()] + (["--core=0"] if limits else [])
        outer = [self.tools["prlimit"]] + lim + ["--"] if lim else []
        if not self.enabled:  # the same command on the host's own paths
            inner = list(cmd)
            for src, dst in list(rw) + list(ro):
                pattern = r"(?:^|(?<=[\s'\"=]))" + re.escape(dst) + r"(?=/|$|[\s'\"])"
                inner = [re.sub(pattern, lambda _: src, arg) for arg in inner]
            return [self.tools["env"], "-i"] + [f"{k}={v}" for k, v in env.items()] + outer + inner
        a = [self.bwrap, "--unshare-all", "--die-with-parent", "--new-session", "--as-pid-1",
             "--cap-drop", "ALL"]
        if system and view is not None:  # only the toolchain: its programs, headers and libraries
            for d in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
                if os.path.islink(d):
                    a += ["--symlink", os.readlink(d), d]
            for src, dst in view:
                a += ["--ro-bind", src, dst]
        elif system:
            a += ["--ro-bind", "/usr", "/usr"]
            for d in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
                if os.path.islink(d):
                    a += ["--symlink", os.readlink(d), d]
                elif os.path.isdir(d):
                    a += ["--ro-bind", d, d]
            for f in ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives"):
                if os.path.exists(f):
                    a += ["--ro-bind", f, f]
            nvcc = nvcc_path()  # a CUDA toolkit outside /usr
            if nvcc:
                d = os.path.dirname(os.path.dirname(os.path.realpath(nvcc)))
                if not any(is_inside(d, r) for r in ("/usr", "/lib", "/lib64")):
                    a += ["--ro-bind", d, d]
        if proc:
            a += ["--proc", "/proc"]
        if tmp_size is not None:
            a += ["--size", str(tmp_size), "--tmpfs", "/tmp"]
        a += ["--dev-bind", "/dev/null", "/dev/null"]
        for node in dev:
            a += ["--dev-bind", node, node]
        if sys_ro:
            a += ["--ro-bind", "/sys", "/sys"]
        for src, dst in ro:
            a += ["--ro-bind", src, dst]
        for src, dst in rw:
            a += ["--bind", src, dst]
        for fd, dst in copies:
            a += ["--perms", "0555", "--file", str(fd), dst]
        a += ["--remount-ro", "/", "--clearenv"]
        for k, v in env.items():
            a += ["--setenv", k, v]
        a += ["--chdir", cwd if tmp_size is not None else "/", "--"] + list(cmd)
        if self.as_nobody:
            a = [self.tools["setpriv"], f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", "--"] + a
        return outer + a


def child_cpus():
    """How many CPUs the child keeps (grade_seal pins it to them): the grader's OMP_NUM_THREADS,
    the threads the assignment allows, or 0 (every CPU grade.py may use) when it is not set."""
    m = re.match(r"\s*(\d+)", os.environ.get("OMP_NUM_THREADS", ""))
    return int(m.group(1)) if m and int(m.group(1)) > 0 else 0


# The thread counts of the CPU libraries a yardstick may be (OpenBLAS, BLIS, MKL).
BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "BLIS_NUM_THREADS", "MKL_NUM_THREADS")


def grade_env():
    """The grading binary's environment: grade.py's, with a CPU yardstick on as many threads as
    the child has CPUs. Like with like, and a yardstick a stopped child does not slow down: on our
    2 cores OpenBLAS's two threads at 256^3 ran at the speed of one beside a stopped spinner (most
    likely the scheduler still counts a stopped thread's load against its CPU for a while), at full
    speed beside none; one thread ran alike beside both (docs/assignments.md, `spinner`)."""
    env, cpus = dict(os.environ), child_cpu_set()
    if cpus:
        env.update({k: str(len(cpus)) for k in BLAS_THREADS})
    return env


def child_cpu_set():
    """The CPUs the child is pinned to (grade_seal is given them: the first child_cpus() of
    grade.py's own, fewer where grade.py has fewer), or None when it keeps them all."""
    if not child_cpus():
        return None
    return set(sorted(os.sched_getaffinity(0))[:child_cpus()])


def pin_to(cpus):
    """Popen's preexec_fn that starts the grading binary on `cpus` (the child's; None: leaves it):
    the yardstick is timed on the cores the kernel had. (Whether the child was stopped meanwhile is
    checked by its CPU time, common/grading/remote.cpp.) The set is computed before the fork: in the
    child the function only sets the affinity (grade.py's threads have ended by then)."""
    return (lambda: os.sched_setaffinity(0, cpus)) if cpus else None


def library_closure(binary, loader_needed=True):
    """{file name: host path} of the shared libraries `binary` loads, and the loader's path, by
    ldd (the host's loader in its listing mode; `binary` is one grade.py built from the
    instructor's sources, never a submission)."""
    p = subprocess.run(["ldd", binary], capture_output=True, text=True, env={})
    libs, loader = {}, None
    for line in p.stdout.splitlines():
        m = re.match(r"\s*(\S+) => (/\S+) \(0x", line)
        if m:
            libs[m.group(1)] = m.group(2)
            continue
        m = re.match(r"\s*(/\S+) \(0x", line)
        if m:
            loader = m.group(1)
    if loader_needed and (p.returncode != 0 or loader is None):
        die(f"ldd {binary} failed: {p.stdout[-300:]} {p.stderr[-300:]}")
    return libs, loader


def cuda_driver_libraries():
    """{file name: host path} of the driver's libcuda.so.1, the libraries the driver loads beside
    it (its PTX compiler and the like, from its own folder) and what they need in turn."""
    found = None  # where the loader finds it for the grading binary: LD_LIBRARY_PATH first
    for d in os.environ.get("LD_LIBRARY_PATH", "").split(":"):
        if d and os.path.isfile(os.path.join(d, "libcuda.so.1")):
            found = os.path.join(d, "libcuda.so.1")
            break
    p = subprocess.run(["ldconfig", "-p"], capture_output=True, text=True)
    for line in [] if found else p.stdout.splitlines():
        m = re.match(r"\s*libcuda\.so\.1 \((.*)\) => (\S+)", line)
        if m and ("x86-64" in m.group(1) or "AArch64" in m.group(1) or "64bit" in m.group(1)):
            found = m.group(2)
            break
    if not found and os.path.isfile("/usr/lib/wsl/lib/libcuda.so.1"):
        found = "/usr/lib/wsl/lib/libcuda.so.1"
    if not found:
        die("the driver's libcuda.so.1 was not found (ldconfig -p, LD_LIBRARY_PATH)")
    folder = os.path.dirname(found)
    libs = {}
    for pattern in ("libcuda.so*", "libnvidia-ptxjitcompiler.so*", "libnvidia-gpucomp.so*",
                    "libnvidia-nvvm.so*"):
        for f in glob.glob(os.path.join(folder, pattern)):
            libs[os.path.basename(f)] = f
    for f in list(libs.values()):
        more, _ = library_closure(f, loader_needed=False)
        libs.update({k: v for k, v in more.items() if k not in libs})
    return libs


def parse_deps(path, build):
    """The files of a dependency list (make syntax, -M or -MD), as absolute paths in the sandbox,
    in the order read (the first file refused is the one the kernel file included)."""
    text = open(path, errors="replace").read().replace("\\\n", " ")
    files, toks = {}, re.findall(r"(?:\\.|[^\s\\])+", text)
    colon = next((i for i, tok in enumerate(toks) if tok.endswith(":")), -1)
    for tok in toks[colon + 1:]:  # after the target ("kernel.o:" or nvcc's "kernel.o :")
        f = os.path.normpath(os.path.join("/build", tok.replace("\\ ", " ").replace("$$", "$")))
        if is_inside(f, build):  # --unsandboxed: the host's path of the build folder
            f = "/build" + f[len(build):]
        files[f] = True
    return list(files)


def symbol_types(listing):
    """The types of the symbols in readelf -s output (its Type column, found by position: Num:,
    Value, Size, Type, whatever the width of the size)."""
    types = set()
    for line in listing.splitlines():
        t = line.split()
        if len(t) >= 8 and re.fullmatch(r"\d+:", t[0]) and re.fullmatch(r"[0-9a-fA-F]+", t[1]):
            types.add(t[3])
    return types


def child_elf_problem(listing):
    """Why a linked child (readelf -W -l -d -r -s) is refused, or None: a segment both writable and
    executable or an executable stack (code that can be written), a relocation of the text
    (TEXTREL), an IRELATIVE relocation or an IFUNC symbol (a resolver that runs while the loader
    relocates, before main), a .preinit_array."""
    if listing is None:
        return "could not be read"
    for line in listing.splitlines():
        t = line.split()
        if t and t[0] in ("LOAD", "GNU_STACK") and len(t) >= 8:
            flags = "".join(t[6:-1])  # between the sizes and the alignment: "R", "RW", "R E", "RWE"
            if "E" in flags and ("W" in flags or t[0] == "GNU_STACK"):
                return f"has a {'writable and executable segment' if t[0] == 'LOAD' else 'executable stack'}"
    if re.search(r"\(TEXTREL\)|\bFLAGS\b.*\bTEXTREL\b", listing):
        return "relocates its code (TEXTREL)"
    if re.search(r"\(PREINIT_ARRAY", listing):
        return "has a .preinit_array (code that runs before main)"
    if re.search(r"\bR_\w*IRELATIVE\b", listing):
        return "has an IRELATIVE relocation (an IFUNC resolver runs before main)"
    if "IFUNC" in symbol_types(listing):
        return "has an IFUNC symbol (a resolver runs before main)"
    return None


def toolchain_view(gpu):
    """What the sandbox that compiles a submission holds, as (host path, sandbox path) pairs: the
    compiler's programs (the driver, cc1plus, the assembler, sh, objcopy, nm, readelf, rm; for a GPU
    chapter nvcc's bin/ and nvvm/), the shared libraries those programs load (ldd), the loader,
    and the include folders, nothing else: no BLAS, no cuBLAS or cuBLASLt and their cubins (the
    toolkit's lib/ is not there), no library a `.incbin` or `.include` of the assembler could
    copy into the kernel. The link, which reads objects only, runs in the wider sandbox."""
    programs, dirs = [], []
    for name in ("sh", "g++", "gcc", "as", "objcopy", "nm", "readelf", "rm"):
        found = shutil.which(name, path="/usr/bin:/bin")
        if found:
            programs.append(found)
    for name in ("cc1plus", "cc1"):
        p = subprocess.run(["g++", f"-print-prog-name={name}"], capture_output=True, text=True)
        if p.returncode == 0 and os.path.isabs(p.stdout.strip()) and os.path.isfile(p.stdout.strip()):
            programs.append(p.stdout.strip())
            plugin = os.path.join(os.path.dirname(p.stdout.strip()), "liblto_plugin.so")
            if os.path.isfile(plugin):  # the driver looks for it whatever it is asked to do
                programs.append(plugin)
    # The include folders the compiler searches (its own account).
    p = subprocess.run(["g++", "-x", "c++", "-E", "-v", "-"], input="", capture_output=True, text=True)
    listing = p.stderr.split("#include <...> search starts here:")[-1].split("End of search list.")[0]
    dirs += [d.strip() for d in listing.splitlines() if d.strip() and os.path.isdir(d.strip())]
    dirs.append("/usr/include")
    if gpu:
        nvcc = nvcc_path()
        top = os.path.dirname(os.path.dirname(nvcc))
        for sub in ("bin", "nvvm", "include"):
            if os.path.isdir(os.path.join(top, sub)):
                dirs.append(os.path.join(top, sub))
        dirs += glob.glob(os.path.join(top, "targets", "*", "include"))
        programs += [f for d in (os.path.join(top, "bin"), os.path.join(top, "nvvm", "bin"))
                     for f in glob.glob(os.path.join(d, "*")) if os.path.isfile(f) and os.access(f, os.X_OK)]
    view = {}
    for d in dirs:  # a folder reached through a link is bound where the compiler looks for it
        view[d] = os.path.realpath(d)
    for prog in programs:
        view[prog] = os.path.realpath(prog)
        libs, loader = library_closure(prog, loader_needed=False)
        for lib in list(libs.values()) + ([loader] if loader else []):
            view[os.path.normpath(lib)] = os.path.realpath(lib)
    for f in ("/etc/ld.so.cache", "/etc/ld.so.conf"):
        if os.path.exists(f):
            view[f] = f
    # The sandbox path of each: where the tools look for it (through /lib or /bin, links to the
    # merged /usr, the path under /usr), and its real path as well when that differs (a toolkit
    # reached through /usr/local/cuda, a link to the installed version).
    pairs = {}
    for dst, src in sorted(view.items()):
        top = "/" + dst.strip("/").split("/")[0]
        if os.path.islink(top):
            dst = os.path.join(os.path.realpath(top), os.path.relpath(dst, top))
        pairs[dst] = src
        if src not in pairs and os.path.realpath(os.path.dirname(src)) == os.path.dirname(src):
            pairs[src] = src
    return sorted(((src, dst) for dst, src in pairs.items()), key=lambda pair: pair[1])


class Chapter:
    """How one chapter's submissions are built: compiler and flags, the headers a kernel may
    include, the allow-list of files its preprocessing may read, the child's main object, and
    what the child's sandbox holds (its libraries)."""

    def __init__(self, c, kname, build, sandbox, tmp, compile_limit):
        self.ch, self.kname, self.sandbox, self.compile_limit = c.id, kname, sandbox, compile_limit
        self.gpu = c.kind != "cpu"
        with open(os.path.join(ROOT, "chapters", c.id, kname)) as f:
            own = includes(strip_comments(f.read()))
        self.allowed_includes = set(SAFE_GPU if self.gpu else SAFE_CPU) | set(own)
        # The instructor's headers a kernel may include: those its own kernel file includes, from
        # the kernels' room (common/device/, as "NAME" or "device/NAME") or chapters/, copied into
        # the build's include folder. Nothing of the harness or of grading is a kernel's to include.
        quoted = [i.strip('"') for i in self.allowed_includes if i.startswith('"')]
        self.headers = project_headers(quoted, [os.path.join(ROOT, "common", "device"), os.path.join(ROOT, "common"),
                                                os.path.join(ROOT, "chapters")])
        ns = ["-DGRADE_NS=" + c.ns]
        # The threads the child may have (it is one process): grade_seal sets this limit before
        # the child is executed.
        self.nproc = 4 * (os.cpu_count() or 1) + 64
        family = chapter_list.precision(c.precision).family  # fp32, fp16 or fp8 (chapters.py)
        if not self.gpu:
            # -falign-loops=32 as meson.build sets it: the child's loops sit as the chapter's do.
            self.cc = ["g++", "-std=c++17", "-O3", "-falign-loops=32", "-fopenmp", "-fmax-errors=20",
                       "-fdiagnostics-color=never", "-fno-diagnostics-show-caret"]
            self.flags = ["-fno-gnu-unique", "-x", "c++"]
            self.link = ["g++", "-fopenmp"]
        else:
            nvcc = nvcc_path()
            if nvcc is None:
                die("the GPU chapters need nvcc (the CUDA toolkit): not found on PATH or in /usr/local/cuda/bin")
            if c.kind == "hopper":
                arch = ["-gencode=arch=compute_90a,code=sm_90a"]
            else:
                arch = ["-gencode=arch=compute_%s,code=sm_%s" % (a, a) for a in gpu_archs(build)]
            self.cc = [nvcc, "-std=c++17", "-O3", "--expt-relaxed-constexpr", "-DGRADE_GPU"] + arch + \
                ["-Xcompiler", "-fdiagnostics-color=never,-fno-diagnostics-show-caret"]
            # The chapter list says what A, B and C hold: fp32, fp16 (A and B), or FP8 (e4m3 A and
            # B with scales, bf16 C).
            self.cc += {"fp16": ["-DGRADE_HALF"], "fp8": ["-DGRADE_FP8"]}.get(family, [])
            self.flags = ["-Xcompiler", "-fno-gnu-unique"]
            self.link = [nvcc, "--cudart", "static"] + arch
        self.kernel_flags = self.flags + ns + ["-I", "/build/include"]
        self.env = {"PATH": ":".join(([os.path.dirname(self.cc[0])] if self.gpu else []) + ["/usr/bin", "/bin"])}
        self.main = os.path.join(tmp, "main")
        os.makedirs(self.main)
        # The child's own translation unit, compiled once for the whole class.
        for name, path in project_headers(["grade_entry.hpp", "remote_protocol.hpp"] +
                                          (["gpu_timing.cuh"] if self.gpu else []),
                                          [HERE] +
                                          [os.path.join(ROOT, "common", room) for room in ("grading", "harness", "device")]).items():
            shutil.copy(path, os.path.join(self.main, name))
        shutil.copy(os.path.join(HERE, "grade_child.cu"), self.main)
        shutil.copy(os.path.join(HERE, "grade_seal.c"), self.main)
        with open(os.path.join(self.main, "stub.cu"), "w") as f:  # an entry of grade.py's own
            args = ("int, int, int, float, const __nv_fp8_e4m3*, int, const __nv_fp8_e4m3*, int, const float*, "
                    "const float*, float, __nv_bfloat16*, int, cudaStream_t" if family == "fp8" else
                    "int, int, int, float, const GradeIn*, int, const GradeIn*, int, float, float*, int" +
                    (", cudaStream_t" if self.gpu else ""))
            f.write(f'#include "grade_entry.hpp"\nextern "C" void grade_gemm({args}) {{}}\n')
        sandbox.own(self.main)
        self.view = toolchain_view(self.gpu)
        log = os.path.join(self.main, "compile.log")
        steps = [["gcc", "-static", "-O2", "-o", "/main/seal", "/main/grade_seal.c"],
                 self.cc + self.flags + ["-I", "/main", "-c", "/main/grade_child.cu", "-o", "/main/child_main.o"],
                 self.cc + self.flags + ["-I", "/main", "-c", "/main/stub.cu", "-o", "/main/stub.o"],
                 self.link + ["/main/child_main.o", "/main/stub.o", "-o", "/main/probe"]]
        p = self.run(["sh", "-c", " && ".join(" ".join(shlex.quote(x) for x in s) for s in steps)],
                     rw=[(self.main, "/main")], log=log, deadline=time.monotonic() + 1800)
        if p != 0:
            die(f"tools/grading/grade_child.cu does not compile (see {self.main}/compile.log):\n" + tail(log, 3000))
        # What the child's sandbox holds: its libraries (the closure of a child grade.py built
        # itself, with no code of a submission: the link of every child is the same), and for a
        # GPU the driver's.
        self.libs, self.loader = library_closure(os.path.join(self.main, "probe"))
        if self.gpu:
            self.libs.update({k: v for k, v in cuda_driver_libraries().items() if k not in self.libs})
        # The allow-list: every file that preprocessing the allowed includes reads, found as the
        # submissions' will be, in the same sandbox with the same flags.
        probe = os.path.join(tmp, "probe")
        self.populate(probe, "".join(f"#include {i}\n" for i in sorted(self.allowed_includes)))
        deps, why = self.deps(probe, time.monotonic() + 1800)
        if why:
            die(f"the allowed headers of {c.id} do not preprocess in the sandbox: {why}")
        self.allowed_files = set(deps)

    def run(self, cmd, rw, log, deadline, ro=(), stdout=None, toolchain=False):
        """Runs a compiler command in the sandbox until `deadline` (time.monotonic()); its output
        goes to `log`, of which the last LOG_BYTES are kept (and stdout to the file `stdout` when
        given). toolchain: the sandbox holds the toolchain alone (toolchain_view), as every step
        that reads the submission's source does. Returns the exit code, or None past the deadline."""
        argv = self.sandbox.argv(cmd, COMPILE_LIMITS, rw=rw, ro=ro, env=self.env, cwd="/build" if rw and
                                 rw[0][1] == "/build" else "/tmp", view=self.view if toolchain else None)
        kept = bytearray(("$ " + " ".join(shlex.quote(c) for c in cmd) + "\n").encode())
        out = open(stdout, "wb") if stdout else None
        try:
            p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out or subprocess.PIPE,
                                 stderr=subprocess.PIPE if out else subprocess.STDOUT, env={})
        finally:
            if out:
                out.close()
        pipe = p.stderr if stdout else p.stdout
        rc = None
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                p.kill()
                break
            ready, _, _ = select.select([pipe], [], [], min(left, 1.0))
            if ready:
                chunk = os.read(pipe.fileno(), 1 << 16)
                if not chunk:
                    rc = p.wait()  # the pipe closes when the sandbox has ended
                    break
                kept += chunk
                if len(kept) > 2 * LOG_BYTES:
                    del kept[:-LOG_BYTES]
        p.wait()
        pipe.close()
        old = b""
        if os.path.exists(log):
            with open(log, "rb") as f:
                f.seek(max(0, os.path.getsize(log) - LOG_BYTES))
                old = f.read()
        with open(log, "wb") as f:  # the compiler's last MiB, whatever it printed
            f.write((old + bytes(kept))[-LOG_BYTES:])
        return rc

    def populate(self, build, kernel_text):
        """A build folder as the sandbox sees it at /build: the entry, the kernel file, the
        instructor's headers the kernel may include. Nothing else of the repository."""
        os.makedirs(os.path.join(build, "include"))
        for name in ("grade_entry.cu", "grade_entry.hpp"):
            shutil.copy(os.path.join(HERE, name), build)
        with open(os.path.join(build, "kernel_under_test.h"), "w") as f:
            f.write(kernel_text)
        for name, path in self.headers.items():
            os.makedirs(os.path.dirname(os.path.join(build, "include", name)), exist_ok=True)
            shutil.copy(path, os.path.join(build, "include", name))
        self.sandbox.own(build)

    def deps(self, build, deadline):
        """The files preprocessing the allowed headers reads (the allow-list), by the compiler's own
        -M output (every pass: host and each GPU architecture), as absolute paths in the sandbox.
        Returns (list in the order read, None) or (None, why)."""
        out, log = os.path.join(build, "deps.txt"), os.path.join(build, "compile.log")
        rc = self.run(self.cc + self.kernel_flags + ["-M", "/build/grade_entry.cu"],
                      rw=[(build, "/build")], log=log, stdout=out, deadline=deadline, toolchain=True)
        if rc is None:
            return None, f"the preprocessor ran past the compile limit of {self.compile_limit} s"
        if rc != 0:
            return None, compiler_errors(log)
        return parse_deps(out, build), None

    def check_deps(self, files):
        """Why the files a submission's preprocessing read are refused, or None."""
        own = {"/build/grade_entry.cu", "/build/grade_entry.hpp", "/build/kernel_under_test.h"}
        for f in (f for f in files if f not in self.allowed_files and f not in own):
            if f.startswith(("/dev/", "/proc/", "/sys/")):
                return f"includes {f}, a device or system file"
            return (f"includes {f}, which is not on the allow-list (the files that "
                    f"{', '.join(sorted(self.allowed_includes))} include)")
        return None

    def compile(self, text, build):
        """Builds the child of one kernel file in `build`; returns (path, None) or (None, why).
        The kernel is compiled once, in a sandbox that holds the toolchain alone (toolchain_view),
        and the files that compile read are its own dependency list (-MD): no second pass that
        could see other files than the compile did (`__has_include`)."""
        deadline = time.monotonic() + self.compile_limit
        late = f"does not compile: the compiler ran past the compile limit of {self.compile_limit} s"
        self.populate(build, text)
        log, deps = os.path.join(build, "compile.log"), os.path.join(build, "deps.txt")
        steps = [self.cc + self.kernel_flags + ["-MD", "-MF", "/build/deps.txt", "-c", "/build/grade_entry.cu",
                                                "-o", "/build/kernel.o"],
                 # Every symbol local but the entry: the child's own functions cannot be replaced.
                 ["objcopy", "--remove-section=.group", f"--keep-global-symbol={ENTRY}",
                  "/build/kernel.o", "/build/kernel_local.o"]]
        script = " && ".join(" ".join(shlex.quote(c) for c in s) for s in steps)
        rc = self.run(["sh", "-c", script], rw=[(build, "/build")], log=log, deadline=deadline, toolchain=True)
        if rc is None:
            return None, late
        files = parse_deps(deps, build) if os.path.exists(deps) else None
        why = self.check_deps(files) if files is not None else None
        if why:
            return None, "rejected: the kernel file " + why
        if rc != 0:  # errors quote only files on the allow-list, unless no list was written
            return None, "does not compile: " + compiler_errors(log, own_file_only=files is None)
        if files is None:
            return None, "rejected: the compiler wrote no list of the files it read"
        # What the object exports (the entry alone), and nothing of it that runs before the child's
        # lock-down: no early initialization section, no IFUNC resolver (run while relocating).
        listing = os.path.join(build, "object.txt")
        rc = self.run(["sh", "-c", "nm -g --defined-only /build/kernel_local.o && echo '@@' && "
                       "readelf -SW -sW /build/kernel_local.o"], rw=[(build, "/build")], log=log,
                      stdout=listing, deadline=deadline, toolchain=True)
        if rc is None:
            return None, late
        text = open(listing, errors="replace").read() if os.path.exists(listing) else ""
        exported, _, elf = text.partition("@@\n")
        symbols = [line.split()[-1] for line in exported.splitlines() if line.strip()]
        if rc != 0 or symbols != [ENTRY]:
            return None, f"rejected: the kernel's object file exports {', '.join(symbols) or 'nothing'}, not {ENTRY} alone"
        sections = re.findall(r"^\s*\[\s*\d+\]\s+(\S+)", elf, re.M)
        early = [x for x in sections if EARLY_SECTIONS.match(x)]
        if early:
            return None, f"rejected: the kernel's object file has code that runs before main ({early[0]})"
        if any(x.startswith(".gnu.lto") for x in sections):  # compiled again by the linker: not ours
            return None, "rejected: the kernel's object file holds LTO sections"
        if "IFUNC" in symbol_types(elf):
            return None, "rejected: the kernel's object file has an IFUNC resolver (code that runs before main)"
        rc = self.run(self.link + ["/main/child_main.o", "/build/kernel_local.o", "-o", "/build/child"],
                      rw=[(build, "/build")], ro=[(self.main, "/main")], log=log, deadline=deadline)
        if rc is None:
            return None, late
        if rc != 0:
            return None, "does not compile: " + compiler_errors(log)
        # The linked child: what runs is what this link produced, and nothing of it rewrites code.
        rc = self.run(["readelf", "-W", "-l", "-d", "-r", "-s", "/build/child"], rw=[(build, "/build")],
                      log=log, stdout=listing, deadline=deadline, toolchain=True)
        if rc is None:
            return None, late
        why = child_elf_problem(open(listing, errors="replace").read() if rc == 0 else None)
        if why:
            return None, "rejected: the linked child " + why
        return os.path.join(build, "child"), None

    def launcher(self, child, path, cpu_seconds, memory, cgroup):
        """Writes the program the grading binary starts as its child: the kernel's child in its
        sandbox, which holds the child, its libraries and the loader (for a GPU: the driver's
        libraries, the NVIDIA device files and /sys) and nothing else. The binary gives it stdin
        /dev/null, its pipes on fds 3 and 4, and `path`.log. With `cgroup` (a folder of cgroup v2)
        the child joins it, memory.max set there; otherwise the child, one process
        (tools/grading/grade_seal.c refuses every other), gets `memory` bytes of address space (a
        CPU child; CUDA reserves address ranges past any such limit). The sandbox's command is
        grade_seal, which pins the CPUs, limits the threads and installs the first seccomp filter
        before it executes the child: nothing of the child runs before them. A CPU child's
        sandbox has no /tmp: nothing in it is writable but its log."""
        limits = {"cpu": cpu_seconds, "fsize": RUN_FSIZE}
        if not self.gpu and not cgroup:
            limits["as"] = memory
        env = {k: v for k, v in os.environ.items() if PASS_ENV.match(k)}
        env["LD_LIBRARY_PATH"] = "/sandbox/lib"
        ro = [(os.path.realpath(self.loader), self.loader)]
        ro += [(os.path.realpath(host), "/sandbox/lib/" + name) for name, host in sorted(self.libs.items())]
        if self.gpu:
            env["CUDA_CACHE_DISABLE"] = "1"  # no JIT cache files to write
        if not self.sandbox.enabled:
            env["LD_LIBRARY_PATH"] = ":".join(sorted({os.path.dirname(h) for h in self.libs.values()}))
        sandboxed = self.sandbox.enabled
        seal = "/sandbox/seal" if sandboxed else os.path.join(self.main, "seal")
        cpus = child_cpu_set()
        cmd = [seal, ",".join(map(str, sorted(cpus))) if cpus else "all", str(self.nproc),
               "gpu" if self.gpu else "cpu",
               "/sandbox/child" if sandboxed else child]
        argv = self.sandbox.argv(cmd, limits, ro=ro, env=env, system=False,
                                 tmp_size=RUN_TMP if self.gpu else None, proc=self.gpu, sys_ro=self.gpu,
                                 dev=sorted(glob.glob("/dev/nvidia*")) if self.gpu else (),
                                 copies=[(5, "/sandbox/child"), (6, "/sandbox/seal")])
        if self.sandbox.enabled:  # bubblewrap from an empty environment, like the child
            argv = [self.sandbox.tools["env"], "-i"] + argv
        seal_host = os.path.join(self.main, "seal")
        join = f"echo $$ > {shlex.quote(os.path.join(cgroup, 'cgroup.procs'))} || exit 125\n" if cgroup else ""
        # bubblewrap copies the child from fd 5, the seal from fd 6
        copy = f" 5<{shlex.quote(child)} 6<{shlex.quote(seal_host)}" if sandboxed else ""
        with open(path, "w") as f:
            f.write("#!/bin/sh\n# The kernel's child as the grade starts it (tools/grading/grade.py wrote this).\n" +
                    join + "exec " + " ".join(shlex.quote(a) for a in argv) + copy + "\n")
        os.chmod(path, 0o755)


def tail(path, n):
    with open(path, "rb") as f:
        f.seek(0, os.SEEK_END)
        f.seek(max(0, f.tell() - n))
        return f.read().decode(errors="replace")


def compiler_errors(log, own_file_only=False):
    """The first error lines of a compiler log, for the student: from the end of the log only.
    own_file_only: just those about the submission's own file (preprocessing may have read a file
    that is not the student's to see)."""
    lines = [l for l in tail(log, 1 << 20).splitlines() if "error" in l.lower() and not l.startswith("$ ")]
    if own_file_only:
        lines = [l for l in lines if "kernel_under_test.h" in l] or \
            ["a file the kernel includes cannot be preprocessed"]
    return " | ".join(lines[:3])[:600] or "the compiler failed (no error message)"


def run_grade(ch, launcher, work, build, args, extra, verdict, note, who=""):
    """The chapter's grading binary grades the child; returns its report or an error. The
    verdict is the JSON it writes into `verdict` (an empty folder of the grader's), read only after
    a clean exit: a grade that was killed or vanished leaves none. While it runs, a line every
    PROGRESS_S seconds says that it still does (a slow kernel's benchmark takes minutes)."""
    binary = os.path.join(build, "chapters", "grade_" + ch)
    cmd = [binary, "--remote", launcher, "--seed", str(args.seed), "--out", verdict,
           "--timeout", str(args.timeout)] + extra
    out = os.path.join(work, "grade.txt")
    with open(out, "w") as f:
        f.write(f"grade.py: {note}\n")
        f.flush()
        p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=f, stderr=subprocess.STDOUT, cwd=work,
                             env=grade_env(), preexec_fn=pin_to(child_cpu_set()))
        t0 = time.monotonic()
        while True:
            left = args.time_limit - (time.monotonic() - t0)
            try:
                p.wait(timeout=max(0.01, min(PROGRESS_S, left)))
                break
            except subprocess.TimeoutExpired:
                if time.monotonic() - t0 >= args.time_limit:
                    p.kill()
                    p.wait()
                    return None, f"the grade ran past the time limit of {args.time_limit} s"
                print(f"    ... {who}: still grading, {time.monotonic() - t0:.0f} s of at most "
                      f"{args.time_limit} s", flush=True)
    if p.returncode == 77:
        return None, "no usable GPU for this chapter: " + tail(out, 300).strip()
    if p.returncode == 2:
        return None, "the grade refused its command line: " + tail(out, 300).strip()
    path = os.path.join(verdict, ch + ".grade.json")
    if p.returncode not in (0, 1) or not os.path.isfile(path):
        return None, f"the grade ended without a verdict (exit {p.returncode}; see grade.txt)"
    with open(path, "rb") as f:
        data = f.read()
    try:
        report = json.loads(data)
    except ValueError as e:  # not JSON, or not UTF-8
        return None, f"the grade's verdict is not JSON: {e}"
    copy = os.path.join(work, os.path.basename(path))
    keep(copy, lambda: write_text(copy, data))  # the evidence only: the verdict is read already
    if bool(report.get("pass")) != (p.returncode == 0):
        return None, f"the grade's verdict and its exit code {p.returncode} disagree"
    return report, None


def degenerate(shape):
    """A shape with M, N or K = 0: required for a PASS, worth no points of its own (an empty gemm()
    passes it)."""
    return 0 in (shape["M"], shape["N"], shape["K"])


def points(report, error, args, ref_gflops):
    """The points of one grade, as Gradescope's tests: one per shape (the degenerate ones worth
    0), one for the benchmark's timed runs, one for performance. Performance: full points at
    (100 - NOISE_BAND)% of the instructor's kernel in the same run (or of --perf-target), so that
    a copy of it that the noise of one run put a few per cent behind still gets them all."""
    tests = []
    shapes = report["shapes"] if report else []
    bench = report["benchmark"] if report else []
    # Each shape, and the benchmark's timed runs (each checked, and a clean exit after them).
    per_shape = args.correct_points / (sum(not degenerate(s) for s in shapes) + 1)
    for s in shapes:
        worth = 0.0 if degenerate(s) else per_shape
        tests.append({"name": f"correct: M={s['M']} N={s['N']} K={s['K']} lda={s['lda']} ldb={s['ldb']} "
                              f"ldc={s['ldc']} alpha={s['alpha']} beta={s['beta']}" +
                              (" (an empty shape: required, no points)" if degenerate(s) else ""),
                      "score": worth if s["pass"] else 0.0,
                      "max_score": worth,
                      "output": shown(s["detail"] or "PASS")})
    if shapes:
        timed = bool(bench) and not error
        tests.append({"name": "correct: the benchmark's timed runs" + (f" at {bench[0]['shape']}" if bench else ""),
                      "score": per_shape if timed else 0.0, "max_score": per_shape,
                      "output": "PASS" if timed else shown(error or "not timed")})
    else:
        tests.append({"name": "correctness", "score": 0, "max_score": args.correct_points,
                      "output": shown(error or "not graded")})
    gflops = bench[0]["gflops"] if bench else 0.0
    if args.perf_target is None:
        pct = 100.0 * gflops / ref_gflops if ref_gflops else 0.0
        name, target = f"performance: {pct:.1f}% of the instructor's kernel in the same run", 100.0
    else:
        pct = bench[0]["pct_of_yardstick"] if bench else 0.0
        name, target = f"performance: {pct:.1f}% of the yardstick", args.perf_target
    full = target * (100.0 - NOISE_BAND) / 100.0
    all_pass = bool(report and report["pass"] and not error)
    perf = args.perf_points * min(1.0, pct / full) if all_pass and full > 0 else 0.0
    tests.append({"name": f"{name} (full points at {full:g}%: {target:g}% less a noise band of {NOISE_BAND:g}%)",
                  "score": round(perf, 4), "max_score": args.perf_points,
                  "output": ("only a kernel that passes every shape earns performance points"
                             if not all_pass else
                             f"{gflops:.1f} GFLOPS at {bench[0]['shape']}" if bench else "")})
    return tests


def gradescope(report, error, args, ref_gflops, note):
    """Gradescope's results.json: one test per shape, one for performance."""
    tests = points(report, error, args, ref_gflops)
    # Rounded once, at the end, so that a full score sums to exactly the points available.
    return {"score": round(sum(t["score"] for t in tests), 4), "output": f"graded {note}", "tests": tests}


def reason(report, error):
    """Why a submission fails, for the student, first failing shape first."""
    bad = next((s for s in (report or {}).get("shapes", []) if not s["pass"]), None)
    first = (f"first failing shape M={bad['M']} N={bad['N']} K={bad['K']} lda={bad['lda']} ldb={bad['ldb']} "
             f"ldc={bad['ldc']} alpha={bad['alpha']} beta={bad['beta']}: {bad['detail'] or 'wrong'}") if bad else ""
    text = "; ".join(x for x in (first, error or "") if x)
    return shown(text)[:1000]


def feedback(row, report, tests, note):
    """feedback.txt, the file to hand back: the verdict, the reason (first failing shape first),
    each shape and the points. No seed, no reference code, nothing of the child's output."""
    lines = [f"submission: {row['submission']}", f"verdict: {'PASS' if row['pass'] else 'FAIL'}",
             f"score: {row['score']:g} of {sum(t['max_score'] for t in tests):g}"]
    if row["error"]:
        lines.append(f"reason: {row['error']}")
    lines.append(f"shapes passed: {row['shapes_passed']} of {row['shapes_total']}")
    if row["gflops"]:
        lines.append(f"speed: {row['gflops']} GFLOPS, {row['pct_of_yardstick']}% of the yardstick" +
                     (f", {row['pct_of_reference']}% of the instructor's kernel" if row["pct_of_reference"] != "" else ""))
    lines.append("")
    lines += [f"{t['score']:7.3f} / {t['max_score']:7.3f}  {t['name']}: {shown(t['output'])}" for t in tests]
    lines.append(f"\ngraded {note}")
    return "\n".join(lines) + "\n"


def make_folder(path):
    """A folder of grade.py's own (marked), replacing one it made before."""
    if os.path.isdir(path):
        shutil.rmtree(path)
    os.makedirs(path)
    with open(os.path.join(path, MARKER), "w") as f:
        f.write("made by tools/grading/grade.py, which deletes and remakes this folder when it grades into "
                "the same --out again\n")


def build_one(chapter, sub, work, scratch, allowed, built):
    """Reads, scans and compiles one submission into `work` and `scratch`; returns (child, None)
    or (None, why). `built` maps a kernel file's text to the child already built from it in this
    run (a copy of the same file is compiled once)."""
    if sub.refused:
        return None, sub.refused
    path, root = sub.kernel, sub.root
    if path is None:
        return None, (f"no {chapter.kname} found (looked for chapters/{chapter.ch}/{chapter.kname}, "
                      f"{chapter.kname}, or the file itself)")
    # Read as the grader, which may read what the student may not: a plain file of the submission
    # (no link out of it), and not a big one.
    if os.path.islink(path) or (root and not is_inside(os.path.realpath(path), os.path.realpath(root))):
        return None, f"rejected: {shown(os.path.relpath(path, root or os.path.dirname(path)))} is a link, " \
            "or lies outside the submission"
    st = os.stat(path)
    if not stat.S_ISREG(st.st_mode):
        return None, f"rejected: {shown(os.path.basename(path))} is not a plain file"
    if st.st_size > KERNEL_BYTES:
        return None, f"rejected: the kernel file has {st.st_size} bytes, more than {KERNEL_BYTES}"
    with open(path, errors="replace") as f:
        text = f.read()
    with open(os.path.join(work, "kernel_under_test.h"), "w") as f:
        f.write(text)
    why = scan(text, allowed)
    if why:
        return None, "rejected: the kernel file " + why
    key = hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()
    with built["lock"]:
        entry = built.get(key)
        first = entry is None
        if first:
            entry = built[key] = {"done": threading.Event()}
    if first:
        entry["build"] = os.path.join(scratch, "build")
        try:
            entry["child"], entry["error"] = chapter.compile(text, entry["build"])
        finally:
            entry["done"].set()
    entry["done"].wait()  # the same file again: the same child, its evidence copied
    if "child" not in entry:
        raise RuntimeError("the build of an identical kernel file failed")
    child, error, build = entry["child"], entry["error"], entry["build"]
    for keep in ("compile.log", "deps.txt"):
        if os.path.exists(os.path.join(build, keep)):
            shutil.copy(os.path.join(build, keep), work)
    return child, error


def grade_one(chapter, child, work, scratch, args, extra, limits, who=""):
    """Grades one built child into `work`; returns (report, error)."""
    cgroup = None
    if limits["cgroup"]:  # memory.max for everything the child starts
        cgroup = tempfile.mkdtemp(prefix="gemm-grade-", dir=limits["cgroup"])
        with open(os.path.join(cgroup, "memory.max"), "w") as f:
            f.write(str(limits["memory"]))
        if os.path.exists(os.path.join(cgroup, "memory.swap.max")):
            with open(os.path.join(cgroup, "memory.swap.max"), "w") as f:
                f.write("0")
    launcher = os.path.join(work, "child")
    try:
        chapter.launcher(child, launcher, args.time_limit * (os.cpu_count() or 1), limits["memory"], cgroup)
        verdict = os.path.join(scratch, "verdict")
        os.makedirs(verdict)
        report, error = run_grade(chapter.ch, launcher, work, args.build, args, extra, verdict,
                                  chapter.sandbox.note, who)
    finally:
        if os.path.lexists(launcher):  # it names a child that goes with the scratch folder
            os.remove(launcher)
        for _ in range(50 if cgroup else 0):  # empty once the child's namespace has ended
            try:
                os.rmdir(cgroup)
                break
            except OSError:
                time.sleep(0.1)
    if report and report.get("error"):
        error = report["error"]
    return report, error


def bounded(kind, lo, hi):
    """An argparse type: a finite number of `kind` (int or float) in [lo, hi]."""
    def parse(text):
        try:
            v = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {'a whole' if kind is int else 'a'} number, got '{text}'")
        if not math.isfinite(v) or not lo <= v <= hi:
            raise argparse.ArgumentTypeError(f"'{text}' is not in [{lo}, {hi}]")
        return v
    return parse


def check_chapter_options(binary, args, extra):
    """The grading binary's own verdict on its part of the command line (its options, sizes and
    what fits on this machine), before anything is built: `--remote :check` checks and exits."""
    with tempfile.TemporaryDirectory(prefix="gemm-grade-check-") as tmp:
        cmd = [binary, "--remote", ":check", "--seed", str(args.seed), "--timeout",
               str(args.timeout), "--out", tmp] + extra
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=600)
        except subprocess.TimeoutExpired:
            die(f"{binary} did not check its command line within 600 s")
    if p.returncode == 77:
        die(p.stdout.strip() or "no usable GPU for this chapter", code=77)
    if p.returncode != 0:
        msg = (p.stderr.strip() or p.stdout.strip()).splitlines()
        die("the chapter's options after --: " + (msg[0] if msg else f"exit {p.returncode}"))


def write_csv(path, rows):
    fields = ["submission", "shapes_passed", "shapes_total", "pass", "score", "gflops", "pct_of_yardstick",
              "pct_of_reference", "sandboxed", "error"]
    text = io.StringIO(newline="")
    w = csv.DictWriter(text, fieldnames=fields)
    w.writeheader()
    w.writerows(rows)
    write_text(path, text.getvalue())


def main():
    for stream in (sys.stdout, sys.stderr):  # a console that cannot show a name shows escapes
        stream.reconfigure(errors="backslashreplace")
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0], allow_abbrev=False)
    ap.add_argument("chapter")
    ap.add_argument("submissions", nargs="+")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--seed", type=bounded(int, 0, SEED_MAX), default=2024)
    ap.add_argument("--out", default="grades")
    ap.add_argument("--timeout", type=bounded(int, 1, 86400), default=120,
                    help="seconds per request to the child")
    ap.add_argument("--time-limit", type=bounded(int, 1, 7 * 86400), default=1800,
                    help="seconds of running per submission")
    ap.add_argument("--compile-limit", type=bounded(int, 1, 86400), default=600,
                    help="seconds of compiling per submission")
    ap.add_argument("--gradescope", action="store_true")
    ap.add_argument("--perf-target", type=bounded(float, 1e-6, 1e6), default=None,
                    help="%% of the yardstick that earns all performance points (default: full points "
                         "for matching the instructor's own kernel, timed in the same run)")
    ap.add_argument("--perf-points", type=bounded(float, 0, 1e6), default=20.0)
    ap.add_argument("--correct-points", type=bounded(float, 0, 1e6), default=80.0)
    ap.add_argument("--unsandboxed", action="store_true",
                    help="grade without bubblewrap (every output says so); not for grades that count")
    argv = sys.argv[1:]
    extra = argv[argv.index("--") + 1:] if "--" in argv else []  # for the grading binary
    args = ap.parse_args(argv[:argv.index("--")] if "--" in argv else argv)
    args.build = os.path.abspath(args.build)
    if args.perf_points + args.correct_points <= 0:
        die("--perf-points and --correct-points are both 0: there is nothing to score")
    for own in ("--seed", "--out", "--remote", "--timeout"):
        if any(e == own or e.startswith(own + "=") for e in extra):
            die(f"{own} after -- is grade.py's to set" + (" (put it before --)" if own in ("--seed", "--timeout", "--out") else ""))
    if any(e == "--device" or e.startswith("--device=") for e in extra):  # the child uses the first GPU it sees
        die("--device: grade on another GPU with CUDA_VISIBLE_DEVICES=N instead, which the child's "
            "sandbox passes on")
    c = chapter_of(args.chapter)
    ch, kname = c.id, kernel_name(c)
    SUMMARY_CHAPTER[:] = [ch, kname]
    binary = os.path.join(args.build, "chapters", "grade_" + ch)  # the chapter's grading binary
    if not os.access(binary, os.X_OK):
        die(f"{binary} is not built (./tutorial grade builds it, or ninja -C BUILD chapters/grade_{ch})")
    check_chapter_options(binary, args, extra)
    subs = expand(args.submissions, ch, kname)

    # OUT: never a submission, never around one; inside it only folders marked as grade.py's.
    out = os.path.realpath(args.out)
    if os.path.exists(out) and not os.path.isdir(out):
        die(f"--out {args.out}: this is a file, not a folder")
    for sub in args.submissions:
        s = os.path.realpath(sub)
        if is_inside(out, s) or is_inside(s, out):
            die(f"--out {args.out} " + ("is the submission" if out == s else "lies inside the submission"
                                        if is_inside(out, s) else "contains the submission") + f" {sub}: "
                "grades go to a folder of their own")
    names = [x.out for x in subs] + ([REFERENCE] if args.perf_target is None else [])
    for n in names:
        d = os.path.join(out, n)
        if os.path.lexists(d) and not (os.path.isdir(d) and not os.path.islink(d)
                                       and os.path.isfile(os.path.join(d, MARKER))):
            die(f"{d} exists and grade.py did not make it (it holds no {MARKER}): move it away or "
                "choose another --out")
    csv_path = os.path.join(out, "class.csv")
    if os.path.lexists(csv_path) and not os.path.isfile(csv_path):
        die(f"{csv_path} exists and is not a file")

    sandbox = Sandbox(not args.unsandboxed)
    memory = min(16 << 30, (host_memory() or (32 << 30)) // 2)
    limits = {"memory": memory, "cgroup": memory_cgroup() if sandbox.enabled else None}
    cpus = child_cpu_set()
    print(f"grade.py: {sandbox.note}; memory of a child: {memory >> 20} MiB "
          f"({'cgroup v2 memory.max' if limits['cgroup'] else 'its address space: one process' if c.kind == 'cpu' else 'not limited (a GPU child)'}); "
          + (f"a child, its grade and a CPU yardstick on CPU {','.join(map(str, sorted(cpus)))} "
             f"(the first {len(cpus)} of grade.py's, OMP_NUM_THREADS={child_cpus()})"
             if cpus else
             "a child on every CPU (OMP_NUM_THREADS not set)"), flush=True)
    if c.kind == "cpu" and not child_cpus():
        print("grade.py: note: OMP_NUM_THREADS is not set, so the child has every CPU and the yardstick "
              "every thread; a stopped child can then slow a CPU yardstick down (docs/assignments.md, "
              "'Slowing the yardstick down'): set it for a CPU assignment", flush=True)
    os.makedirs(out, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="gemm-grade-") as tmp:
        if sandbox.as_nobody:
            os.chmod(tmp, 0o711)  # the sandbox's user may pass through, not list
        chapter = Chapter(c, kname, args.build, sandbox, tmp, args.compile_limit)
        allowed = chapter.allowed_includes

        # First every submission is built, as many at a time as there are cores (no grade runs
        # meanwhile: compiling would slow the timed runs down), then each is graded in turn.
        ref = None
        if args.perf_target is None:
            ref = Sub(REFERENCE, kernel=os.path.join(ROOT, "chapters", ch, kname))
            ref.out = REFERENCE
        todo = ([ref] if ref else []) + subs
        lock = threading.Lock()
        built, children = {"lock": lock}, {}
        own_failed = set()  # the rows of `todo` that grade.py itself failed on: exit 3

        def build(i):
            sub = todo[i]
            work = os.path.join(out, sub.out)
            scratch = os.path.join(tmp, f"s{i}")
            try:
                with lock:
                    make_folder(work)
                    os.makedirs(scratch)
                children[i] = build_one(chapter, sub, work, scratch, allowed, built)
            except Exception as e:  # grade.py's own failure costs this row only, and says so
                traceback.print_exc()
                own_failed.add(i)
                children[i] = None, own_failure(e)

        with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
            list(pool.map(build, range(len(todo))))

        def grade_into(i, who=REFERENCE):
            child, error = children[i]
            if not child:
                return None, error
            scratch = os.path.join(tmp, f"s{i}")
            try:
                return grade_one(chapter, child, os.path.join(out, todo[i].out), scratch, args, extra, limits, who)
            except Exception as e:
                traceback.print_exc()
                own_failed.add(i)
                return None, own_failure(e)

        ref_gflops = None
        if ref:
            report, error = grade_into(0)
            bench = (report or {}).get("benchmark") or [{}]
            ref_gflops = bench[0].get("gflops", 0.0)
            if 0 in own_failed:  # not a verdict on the kernel: grade.py failed (a full disk)
                die(f"grade.py failed on the instructor's own kernel (chapters/{ch}/{kname}), so "
                    f"there is nothing to compare speeds with: {error}", code=EXIT_GRADER_ERROR)
            if error or not (report and report["pass"]) or not ref_gflops:
                die(f"the instructor's own kernel (chapters/{ch}/{kname}) does not pass its grade, so "
                    f"there is nothing to compare speeds with: {error or 'see ' + os.path.join(out, REFERENCE)}",
                    code=EXIT_REFERENCE_FAILED)
            print(f"reference: the instructor's own kernel, {ref_gflops:.1f} GFLOPS at {bench[0]['shape']} "
                  "(full performance points at its speed)", flush=True)

        rows = []
        for i, sub in enumerate(subs, 1):
            at = i if ref else i - 1
            print(f"[{i}/{len(subs)}] {sub.shown}: grading ...", flush=True)
            report, error = grade_into(at, sub.shown)
            child = children[at][0]
            if child and all(children[j][0] != child for j in range(at + 1, len(todo))):
                shutil.rmtree(os.path.dirname(os.path.dirname(child)), ignore_errors=True)
            bench = (report or {}).get("benchmark") or [{}]
            gflops = bench[0].get("gflops", 0.0)
            tests = points(report, error and shown(error), args, ref_gflops)
            row = {"submission": sub.shown,
                   "shapes_passed": report["shapes_passed"] if report else 0,
                   "shapes_total": report["shapes_total"] if report else 0,
                   "pass": bool(report and report["pass"] and not error),
                   "score": round(sum(t["score"] for t in tests), 2),
                   "gflops": round(gflops, 3),
                   "pct_of_yardstick": round(bench[0].get("pct_of_yardstick", 0.0), 2),
                   "pct_of_reference": round(100.0 * gflops / ref_gflops, 2) if ref_gflops else "",
                   "sandboxed": sandbox.enabled,
                   "error": "" if report and report["pass"] and not error else reason(report, error)}
            rows.append(row)
            # Written as decided: an interrupted class, or a full disk, keeps what it graded.
            keep(csv_path, lambda: write_csv(csv_path, rows))
            work = os.path.join(out, sub.out)
            keep(os.path.join(work, "feedback.txt"), lambda: write_text(os.path.join(work, "feedback.txt"),
                                                                         feedback(row, report, tests, sandbox.note)))
            if args.gradescope:
                keep(os.path.join(work, "results.json"), lambda: write_text(
                    os.path.join(work, "results.json"),
                    json.dumps(gradescope(report, error and shown(error), args, ref_gflops, sandbox.note), indent=2)))
            verdict = "PASS" if row["pass"] else "FAIL"
            detail = f"{row['shapes_passed']}/{row['shapes_total']} shapes, {row['score']:g} points"
            if row["gflops"]:
                detail += f", {row['gflops']:.1f} GFLOPS ({row['pct_of_yardstick']:.1f}% of the yardstick"
                detail += f", {row['pct_of_reference']:.1f}% of the reference)" if ref_gflops else ")"
            print(f"[{i}/{len(subs)}] {row['submission']}: {verdict}, {detail}" +
                  (f"; {row['error'][:300]}" if row["error"] else "") + ("" if sandbox.enabled else " [UNSANDBOXED]"),
                  flush=True)
        text = summary(rows, subs, children, todo, ref)
        print(text, end="", flush=True)
        keep(os.path.join(out, "summary.txt"), lambda: write_text(os.path.join(out, "summary.txt"), text))
    failed = [todo[i].shown for i in sorted(own_failed)]
    if LOST or failed:
        if LOST:
            print("grade.py: these files could not be written (every row is above): " + "; ".join(LOST),
                  file=sys.stderr)
        if failed:
            print("grade.py: grade.py itself failed on " + ", ".join(failed) + " (their rows say so; "
                  "the tracebacks are above): grade them again", file=sys.stderr)
        for row in rows:
            print(",".join(str(row[k]) for k in row), file=sys.stderr)
        return EXIT_GRADER_ERROR
    print(f"wrote {csv_path}, summary.txt and a feedback.txt per submission" +
          (" and its results.json" if args.gradescope else "") + f"; {sandbox.note}")
    return 0


def write_text(path, text):
    """Writes a file whole or not at all: a full disk leaves the file as it was (the last class.csv
    written, or none), never a truncated one to hand back, nor a part beside it."""
    data = text if isinstance(text, bytes) else text.encode("utf-8")
    try:
        with open(path + ".part", "wb") as f:
            f.write(data)
        os.replace(path + ".part", path)
    except OSError:
        try:
            os.remove(path + ".part")
        except OSError:
            pass
        raise


def summary(rows, subs, children, todo, ref):
    """The class at a glance: passes, scores, and the submissions whose kernel files are the same
    (byte for byte once comments and white space are gone) as another's or as the instructor's."""
    lines = [f"class: {sum(r['pass'] for r in rows)} of {len(rows)} pass"]
    scores = sorted(r["score"] for r in rows)
    if scores:
        lines.append(f"scores: mean {sum(scores) / len(scores):.1f}, median {scores[len(scores) // 2]:g}, "
                     f"lowest {scores[0]:g}, highest {scores[-1]:g}")

    def key(sub):
        if not sub or not sub.kernel or sub.refused or not os.path.isfile(sub.kernel) or os.path.islink(sub.kernel):
            return None
        try:
            with open(sub.kernel, errors="replace") as f:
                text = f.read(KERNEL_BYTES + 1)
        except OSError:
            return None
        return hashlib.sha256(re.sub(r"\s+", "", strip_comments(text)).encode("utf-8", "surrogateescape")).hexdigest()

    own = key(ref) if ref else key(Sub(REFERENCE, kernel=os.path.join(ROOT, "chapters", SUMMARY_CHAPTER[0], SUMMARY_CHAPTER[1])))
    groups = {}
    for sub in subs:
        k = key(sub)
        if k:
            groups.setdefault(k, []).append(sub.shown)
    for k, names in groups.items():
        if k == own:
            lines.append("copies of the instructor's kernel: " + ", ".join(names))
        elif len(names) > 1:
            lines.append("identical kernel files: " + ", ".join(names))
    return "\n".join(lines) + "\n"


SUMMARY_CHAPTER = ["", ""]  # the chapter and its kernel file's name, for summary() under --perf-target


def entry():
    """The command: main(), with grade.py's own failure never mistaken for a verdict (exit 1) or a
    bad command line (exit 2)."""
    try:
        sys.exit(main())
    except Exception:
        traceback.print_exc()
        print("grade.py: error: grade.py itself failed (above); rows already graded are in class.csv "
              "and on the console", file=sys.stderr)
        sys.exit(EXIT_GRADER_ERROR)


if __name__ == "__main__":
    entry()

#!/usr/bin/env python3
"""Grades submissions of one chapter with the instructor's own harness (docs/assignments.md).

  grade.py CHAPTER SUBMISSION... [--build BUILD] [--seed N] [--out DIR] [--gradescope]
           [--timeout S] [--time-limit S] [--perf-target PCT] [--unsandboxed]
           [-- CHAPTER-BINARY OPTIONS...]

A SUBMISSION is a student's copy of the repository, a folder holding the chapter's kernel file,
the kernel file itself, or a folder of such submissions (each subfolder is one). From each, only
the chapter's kernel file is taken. It is scanned (a first, friendly filter), then compiled in a
bubblewrap sandbox: its includes are checked against an allow-list by the compiler's own
dependency output, and it is compiled alone, as its own translation unit exporting nothing but
the contract's gemm, into a child process (tools/grade_child.cu) that only computes. The
instructor's chapter binary (`--grade --remote`) runs that child in a sandbox of its own, makes
the inputs from the secret seed, checks what the child returns, times every run on its own clock
and writes the verdict into a folder the child cannot see. One broken submission (rejected, not
compiling, crashing, hanging) costs that submission a FAIL with the reason, never the run.

Performance points compare each submission with the instructor's own kernel, graded the same way
in the same run; --perf-target PCT compares with a percentage of the yardstick instead.

Writes OUT/<submission>/ (the kernel as built, the compiler's output, the child's log, the grade's
output and JSON), OUT/class.csv and, with --gradescope, OUT/<submission>/results.json in
Gradescope's format. Every folder it writes holds a file .gemm-grade; it deletes no other.
Exit: 0 when every submission was graded (whatever the grades), 1 when the instructor's own kernel
fails the grade, 2 for a bad command line or a missing sandbox, 77 when this machine has no GPU
that can run the chapter.
Environment: GEMM_GRADE_BWRAP, the bubblewrap program (default: bwrap on PATH).
"""
import argparse
import csv
import functools
import glob
import json
import os
import re
import shlex
import shutil
import stat
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import chapters as chapter_list  # noqa: E402  (tools/chapters.py: the one list of chapters)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HOPPER = tuple(c.id for c in chapter_list.load() if c.kind == "hopper")  # sm_90a chapters
MARKER = ".gemm-grade"   # in every folder grade.py makes: the only folders it deletes
REFERENCE = ".reference"  # OUT/.reference: the instructor's own kernel, graded like the others
NOBODY = 65534            # the sandbox's user when grade.py runs as root
ENTRY = "grade_gemm"      # the one symbol the kernel's object file exports
KERNEL_BYTES = 1 << 20    # the largest kernel file read
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
# Limits inside the sandbox (prlimit): CPU seconds per process, bytes of address space, bytes per
# file written, processes and threads of the sandbox's user.
COMPILE_LIMITS = {"cpu": 900, "as": 16 << 30, "fsize": 512 << 20, "nproc": 256}
RUN_FSIZE = 16 << 20  # the child's log, and any file it writes
RUN_AS_CPU = 32 << 30  # a CPU child's address space; a GPU child gets none (CUDA maps huge ranges)
# The environment a sandboxed child may keep from the grader's (thread counts, the GPU to use,
# where the driver's libraries are); everything else is cleared.
PASS_ENV = re.compile(r"^(OMP_\w+|GOMP_\w+|CUDA_VISIBLE_DEVICES|CUDA_DEVICE_ORDER|LD_LIBRARY_PATH)$")


def die(msg, code=2):
    print(f"grade.py: error: {msg}", file=sys.stderr)
    sys.exit(code)


def chapter_dir(chapter):
    names = [c.id for c in chapter_list.load()]  # chapters/chapters.txt
    for d in names:
        if d == chapter or d.split("_")[0] == chapter:
            return d
    die(f"no chapter '{chapter}' (chapters: {' '.join(names)})")


def kernel_name(ch):
    for name in ("kernel.cuh", "kernel.hpp"):
        if os.path.exists(os.path.join(ROOT, "chapters", ch, name)):
            return name
    die(f"chapters/{ch} has no kernel file")


def find_kernel(sub, ch, kname):
    """The kernel file of one submission, or None."""
    if os.path.isfile(sub):
        return sub
    for candidate in (os.path.join(sub, "chapters", ch, kname), os.path.join(sub, kname)):
        if os.path.isfile(candidate):
            return candidate
    return None


def expand(subs, ch, kname):
    """Submissions as (name, kernel path or None, the submission's folder or None when the kernel
    file was named itself); a folder of submissions is opened (its hidden folders, such as .git,
    are not submissions)."""
    out = []
    for sub in subs:
        sub = os.path.abspath(sub)
        if not os.path.exists(sub):
            die(f"{sub}: no such file or folder")
        if find_kernel(sub, ch, kname) is None and os.path.isdir(sub) and not \
                os.path.exists(os.path.join(sub, "chapters")):
            inner = sorted(os.path.join(sub, d) for d in os.listdir(sub)
                           if os.path.isdir(os.path.join(sub, d)) and not d.startswith("."))
            if inner:
                out += [(os.path.basename(d), find_kernel(d, ch, kname), d) for d in inner]
                continue
        if os.path.isfile(sub):
            out.append((os.path.splitext(os.path.basename(sub))[0], sub, None))
        else:
            out.append((os.path.basename(sub), find_kernel(sub, ch, kname), sub))
    names = [n for n, _, _ in out]
    if len(set(names)) != len(names):
        die("two submissions have the same name: " + ", ".join(sorted(n for n in names if names.count(n) > 1)))
    for reserved in (REFERENCE, "class.csv"):
        if reserved in names:
            die(f"a submission may not be named {reserved}: grade.py writes its own {reserved} into --out")
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


class Sandbox:
    """Runs a command in a bubblewrap sandbox: its own PID, network, IPC and user namespaces (every
    process it starts dies with it), its own /proc, /usr and the libraries read-only, a private
    /tmp, only the folders it is given, no capabilities, a clean environment, the limits of
    prlimit(1). As root it runs as the user nobody (so that the process limit binds). With
    enabled=False (--unsandboxed) only the limits and the clean environment remain."""

    def __init__(self, enabled):
        self.enabled = enabled
        self.bwrap = os.environ.get("GEMM_GRADE_BWRAP", "bwrap")
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
        version = subprocess.run([self.bwrap, "--version"], capture_output=True, text=True).stdout.strip()
        self.note = f"sandboxed ({version or 'bubblewrap'}" + (", as the user nobody)" if self.as_nobody else ")")

    def probe(self):
        """Why the sandbox does not work here, or None."""
        if not shutil.which(self.bwrap):
            return f"{self.bwrap} not found"
        try:
            p = subprocess.run(self.argv(["true"], limits={}), capture_output=True, text=True,
                               timeout=60, stdin=subprocess.DEVNULL)
        except (OSError, subprocess.TimeoutExpired) as e:
            return f"{self.bwrap}: {e}"
        return None if p.returncode == 0 else f"{self.bwrap} failed: {p.stderr.strip()[-300:]}"

    def own(self, path):
        """Hands a folder grade.py made to the sandbox's user, to write in."""
        if self.as_nobody:
            for d, subdirs, files in os.walk(path):
                for x in [d] + [os.path.join(d, f) for f in subdirs + files]:
                    os.lchown(x, NOBODY, NOBODY)

    def argv(self, cmd, limits, rw=(), ro=(), dev="null", env=None, cwd="/tmp"):
        """The command line that runs `cmd` sandboxed. rw, ro: (host path, sandbox path) pairs;
        dev: "null" (/dev/null alone), "full" (bubblewrap's minimal /dev) or "gpu" (that plus the
        NVIDIA device nodes and a read-only /sys)."""
        env = dict(env or {})
        env.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
        env.update(HOME="/tmp", TMPDIR="/tmp")
        lim = [f"--{k}={v}" for k, v in limits.items()] + (["--core=0"] if limits else [])
        inner = ["prlimit"] + lim + ["--"] + cmd if lim else cmd
        if not self.enabled:  # the same command on the host's own paths
            for src, dst in list(rw) + list(ro):
                pattern = r"(?:^|(?<=[\s'\"=]))" + re.escape(dst) + r"(?=/|$|[\s'\"])"
                inner = [re.sub(pattern, lambda _: src, arg) for arg in inner]
            return ["env", "-i"] + [f"{k}={v}" for k, v in env.items()] + inner
        a = [self.bwrap, "--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL",
             "--ro-bind", "/usr", "/usr"]
        for d in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
            if os.path.islink(d):
                a += ["--symlink", os.readlink(d), d]
            elif os.path.isdir(d):
                a += ["--ro-bind", d, d]
        for f in ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives"):
            if os.path.exists(f):
                a += ["--ro-bind", f, f]
        extra = set()  # a CUDA toolkit or driver libraries outside /usr
        nvcc = nvcc_path()
        if nvcc:
            extra.add(os.path.dirname(os.path.dirname(os.path.realpath(nvcc))))
        for d in env.get("LD_LIBRARY_PATH", "").split(":"):
            if d and os.path.isdir(d):
                extra.add(os.path.realpath(d))
        for d in sorted(extra):
            if not any(is_inside(d, r) for r in ("/usr", "/lib", "/lib64")):
                a += ["--ro-bind", d, d]
        a += ["--proc", "/proc", "--tmpfs", "/tmp"]
        if dev == "null":
            a += ["--dev-bind", "/dev/null", "/dev/null"]
        else:
            a += ["--dev", "/dev"]
        if dev == "gpu":
            for node in sorted(glob.glob("/dev/nvidia*")):
                a += ["--dev-bind", node, node]
            a += ["--ro-bind", "/sys", "/sys"]
        for src, dst in ro:
            a += ["--ro-bind", src, dst]
        for src, dst in rw:
            a += ["--bind", src, dst]
        a += ["--clearenv"]
        for k, v in env.items():
            a += ["--setenv", k, v]
        a += ["--chdir", cwd, "--"] + inner
        if self.as_nobody:
            a = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", "--"] + a
        return a


class Chapter:
    """How one chapter's submissions are built: compiler and flags, the headers a kernel may
    include, the allow-list of files its preprocessing may read, and the child's main object."""

    def __init__(self, ch, kname, build, sandbox, tmp):
        self.ch, self.kname, self.sandbox = ch, kname, sandbox
        self.gpu = kname.endswith(".cuh")
        num = int(ch[:2])
        with open(os.path.join(ROOT, "chapters", ch, kname)) as f:
            own = includes(strip_comments(f.read()))
        self.allowed_includes = set(SAFE_GPU if self.gpu else SAFE_CPU) | set(own)
        # The instructor's headers a kernel may include: those its own kernel file includes, from
        # common/ (common/device/ too) or chapters/, copied into the build's include folder.
        quoted = [i.strip('"') for i in self.allowed_includes if i.startswith('"')]
        self.headers = project_headers(quoted, [os.path.join(ROOT, "common"), os.path.join(ROOT, "chapters")])
        ns = ["-DGRADE_NS=ch%02d" % num]
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
            if ch.startswith(HOPPER):
                arch = ["-gencode=arch=compute_90a,code=sm_90a"]
            else:
                arch = ["-gencode=arch=compute_%s,code=sm_%s" % (a, a) for a in gpu_archs(build)]
            self.cc = [nvcc, "-std=c++17", "-O3", "--expt-relaxed-constexpr", "-DGRADE_GPU"] + arch + \
                ["-Xcompiler", "-fdiagnostics-color=never,-fno-diagnostics-show-caret"]
            if num >= 8:
                self.cc.append("-DGRADE_HALF")
            self.flags = ["-Xcompiler", "-fno-gnu-unique"]
            self.link = [nvcc] + arch
        self.kernel_flags = self.flags + ns + ["-I", "/build/include"]
        self.env = {"PATH": ":".join(([os.path.dirname(self.cc[0])] if self.gpu else []) + ["/usr/bin", "/bin"])}
        if self.gpu:
            # A first run of the chapter binary: it says whether this machine can grade the
            # chapter at all, and it makes the driver create every device node the sandboxes bind.
            p = subprocess.run([os.path.join(build, "chapters", ch), "--sizes", "1", "--reps", "1",
                                "--no-baseline", "--out", tmp], capture_output=True, text=True)
            if p.returncode == 77:
                die(p.stdout.strip(), code=77)
        self.main = os.path.join(tmp, "main")
        os.makedirs(self.main)
        # The child's own translation unit, compiled once for the whole class.
        for name, path in project_headers(["grade_entry.hpp", "remote_protocol.hpp"] +
                                          (["gpu_timing.cuh"] if self.gpu else []),
                                          [os.path.join(ROOT, "tools"), os.path.join(ROOT, "common")]).items():
            shutil.copy(path, os.path.join(self.main, name))
        shutil.copy(os.path.join(ROOT, "tools", "grade_child.cu"), self.main)
        sandbox.own(self.main)
        p = self.run(self.cc + self.flags + ["-I", "/main", "-c", "/main/grade_child.cu", "-o", "/main/child_main.o"],
                     ro=[], rw=[(self.main, "/main")], log=os.path.join(self.main, "compile.log"))
        if p != 0:
            die(f"tools/grade_child.cu does not compile (see {self.main}/compile.log):\n" +
                tail(os.path.join(self.main, "compile.log"), 3000))
        # The allow-list: every file that preprocessing the allowed includes reads, found as the
        # submissions' will be, in the same sandbox with the same flags.
        probe = os.path.join(tmp, "probe")
        self.populate(probe, "".join(f"#include {i}\n" for i in sorted(self.allowed_includes)))
        deps, why = self.deps(probe)
        if why:
            die(f"the allowed headers of {ch} do not preprocess in the sandbox: {why}")
        self.allowed_files = set(deps)

    def run(self, cmd, rw, log, ro=(), stdout=None):
        """Runs a compiler command in the sandbox; its output goes to `log` (and stdout to the file
        `stdout` when given). Returns the exit code, or None past the time limit."""
        argv = self.sandbox.argv(cmd, COMPILE_LIMITS, rw=rw, ro=ro, env=self.env, cwd="/build" if rw and
                                 rw[0][1] == "/build" else "/tmp")
        with open(log, "a") as lf:
            lf.write("$ " + " ".join(shlex.quote(c) for c in cmd) + "\n")
            lf.flush()
            out = open(stdout, "w") if stdout else lf
            try:
                return subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=lf,
                                      timeout=900).returncode
            except subprocess.TimeoutExpired:
                return None
            finally:
                if stdout:
                    out.close()

    def populate(self, build, kernel_text):
        """A build folder as the sandbox sees it at /build: the entry, the kernel file, the
        instructor's headers the kernel may include. Nothing else of the repository."""
        os.makedirs(os.path.join(build, "include"))
        for name in ("grade_entry.cu", "grade_entry.hpp"):
            shutil.copy(os.path.join(ROOT, "tools", name), build)
        with open(os.path.join(build, "kernel_under_test.h"), "w") as f:
            f.write(kernel_text)
        for name, path in self.headers.items():
            os.makedirs(os.path.dirname(os.path.join(build, "include", name)), exist_ok=True)
            shutil.copy(path, os.path.join(build, "include", name))
        self.sandbox.own(build)

    def deps(self, build):
        """The files preprocessing the kernel's translation unit reads, by the compiler's own -M
        output (every pass: host and each GPU architecture), as absolute paths in the sandbox.
        Returns (list in the order read, None) or (None, why)."""
        out, log = os.path.join(build, "deps.txt"), os.path.join(build, "compile.log")
        rc = self.run(self.cc + self.kernel_flags + ["-M", "/build/grade_entry.cu"],
                      rw=[(build, "/build")], log=log, stdout=out)
        if rc is None:
            return None, "does not compile: the preprocessor ran past 900 s"
        if rc != 0:
            return None, "does not compile: " + compiler_errors(log, own_file_only=True)
        text = open(out, errors="replace").read().replace("\\\n", " ")
        files = {}  # ordered: the first file refused is the one the kernel file included
        for tok in re.findall(r"(?:\\.|[^\s\\])+", text):
            if tok.endswith(":"):
                continue  # the target
            f = os.path.normpath(os.path.join("/build", tok.replace("\\ ", " ").replace("$$", "$")))
            if is_inside(f, build):  # --unsandboxed: the host's path of the build folder
                f = "/build" + f[len(build):]
            files[f] = True
        return list(files), None

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
        """Builds the child of one kernel file in `build`; returns (path, None) or (None, why)."""
        self.populate(build, text)
        files, why = self.deps(build)
        if why:
            return None, why
        why = self.check_deps(files)
        if why:
            return None, "rejected: the kernel file " + why
        log = os.path.join(build, "compile.log")
        steps = [self.cc + self.kernel_flags + ["-c", "/build/grade_entry.cu", "-o", "/build/kernel.o"],
                 # Every symbol local but the entry: the child's own functions cannot be replaced.
                 ["objcopy", "--remove-section=.group", f"--keep-global-symbol={ENTRY}",
                  "/build/kernel.o", "/build/kernel_local.o"],
                 self.link + ["/main/child_main.o", "/build/kernel_local.o", "-o", "/build/child"]]
        script = " && ".join(" ".join(shlex.quote(c) for c in s) for s in steps)
        rc = self.run(["sh", "-c", script], rw=[(build, "/build")], ro=[(self.main, "/main")], log=log)
        if rc is None:
            return None, "does not compile: the compiler ran past 900 s"
        if rc != 0:
            return None, "does not compile: " + compiler_errors(log)
        rc = self.run(["nm", "-g", "--defined-only", "/build/kernel_local.o"], rw=[(build, "/build")],
                      log=log, stdout=os.path.join(build, "symbols.txt"))
        symbols = [line.split()[-1] for line in open(os.path.join(build, "symbols.txt")) if line.strip()]
        if rc != 0 or symbols != [ENTRY]:
            return None, f"rejected: the kernel's object file exports {', '.join(symbols) or 'nothing'}, not {ENTRY} alone"
        return os.path.join(build, "child"), None

    def launcher(self, child, path, cpu_seconds):
        """Writes the program the chapter binary starts as its child: the kernel's child in its
        sandbox. The binary gives it stdin /dev/null, its pipes on fds 3 and 4, and `path`.log."""
        limits = {"cpu": cpu_seconds, "fsize": RUN_FSIZE, "nproc": 4 * (os.cpu_count() or 1) + 64}
        if not self.gpu:
            limits["as"] = RUN_AS_CPU
        env = {k: v for k, v in os.environ.items() if PASS_ENV.match(k)}
        if self.gpu:
            env["CUDA_CACHE_DISABLE"] = "1"  # no JIT cache files to write
        argv = self.sandbox.argv(["/sandbox/child"], limits, ro=[(child, "/sandbox/child")],
                                 dev="gpu" if self.gpu else "full", env=env)
        with open(path, "w") as f:
            f.write("#!/bin/sh\n# The kernel's child as the grade starts it (tools/grade.py wrote this).\n"
                    "exec " + " ".join(shlex.quote(a) for a in argv) + "\n")
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


def run_grade(ch, launcher, work, build, args, extra, verdict, note):
    """The instructor's chapter binary grades the child; returns its report or an error. The
    verdict is the JSON it writes into `verdict` (an empty folder of the grader's), read only after
    a clean exit: a grade that was killed or vanished leaves none."""
    binary = os.path.join(build, "chapters", ch)
    cmd = [binary, "--grade", "--remote", launcher, "--seed", str(args.seed), "--out", verdict,
           "--timeout", str(args.timeout)] + extra
    out = os.path.join(work, "grade.txt")
    with open(out, "w") as f:
        f.write(f"grade.py: {note}\n")
        f.flush()
        try:
            p = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=f, stderr=subprocess.STDOUT,
                               timeout=args.time_limit, cwd=work)
        except subprocess.TimeoutExpired:
            return None, f"the grade ran past the time limit of {args.time_limit} s"
    if p.returncode == 77:
        return None, "no usable GPU for this chapter: " + tail(out, 300).strip()
    if p.returncode == 2:
        return None, "the grade refused its command line: " + tail(out, 300).strip()
    path = os.path.join(verdict, ch + ".grade.json")
    if p.returncode not in (0, 1) or not os.path.isfile(path):
        return None, f"the grade ended without a verdict (exit {p.returncode}; see grade.txt)"
    try:
        with open(path) as f:
            report = json.load(f)
    except json.JSONDecodeError as e:
        return None, f"the grade's verdict is not JSON: {e}"
    shutil.copy(path, work)
    if bool(report.get("pass")) != (p.returncode == 0):
        return None, f"the grade's verdict and its exit code {p.returncode} disagree"
    return report, None


def gradescope(report, error, args, ref_gflops, note):
    """Gradescope's results.json: one test per shape, one for performance."""
    tests = []
    shapes = report["shapes"] if report else []
    bench = report["benchmark"] if report else []
    # Each shape, and the benchmark's timed runs (each checked, and a clean exit after them).
    per_shape = args.correct_points / (len(shapes) + 1)
    for s in shapes:
        tests.append({"name": f"correct: M={s['M']} N={s['N']} K={s['K']} lda={s['lda']} ldb={s['ldb']} "
                              f"ldc={s['ldc']} alpha={s['alpha']} beta={s['beta']}",
                      "score": per_shape if s["pass"] else 0.0,
                      "max_score": per_shape,
                      "output": s["detail"] or "PASS"})
    if shapes:
        timed = bool(bench) and not error
        tests.append({"name": "correct: the benchmark's timed runs" + (f" at {bench[0]['shape']}" if bench else ""),
                      "score": per_shape if timed else 0.0, "max_score": per_shape,
                      "output": "PASS" if timed else error or "not timed"})
    else:
        tests.append({"name": "correctness", "score": 0, "max_score": args.correct_points,
                      "output": error or "not graded"})
    gflops = bench[0]["gflops"] if bench else 0.0
    if args.perf_target is None:
        pct = 100.0 * gflops / ref_gflops if ref_gflops else 0.0
        name, target = f"performance: {pct:.1f}% of the instructor's kernel in the same run", 100.0
    else:
        pct = bench[0]["pct_of_yardstick"] if bench else 0.0
        name, target = f"performance: {pct:.1f}% of the yardstick", args.perf_target
    all_pass = bool(report and report["pass"] and not error)
    perf = args.perf_points * min(1.0, pct / target) if all_pass and target > 0 else 0.0
    tests.append({"name": f"{name} (full points at {target:g}%)",
                  "score": round(perf, 4), "max_score": args.perf_points,
                  "output": ("only a kernel that passes every shape earns performance points"
                             if not all_pass else
                             f"{gflops:.1f} GFLOPS at {bench[0]['shape']}" if bench else "")})
    # Rounded once, at the end, so that a full score sums to exactly the points available.
    return {"score": round(sum(t["score"] for t in tests), 4), "output": f"graded {note}", "tests": tests}


def make_folder(path):
    """A folder of grade.py's own (marked), replacing one it made before."""
    if os.path.isdir(path):
        shutil.rmtree(path)
    os.makedirs(path)
    with open(os.path.join(path, MARKER), "w") as f:
        f.write("made by tools/grade.py, which deletes and remakes this folder when it grades into "
                "the same --out again\n")


def grade_one(chapter, path, root, work, scratch, args, extra, allowed):
    """Grades one kernel file into `work`; returns (report, error)."""
    if path is None:
        return None, (f"no {chapter.kname} found (looked for chapters/{chapter.ch}/{chapter.kname}, "
                      f"{chapter.kname}, or the file itself)")
    # Read as the grader, which may read what the student may not: a plain file of the submission
    # (no link out of it), and not a big one.
    st = os.stat(path)
    if root and (os.path.islink(path) or not is_inside(os.path.realpath(path), os.path.realpath(root))):
        return None, f"rejected: {os.path.relpath(path, root)} is a link, or lies outside the submission"
    if not stat.S_ISREG(st.st_mode):
        return None, f"rejected: {os.path.basename(path)} is not a plain file"
    if st.st_size > KERNEL_BYTES:
        return None, f"rejected: the kernel file has {st.st_size} bytes, more than {KERNEL_BYTES}"
    with open(path, errors="replace") as f:
        text = f.read()
    with open(os.path.join(work, "kernel_under_test.h"), "w") as f:
        f.write(text)
    why = scan(text, allowed)
    if why:
        return None, "rejected: the kernel file " + why
    build = os.path.join(scratch, "build")
    child, error = chapter.compile(text, build)
    for keep in ("compile.log", "deps.txt"):
        if os.path.exists(os.path.join(build, keep)):
            shutil.copy(os.path.join(build, keep), work)
    if not child:
        return None, error
    launcher = os.path.join(work, "child")
    chapter.launcher(child, launcher, args.time_limit * (os.cpu_count() or 1))
    verdict = os.path.join(scratch, "verdict")
    os.makedirs(verdict)
    try:
        report, error = run_grade(chapter.ch, launcher, work, args.build, args, extra, verdict,
                                  chapter.sandbox.note)
    finally:
        os.remove(launcher)  # it names a child that goes with the scratch folder
    if report and report.get("error"):
        error = report["error"]
    return report, error


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0], allow_abbrev=False)
    ap.add_argument("chapter")
    ap.add_argument("submissions", nargs="+")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--out", default="grades")
    ap.add_argument("--timeout", type=int, default=120, help="seconds per request to the child")
    ap.add_argument("--time-limit", type=int, default=1800, help="seconds per submission")
    ap.add_argument("--gradescope", action="store_true")
    ap.add_argument("--perf-target", type=float, default=None,
                    help="%% of the yardstick that earns all performance points (default: full points "
                         "for matching the instructor's own kernel, timed in the same run)")
    ap.add_argument("--perf-points", type=float, default=20.0)
    ap.add_argument("--correct-points", type=float, default=80.0)
    ap.add_argument("--unsandboxed", action="store_true",
                    help="grade without bubblewrap (every output says so); not for grades that count")
    argv = sys.argv[1:]
    extra = argv[argv.index("--") + 1:] if "--" in argv else []  # for the chapter binary
    args = ap.parse_args(argv[:argv.index("--")] if "--" in argv else argv)
    args.build = os.path.abspath(args.build)
    if "--seed" in extra:  # the seed is the grader's: it names the inputs and the report
        i = extra.index("--seed")
        if i + 1 >= len(extra):
            die("--seed needs a value")
        try:
            args.seed = int(extra[i + 1])
        except ValueError:
            die(f"--seed: expected a whole number, got '{extra[i + 1]}'")
        del extra[i:i + 2]
    for own in ("--out", "--remote", "--grade", "--timeout"):
        if own in extra:
            die(f"{own} after -- is grade.py's to set")
    if "--device" in extra:  # the child would still use the first GPU it sees
        die("--device: grade on another GPU with CUDA_VISIBLE_DEVICES=N instead, which the child's "
            "sandbox passes on")
    if args.seed < 0:
        die("--seed must not be negative")
    if args.perf_target is not None and args.perf_target <= 0:
        die("--perf-target must be positive")
    ch = chapter_dir(args.chapter)
    kname = kernel_name(ch)
    binary = os.path.join(args.build, "chapters", ch)
    if not os.access(binary, os.X_OK):
        die(f"{binary} is not built (build the instructor's tree first: ./tutorial build)")
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
    names = [n for n, _, _ in subs] + ([REFERENCE] if args.perf_target is None else [])
    for n in names:
        d = os.path.join(out, n)
        if os.path.lexists(d) and not (os.path.isdir(d) and not os.path.islink(d)
                                       and os.path.isfile(os.path.join(d, MARKER))):
            die(f"{d} exists and grade.py did not make it (it holds no {MARKER}): move it away or "
                "choose another --out")
    if os.path.lexists(os.path.join(out, "class.csv")) and not os.path.isfile(os.path.join(out, "class.csv")):
        die(f"{os.path.join(out, 'class.csv')} exists and is not a file")

    sandbox = Sandbox(not args.unsandboxed)
    print(f"grade.py: {sandbox.note}", flush=True)
    os.makedirs(out, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="gemm-grade-") as tmp:
        if sandbox.as_nobody:
            os.chmod(tmp, 0o711)  # the sandbox's user may pass through, not list
        chapter = Chapter(ch, kname, args.build, sandbox, tmp)
        allowed = chapter.allowed_includes

        def grade_into(i, name, path, root):
            work = os.path.join(out, name)
            make_folder(work)
            scratch = os.path.join(tmp, f"s{i}")
            os.makedirs(scratch)
            try:
                return grade_one(chapter, path, root, work, scratch, args, extra, allowed)
            finally:
                shutil.rmtree(scratch, ignore_errors=True)

        ref_gflops = None
        if args.perf_target is None:
            report, error = grade_into(0, REFERENCE, os.path.join(ROOT, "chapters", ch, kname), None)
            bench = (report or {}).get("benchmark") or [{}]
            ref_gflops = bench[0].get("gflops", 0.0)
            if error or not (report and report["pass"]) or not ref_gflops:
                die(f"the instructor's own kernel (chapters/{ch}/{kname}) does not pass its grade, so "
                    f"there is nothing to compare speeds with: {error or 'see ' + os.path.join(out, REFERENCE)}",
                    code=1)
            print(f"reference: the instructor's own kernel, {ref_gflops:.1f} GFLOPS at {bench[0]['shape']} "
                  "(full performance points at its speed)", flush=True)

        rows = []
        for i, (name, path, root) in enumerate(subs, 1):
            report, error = grade_into(i, name, path, root)
            bench = (report or {}).get("benchmark") or [{}]
            gflops = bench[0].get("gflops", 0.0)
            row = {"submission": name,
                   "shapes_passed": report["shapes_passed"] if report else 0,
                   "shapes_total": report["shapes_total"] if report else 0,
                   "pass": bool(report and report["pass"] and not error),
                   "gflops": round(gflops, 3),
                   "pct_of_yardstick": round(bench[0].get("pct_of_yardstick", 0.0), 2),
                   "pct_of_reference": round(100.0 * gflops / ref_gflops, 2) if ref_gflops else "",
                   "sandboxed": sandbox.enabled,
                   "error": (error or "").replace("\n", " ")[:1000]}
            rows.append(row)
            work = os.path.join(out, name)
            if args.gradescope:
                with open(os.path.join(work, "results.json"), "w") as f:
                    json.dump(gradescope(report, error, args, ref_gflops, sandbox.note), f, indent=2)
            verdict = "PASS" if row["pass"] else "FAIL"
            detail = f"{row['shapes_passed']}/{row['shapes_total']} shapes"
            if row["gflops"]:
                detail += f", {row['gflops']:.1f} GFLOPS ({row['pct_of_yardstick']:.1f}% of the yardstick"
                detail += f", {row['pct_of_reference']:.1f}% of the reference)" if ref_gflops else ")"
            print(f"[{i}/{len(subs)}] {name}: {verdict}, {detail}" + (f"; {row['error'][:300]}" if error else "")
                  + ("" if sandbox.enabled else " [UNSANDBOXED]"), flush=True)
    with open(os.path.join(out, "class.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    print(f"wrote {os.path.join(out, 'class.csv')}" +
          (" and one results.json per submission" if args.gradescope else "") + f"; {sandbox.note}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

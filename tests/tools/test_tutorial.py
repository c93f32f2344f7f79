#!/usr/bin/env python3
"""The ./tutorial script's own command-line contract, without building anything.

Usage: python3 -m tests.run tests.tools.test_tutorial PATH/TO/tutorial

meson, ninja, nvidia-smi, nvcc, pkg-config, apt-get and sudo are replaced by stubs on PATH that
log how they were called (a GPU is "present" when STUB_GPU holds a compute capability); python3
is the real one, except that a call of tools/grading/grade.py is only logged. Checked: a bad command
line exits 2 with a message before anything is built; colour only on a terminal and never with
NO_COLOR; paths are taken from the caller's directory; a build directory that exists keeps its
options, and a CPU-only build goes to build-cpu/, never into build/; `grade` of a CPU chapter installs
nothing grading does not use and, with -Dcuda=disabled asked for, does not say no GPU was found.
Exit: 0 pass, 1 fail.
"""
import json
import os
import pty
import re
import select
import shutil
import subprocess
import sys
import tempfile

from tests.check import expect
from tools.build import chapters as chapter_list

TUTORIAL = os.path.abspath(sys.argv[1])
ROOT = os.path.dirname(TUTORIAL)
# The GPU chapters the suite can time, from the one list (its default is the last one built);
# FP8 chapters have their own yardstick and are refused.
GPU_CHAPTERS = [c.id for c in chapter_list.load() if c.kind != "cpu" and not c.precision.startswith("fp8")]
FP8_CHAPTERS = [c.id for c in chapter_list.load() if c.precision.startswith("fp8")]


def write_stub(path, text):
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, 0o755)


def make_stubs(bin_dir, log):
    # Each stub appends one line: its name, its working directory, its arguments (JSON).
    logger = (f'#!{sys.executable}\nimport json, os, sys\n'
              f'with open({log!r}, "a") as f:\n'
              f'    f.write(json.dumps([os.path.basename(sys.argv[0]), os.getcwd(), sys.argv[1:]]) + "\\n")\n')
    for name in ("meson", "ninja", "nvcc", "pkg-config", "apt-get", "sudo"):
        write_stub(os.path.join(bin_dir, name), logger)
    write_stub(os.path.join(bin_dir, "nvidia-smi"),
               logger + 'gpu = os.environ.get("STUB_GPU", "")\n'
                        'print(gpu) if gpu else sys.exit(9)\n')
    # python3: a call of tools/grading/grade.py (python3 -m tools.grading.grade) is logged only, with
    # the PYTHONPATH it finds the package by; anything else (make_starter, the script's own
    # snippets) runs for real.
    write_stub(os.path.join(bin_dir, "python3"),
               f'#!{sys.executable}\nimport json, os, sys\n'
               f'if sys.argv[1:3] == ["-m", "tools.grading.grade"]:\n'
               f'    with open({log!r}, "a") as f:\n'
               f'        f.write(json.dumps(["python3", os.getcwd(), sys.argv[1:],\n'
               f'                            os.environ.get("PYTHONPATH", "")]) + "\\n")\n'
               f'    sys.exit(0)\n'
               f'os.execv({sys.executable!r}, [{sys.executable!r}] + sys.argv[1:])\n')


def fake_build_dir(path, cuda="enabled", archs="75,80,86,89,90"):
    """A directory that looks configured: build.ninja and meson's option introspection."""
    os.makedirs(os.path.join(path, "meson-info"), exist_ok=True)
    open(os.path.join(path, "build.ninja"), "w").close()
    with open(os.path.join(path, "meson-info", "intro-buildoptions.json"), "w") as f:
        json.dump([{"name": "cuda", "value": cuda}, {"name": "gpu_archs", "value": archs}], f)


class Env:
    def __init__(self, tmp):
        self.tmp = tmp
        self.bin = os.path.join(tmp, "bin")
        os.makedirs(self.bin)
        self.log = os.path.join(tmp, "calls.log")
        make_stubs(self.bin, self.log)
        self.caller = os.path.join(tmp, "caller")  # where the user runs the script from
        os.makedirs(self.caller)
        # matplotlib fails to import: tools/reporting/plot.py writes results.md alone, at once (the
        # charts are tests/tools/test_report.py's; drawing them here took a second a call).
        self.blocker = os.path.join(tmp, "no-matplotlib")
        os.makedirs(os.path.join(self.blocker, "matplotlib"))
        with open(os.path.join(self.blocker, "matplotlib", "__init__.py"), "w") as f:
            f.write("raise ImportError('blocked by test_tutorial.py')\n")

    def calls(self):
        if not os.path.exists(self.log):
            return []
        with open(self.log) as f:
            return [json.loads(line) for line in f]

    def environ(self, extra):
        env = {k: v for k, v in os.environ.items()
               if k not in ("MESON_ARGS", "GEMM_BUILD_DIR", "GEMM_RESULTS_DIR", "NO_COLOR",
                            "TUTORIAL_WERROR", "STUB_GPU")}
        env["PATH"] = self.bin + os.pathsep + env.get("PATH", "/usr/bin:/bin")
        # Results of `run` never go into the repository from a test.
        env["GEMM_RESULTS_DIR"] = os.path.join(self.tmp, "results")
        env["PYTHONPATH"] = self.blocker
        env.update(extra)
        return env

    def run(self, args, cwd=None, **extra):
        if os.path.exists(self.log):
            os.remove(self.log)
        p = subprocess.run([TUTORIAL, *args], cwd=cwd or self.caller, env=self.environ(extra),
                           capture_output=True, text=True, timeout=120)
        return p.returncode, p.stdout, p.stderr

    def run_on_terminal(self, args, **extra):
        """stdout and stderr on a pseudo-terminal; returns (rc, everything printed)."""
        master, slave = pty.openpty()
        p = subprocess.Popen([TUTORIAL, *args], cwd=self.caller, env=self.environ(extra),
                             stdin=subprocess.DEVNULL, stdout=slave, stderr=slave)
        os.close(slave)
        out = b""
        while True:
            ready, _, _ = select.select([master], [], [], 60)
            if not ready:
                break
            try:
                chunk = os.read(master, 4096)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            out += chunk
        os.close(master)
        return p.wait(timeout=60), out.decode(errors="replace")


def meson_calls(calls):
    return [c for c in calls if c[0] == "meson" and c[2][:1] in (["setup"], ["configure"])]


with tempfile.TemporaryDirectory() as tmp:
    env = Env(tmp)
    nonempty = os.path.join(tmp, "nonempty")
    os.makedirs(nonempty)
    open(os.path.join(nonempty, "x"), "w").close()
    bad_shapes = os.path.join(tmp, "bad_shapes.txt")
    with open(bad_shapes, "w") as f:
        f.write("# M N K category\n4096 x 4096 square\n")

    # --- Usage errors: exit 2, a message on stderr naming the problem, nothing run or built. ---
    usage_cases = [
        ([], "Usage"),
        (["bogus"], "no command 'bogus'"),
        (["run", "99"], "no chapter '99'"),
        (["run", "01", "xx"], "no chapter 'xx'"),
        (["starter"], "usage: ./tutorial starter"),
        (["starter", "02"], "usage: ./tutorial starter"),
        (["starter", "99", "hw"], "no chapter '99'"),
        (["starter", "02", nonempty], "not an empty folder"),
        (["grade"], "usage: ./tutorial grade"),
        (["grade", "99", "sub"], "no chapter '99'"),
        (["grade", "02", "/missing"], "no submission '/missing'"),
        (["sweep"], "usage: ./tutorial sweep"),
        (["sweep", "--chapter", "99"], "no chapter '99'"),
        (["suite", "99"], "no chapter '99'"),
        (["suite", "01"], "01_cpu_naive is a CPU chapter"),
        (["suite", "12", "13"], "one chapter at a time"),
        (["suite", "--bogus"], "unknown option '--bogus'"),
        (["suite", "--shapes"], "--shapes needs a value"),
        (["suite", "--shapes", "/missing.txt"], "/missing.txt: cannot read the shape list"),
        (["suite", "--shapes", bad_shapes], "bad_shapes.txt:2: N is 'x'"),
        (["suite", "--copy-gbs", "-1"], "--copy-gbs"),
        (["suite", "--", "--sizes", "5"], "the suite chooses the sizes"),
        (["test", "extra"], "test takes no arguments"),
        (["build", "extra"], "build takes no arguments"),
        (["setup", "extra"], "setup takes no arguments"),
        # The chapter options, by the harness's rules (tools/build/chapter_options.py), before any
        # build.
        (["run", "--", "--sizes", "abc"], "--sizes 'abc': expected a whole number"),
        (["run", "01", "--", "--reps", "0"], "--reps: 0 is outside [1, 100000]"),
        (["run", "--", "--bogus"], "unknown argument '--bogus'"),
    ]
    for args, message in usage_cases:
        rc, out, err = env.run(args)
        expect(rc == 2, f"./tutorial {' '.join(args)} exits 2 (got {rc}; stderr {err!r})")
        expect(message in err, f"./tutorial {' '.join(args)} says {message!r} on stderr (got {err!r})")
        calls = env.calls()
        expect(not calls, f"./tutorial {' '.join(args)} runs nothing before failing (ran {calls})")
    rc, out, err = env.run(["help"])
    expect(rc == 0 and "Usage" in out, f"./tutorial help exits 0 with the usage (got {rc})")

    # --- Colour: only on a terminal, never with NO_COLOR. ---
    build = os.path.join(tmp, "colour-build")
    fake_build_dir(build)
    rc, out, err = env.run(["build"], GEMM_BUILD_DIR=build)
    expect(rc == 0 and "[tutorial]" in out, f"build with stubs succeeds and says so (rc {rc}, {out!r}, {err!r})")
    expect("\033" not in out + err, f"no colour codes into a pipe (got {out!r} {err!r})")
    rc, out, err = env.run(["run", "99"])
    expect("\033" not in err, f"no colour codes in an error into a pipe (got {err!r})")
    rc, text = env.run_on_terminal(["build"], GEMM_BUILD_DIR=build)
    expect(rc == 0 and "\033[1m[tutorial]" in text, f"colour on a terminal (rc {rc}, {text!r})")
    rc, text = env.run_on_terminal(["run", "99"])
    expect(rc == 2 and "\033[1;31m" in text, f"a coloured error on a terminal (rc {rc}, {text!r})")
    for args in (["build"], ["run", "99"]):
        rc, text = env.run_on_terminal(args, GEMM_BUILD_DIR=build, NO_COLOR="1")
        expect("[tutorial]" in text and "\033" not in text,
               f"NO_COLOR=1: no colour on a terminal either ({args}: {text!r})")

    # --- Paths are taken from the caller's directory. ---
    rc, out, err = env.run(["starter", "02", "relhw"])
    kernel = os.path.join(env.caller, "relhw", "chapters", "02_cpu_tiled", "kernel.hpp")
    expect(rc == 0 and os.path.exists(kernel),
           f"starter 02 relhw writes into the caller's directory (rc {rc}, {err!r})")
    expect(not os.path.exists(os.path.join(ROOT, "relhw")), "starter 02 relhw writes nothing into the repository")
    if os.path.exists(kernel):
        expect("TODO" in open(kernel).read(), "the starter's kernel is stubbed")
    shutil.rmtree(os.path.join(ROOT, "relhw"), ignore_errors=True)

    os.makedirs(os.path.join(env.caller, "subs", "alice"))
    rc, out, err = env.run(["grade", "02", "subs", "--out", "marks"], GEMM_BUILD_DIR="rel/build")
    calls = env.calls()
    setups = [c for c in calls if c[0] == "meson" and c[2][:1] == ["setup"]]
    expect(len(setups) == 1 and setups[0][1] == env.caller and setups[0][2][1] == "rel/build",
           f"a relative GEMM_BUILD_DIR is set up from the caller's directory (calls {setups})")
    grades = [c for c in calls if c[0] == "python3"]
    expect(len(grades) == 1 and grades[0][1] == env.caller,
           f"grade.py runs in the caller's directory, where 'subs' and 'marks' are (calls {grades})")
    if grades:
        args = grades[0][2]
        expect(args[:3] == ["-m", "tools.grading.grade", "02_cpu_tiled"]
               and grades[0][3].split(os.pathsep)[0] == ROOT and args[-3:] == ["subs", "--out", "marks"],
               f"the repository's grade.py gets the chapter and the caller's paths as typed "
               f"(got {args}, PYTHONPATH {grades[0][3]!r})")

    # Without a SUBMISSION, grade takes the repository the script is in.
    rc, out, err = env.run(["grade", "02", "--seed", "5"], GEMM_BUILD_DIR=build)
    grades = [c[2] for c in env.calls() if c[0] == "python3"]
    expect(len(grades) == 1 and grades[0][5:] == [ROOT, "--seed", "5"],
           f"grade 02 --seed 5 grades this repository (grade.py got {grades})")
    # The chapter's grading binary, which a plain build leaves out, is built where the chapter is.
    ninjas = [c[2] for c in env.calls() if c[0] == "ninja"]
    expect(not any("chapters/grade_02_cpu_tiled" in n for n in ninjas),
           f"grade 02 builds no grading binary where chapter 02 is not built (ninja got {ninjas})")
    os.makedirs(os.path.join(build, "chapters"), exist_ok=True)
    write_stub(os.path.join(build, "chapters", "02_cpu_tiled"), "#!/bin/sh\n")
    rc, out, err = env.run(["grade", "02", "--seed", "5"], GEMM_BUILD_DIR=build)
    ninjas = [c[2] for c in env.calls() if c[0] == "ninja"]
    expect(any(n[-1:] == ["chapters/grade_02_cpu_tiled"] for n in ninjas),
           f"grade 02 builds chapter 02's grading binary (ninja got {ninjas})")

    # grade on a CPU chapter installs nothing grading does not use, and a build with -Dcuda=disabled
    # asked for does not say that no GPU was found. matplotlib is missing here (the blocker), so
    # `build` installs it: an install is seen when there is one.
    def installs():
        return [c[2] for c in env.calls() if c[0] in ("apt-get", "sudo") and "install" in c[2]]

    rc, out, err = env.run(["build"], GEMM_BUILD_DIR=os.path.join(tmp, "fresh-build"))
    expect(any("python3-matplotlib" in a for a in installs()),
           f"build installs the charts' matplotlib where it is missing (installs {installs()})")
    for label, extra in (("no GPU", {}), ("-Dcuda=disabled", {"MESON_ARGS": "-Dcuda=disabled", "STUB_GPU": "9.0"})):
        rc, out, err = env.run(["grade", "02", "subs"], GEMM_BUILD_DIR=os.path.join(tmp, "fresh-grade-" + label), **extra)
        unneeded = [a for a in installs() if "python3-matplotlib" in a or "doctest-dev" in a]
        expect(rc == 0 and not unneeded,
               f"grade 02 ({label}) installs nothing grading does not use (rc {rc}, installs {installs()})")
        said = "no NVIDIA GPU found" in out + err
        expect(said == (label == "no GPU"),
               f"grade 02 ({label}) says 'no NVIDIA GPU found' only where it looked for a GPU and found none: {out!r}")
    expect("(CPU chapters only: -Dcuda=disabled)" in out, f"-Dcuda=disabled asked for is said as such: {out!r}")

    rc, out, err = env.run(["run", "01"], GEMM_BUILD_DIR=build, GEMM_RESULTS_DIR="myresults")
    expect(os.path.isdir(os.path.join(env.caller, "myresults")),
           f"a relative GEMM_RESULTS_DIR is created in the caller's directory (rc {rc}, {err!r})")
    # With CSVs in the results directory, the charts and results.md are drawn by the repository's
    # tools/reporting/plot.py, whatever the caller's directory.
    # A stand-in chapter binary writes a CSV of the harness's columns into its --out.
    run_build = os.path.join(tmp, "run-build")
    fake_build_dir(run_build)
    os.makedirs(os.path.join(run_build, "chapters"))
    write_stub(os.path.join(run_build, "chapters", "01_cpu_naive"),
               f'#!{sys.executable}\nimport os, sys\na = sys.argv[1:]\n'
               f'out = [x for i, x in enumerate(a) if i and a[i - 1] == "--out"][-1]\n'
               f'os.makedirs(out, exist_ok=True)\n'
               f'open(os.path.join(out, "01_cpu_naive.csv"), "w").write('
               f'"device,chapter,precision,M,N,K,gflops\\nCPU,01_cpu_naive,fp32,64,64,64,1.5\\n")\n')
    rc, out, err = env.run(["run", "01"], GEMM_BUILD_DIR=run_build, GEMM_RESULTS_DIR="myresults")
    expect(os.path.exists(os.path.join(env.caller, "myresults", "results.md")),
           f"run draws results.md with the repository's tools/reporting/plot.py from any directory "
           f"(rc {rc}, {out[-300:]!r}, {err[-300:]!r})")
    # The chapters' own --out: the results go there, and run draws and reports that folder.
    rc, out, err = env.run(["run", "01", "--", "--sizes", "64", "--out", "mine"],
                           GEMM_BUILD_DIR=run_build, GEMM_RESULTS_DIR="myresults2")
    mine = os.path.join(env.caller, "mine")
    expect(rc == 0 and os.path.exists(os.path.join(mine, "01_cpu_naive.csv"))
           and os.path.exists(os.path.join(mine, "results.md"))
           and not os.path.exists(os.path.join(env.caller, "myresults2", "01_cpu_naive.csv")),
           f"run -- --out mine: the CSV and results.md in mine/ (rc {rc}, {out[-300:]!r}, {err[-300:]!r})")
    expect("results: mine/" in out and "myresults2" not in out,
           f"run -- --out mine reports mine/ ({out[-300:]!r})")

    # --- suite: the GPU chapter it needs, the default chapter, the caller's paths. ---
    suite_build = os.path.join(tmp, "suite-build")
    fake_build_dir(suite_build)
    rc, out, err = env.run(["suite"], GEMM_BUILD_DIR=suite_build)
    expect(rc == 1 and "the suite needs a GPU chapter" in err and "no NVIDIA GPU found" in err,
           f"suite without a GPU chapter built: a clear message (rc {rc}, {err!r})")
    last = GPU_CHAPTERS[-1]
    for ch in FP8_CHAPTERS:  # taken (on their own shape list), so asked for where not built
        rc, out, err = env.run(["suite", ch[:2]], GEMM_BUILD_DIR=suite_build, STUB_GPU="8.6")
        expect(rc == 1 and f"{ch} is not built" in err,
               f"suite {ch[:2]} where it is not built: a clear message (rc {rc}, {err!r})")
    rc, out, err = env.run(["suite", last[:2]], GEMM_BUILD_DIR=suite_build, STUB_GPU="8.6")
    expect(rc == 1 and f"{last} is not built" in err,
           f"suite {last[:2]} where it is not built: a clear message (rc {rc}, {err!r})")
    # Stand-in chapter binaries: the harness's CSV (a few of its columns) for the given sizes.
    os.makedirs(os.path.join(suite_build, "chapters"))
    for ch in (GPU_CHAPTERS[0], last):
        write_stub(os.path.join(suite_build, "chapters", ch),
                   f'#!{sys.executable}\nimport os, sys\na = sys.argv[1:]\n'
                   f'rows = ["device,chapter,precision,M,N,K,beta,gflops,yardstick,'
                   f'yardstick_gflops,pct_of_yardstick,ms_median,pass"]\n'
                   f'for s in a[a.index("--sizes") + 1].split(","):\n'
                   f'    rows.append("G,{ch},fp16," + s.replace("x", ",") + ",0,1,cuBLAS,2,50,1,true")\n'
                   f'open(os.path.join(a[a.index("--out") + 1], "{ch}.csv"), "w").write("\\n".join(rows))\n')
    with open(os.path.join(env.caller, "my_shapes.txt"), "w") as f:
        f.write("7 8 9 tiny\n")
    rc, out, err = env.run(["suite", "--shapes", "my_shapes.txt", "--out", "my_suite"],
                           GEMM_BUILD_DIR=suite_build)
    made = os.path.join(env.caller, "my_suite", f"suite_{last}.csv")
    expect(rc == 0 and os.path.exists(made),
           f"suite runs the last GPU chapter built, with the caller's paths (rc {rc}, "
           f"{out[-300:]!r}, {err[-300:]!r})")
    expect("geomean of the median % of cuBLAS: 50.0% over 1 shapes" in out,
           f"suite prints the geomean ({out[-300:]!r})")

    # --- A build directory that exists keeps its options. ---
    for gpu in ("", "86"):
        for args in (["build"], ["run", "01"], ["grade", "02", "subs"], ["sweep", "--chapter", "10"],
                     ["suite"]):
            rc, out, err = env.run(args, GEMM_BUILD_DIR=build, STUB_GPU=gpu)
            calls = meson_calls(env.calls())
            expect(not calls, f"./tutorial {' '.join(args)} ({'GPU ' + gpu if gpu else 'no GPU'}) leaves "
                              f"the options of an existing build alone (meson calls: {calls})")
            built = [c for c in env.calls() if c[0] == "ninja"]
            expect(built and built[0][2][-1] == build, f"./tutorial {' '.join(args)} builds in {build} ({built})")
    rc, out, err = env.run(["build"], GEMM_BUILD_DIR=build, MESON_ARGS="-Dgpu_archs=86")
    calls = meson_calls(env.calls())
    expect(len(calls) == 1 and calls[0][2] == ["configure", build, "-Dgpu_archs=86"],
           f"MESON_ARGS reconfigures an existing build with exactly what it says (calls {calls})")
    if os.path.exists("/usr/include/doctest/doctest.h"):  # else `test` would install doctest-dev
        rc, out, err = env.run(["test"], GEMM_BUILD_DIR=build)
        calls = meson_calls(env.calls())
        expect(len(calls) == 1 and calls[0][2] == ["configure", build, "-Dtests=enabled"],
               f"test only turns the tests on in an existing build (calls {calls})")
        fresh = os.path.join(tmp, "fresh-test-build")
        for gpu, arch in (("", "90"), ("8.6", "86")):
            shutil.rmtree(fresh, ignore_errors=True)
            rc, out, err = env.run(["test"], GEMM_BUILD_DIR=fresh, STUB_GPU=gpu)
            calls = meson_calls(env.calls())
            expect(len(calls) == 1 and calls[0][2][:3] == ["setup", fresh, ROOT]
                   and f"-Dgpu_archs={arch}" in calls[0][2] and "-Dtests=enabled" in calls[0][2],
                   f"test on a new build ({'GPU ' + gpu if gpu else 'no GPU'}) compiles for {arch} (calls {calls})")
    else:
        print("not checked: `test` (doctest is not in /usr/include, and the script would install it)")

    # Without GEMM_BUILD_DIR: a CPU-only build goes to build-cpu/, never into build/.
    rc, out, err = env.run(["build"])
    calls = meson_calls(env.calls())
    expect(all(c[2][1] == os.path.join(ROOT, "build-cpu") for c in calls)
           and all("-Dcuda=disabled" in c[2] for c in calls),
           f"no GPU: the CPU-only build is set up in build-cpu/ (calls {calls})")
    built = [c for c in env.calls() if c[0] == "ninja"]
    expect(built and built[0][2][-1] == os.path.join(ROOT, "build-cpu"), f"no GPU: ninja builds build-cpu/ ({built})")
    rc, out, err = env.run(["build"], STUB_GPU="9.0")
    calls = meson_calls(env.calls())
    expect(all(c[2][1] == os.path.join(ROOT, "build") for c in calls)
           and all("-Dcuda=disabled" not in c[2] for c in calls),
           f"with a GPU: the build is build/, with the GPU chapters (calls {calls})")

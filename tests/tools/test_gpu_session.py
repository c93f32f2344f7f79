#!/usr/bin/env python3
"""`tools/measuring/gpu_session.sh ladder` end to end without a GPU: stand-ins for the chapter
binaries, tools/ceilings, nvidia-smi, ncu, meson and ninja, in a copy of the repository's tools and
list.

Usage: python3 -m tests.run tests.tools.test_gpu_session REPOSITORY_ROOT

Checked: the ladder writes one folder named for the GPU (plots/h200 for an "NVIDIA H200") with
the stamp, every chapter of the list (a CSV and its output), the suites of the last fp16 and fp8
chapters, the ceilings, one ncu log per GPU chapter with the same metrics and `--launch-count`,
the profile table and results.md; each step prints its estimate and its time; a second run
(ladder1 then ladder2) leaves no file of a chapter the list no longer has; nothing is written
into the repository itself.
Exit: 0 pass, 1 fail.
"""
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile

from tests.check import expect
from tools.build import chapters as chapter_list

ROOT = os.path.abspath(sys.argv[1])


def stub(path, body):
    with open(path, "w") as f:
        f.write(f"#!{sys.executable}\nimport json, os, sys\n" + body)
    os.chmod(path, 0o755)


listed = chapter_list.load()
gpu = [c for c in listed if c.kind != "cpu"]

CHAPTER = r'''
a = sys.argv[1:]
def opt(name, default):
    return a[a.index(name) + 1] if name in a else default
me = os.path.basename(sys.argv[0])
out = opt("--out", "plots/latest")
os.makedirs(out, exist_ok=True)
sizes = opt("--sizes", os.environ.get("STUB_SIZES", "512,4096"))
rows = ["device,chapter,precision,M,N,K,beta,ms_median,gflops,yardstick,yardstick_gflops,"
        "pct_of_yardstick,pct_min,pct_max,rounds,check,pass,l2_flush"]
for s in sizes.split(","):
    d = s.split("x") if "x" in s else [s] * 3
    rows.append(f"NVIDIA H200,{me},fp16,{d[0]},{d[1]},{d[2]},0,1,500000,cuBLAS,600000,83.3,"
                f"83.0,83.6,{opt('--rounds', '5')},sample,true,yes")
open(os.path.join(out, me + ".csv"), "w").write("\n".join(rows) + "\n")
open(os.path.join(out, "peaks.csv"), "w").write(
    "device,fp32_gflops,fp16_tensor_gflops,bandwidth_gbs\nNVIDIA H200,60000,990000,4800\n")
print(me, "ran with", " ".join(a))
'''

NCU = r'''
a = sys.argv[1:]
with open(os.environ["STUB_LOG"], "a") as f:
    f.write(json.dumps(a) + "\n")
if "--query-metrics" in a:
    sys.exit(0)  # an empty list: every metric is kept
log = a[a.index("--log-file") + 1]
metrics = a[a.index("--metrics") + 1].split(",")
unknown = os.environ.get("STUB_UNKNOWN", "")
if unknown and unknown in metrics:  # as ncu does with a metric it does not know
    open(log, "w").write(f"==ERROR== Failed to find metric {unknown}\n")
    sys.exit(1)
lines = ['"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream",'
         '"Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit",'
         '"Metric Value"']
for kid, name, t in ((0, "convert_kernel", "900"), (1, "main_kernel", "250,000")):
    for m in metrics:
        unit = "nsecond" if m.startswith("gpu__time") else "byte" if "bytes" in m else "%"
        v = t if m.startswith("gpu__time") else ("30.5" if "long_scoreboard" in m else "1.5")
        lines.append(f'"{kid}","1","x","h","{name}(int)","1","7","(1,1,1)","(1,1,1)","0","9.0",'
                     f'"Command line profiler metrics","{m}","{unit}","{v}"')
open(log, "w").write("==PROF== Connected\n" + "\n".join(lines) + "\n")
'''

with tempfile.TemporaryDirectory() as tmp:
    repo = os.path.join(tmp, "repo")
    shutil.copytree(os.path.join(ROOT, "tools"), os.path.join(repo, "tools"),
                    ignore=shutil.ignore_patterns("__pycache__"))
    os.makedirs(os.path.join(repo, "chapters"))
    shutil.copy(os.path.join(ROOT, "chapters", "chapters.txt"), os.path.join(repo, "chapters"))
    for c in listed:  # the kernel files: ncu's filter is read from them
        kernel = chapter_list.kernel_file(c.id)
        os.makedirs(os.path.join(repo, os.path.dirname(kernel)), exist_ok=True)
        shutil.copy(os.path.join(ROOT, kernel), os.path.join(repo, kernel))
    build = os.path.join(repo, "build")
    os.makedirs(os.path.join(build, "chapters"))
    os.makedirs(os.path.join(build, "tools"))
    open(os.path.join(build, "build.ninja"), "w").close()
    for c in listed + [chapter_list.Chapter("99_gone", "hopper", "fp16", 90, 90, [], "", "")]:
        # (99_gone: built, but not on the list: the ladder must not run it)
        stub(os.path.join(build, "chapters", c.id), CHAPTER)
    stub(os.path.join(build, "tools", "ceilings"),
         'a = sys.argv[1:]\nout = a[a.index("--out") + 1]\n'
         'open(os.path.join(out, "ceilings.csv"), "w").write("device,ceiling,value,unit,method\\n'
         'NVIDIA H200,copy_bandwidth,4200,GB/s,copy\\n")\nprint("what a ceiling is")\n')
    bin_dir = os.path.join(tmp, "bin")
    os.makedirs(bin_dir)
    log = os.path.join(tmp, "calls.log")
    stub(os.path.join(bin_dir, "ncu"), NCU)
    stub(os.path.join(bin_dir, "nvidia-smi"),
         'print("NVIDIA H200" if "--query-gpu=name" in sys.argv else "NVIDIA H200, 580.1")\n')
    stub(os.path.join(bin_dir, "meson"), "pass\n")
    targets = "".join(f"chapters/{c.id}: CUSTOM_COMMAND\\n" for c in listed)
    stub(os.path.join(bin_dir, "ninja"),
         'with open(os.environ["STUB_LOG"], "a") as f:\n'
         '    f.write(json.dumps(["ninja"] + sys.argv[1:]) + "\\n")\n'
         'if "-t" in sys.argv:\n'
         f'    sys.stdout.write("{targets}tools/ceilings: phony\\ntests/test_gpu: phony\\n'
         f'chapters/01_cpu_naive.p/main.cpp.o: CXX\\n")\n')
    blocker = os.path.join(tmp, "no-matplotlib", "matplotlib")
    os.makedirs(blocker)
    open(os.path.join(blocker, "__init__.py"), "w").write("raise ImportError('blocked')\n")
    env = {k: v for k, v in os.environ.items() if k not in ("OUT", "CHAPTERS", "ROUNDS", "SIZES")}
    env.update(PATH=bin_dir + os.pathsep + env.get("PATH", "/usr/bin:/bin"), STUB_LOG=log,
               PYTHONPATH=os.path.dirname(blocker), GEMM_SOURCE_COMMIT="abcdef123456",
               GEMM_SOURCE_DIRTY="false")
    misc = "smsp__warp_issue_stalled_misc_per_warp_active.pct"
    script = os.path.join(repo, "tools", "measuring", "gpu_session.sh")

    p = subprocess.run(["bash", script, "ladder"], capture_output=True, text=True,
                       env=dict(env, STUB_UNKNOWN=misc), timeout=600, cwd=tmp)
    out = os.path.join(repo, "plots", "h200")
    expect(p.returncode == 0, f"ladder exits 0 ({p.returncode}; {p.stderr[-500:]!r})")
    expect(os.path.isdir(out), f"ladder writes plots/h200 for an NVIDIA H200 ({p.stdout[-800:]!r})")
    stamp = open(os.path.join(out, "stamp.txt")).read() if os.path.exists(
        os.path.join(out, "stamp.txt")) else ""
    expect("commit=abcdef123456\ndirty=no\n" in stamp and
           "command=tools/measuring/gpu_session.sh ladder" in stamp,
           f"stamp.txt: outside git, the commit the caller gives, and the command ({stamp!r})")
    expect(os.path.exists(os.path.join(out, "session.log")) and "estimate:" in open(
        os.path.join(out, "session.log")).read(), "the session's log beside the results")
    for c in listed:
        expect(os.path.exists(os.path.join(out, c.id + ".csv")) and
               os.path.exists(os.path.join(out, c.id + ".txt")),
               f"{c.id}: its CSV and output in plots/h200")
    suites = [ids[-1] for ids in ([g.id for g in gpu if g.precision.startswith(p_)]
                                  for p_ in ("fp16", "fp8")) if ids]
    for ch in suites:
        expect(os.path.exists(os.path.join(out, "suite", ch, f"suite_{ch}.csv")),
               f"the suite of {ch} in plots/h200/suite/{ch}/")
    expect(os.path.exists(os.path.join(out, "ceilings.csv")), "the ceilings in plots/h200")
    calls = [json.loads(l) for l in open(log)] if os.path.exists(log) else []
    profiled = [c for c in calls if "--log-file" in c]
    expect(len(profiled) == len(gpu) + 1 and misc in profiled[0][profiled[0].index("--metrics") + 1]
           and all(misc not in c[c.index("--metrics") + 1] for c in profiled[1:]),
           f"ncu once per GPU chapter of the list, once more without a metric it did not know "
           f"({len(profiled)} for {len(gpu)}; a binary not on the list is not run)")
    expect(len({c[c.index("--metrics") + 1] for c in profiled[1:]}) == 1 and all(
        "--launch-count" in c and "--clock-control" in c and "4096" in c for c in profiled),
        "the same metrics, a launch count, the clocks left alone, at 4096, for every chapter")
    first = next((c for c in profiled if any(gpu[0].id in a for a in c)), [])
    expect("-k" in first and first[first.index("-k") + 1].startswith("regex:"),
           f"ncu profiles the chapter's own kernels (-k regex:...): {first[:12]}")
    builds = [c[1:] for c in calls if c[0] == "ninja" and "-t" not in c]
    expect(builds and all(f"chapters/{c.id}" in builds[0] for c in listed) and
           "tools/ceilings" in builds[0] and "tests/test_gpu" not in builds[0] and
           not any(".p/" in t for t in builds[0]),
           f"the ladder builds the chapters and the tools it runs, not the tests ({builds[:1]})")
    prof = os.path.join(out, "ncu", "profile.csv")
    rows = list(csv.DictReader(open(prof))) if os.path.exists(prof) else []
    expect(len(rows) >= len(gpu) and all(r["kernel"] == "main_kernel" and
                                         r["stall_1"] == "long_scoreboard" for r in rows),
           f"profile.csv: each chapter's longest kernel and its largest stall ({rows[:1]})")
    expect(os.path.exists(os.path.join(out, "results.md")), "results.md drawn by tools/reporting/plot.py")
    for step in ("bench", "suites", "ceilings", "Nsight Compute", "charts"):
        expect(step in p.stdout, f"the log names the step {step}")
    expect(p.stdout.count("estimate: ") >= 5 and p.stdout.count("took ") >= 5,
           f"every step prints its estimate and its time ({p.stdout.count('estimate: ')}, "
           f"{p.stdout.count('took ')})")
    expect("check: " in p.stdout, "the check step ran")

    # ladder1 then ladder2 with fewer rounds and sizes: a chapter gone from the list leaves
    # no file behind (99_gone stays built, but a file of an earlier run must not stay).
    open(os.path.join(out, "98_old.csv"), "w").write("chapter,M,N,K,gflops\n98_old,1,1,1,1\n")
    env2 = dict(env, ROUNDS="3", SIZES="4096,8192")
    p1 = subprocess.run(["bash", script, "ladder1"], capture_output=True, text=True, env=env2,
                        timeout=600, cwd=tmp)
    pack = os.path.join(tmp, "back", "h200.tgz")
    os.makedirs(os.path.dirname(pack))
    p2 = subprocess.run(["bash", script, "ladder2"], capture_output=True, text=True,
                        env=dict(env2, PACK=pack), timeout=600, cwd=tmp)
    listing = subprocess.run(["tar", "-tzf", pack], capture_output=True, text=True).stdout.split()
    expect("h200/ncu/profile.csv" in listing and "h200/stamp.txt" in listing and
           f"h200/{gpu[0].id}.csv" in listing,
           f"PACK: the whole folder in one archive ({listing[:8]})")
    expect(p1.returncode == 0 and p2.returncode == 0,
           f"ladder1 and ladder2 exit 0 ({p1.returncode}, {p2.returncode}; {p2.stderr[-300:]!r})")
    expect(not os.path.exists(os.path.join(out, "98_old.csv")),
           "ladder1 clears the chapter files of an earlier run")
    gpu_csv = os.path.join(out, gpu[0].id + ".csv")
    rows = list(csv.DictReader(open(gpu_csv))) if os.path.exists(gpu_csv) else []
    expect([r["M"] for r in rows] == ["4096", "8192"] and all(r["rounds"] == "3" for r in rows),
           f"SIZES and ROUNDS reach the GPU chapters ({[(r['M'], r['rounds']) for r in rows]})")
    cpu_csv = os.path.join(out, listed[0].id + ".csv")
    rows = list(csv.DictReader(open(cpu_csv))) if os.path.exists(cpu_csv) else []
    expect(rows and [r["M"] for r in rows] == ["512", "4096"] and rows[0]["rounds"] == "5",
           f"the CPU chapters keep their own sizes and rounds (the stand-in's defaults here: "
           f"{[(r['M'], r['rounds']) for r in rows]})")
    expect(not os.path.exists(os.path.join(out, "99_gone.csv")),
           "a chapter not on the list: not run")
    expect("ncu" not in p1.stdout.lower() and "Nsight Compute" in p2.stdout,
           "ladder1 profiles nothing, ladder2 profiles")
    # ladder2 on a copy that lacks ladder1's results (OUT's stamp names another tree): exit 2
    # before anything is measured.
    stamp_path = os.path.join(out, "stamp.txt")
    stamp_text = open(stamp_path).read()
    open(stamp_path, "w").write("commit=0123456789ab\ndirty=no\n")
    p3 = subprocess.run(["bash", script, "ladder2"], capture_output=True, text=True, env=env2,
                        timeout=600, cwd=tmp)
    open(stamp_path, "w").write(stamp_text)
    expect(p3.returncode == 2 and "ladder1" in p3.stderr + p3.stdout and
           "shape suites" not in p3.stdout,
           f"ladder2 stops before the suites when OUT holds another tree's run "
           f"({p3.returncode}, {(p3.stdout + p3.stderr)[-300:]!r})")
    expect(not os.path.exists(os.path.join(ROOT, "plots", "h200", "stamp.txt")) or
           os.path.getmtime(os.path.join(ROOT, "plots", "h200", "stamp.txt")) < os.path.getmtime(
               log), "nothing written into the repository")

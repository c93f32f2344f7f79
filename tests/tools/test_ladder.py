#!/usr/bin/env python3
"""The ladder run's bookkeeping without a GPU: tools/measuring/ladder.py and
`tools/measuring/gpu_session.sh plan`.

Usage: python3 -m tests.run tests.tools.test_ladder REPOSITORY_ROOT

Checked: the plan names every step with a time and a total, from the chapter list; the suites are
the last fp16 and fp8 chapters of the list; the metric list holds every metric of the profile and
drops what ncu does not list; the profile table picks each chapter's longest kernel and its two
largest stalls (never `selected`) from ncu's CSV, and refuses values in scaled units; the stamp
names this commit and `check` fails a CSV of another commit or of a dirty tree.
Exit: 0 pass, 1 fail.
"""
import csv
import os
import subprocess
import sys
import tempfile

from tests.check import expect
from tools import python_env
from tools.build import chapters as chapter_list
from tools.measuring import ladder

ROOT = os.path.abspath(sys.argv[1])
LADDER = [sys.executable, "-m", "tools.measuring.ladder"]


def run(*args, cwd=ROOT, env=None):
    p = subprocess.run(list(args), capture_output=True, text=True, cwd=cwd, env=python_env(env),
                       timeout=120)
    return p.returncode, p.stdout, p.stderr


chapters = chapter_list.load()

# --- plan --------------------------------------------------------------------------------------
rc, out, err = run(*LADDER, "plan")
lines = out.splitlines()
for step in ("build", "bench", "suites", "ceilings", "ncu", "plot", "total"):
    expect(any(l.startswith(step) and "~" in l for l in lines), f"plan names {step} with a time")
expect(rc == 0, f"plan exits 0 ({rc}, {err!r})")
expect(f"{len(chapters)} chapters" in out, f"plan's bench counts the list's chapters ({out!r})")
gpu = [c for c in chapters if c.kind != "cpu"]
expect(f"{len(gpu)} GPU chapters" in out, f"plan's ncu counts the GPU chapters ({out!r})")
rc3, out3, _ = run(*LADDER, "plan", "--steps", "bench", "--rounds", "1",
                   "--sizes", "4096")
rc5, out5, _ = run(*LADDER, "plan", "--steps", "bench", "--rounds", "5")
secs = lambda text: sum(float(x) * m for x, m in zip(text.split("~")[1].split()[0:3:2], (60, 1)))
expect(rc3 == 0 and rc5 == 0 and "1 rounds" in out3 and "5 rounds" in out5,
       f"plan takes --rounds and --sizes ({out3!r}, {out5!r})")
for args, word in [(["plan", "--steps", "nope"], "no step 'nope'"), (["plan", "--rounds", "0"],
                   "--rounds"), (["plan", "--sizes", "abc"], "--sizes"),
                   (["plan", "--chapters", "99"], "no chapter 99"), (["bogus"], "bad command")]:
    rc, out, err = run(*LADDER, *args)
    expect(rc == 2 and word in err, f"ladder.py {' '.join(args)}: exit 2 naming {word!r} "
                                    f"(rc {rc}, {err!r})")
env = dict(os.environ, PATH=os.environ.get("PATH", ""))
env.pop("OUT", None)
with tempfile.TemporaryDirectory() as tmp:
    rc, out, err = run("bash", os.path.join(ROOT, "tools", "measuring", "gpu_session.sh"), "plan", "ladder",
                       env=dict(env, OUT=os.path.join(tmp, "never")))
    expect(rc == 0 and "total" in out and "ncu" in out and "bench" in out,
           f"gpu_session.sh plan ladder prints the plan (rc {rc}, {out!r}, {err!r})")
    expect(not os.path.exists(os.path.join(tmp, "never")), "plan writes nothing")

# --- suites: the last fp16 and the last fp8 chapter -----------------------------------------------
rc, out, err = run(*LADDER, "suites")
want = [[c.id for c in gpu if c.precision.startswith(p)][-1] for p in ("fp16", "fp8")
        if any(c.precision.startswith(p) for c in gpu)]
expect(rc == 0 and out.split() == want, f"suites are {want} (got {out.split()})")

# --- kernels: the chapter's own __global__ functions, for ncu's filter ----------------------------
for c in gpu:
    rc, out, err = run(*LADDER, "kernels", c.id)
    text = open(os.path.join(ROOT, chapter_list.kernel_file(c.id))).read()
    names = out.strip().split("|") if out.strip() else []
    expect(rc == 0 and all(n in text and "__global__" in text for n in names),
           f"kernels {c.id}: names of its kernel file ({out.strip()!r}, {err!r})")
    expect(bool(names) == ("__global__" in text), f"kernels {c.id}: empty only without __global__")
rc, out, err = run(*LADDER, "kernels", gpu[0].id[:2])
expect(rc == 0 and out.strip() == "gemm_kernel" if gpu[0].id.startswith("03_") else rc == 0,
       f"kernels 03: gemm_kernel ({out!r})")

# --- metrics ------------------------------------------------------------------------------------
rc, out, err = run(*LADDER, "metrics")
names = out.strip().split(",")
for m in list(ladder.METRICS.values()) + [ladder.STALL_METRIC.format("barrier")]:
    expect(m in names, f"metrics holds {m}")
listed = [m.split(".")[0] for m in names if "stalled_misc" not in m]
with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
    f.write("Device NVIDIA H200\n" + "".join(f"{b}   Counter  # something\n" for b in listed))
rc, out, err = run(*LADDER, "metrics", "--available", f.name)
expect(out.strip().split(",") == [m for m in names if "stalled_misc" not in m]
       and "stalled_misc" in err, f"metrics --available leaves out what ncu does not list, and "
                                  f"says so (got {out.strip()!r}, {err!r})")
with open(f.name, "w") as g:
    g.write("sm__pipe_tensor_cycles_active  Counter\n")  # a listing of another form: not trusted
rc, out, err = run(*LADDER, "metrics", "--available", f.name)
expect(out.strip().split(",") == names, f"a listing with few of the metrics keeps them all")
os.unlink(f.name)

# --- profile --------------------------------------------------------------------------------------
HEADER = ('"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream",'
          '"Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit",'
          '"Metric Value"')


def ncu_rows(kid, kernel, values):
    return [f'"{kid}","1","x","h","{kernel}","1","7","(128, 1, 1)","(132, 1, 1)","0","9.0",'
            f'"Command line profiler metrics","{m}","{u}","{v}"' for m, (u, v) in values.items()]


def kernel_values(time_ns, tensor, stalls):
    v = {ladder.METRICS["time_us"]: ("nsecond", f"{time_ns:,}"),
         ladder.METRICS["tensor_pct"]: ("%", f"{tensor}"),
         ladder.METRICS["issue_pct"]: ("%", "41.5"),
         ladder.METRICS["l2_bytes"]: ("byte", "1,234,567,890"),
         ladder.METRICS["dram_read_bytes"]: ("byte", "100000000"),
         ladder.METRICS["dram_write_bytes"]: ("byte", "50000000"),
         ladder.METRICS["occupancy_pct"]: ("%", "12.4")}
    for s in ladder.STALLS:
        v[ladder.STALL_METRIC.format(s)] = ("%", str(stalls.get(s, 0.5)))
    return v


with tempfile.TemporaryDirectory() as tmp:
    os.makedirs(os.path.join(tmp, "ncu"))
    a, b = gpu[0].id, gpu[-1].id
    with open(os.path.join(tmp, "ncu", f"{a}.csv"), "w") as f:
        f.write("==PROF== Connected to process 1\nchapter output line\n" + HEADER + "\n" +
                "\n".join(
            ncu_rows(0, "convert_kernel(const float*, __half*)", kernel_values(9000, 0, {})) +
            ncu_rows(1, "void gemm_kernel<128>(int, int)",
                     kernel_values(250000, 71.25, {"selected": 90, "long_scoreboard": 30.5,
                                                   "barrier": 12.0, "wait": 11.9})) +
            ncu_rows(2, "convert_kernel(const float*, __half*)", kernel_values(9000, 0, {}))) +
            "\n==PROF== Disconnected\n")
    with open(os.path.join(tmp, "ncu", f"{b}.csv"), "w") as f:
        f.write("no kernel was profiled\n")
    rc, out, err = run(*LADDER, "profile", tmp)
    rows = list(csv.DictReader(open(os.path.join(tmp, "ncu", "profile.csv"))))
    expect(rc == 0 and len(rows) == 1 and rows[0]["chapter"] == a,
           f"profile: one row for the chapter with a profile (rc {rc}, {rows}, {err!r})")
    expect(b in err, f"profile names the chapter whose log holds no profile ({err!r})")
    if rows:
        r = rows[0]
        expect(r["kernel"] == "void gemm_kernel" and r["kernels"] == "3",
               f"the longest of the 3 kernels is the chapter's ({r['kernel']!r}, {r['kernels']})")
        expect(float(r["time_us"]) == 250.0 and float(r["tensor_pct"]) == 71.25,
               f"ns to µs, the kernel's own values ({r['time_us']}, {r['tensor_pct']})")
        expect(float(r["l2_bytes"]) == 1234567890, f"thousands separators read ({r['l2_bytes']})")
        expect((r["stall_1"], r["stall_2"]) == ("long_scoreboard", "barrier")
               and float(r["stall_1_pct"]) == 30.5,
               f"the two largest stalls, `selected` not among them ({r['stall_1']}, "
               f"{r['stall_2']})")
    md = open(os.path.join(tmp, "ncu", "profile.md")).read()
    expect("long_scoreboard 30.5%, barrier 12.0%" in md and "71.2%" in md,
           f"profile.md holds the row ({md!r})")
    with open(os.path.join(tmp, "ncu", f"{b}.csv"), "w") as f:
        f.write(HEADER + "\n" + "\n".join(ncu_rows(0, "k", {ladder.METRICS["l2_bytes"]:
                                                           ("Mbyte", "12.5")})) + "\n")
    rc, out, err = run(*LADDER, "profile", tmp)
    expect("Mbyte" in err and "--print-units base" in err,
           f"a value in scaled units is refused, with the fix ({err!r})")

# --- stamp and check ------------------------------------------------------------------------------
with tempfile.TemporaryDirectory() as tmp:
    # The commit from git here: a GEMM_SOURCE_COMMIT of the caller's (a device run sets it) would win.
    no_given = {k: v for k, v in os.environ.items() if not k.startswith("GEMM_SOURCE_")}
    rc, out, err = run(*LADDER, "stamp", tmp, "tools/measuring/gpu_session.sh", "ladder",
                       env=no_given)
    stamp = ladder.read_stamp(tmp)
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True,
                          text=True).stdout.strip()
    expect(rc == 0 and stamp.get("commit") == (head[:12] or "unknown")
           and stamp.get("command") == "tools/measuring/gpu_session.sh ladder",
           f"stamp.txt names this commit and the command ({stamp}, {err!r})")
    commit = stamp.get("commit", "x")

    def write(name, rows):
        with open(os.path.join(tmp, name), "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["chapter", "M", "N", "K", "gflops", "commit", "dirty"])
            w.writerows(rows)

    write("01_a.csv", [["01_a", 1, 1, 1, 1, commit[:12], "no"]])
    open(os.path.join(tmp, "old.csv"), "w").write("chapter,gflops\nx,1\n")  # no commit column
    rc, out, err = run(*LADDER, "check", tmp)
    expect(rc == 0 and "1 CSV(s)" in out,
           f"check passes results of the stamped commit ({out!r}, {err!r})")
    write("02_b.csv", [["02_b", 1, 1, 1, 1, "0123456789ab", "no"]])
    rc, out, err = run(*LADDER, "check", tmp)
    expect(rc == 1 and "02_b.csv" in err, f"check fails a CSV of another commit ({err!r})")
    write("02_b.csv", [["02_b", 1, 1, 1, 1, commit, "yes"]])
    rc, out, err = run(*LADDER, "check", tmp)
    expect(rc == 1 and "dirty" in err, f"check fails a CSV made from a dirty tree ({err!r})")
    with open(os.path.join(tmp, "02_b.csv"), "w") as f:
        f.write(f"chapter,commit,dirty,source_hash\n02_b,{commit},no,aaaa\n")
    with open(os.path.join(tmp, "03_c.csv"), "w") as f:
        f.write(f"chapter,commit,dirty,source_hash\n03_c,{commit},no,bbbb\n")
    rc, out, err = run(*LADDER, "check", tmp)
    expect(rc == 0, f"check passes two chapters, each with the hash of its own kernel ({err!r})")
    with open(os.path.join(tmp, "suite_02_b.csv"), "w") as f:
        f.write(f"chapter,commit,dirty,source_hash\n02_b,{commit},no,cccc\n")
    rc, out, err = run(*LADDER, "check", tmp)
    expect(rc == 1 and "02_b: more than one source_hash" in err,
           f"check fails one chapter built from two source trees ({err!r})")
    os.remove(os.path.join(tmp, "suite_02_b.csv"))
    # The ladder's own folders are checked; an investigation's folder beside them is another run.
    os.makedirs(os.path.join(tmp, "suite", "02_b"))
    os.makedirs(os.path.join(tmp, "an_investigation"))
    other = "chapter,commit,dirty,source_hash\n02_b,0123456789ab,yes,dddd\n"
    open(os.path.join(tmp, "suite", "02_b", "suite_02_b.csv"), "w").write(other)
    rc, out, err = run(*LADDER, "check", tmp)
    expect(rc == 1 and "suite_02_b.csv" in err, f"check fails a suite CSV of another commit ({err!r})")
    os.remove(os.path.join(tmp, "suite", "02_b", "suite_02_b.csv"))
    open(os.path.join(tmp, "an_investigation", "02_b.csv"), "w").write(other)
    rc, out, err = run(*LADDER, "check", tmp)
    expect(rc == 0 and "3 CSV(s)" in out,
           f"check leaves out a folder the ladder does not write ({out!r}, {err!r})")
    os.remove(os.path.join(tmp, "stamp.txt"))
    rc, out, err = run(*LADDER, "check", tmp)
    expect(rc == 2 and "stamp" in err, f"check without a stamp: exit 2 ({err!r})")

# --- table: a chapter README's measured table from the ladder's CSV ------------------------------
with tempfile.TemporaryDirectory() as tmp:
    ch = gpu[-1].id
    with open(os.path.join(tmp, ch + ".csv"), "w") as f:
        f.write("device,chapter,M,N,K,ms_median,gflops,yardstick,yardstick_gflops,"
                "pct_of_yardstick,pct_min,pct_max,rounds,check,pass,sm_clock_mhz,throttle,"
                "l2_flush,commit\n"
                f"NVIDIA H200,{ch},4096,4096,4096,0.187,735100,cuBLAS x,741000,99.2,99.1,99.3,5,"
                "sample,true,1980,none,yes,abcdef123456789\n"
                f"NVIDIA H200,{ch},128,8192,8192,0.2,600000,cuBLAS x,700000,85.7,85.0,86.0,5,"
                "sample,false,1740,sw_power_cap 6%,yes,abcdef123456789\n")
    open(os.path.join(tmp, "stamp.txt"), "w").write("commit=abcdef123456789\ndate=2026-11-27\n")
    rc, out, err = run(*LADDER, "table", tmp, ch)
    row = "| 4096 | 0.187 | 735 | 741 | 99.2% (99.1–99.3) | 1980 | sample PASS |"
    expect(rc == 0 and row in out
           and "| 128x8192x8192 |" in out and "1740 (sw_power_cap 6%)" in out
           and "sample FAIL" in out and "commit abcdef123456" in out and "5 rounds" in out,
           f"table prints the rows, the conditions and the commit ({out!r}, {err!r})")
    readme = os.path.join(tmp, "README.md")
    open(readme, "w").write(f"before\n{ladder.BEGIN_TABLE}\nold\n{ladder.END_TABLE}\nafter\n")
    rc1, _, _ = run(*LADDER, "table", tmp, ch, "--check", readme)
    rc2, _, _ = run(*LADDER, "table", tmp, ch, "--write", readme)
    rc3, _, _ = run(*LADDER, "table", tmp, ch, "--check", readme)
    text = open(readme).read()
    expect(rc1 == 1 and rc2 == 0 and rc3 == 0 and text.startswith("before\n") and
           text.endswith("after\n") and "| 4096 |" in text and "old" not in text,
           f"table --check fails a stale block, --write replaces it, then --check passes "
           f"({rc1}, {rc2}, {rc3}, {text!r})")
    open(readme, "w").write("no block\n")
    rc, out, err = run(*LADDER, "table", tmp, ch, "--write", readme)
    expect(rc == 2 and "no block" in err, f"table --write without the markers: exit 2 ({err!r})")

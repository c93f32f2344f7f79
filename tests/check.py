"""What every Python test checks with, and how it ends (tests/run.py, the one runner, reads it).

    from tests.check import expect, skip_or_fail

expect(cond, what[, proc]) records a check; a failed one prints `FAIL: what` (with a command's exit
status and the tails of its output when `proc` is given) and is counted in `failures`. A test then
simply ends: the runner prints the count and exits 1 if any failed. skip_or_fail(why) is what a GPU
test does when the binary it ran found no usable GPU (exit 77): SKIP, or FAIL when GEMM_REQUIRE_GPU
is set (the GPU machine's runs, where a missing GPU is a broken run)."""
import os
import sys

failures = []  # the `what` of every failed check, in order
checks = [0]   # how many checks ran (a list: one count shared by every importer)


def expect(cond, what, proc=None):
    checks[0] += 1
    if not cond:
        failures.append(what)
        extra = ""
        if proc is not None:
            extra = (f"\n  exit {proc.returncode}\n  stdout: {(proc.stdout or '')[-1500:]}"
                     f"\n  stderr: {(proc.stderr or '')[-1500:]}")
        print(f"FAIL: {what}{extra}")
    return bool(cond)


def skip_or_fail(sentence):
    if os.environ.get("GEMM_REQUIRE_GPU", "") not in ("", "0"):
        print("FAIL: GEMM_REQUIRE_GPU is set but:", sentence.strip())
        sys.exit(1)
    print("SKIP:", sentence.strip())
    sys.exit(77)

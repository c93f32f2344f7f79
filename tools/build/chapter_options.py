#!/usr/bin/env python3
"""Checks a chapter binary's command line without the binary: ./tutorial runs it before building.

    python3 -m tools.build.chapter_options [OPTION...]

The rules are those of the harness (common/harness/options.cpp, parse_options; the size limits of
common/harness/problem.cpp): an unknown option, a missing or malformed value, a size that is not N or
MxNxK, a dimension above 2^30 or a matrix of 2^31 elements or more is refused with the harness's
own words. tests/tools/test_options.py holds this file to the harness: both must refuse the same
command lines. Exit: 0 the options are good, 2 they are not (a message on stderr).
"""
import math
import re
import struct
import sys

FLT_MIN = 1.1754943508222875e-38
MAX_DIMENSION = 1 << 30  # common/harness/problem.cpp
MAX_ELEMENTS = 1 << 31


class UsageError(Exception):
    pass


def parse_integer(text, what):
    if not text:
        raise UsageError(f"{what}: expected a whole number, got nothing")
    if not re.fullmatch(r"-?[0-9]+", text):
        raise UsageError(f"{what}: expected a whole number, got '{text}'")
    value = int(text)
    if not -(1 << 63) <= value < (1 << 63):
        raise UsageError(f"{what}: '{text}' is out of range")
    return value


def to_float32(x):
    try:
        return struct.unpack("f", struct.pack("f", x))[0]
    except OverflowError:
        return math.inf


def parse_float(text, what):
    word = text.lower()
    if word in ("nan", "-nan") or "inf" in word:
        raise UsageError(f"{what}: '{text}' is not a finite float")
    m = re.fullmatch(r"-?([0-9]*)(\.([0-9]*))?([eE][-+]?[0-9]+)?", text)
    if not m or not (m.group(1) or m.group(3)):
        raise UsageError(f"{what}: expected a decimal number such as 1, -0.5 or 2e-3, got '{text}'")
    value = to_float32(float(text))
    if math.isinf(value):
        raise UsageError(f"{what}: '{text}' is not a finite float (the largest is 3.4e38)")
    mantissa = (m.group(1) or "") + (m.group(3) or "")
    if value == 0.0 and re.search(r"[1-9]", mantissa):
        raise UsageError(f"{what}: '{text}' is below the smallest float (1.4e-45) and would "
                         f"become 0")
    if value != 0.0 and abs(value) < FLT_MIN:
        raise UsageError(f"{what}: '{text}' is a subnormal float (nonzero, below 1.2e-38): "
                         f"products with it lose their precision; use 0 or a normal float")
    return value


def parse_bounded(text, what, lo, hi):
    v = parse_integer(text, what)
    if v < lo or v > hi:
        raise UsageError(f"{what}: {text} is outside [{lo}, {hi}]")
    return v


def split(text, sep):
    parts = text.split(sep) if text else []
    return parts


def parse_shape(text):
    what = f"--sizes '{text}'"
    dims = []
    for d in split(text, "x"):
        x = parse_integer(d, what)
        if x < 0:
            raise UsageError(f"{what}: dimensions cannot be negative")
        if x > 2**31 - 1:
            raise UsageError(f"{what}: dimension {d} does not fit in int")
        dims.append(x)
    if len(dims) not in (1, 3):
        raise UsageError(f"{what}: a size is N (square) or MxNxK, e.g. 1024 or 1000x1001x999")
    M, N, K = dims * 3 if len(dims) == 1 else dims
    name = str(M) if M == N == K else f"{M}x{N}x{K}"
    if max(M, N, K) > MAX_DIMENSION:
        raise UsageError(f"size {name}: M={M} N={N} K={K} has a dimension above 2^30 "
                         f"({MAX_DIMENSION}), the largest this tutorial takes")
    if max(M * K, K * N, M * N) >= MAX_ELEMENTS:
        raise UsageError(f"size {name}: a matrix of M={M} N={N} K={K} has 2^31 or more "
                         f"elements; this tutorial indexes with int")
    return M, N, K


def check(argv):
    i = 0
    while i < len(argv):
        arg, value, inline = argv[i], None, False
        if arg.startswith("--") and "=" in arg:
            arg, value = arg.split("=", 1)
            inline = True

        def take():
            nonlocal i
            if inline:
                return value
            if i + 1 >= len(argv):
                raise UsageError(f"{arg} needs a value (see --help)")
            i += 1
            return argv[i]

        def no_value():
            if inline:
                raise UsageError(f"{arg} takes no value")

        if arg in ("--help", "-h", "--no-baseline"):
            no_value()
        elif arg == "--sizes":
            text = take()
            for item in split(text, ","):
                if not item:
                    raise UsageError(f"--sizes '{text}': empty entry in the list")
                parse_shape(item)
            if not text:
                raise UsageError("--sizes needs at least one size")
        elif arg == "--reps":
            parse_bounded(take(), "--reps", 1, 100000)
        elif arg == "--rounds":
            parse_bounded(take(), "--rounds", 1, 1000)
        elif arg == "--warmup":
            parse_bounded(take(), "--warmup", 0, 100000)
        elif arg == "--l2-flush":
            v = take()
            if v not in ("on", "off"):
                raise UsageError(f"--l2-flush: expected on or off, got '{v}'")
        elif arg in ("--alpha", "--beta"):
            parse_float(take(), arg)
        elif arg == "--seed":
            s = take()
            if parse_integer(s, "--seed") < 0:
                raise UsageError(f"--seed: expected a non-negative whole number, got '{s}'")
        elif arg == "--check":
            m = take()
            if m not in ("full", "sample", "off", "auto"):
                raise UsageError(f"--check: expected full, sample, off or auto, got '{m}'")
        elif arg == "--out":
            if not take():
                raise UsageError("--out: expected a directory, got nothing")
        elif arg == "--device":
            parse_bounded(take(), "--device", 0, 1023)
        else:
            raise UsageError(f"unknown argument '{argv[i]}' (see --help)")
        i += 1


def main(argv):
    try:
        check(argv)
    except UsageError as e:
        print(f"error: chapter option: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/env python3
"""Which call chapters 13-15 compiled in to find cuTensorMapEncodeTiled in the driver.

Usage: python3 -m tests.run tests.harness.test_entry_point FALLBACK_BINARY CHAPTER_15_BINARY NVCC_VERSION

cudaGetDriverEntryPointByVersion exists from CUDA 12.5; common/device/sm90.cuh falls back to
cudaGetDriverEntryPoint below that, or when GEMM_FORCE_DRIVER_ENTRY_POINT_FALLBACK is defined.
FALLBACK_BINARY is chapter 15 built with that define (tests/meson.build), so the path of CUDA
12.0-12.4 compiles on every toolkit. GEMM_CUDA_CHECK keeps the text of the call it checks for its
error message, so each binary holds the text of the call it makes; both are read here.
Exit: 0 pass, 1 fail.
"""
import re
import sys

fallback_bin, chapter_bin = sys.argv[1], sys.argv[2]
# meson 1.0 hands over nvcc's version with the build line after it: "13.0.88\nBuild cuda_13.0...".
version = re.match(r"\s*(\d+)\.(\d+)[.\d]*", sys.argv[3])
if not version:
    sys.exit(f"FAIL: cannot read a version from NVCC_VERSION {sys.argv[3]!r}")
nvcc_version = version.group(0).strip()
BY_VERSION = b'cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled"'
FALLBACK = b'cudaGetDriverEntryPoint("cuTensorMapEncodeTiled"'
failures = []


def calls(path):
    data = open(path, "rb").read()
    return [name for name, text in (("ByVersion", BY_VERSION), ("fallback", FALLBACK)) if text in data]


new_toolkit = (int(version.group(1)), int(version.group(2))) >= (12, 5)

found = calls(fallback_bin)
if found != ["fallback"]:
    failures.append(f"{fallback_bin}: built with GEMM_FORCE_DRIVER_ENTRY_POINT_FALLBACK, expected "
                    f"only the cudaGetDriverEntryPoint call, found {found or 'neither'}")
found = calls(chapter_bin)
expected = ["ByVersion"] if new_toolkit else ["fallback"]
if found != expected:
    failures.append(f"{chapter_bin}: nvcc {nvcc_version} should compile in the {expected[0]} call, "
                    f"found {found or 'neither'}")

for f in failures:
    print("FAIL:", f)
if not failures:
    print(f"nvcc {nvcc_version}, sm_90a: chapter 15 built with the CUDA < 12.5 fallback "
          f"(cudaGetDriverEntryPoint, forced) and as shipped "
          f"({'cudaGetDriverEntryPointByVersion' if new_toolkit else 'cudaGetDriverEntryPoint'})")
sys.exit(1 if failures else 0)

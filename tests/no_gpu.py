"""What a GPU test does when the binary it ran found no usable GPU (exit 77): SKIP, or FAIL when
GEMM_REQUIRE_GPU is set (the GPU machine's runs, where a missing GPU is a broken run)."""
import os
import sys


def skip_or_fail(sentence):
    if os.environ.get("GEMM_REQUIRE_GPU", "") not in ("", "0"):
        print("FAIL: GEMM_REQUIRE_GPU is set but:", sentence.strip())
        sys.exit(1)
    print("SKIP:", sentence.strip())
    sys.exit(77)

#!/usr/bin/env bash
# Session 4, call F: Nsight Compute of chapter 23 beside cuBLASLt's block-scaled kernel at the FP8
# suite's lowest shape (4096 x 32768 x 512), the ladder's metrics.
set -uo pipefail
export GEMM_SOURCE_COMMIT=${GEMM_SOURCE_COMMIT:?} GEMM_SOURCE_DIRTY=false
rm -rf chapters/16_every_shape chapters/17_fp8
S=$SECONDS
M=$(python3 tools/measuring/ladder.py metrics)
[ -f build/build.ninja ] || meson setup build -Dgpu_archs=90 -Dtests=disabled > $OUT/setup.log 2>&1
ninja -C build chapters/23_fp8_block_scaled > $OUT/build.log 2>&1; echo "build exit $? at $((SECONDS-S)) s"
timeout 200 ncu --clock-control none --csv --print-units base --metrics $M --launch-count 6 build/chapters/23_fp8_block_scaled --sizes 4096x32768x512 --rounds 1 --reps 1 --warmup 0 --check off --out /tmp/n1 > $OUT/ncu_23_4096x32768x512.csv 2> $OUT/ncu.err
echo "ncu exit $? at $((SECONDS-S)) s"; tail -3 $OUT/ncu.err
python3 - "$OUT" <<'PY'
import csv, sys, io, os
out = sys.argv[1]
text = open(os.path.join(out, "ncu_23_4096x32768x512.csv")).read()
rows = list(csv.DictReader(io.StringIO("\n".join(l for l in text.splitlines() if l.startswith('"')))))
by = {}
for r in rows:
    by.setdefault((r["ID"], r["Kernel Name"][:90]), {})[r["Metric Name"]] = r["Metric Value"]
for (i, k), m in by.items():
    print(i, k)
    for name in sorted(m):
        print("   ", name, m[name])
PY

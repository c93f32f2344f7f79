#!/usr/bin/env bash
# Session 4, call C: ladder2 (suites ncu_ladder plot check) into plots/h200 (ladder1's, carried back), then
# compute-sanitizer memcheck and racecheck on chapters 20-23 (plots/h200/sanitize.md's sizes).
set -uo pipefail
export GEMM_SOURCE_COMMIT=${GEMM_SOURCE_COMMIT:?} GEMM_SOURCE_DIRTY=false
rm -rf chapters/16_every_shape chapters/17_fp8
S=$SECONDS
[ -f build/build.ninja ] || meson setup build -Dgpu_archs=90 -Dtests=enabled -Dwerror=true -Ddoctest_include=$PWD/.deps/usr/include > $OUT/setup.log 2>&1
ninja -C build > $OUT/build.log 2>&1; echo "build exit $? in $((SECONDS-S)) s"; grep -E "FAILED|error" $OUT/build.log | head
OUT=$PWD/plots/h200 timeout 420 bash tools/measuring/gpu_session.sh ladder2 2>&1 | tee -a plots/h200/session.log > $OUT/ladder2.txt
echo "ladder2 exit $? at $((SECONDS-S)) s"; grep -E "^== |took|FAIL|rror|check" $OUT/ladder2.txt | head -40
tar -czf $OUT/ladder2.tgz -C plots h200
mkdir -p $OUT/san
for ch in 20_fp8_e4m3 21_fp8_promoted 22_fp8_persistent 23_fp8_block_scaled; do for tool in memcheck racecheck; do
  [ $((SECONDS-S)) -lt 560 ] || break
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 build/chapters/$ch \
    --sizes 1,17x33x65,100x37x19,300x260x270,8x1024x4096,64x512x4096,128x1024x8192,200x520x3000 \
    --reps 1 --warmup 0 --no-baseline --out /tmp/san > $OUT/san/${ch}_$tool.txt 2>&1
  echo "$ch $tool exit $? at $((SECONDS-S)) s: $(grep -m1 -E 'ERROR SUMMARY|RACECHECK SUMMARY' $OUT/san/${ch}_$tool.txt)"
done; done
tar -czf $OUT/san.tgz -C $OUT san

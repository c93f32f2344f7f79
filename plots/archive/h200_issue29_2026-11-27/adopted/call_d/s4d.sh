#!/usr/bin/env bash
# Session 4, call D: every non-grading test (GPU required), then the grading class of chapter 21 (its
# kernel changed), then a second run of chapter 23's FP8 suite in its own process.
set -uo pipefail
export GEMM_SOURCE_COMMIT=${GEMM_SOURCE_COMMIT:?} GEMM_SOURCE_DIRTY=false
rm -rf chapters/16_every_shape chapters/17_fp8
B=$PWD/.deps/bw/root
for l in $(cd $B && find lib usr/lib -name "*.so*"); do [ -e /$l ] || [ -e /usr/$l ] || { mkdir -p /$(dirname $l); cp -a $B/$l /$l; }; done
cp $B/usr/bin/bwrap /usr/local/bin/
S=$SECONDS
[ -f build/build.ninja ] || meson setup build -Dgpu_archs=90 -Dtests=enabled -Dwerror=true -Ddoctest_include=$PWD/.deps/usr/include > $OUT/setup.log 2>&1
ninja -C build > $OUT/build.log 2>&1; echo "build exit $? in $((SECONDS-S)) s"
all=$(meson test -C build --list 2>/dev/null | sed 's/.*://')
names=$(echo "$all" | grep -v grade | tr '\n' ' ')
echo "$(echo $names | wc -w) non-grading tests"
GEMM_REQUIRE_GPU=1 timeout 380 meson test -C build --num-processes 6 --print-errorlogs $names > $OUT/test.log 2>&1
echo "tests exit $? at $((SECONDS-S)) s"; grep -E "^ *[0-9]+/[0-9]+ " $OUT/test.log | grep -v " OK " | head -20; grep -E "^(Ok|Fail|Skipped|Timeout):" $OUT/test.log
cp build/meson-logs/testlog.txt $OUT/testlog.txt 2>/dev/null; tar -czf $OUT/s4d.tgz -C $OUT --exclude '*.tgz' .
GIT_DIR=/nonexistent GEMM_REQUIRE_GPU=1 timeout 180 meson test -C build --num-processes 1 --logbase grade --print-errorlogs grade_class_21_fp8_promoted > $OUT/grade.log 2>&1
echo "grade_class_21 exit $? at $((SECONDS-S)) s"; grep -E "^(Ok|Fail|Skipped|Timeout):" $OUT/grade.log
cp build/meson-logs/grade.txt $OUT/gradelog.txt 2>/dev/null; tar -czf $OUT/s4d.tgz -C $OUT --exclude '*.tgz' .
R=$((590 - (SECONDS-S)))
[ $R -gt 60 ] && timeout $R python3 tools/measuring/suite.py build/chapters/23_fp8_block_scaled --out $OUT/run2 > $OUT/suite2.txt 2>&1; echo "suite run2 exit $? at $((SECONDS-S)) s"; tail -5 $OUT/suite2.txt
tar -czf $OUT/s4d.tgz -C $OUT --exclude '*.tgz' .; echo packed

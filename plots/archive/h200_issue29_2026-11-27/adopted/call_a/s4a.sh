#!/usr/bin/env bash
# Session 4, call A: build the tree with chapters 21-23's chunked overlap; the FP8 tests, sanitizers
# on 21-23, and the candidates of 21-23 (chunks of 1 against 8) at 2048, 4096, 8192.
set -uo pipefail
export GEMM_SOURCE_COMMIT=${GEMM_SOURCE_COMMIT:?} GEMM_SOURCE_DIRTY=false
rm -rf chapters/16_every_shape chapters/17_fp8
B=$PWD/.deps/bw/root
for l in $(cd $B && find lib usr/lib -name "*.so*"); do [ -e /$l ] || [ -e /usr/$l ] || { mkdir -p /$(dirname $l); cp -a $B/$l /$l; }; done
cp $B/usr/bin/bwrap /usr/local/bin/
S=$SECONDS
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.sm --format=csv > $OUT/gpu.txt 2>&1
meson setup build -Dgpu_archs=90 -Dtests=enabled -Dwerror=true -Ddoctest_include=$PWD/.deps/usr/include > $OUT/setup.log 2>&1 || meson setup --reconfigure build >> $OUT/setup.log 2>&1
ninja -C build > $OUT/build.log 2>&1; echo "build exit $? in $((SECONDS-S)) s"; grep -E "FAILED|error" $OUT/build.log | head
all=$(meson test -C build --list 2>/dev/null | sed 's/.*://')
names=$(echo "$all" | grep -E "gpu_fp8|autograde_2[0-3]|cli_2[0-3]|many_sizes_2[0-3]" | tr '\n' ' ')
echo "tests: $names"
GEMM_REQUIRE_GPU=1 timeout 200 meson test -C build --num-processes 4 --print-errorlogs $names > $OUT/test.log 2>&1
echo "tests exit $? at $((SECONDS-S)) s"; grep -E "^ *[0-9]+/[0-9]+ " $OUT/test.log | grep -v " OK " | head -20; grep -E "^(Ok|Fail|Skipped|Timeout):" $OUT/test.log
cp build/meson-logs/testlog.txt $OUT/testlog.txt 2>/dev/null
tar -czf $OUT/s4a.tgz -C $OUT --exclude '*.tgz' . 2>/dev/null
CHAPTERS="21_fp8_promoted 22_fp8_persistent 23_fp8_block_scaled" OUT=$OUT/san timeout 150 bash tools/measuring/gpu_session.sh sanitize > $OUT/sanitize.txt 2>&1
echo "sanitize exit $? at $((SECONDS-S)) s"; grep -E "exit|SUMMARY" $OUT/sanitize.txt | head -20
tar -czf $OUT/s4a.tgz -C $OUT --exclude '*.tgz' . 2>/dev/null
for o in fp8_p fp8_b; do
  GEMM_TUNE_ONLY=$o timeout 120 build/tools/tune_hopper --sizes 2048,4096,8192 --rounds 5 --out $OUT/tune > $OUT/tune_$o.txt 2>&1
  echo "tune $o exit $? at $((SECONDS-S)) s"; grep -E "^== |^2048|^4096|^8192|FAIL|rror" $OUT/tune_$o.txt | head -40
done
tar -czf $OUT/s4a.tgz -C $OUT --exclude '*.tgz' . 2>/dev/null; echo packed

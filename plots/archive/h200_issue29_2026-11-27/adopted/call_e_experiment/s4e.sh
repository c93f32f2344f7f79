#!/usr/bin/env bash
# Session 4, call E (branch fp8-next, experiment): chapter 23's tail chunks and late scale multiply.
set -uo pipefail
export GEMM_SOURCE_COMMIT=${GEMM_SOURCE_COMMIT:?} GEMM_SOURCE_DIRTY=false
rm -rf chapters/16_every_shape chapters/17_fp8
S=$SECONDS
[ -f build/build.ninja ] || meson setup build -Dgpu_archs=90 -Dtests=disabled > $OUT/setup.log 2>&1
ninja -C build tools/tune_hopper > $OUT/build.log 2>&1; echo "build exit $? in $((SECONDS-S)) s"; grep -E "FAILED|error" $OUT/build.log | head
GEMM_TUNE_ONLY=23_fp8_block_scaled_cluster1 timeout 300 build/tools/tune_hopper --sizes 300x260x1700,512x512x1300,4096,4096x32768x512,1024x32768x512,4096x24576x1536,64x2112x7168 --rounds 5 --out $OUT/tune > $OUT/tune.txt 2>&1
echo "tune exit $? at $((SECONDS-S)) s"; grep -E "^== |^[0-9]|FAIL|rror" $OUT/tune.txt | cut -c1-110 | head -60
tar -czf $OUT/s4e.tgz -C $OUT --exclude '*.tgz' . ; echo packed

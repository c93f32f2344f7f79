#!/usr/bin/env bash
# Call C5 (C4 cut to one timing run of 22 and 23, 3 rounds): run from a checkout of branch lean2 (git checkout lean2 in /work/main; .gpu/commit holds its
# hash). LEAN 1-4 of 22, LEAN 1, 2 and 4 of 23 and 24, beside the chapters: correctness (beta 0 takes the
# TMA-store path that LEAN 4 needs, 300x520x777 its k-tiles past whole chunks; beta 0.5 the fallback),
# sanitizers on LEAN 4, timings, ncu counts.
set -uo pipefail
export PATH=$PWD/.deps/usr/bin:/usr/local/cuda/bin:$PATH
export GEMM_REQUIRE_GPU=1 GEMM_SOURCE_COMMIT=$(cat .gpu/commit) GEMM_SOURCE_DIRTY=false
R=$OUT/r; mkdir -p $R
exec > >(tee $OUT/log.txt) 2>&1
date; nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv | tee $R/gpu.txt
git add -A -- . ':(exclude).deps' ':(exclude).gpu' ':(exclude)build' >/dev/null 2>&1
# The tune_hopper built off the device from this tree (nvcc 13.0.88, -Dwerror=true), if it runs
# here; else built here.
T=$PWD/.gpu/tune_hopper
if ! LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-} $T --help > /dev/null 2>&1; then
  B=/tmp/b
  meson setup $B -Dgpu_archs=90 -Dtests=enabled -Ddoctest_include=$PWD/.deps/usr/include -Dwerror=true > $R/setup.log 2>&1 || { tail -20 $R/setup.log; exit 1; }
  S=$SECONDS; ninja -C $B tools/tune_hopper > $R/build.log 2>&1 || grep -E "error|FAILED" $R/build.log | head; echo "build $((SECONDS-S)) s"
  T=$B/tools/tune_hopper
else
  export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}; echo "carried tune_hopper runs"
fi
echo "== timings, one run (the device budget's last minutes)"
GEMM_TUNE_ONLY=22_fp8_persistent_cluster2_tma_store timeout 150 $T --sizes 4096,8192 --rounds 3 --out $R/t22_1 > $R/t22_1.txt 2>&1
grep -E "^(== |4096|8192)" $R/t22_1.txt | cut -c1-160; tar czf $OUT/resC5.tgz -C $OUT r
GEMM_TUNE_ONLY=23_fp8_block_scaled_cluster1_tma_store timeout 100 $T --sizes 4096,8192 --rounds 3 --out $R/t23_1 > $R/t23_1.txt 2>&1
grep -E "^(== |4096|8192)" $R/t23_1.txt | cut -c1-160; tar czf $OUT/resC5.tgz -C $OUT r
date

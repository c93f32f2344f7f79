#!/usr/bin/env bash
# Branch inplace18 (issue 39, item 2, EXPERIMENT): chapter 18 with B read in place by the producer's
# threads. Run from a checkout of the branch with its binaries built off the device and carried in
# .gpu/ip/ (chapters/test_18_small_m and tools/tune_hopper, -Dgpu_archs=90 -Dwerror=true; .gpu/ip/commit
# holds the tree's hash). First correctness (the chapter's GPU tests, the new case among them, and
# compute-sanitizer on the loads), then timings: the chapter (B copied first where its rows are off 16
# bytes), B in place where they are (_b_in_place), and B in place always (_b_loads), alternating with
# cuBLAS, on misaligned decode shapes and aligned ones.
set -uo pipefail
export PATH=$PWD/.deps/usr/bin:/usr/local/cuda/bin:$PATH
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export GEMM_REQUIRE_GPU=1 GEMM_SOURCE_COMMIT=$(cat .gpu/ip/commit) GEMM_SOURCE_DIRTY=false
R=$OUT/r; mkdir -p $R
exec > >(tee $OUT/log.txt) 2>&1
date; nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv | tee $R/gpu.txt
T=.gpu/ip/tune_hopper
timeout 240 .gpu/ip/test_18_small_m > $R/test18.txt 2>&1; echo "test_18 rc=$? $(grep 'test cases:' $R/test18.txt)"
grep -E "ERROR|FAILED|B read in place" $R/test18.txt | head -20
tar czf $OUT/res.tgz -C $OUT r
for tool in memcheck racecheck; do
  GEMM_TUNE_ONLY=18_small_m_b_loads timeout 150 compute-sanitizer --tool $tool $T --sizes 1x4097x777,16x1001x300,64x520x136,100x63x200 --rounds 1 --reps 1 --warmup 0 --no-baseline --out $R/san_$tool > $R/san_$tool.txt 2>&1
  echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $R/san_$tool.txt | tr '\n' ' ')"
done
tar czf $OUT/res.tgz -C $OUT r
GEMM_TUNE_ONLY=18_small_m timeout 300 $T --sizes 16x8191x8192,32x12290x4096,1x4097x4096,8x14337x4096,8x4096x4096,64x8192x8192 --rounds 5 --out $R/t18 > $R/t18.txt 2>&1
grep -E "^(== |[0-9]+x)" $R/t18.txt | cut -c1-130
tar czf $OUT/res.tgz -C $OUT r
date

#!/usr/bin/env bash
# Call C4 (C3 with tune_hopper built off the device and carried in .gpu/): run from a checkout of branch lean2 (git checkout lean2 in /work/main; .gpu/commit holds its
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
echo "== timings, two runs"
for i in 1 2; do
  GEMM_TUNE_ONLY=22_fp8_persistent_cluster2_tma_store timeout 200 $T --sizes 4096,8192 --rounds 5 --out $R/t22_$i > $R/t22_$i.txt 2>&1
  GEMM_TUNE_ONLY=23_fp8_block_scaled_cluster1_tma_store timeout 120 $T --sizes 4096,8192 --rounds 5 --out $R/t23_$i > $R/t23_$i.txt 2>&1
  grep -E "^(== |4096|8192)" $R/t22_$i.txt $R/t23_$i.txt | cut -c1-160
  tar czf $OUT/resC2.tgz -C $OUT r
done
GEMM_TUNE_ONLY=24_fp8_split_k timeout 120 $T --sizes 4096,64x2112x7168,512x4096x7168 --rounds 3 --out $R/t24 > $R/t24.txt 2>&1; grep -E "^(== |4096|64x|512x)" $R/t24.txt | cut -c1-140
tar czf $OUT/resC2.tgz -C $OUT r
echo "== correctness: odd shapes, full check"
for b in 0 0.5; do for c in _lean 24_fp8_split_k_lean; do
  GEMM_TUNE_ONLY=$c timeout 150 $T --sizes 1000x1000x1000,300x520x777,129x4097x2000,64x2112x7168,2048x1024x3072 --rounds 1 --check full --beta $b --out $R/odd${c}_$b > $R/odd${c}_$b.txt 2>&1
  echo "odd $c beta $b rc=$? $(grep -c PASS $R/odd${c}_$b.txt) PASS $(grep -c FAIL $R/odd${c}_$b.txt) FAIL"
done; done
for c in 22_fp8_persistent_cluster2_tma_store_lean4 23_fp8_block_scaled_cluster1_tma_store_lean4 24_fp8_split_k_lean4; do for tool in memcheck racecheck; do
  GEMM_TUNE_ONLY=$c timeout 120 compute-sanitizer --tool $tool $T --sizes 1000x1000x1000,300x520x777,2048x1024x3072 --rounds 1 --reps 1 --warmup 0 --no-baseline --out $R/san_${c}_$tool > $R/san_${c}_$tool.txt 2>&1
  echo "$tool $c rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $R/san_${c}_$tool.txt | tr '\n' ' ')"
done; done
tar czf $OUT/resC2.tgz -C $OUT r
echo "== ncu: instructions, tensor pipe, L2 bytes at 4096"
for c in 22_fp8_persistent_cluster2_tma_store 23_fp8_block_scaled_cluster1_tma_store; do
  GEMM_TUNE_ONLY=$c timeout 150 ncu --clock-control none --csv --print-units base -k regex:fp8_kernel --metrics gpu__time_duration.sum,smsp__inst_executed.sum,sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed,sm__cycles_active.avg,lts__t_bytes.sum $T --sizes 4096 --rounds 1 --reps 1 --warmup 0 --check off --l2-flush off --no-baseline > $R/ncu_$c.csv 2>&1; echo "ncu $c rc=$?"
done
tar czf $OUT/resC2.tgz -C $OUT r
date

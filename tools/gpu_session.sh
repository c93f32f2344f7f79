#!/usr/bin/env bash
# One batch on a GPU machine: configure, build, test, benchmark, profile. Used for every number
# under plots/h200/ (and, before it, plots/h100/) and in the chapter READMEs:
#
#   tools/gpu_session.sh [test] [bench] [ceilings] [flush] [repeat] [tune] [tune_hopper] [ablation]
#                        [shapes] [suite] [ncu] [sanitize]         (default: test bench)
#
# Environment: OUT (where results go; default results/), ARCH (default 90), DOCTEST_INCLUDE,
# CHAPTERS (default: all GPU chapters), EXTRA (options for every chapter binary in `bench`),
# SUITE_CHAPTER (`suite`; default: the last of CHAPTERS that is built).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-results}
ARCH=${ARCH:-90}
mkdir -p "$OUT"
steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(test bench)
has() { local s; for s in "${steps[@]}"; do [ "$s" = "$1" ] && return 0; done; return 1; }
log() { echo "== $(date +%T) $*"; }

# The charts (tools/plot.py) need matplotlib: Debian's python3-matplotlib is for /usr/bin/python3.
PLOT_PY=python3
python3 -c "import matplotlib" 2>/dev/null || PLOT_PY=/usr/bin/python3

GPU_CHAPTERS=${CHAPTERS:-$(python3 tools/chapters.py ids --kind cuda,hopper | tr '\n' ' ')}  # chapters/chapters.txt
CPU_CHAPTERS=$(python3 tools/chapters.py ids --kind cpu | tr '\n' ' ')

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw \
    --format=csv 2>&1 | tee "$OUT/nvidia-smi.txt"

log "configure + build (sm_$ARCH)"
opts=(-Dgpu_archs="$ARCH" -Dtests=enabled -Dwerror=true)
[ -n "${DOCTEST_INCLUDE:-}" ] && opts+=(-Ddoctest_include="$DOCTEST_INCLUDE")
[ -f build/build.ninja ] || meson setup build "${opts[@]}" > "$OUT/configure.log" 2>&1 ||
    { tail -30 "$OUT/configure.log"; exit 1; }
ninja -C build -k 0 > "$OUT/build.log" 2>&1 || { grep -E "error|FAILED" "$OUT/build.log" | head -40; }

if has test; then
    log "test suite with GEMM_REQUIRE_GPU=1"
    GEMM_REQUIRE_GPU=1 meson test -C build --print-errorlogs --num-processes 1 > "$OUT/test.log" 2>&1
    echo "meson test exit: $?"
    grep -E "^ *[0-9]+/[0-9]+ " "$OUT/test.log"
    grep -E "ERROR|FAIL" "$OUT/test.log" | head -40
fi

if has bench; then
    log "benchmark: every chapter with its default sizes, cuBLAS in alternating rounds in the same run"
    mkdir -p "$OUT/bench"
    for ch in $CPU_CHAPTERS $GPU_CHAPTERS; do
        [ -x "build/chapters/$ch" ] || { echo "$ch: not built"; continue; }
        extra=${EXTRA:-}
        case " $CPU_CHAPTERS " in *" $ch "*) extra= ;; esac  # the CPU chapters keep their own sizes
        # shellcheck disable=SC2086
        "build/chapters/$ch" --out "$OUT/bench" $extra > "$OUT/bench/$ch.txt" 2>&1
        echo "$ch exit $?"; tail -n +7 "$OUT/bench/$ch.txt" | grep -vE "^$|wrote|checks passed"
    done
    "$PLOT_PY" tools/plot.py "$OUT/bench"
    # The step between chapters 01 and 02 at 1024, on this machine's CPU, with OpenBLAS.
    build/chapters/01_cpu_naive --sizes 1024 --reps 3 --warmup 1 --out "$OUT/bench/cpu1024" > "$OUT/bench/cpu1024_01.txt" 2>&1
    build/chapters/02_cpu_tiled --sizes 1024 --reps 3 --warmup 1 --out "$OUT/bench/cpu1024" > "$OUT/bench/cpu1024_02.txt" 2>&1
    tail -n 4 "$OUT/bench/cpu1024_01.txt" "$OUT/bench/cpu1024_02.txt"
fi

if has flush; then
    log "L2 flush: chapters 10 and 15 against cuBLAS with and without L2 written over before each run"
    for f in on off; do
        mkdir -p "$OUT/flush/$f"
        for ch in 07_cuda_warp_tiled 10_wmma_double_buffered 15_wgmma_persistent; do
            "build/chapters/$ch" --sizes 512,1024,2048,4096,8192 --l2-flush $f --check off \
                --out "$OUT/flush/$f" > "$OUT/flush/${ch}_$f.txt" 2>&1
            echo "$ch --l2-flush $f exit $?"; grep -E "^[0-9]+ " "$OUT/flush/${ch}_$f.txt"
        done
    done
fi

if has repeat; then
    log "separate processes of chapters 07 and 15 at 4096 and 8192 (the honesty bar: three runs)"
    for i in 1 2 3; do
        mkdir -p "$OUT/repeat/run$i"
        for ch in 07_cuda_warp_tiled 15_wgmma_persistent; do
            "build/chapters/$ch" --sizes 4096,8192 --out "$OUT/repeat/run$i" \
                > "$OUT/repeat/run$i/$ch.txt" 2>&1
            echo "run $i $ch exit $?"; grep -E "^[0-9]+ |slowed" "$OUT/repeat/run$i/$ch.txt"
        done
    done
fi

if has ceilings && [ -x build/tools/ceilings ]; then
    log "ceilings: copy bandwidth, mma.sync, wgmma, cuBLAS (tools/ceilings; writes \$OUT/ceilings.csv)"
    build/tools/ceilings --out "$OUT" > "$OUT/ceilings.txt" 2>&1
    echo "ceilings exit $?"; sed -n '/^what /,$p' "$OUT/ceilings.txt"; grep "^ceilings:" "$OUT/ceilings.txt"
fi

if has tune && [ -x build/tools/tune ]; then
    log "tuning candidates"
    build/tools/tune --sizes 4096,8192 --out "$OUT/tune" > "$OUT/tune.txt" 2>&1
    grep -E "^== |^4096|^8192" "$OUT/tune.txt"
fi

if has tune_hopper && [ -x build/tools/tune_hopper ]; then
    log "chapters 12-14 and the steps of chapter 15's table"
    build/tools/tune_hopper --sizes 2048,4096,8192,16384 --reps 30 --out "$OUT/tune_hopper" > "$OUT/tune_hopper.txt" 2>&1
    grep -E "^== |^2048|^4096|^8192|^16384" "$OUT/tune_hopper.txt"
fi

# Median SM clock and board power while one command runs (nvidia-smi sampled every 50 ms; only
# the samples with the GPU busy count).
under_smi() {  # name, command...
    local name=$1; shift
    nvidia-smi --query-gpu=utilization.gpu,clocks.sm,power.draw,clocks_throttle_reasons.active \
        --format=csv,noheader,nounits -lms 50 > "$OUT/ablation/smi_$name.csv" 2>&1 &
    local smi=$!
    "$@" | grep -E "^[0-9]+ "
    kill "$smi"; wait "$smi" 2>/dev/null
    python3 - "$OUT/ablation/smi_$name.csv" "$name" <<'PY'
import statistics, sys
rows = [[f.strip() for f in l.split(",")] for l in open(sys.argv[1]) if l.count(",") == 3]
busy = [r for r in rows if r[0].isdigit() and int(r[0]) >= 90]
if not busy:
    sys.exit(f"{sys.argv[2]}: no busy samples")
clock = statistics.median(float(r[1]) for r in busy)
power = statistics.median(float(r[2]) for r in busy)
capped = sum(int(r[3], 16) & 0x4 != 0 for r in busy) / len(busy)
print(f"{sys.argv[2]:12s} {len(busy):4d} busy samples: median SM clock {clock:5.0f} MHz, "
      f"board power {power:4.0f} W, power-capped in {100 * capped:3.0f}% of them")
PY
}

if has ablation && [ -x build/tools/ablation ]; then
    log "chapter 11 ablation: the probes at 4096 and 8192, then each alone under nvidia-smi"
    mkdir -p "$OUT/ablation"
    build/tools/ablation --sizes 4096,8192 --reps 20 --check off --out "$OUT/ablation" \
        > "$OUT/ablation.txt" 2>&1
    echo "ablation exit $?"; grep -E "^== |^4096|^8192" "$OUT/ablation.txt"
    "$PLOT_PY" tools/plot.py "$OUT"/ablation/ablation_*.csv
    nvidia-smi -q -d POWER > "$OUT/ablation/power_limits.txt" 2>&1
    grep -E "Current Power Limit|Max Power Limit" "$OUT/ablation/power_limits.txt" | head -2
    for probe in full same_ktile no_copies no_ldmatrix mma_only; do
        under_smi "$probe" env GEMM_ABLATION_ONLY=$probe build/tools/ablation --sizes 8192 \
            --reps 1500 --warmup 5 --no-baseline --check off --out /tmp/ablation
    done
    for ch in 10_wmma_double_buffered 15_wgmma_persistent; do
        [ -x "build/chapters/$ch" ] && under_smi "${ch:0:2}" "build/chapters/$ch" --sizes 8192 \
            --reps 1500 --warmup 5 --no-baseline --check off --out /tmp/ablation
    done
fi

if has shapes && [ -x build/tools/shape_sweep ]; then
    log "shapes: the three rules of docs/shapes.md, chapters 10 and 11 against cuBLAS"
    mkdir -p "$OUT/shapes"
    for ch in 10 11; do
        # 1. multiples of 8: the projection layer of the tensor-core guide, vocabulary 33700..33720
        build/tools/shape_sweep --chapter $ch --m 5120 --n 33700:33720:2 --k 1024 --reps 10 \
            --name projection_$ch --out "$OUT/shapes" > "$OUT/shapes/projection_$ch.txt" 2>&1
        echo "projection $ch exit $?"
        # 3. waves: the feed-forward layer (1024 -> 4096) over batch sizes
        build/tools/shape_sweep --chapter $ch --m 128:8192:128 --n 4096 --k 1024 --reps 10 \
            --name batch_$ch --out "$OUT/shapes" > "$OUT/shapes/batch_$ch.txt" 2>&1
        echo "batch $ch exit $?"
    done
    # 2. tiles: N across a few 256-wide tile columns at 4096 x 4096
    build/tools/shape_sweep --chapter 10 --m 4096 --n 3840:4608:32 --k 4096 --reps 10 \
        --name tiles_10 --out "$OUT/shapes" > "$OUT/shapes/tiles_10.txt" 2>&1
    echo "tiles 10 exit $?"
    "$PLOT_PY" tools/plot.py "$OUT/shapes"
    grep -h -A12 "^tile model" "$OUT"/shapes/*.txt | head -40
fi

if has suite; then
    # The last chapter of the list that this build holds (on an H200 the last Hopper chapter).
    suite_ch=${SUITE_CHAPTER:-}
    if [ -z "$suite_ch" ]; then
        for ch in $(python3 tools/chapters.py ids --kind cuda,hopper --precision fp32,fp16); do
            [ ! -x "build/chapters/$ch" ] || suite_ch=$ch
        done
    fi
    log "shape suite: $suite_ch against cuBLAS on tools/suite_shapes.txt, three separate runs"
    mkdir -p "$OUT/suite"
    # A ceilings step of this session measured the copy bandwidth: use it, else plots/*/ceilings.csv.
    ceil=()
    [ ! -f "$OUT/ceilings.csv" ] || ceil=(--ceilings "$OUT/ceilings.csv")
    for i in 1 2 3; do
        python3 tools/suite.py "build/chapters/$suite_ch" --out "$OUT/suite/run$i" "${ceil[@]}" \
            > "$OUT/suite/run$i.txt" 2>&1
        echo "suite run $i exit $?"; sed -n '/^geomean/,/^wall time/p' "$OUT/suite/run$i.txt"
        "$PLOT_PY" tools/plot.py --png "$OUT/suite/run$i"
    done
fi

if has ncu; then
    log "Nsight Compute: every ncu command the chapter READMEs give, verbatim"
    for ch in $GPU_CHAPTERS; do
        [ -x "build/chapters/$ch" ] || continue
        : > "$OUT/ncu_$ch.txt"
        grep -E "^\s*ncu --" "chapters/$ch/README.md" | while read -r cmd; do
            echo "\$ $cmd" >> "$OUT/ncu_$ch.txt"
            bash -c "$cmd" >> "$OUT/ncu_$ch.txt" 2>&1
            echo "$ch ncu exit $?"
        done
    done
fi

if has sanitize; then
    log "compute-sanitizer (memcheck, and racecheck from chapter 11 on) on small awkward shapes"
    for ch in $GPU_CHAPTERS; do
        [ -x "build/chapters/$ch" ] || continue
        tools=(memcheck)
        case $ch in 1[1-9]_*) tools+=(racecheck) ;; esac
        for tool in "${tools[@]}"; do
            compute-sanitizer --tool "$tool" --error-exitcode 9 "build/chapters/$ch" \
                --sizes 1,17x33x65,127x1x129,100x37x19,300x260x270,520x512x136 --reps 1 --warmup 0 \
                --no-baseline --out /tmp/san > "$OUT/sanitize_${ch}_$tool.txt" 2>&1
            echo "$ch $tool exit $?"
            grep -m3 -E "ERROR SUMMARY|RACECHECK SUMMARY|Invalid" "$OUT/sanitize_${ch}_$tool.txt"
        done
    done
fi
log "done"

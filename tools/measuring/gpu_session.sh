#!/usr/bin/env bash
# One batch on a GPU machine: configure, build, test, benchmark, profile. Used for every number
# under plots/ and in the chapter READMEs:
#
#   tools/measuring/gpu_session.sh [plan] [ladder] [test] [bench] [suites] [ceilings]
#                        [ncu_ladder] [plot] [stamp] [check] [flush] [repeat] [tune]
#                        [tune_hopper] [ablation] [shapes] [suite] [ncu] [sanitize]
#                        (default: test bench)
#
#   ladder      the results a newcomer sees, from one tree in one session (docs/results.md):
#               stamp bench ceilings suites ncu_ladder plot check, into OUT = plots/<gpu>/
#               (plots/h200/ on an H200). ladder1 (stamp bench ceilings plot) and ladder2
#               (suites ncu_ladder plot check) are the same in two commands (on a machine that
#               copies the tree afresh per command, put ladder1's OUT into the tree before ladder2:
#               its suites read OUT/ceilings.csv, its check and charts the chapters' CSVs; ladder2
#               stops with exit 2 when OUT's stamp names another tree); CHAPTERS="..." splits
#               ncu_ladder further (the profile table is remade from every chapter's log). Alone:
#   stamp       OUT/stamp.txt: the commit, dirty or not, the date, the GPU
# (tools/measuring/ladder.py)
#   bench       every chapter at its default sizes (ladder: CSVs straight into OUT)
#   suites      the shape suite of the last fp16 and the last fp8 chapter of the list
#   ceilings    copy bandwidth, mma.sync, wgmma, cuBLAS (tools/ceilings) -> OUT/ceilings.csv
#   ncu_ladder  Nsight Compute on every GPU chapter at 4096, one launch, the same metrics
#               (tools/measuring/ladder.py metrics) -> OUT/ncu/<chapter>.csv, profile.csv,
#               profile.md
#   plot        tools/reporting/plot.py OUT (ladder.svg, all_chapters.svg, results.md...) and the
# suites
#   check       every CSV of the ladder in OUT (top level, suite/, ncu/) that names a commit names the stamp's
#               (tools/measuring/ladder.py check)
#   plan        print each step's napkin time and stop: nothing is built or run (no GPU needed)
#
# Environment: OUT (where results go; default plots/<gpu>/ with ladder steps, else results/),
# ARCH (default 90), DOCTEST_INCLUDE, CHAPTERS (default: all GPU chapters), EXTRA (options for
# every GPU chapter binary in `bench`), ROUNDS and SIZES (bench: --rounds and --sizes of every
# GPU chapter, for a quick ladder, e.g. ROUNDS=3 SIZES=4096,8192), SUITE_RUNS (suites; default 1),
# SUITE_CHAPTER (`suite`; default: the last of CHAPTERS that is built), NCU_LAUNCHES (ncu_ladder:
# kernels profiled per chapter, the longest is reported; default 8), PACK (a .tgz written at the end
# with OUT in it), GEMM_SOURCE_COMMIT and GEMM_SOURCE_DIRTY (stamp, outside a git checkout).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1  # tools/measuring/ -> the repository
ARCH=${ARCH:-90}
steps=()
for s in "$@"; do
    case $s in
        ladder) steps+=(stamp bench ceilings suites ncu_ladder plot check) ;;
        ladder1) steps+=(stamp bench ceilings plot) ;;  # the ladder in two commands of under
        ladder2) steps+=(suites ncu_ladder plot check) ;;  # 10 minutes each, into the same OUT
        *) steps+=("$s") ;;
    esac
done
[ ${#steps[@]} -gt 0 ] || steps=(test bench)
has() { local s; for s in "${steps[@]}"; do [ "$s" = "$1" ] && return 0; done; return 1; }
log() { echo "== $(date +%T) $*"; }
ladder_steps=(stamp suites ncu_ladder plot check)
is_ladder=0
for s in "${ladder_steps[@]}"; do has "$s" && is_ladder=1; done
for a in "$@"; do case $a in ladder | ladder1 | ladder2) is_ladder=1 ;; esac; done

# plan: the napkin time of each step asked for, from the chapter list and earlier results.
if has plan; then
    plan_steps=()
    for s in "${steps[@]}"; do
        case $s in bench | suites | ceilings | plot) plan_steps+=("$s") ;; ncu_ladder) plan_steps+=(ncu) ;; esac
    done
    [ ${#plan_steps[@]} -gt 0 ] || plan_steps=(bench suites ceilings ncu plot)
    plan_args=(--steps "build,$(IFS=,; echo "${plan_steps[*]}")")
    [ -z "${ROUNDS:-}" ] || plan_args+=(--rounds "$ROUNDS")
    [ -z "${SIZES:-}" ] || plan_args+=(--sizes "$SIZES")
    [ -z "${CHAPTERS:-}" ] || plan_args+=(--chapters "$CHAPTERS")
    python3 -m tools.measuring.ladder plan "${plan_args[@]}"
    exit $?
fi
# The step's napkin time before it, what it took after it.
step_start=0
begin() {  # step-for-plan, message
    log "$2"
    [ -z "$1" ] || python3 -m tools.measuring.ladder plan --steps "$1" ${ROUNDS:+--rounds "$ROUNDS"} \
        ${SIZES:+--sizes "$SIZES"} ${CHAPTERS:+--chapters "$CHAPTERS"} 2>&1 | head -1 | sed 's/^/   estimate: /'
    step_start=$SECONDS
}
took() { echo "   took $((SECONDS - step_start)) s"; }

# The ladder's folder is one per GPU: plots/h200 on an "NVIDIA H200".
gpu_slug() {
    nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 |
        sed -E 's/^NVIDIA //; s/^([A-Za-z]+[0-9]+).*/\1/' | tr 'A-Z' 'a-z' | tr -c 'a-z0-9\n' '_'
}
if [ -z "${OUT:-}" ]; then
    OUT=results
    if [ $is_ladder = 1 ]; then
        slug=$(gpu_slug)
        OUT=plots/${slug:-unknown_gpu}
    fi
fi
mkdir -p "$OUT"
# The ladder keeps its own log beside its results: what ran, each step's estimate and time.
if [ $is_ladder = 1 ]; then exec > >(tee -a "$OUT/session.log") 2>&1; fi
echo "results go to $OUT/"

# The charts (tools/reporting/plot.py) need matplotlib: Debian's python3-matplotlib is for
# /usr/bin/python3.
PLOT_PY=python3
python3 -c "import matplotlib" 2>/dev/null || PLOT_PY=/usr/bin/python3

GPU_CHAPTERS=${CHAPTERS:-$(python3 -m tools.build.chapters ids --kind cuda,hopper | tr '\n' ' ')}  # chapters/chapters.txt
CPU_CHAPTERS=$(python3 -m tools.build.chapters ids --kind cpu | tr '\n' ' ')

if has stamp; then
    python3 -m tools.measuring.ladder stamp "$OUT" tools/measuring/gpu_session.sh "$@"
elif [ $is_ladder = 1 ] && has suites; then
    # ladder2: the suites read ladder1's ceilings, the check its stamp; stop before any GPU time
    # when OUT holds another tree's run (a copy of the tree made before ladder1's results were in it).
    python3 -m tools.measuring.ladder same-tree "$OUT" || exit 2
fi

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw \
    --format=csv 2>&1 | tee "$OUT/nvidia-smi.txt"

begin build "configure + build (sm_$ARCH)"
tests=auto
if has test; then tests=enabled; fi
opts=(-Dgpu_archs="$ARCH" -Dtests="$tests" -Dwerror=true)
[ -n "${DOCTEST_INCLUDE:-}" ] && opts+=(-Ddoctest_include="$DOCTEST_INCLUDE")
[ -f build/build.ninja ] || meson setup build "${opts[@]}" > "$OUT/configure.log" 2>&1 ||
    { tail -30 "$OUT/configure.log"; exit 1; }
# Everything for the test suite; for the other steps only the chapters and the tools they run (the
# test programs are most of the build's time).
targets=()
if ! has test; then
    wanted=" $CPU_CHAPTERS $GPU_CHAPTERS "
    for t in ceilings tune tune_hopper ablation shape_sweep; do wanted+="$t "; done
    while read -r t; do
        case $wanted in *" ${t##*/} "*) targets+=("$t") ;; esac
    done < <(ninja -C build -t targets all 2>/dev/null | sed -nE 's#^((chapters|tools)/[A-Za-z0-9_]+):.*#\1#p')
fi
ninja -C build -k 0 "${targets[@]}" > "$OUT/build.log" 2>&1 ||
    { grep -E "error|FAILED" "$OUT/build.log" | head -40; }
took

if has test; then
    log "test suite with GEMM_REQUIRE_GPU=1"
    GEMM_REQUIRE_GPU=1 meson test -C build --print-errorlogs --num-processes 1 > "$OUT/test.log" 2>&1
    echo "meson test exit: $?"
    grep -E "^ *[0-9]+/[0-9]+ " "$OUT/test.log"
    grep -E "ERROR|FAIL" "$OUT/test.log" | head -40
fi

if has bench; then
    begin bench "benchmark: every chapter with its default sizes, the yardstick in alternating rounds in the same run"
    # The ladder's CSVs go straight into OUT (one folder per GPU); other sessions keep OUT/bench.
    bench_dir=$OUT/bench
    if [ $is_ladder = 1 ]; then
        bench_dir=$OUT
        # One run of one tree: no chapter's files of an earlier run stay beside this one's.
        rm -f "$OUT"/[0-9][0-9]_*.csv "$OUT"/[0-9][0-9]_*.txt "$OUT"/[0-9][0-9]_*.svg
    fi
    mkdir -p "$bench_dir"
    gpu_extra=()
    [ -z "${ROUNDS:-}" ] || gpu_extra+=(--rounds "$ROUNDS")
    [ -z "${SIZES:-}" ] || gpu_extra+=(--sizes "$SIZES")
    for ch in $CPU_CHAPTERS $GPU_CHAPTERS; do
        [ -x "build/chapters/$ch" ] || { echo "$ch: not built"; continue; }
        extra=("${gpu_extra[@]}")
        # shellcheck disable=SC2206
        [ -z "${EXTRA:-}" ] || extra+=($EXTRA)
        case " $CPU_CHAPTERS " in *" $ch "*) extra=() ;; esac  # the CPU chapters keep their own sizes
        "build/chapters/$ch" --out "$bench_dir" "${extra[@]}" > "$bench_dir/$ch.txt" 2>&1
        echo "$ch exit $?"; tail -n +7 "$bench_dir/$ch.txt" | grep -vE "^$|wrote|checks passed"
    done
    [ $is_ladder = 1 ] || "$PLOT_PY" -m tools.reporting.plot "$bench_dir"
    if [ $is_ladder = 0 ]; then
        # The step between chapters 01 and 02 at 1024, on this machine's CPU, with OpenBLAS.
        for ch in $CPU_CHAPTERS; do
            "build/chapters/$ch" --sizes 1024 --reps 3 --warmup 1 --out "$OUT/bench/cpu1024" > "$OUT/bench/cpu1024_${ch:0:2}.txt" 2>&1
            tail -n 4 "$OUT/bench/cpu1024_${ch:0:2}.txt"
        done
    fi
    took
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
    begin ceilings "ceilings: copy bandwidth, mma.sync, wgmma, cuBLAS (tools/ceilings; writes \$OUT/ceilings.csv)"
    build/tools/ceilings --out "$OUT" > "$OUT/ceilings.txt" 2>&1
    echo "ceilings exit $?"; sed -n '/^what /,$p' "$OUT/ceilings.txt"; grep "^ceilings:" "$OUT/ceilings.txt"
    took
fi

# The shape suite of the last fp16 and the last fp8 chapter of the list
# (tools/measuring/ladder.py suites), after the ceilings: the suite reads the measured copy
# bandwidth from OUT/ceilings.csv.
if has suites; then
    begin suites "shape suites: $(python3 -m tools.measuring.ladder suites | tr '\n' ' ')against their yardsticks"
    rm -rf "$OUT/suite"
    for ch in $(python3 -m tools.measuring.ladder suites); do
        [ -x "build/chapters/$ch" ] || { echo "$ch: not built"; continue; }
        ceil=()
        [ ! -f "$OUT/ceilings.csv" ] || ceil=(--ceilings "$OUT/ceilings.csv")
        for i in $(seq "${SUITE_RUNS:-1}"); do
            dir=$OUT/suite/$ch
            [ "${SUITE_RUNS:-1}" = 1 ] || dir=$OUT/suite/$ch/run$i
            mkdir -p "$(dirname "$dir")"
            python3 -m tools.measuring.suite "build/chapters/$ch" --out "$dir" "${ceil[@]}" > "$dir.log" 2>&1 ||
                echo "$ch suite exit $? (the log: $dir.log)"
            sed -n '/^geomean/,/^wall time/p' "$dir.log"
        done
    done
    took
fi

# Nsight Compute on every GPU chapter at 4096: one launch, the same metrics, the longest kernel of
# the launch reported (no kernel names written here: tools/measuring/ladder.py profile picks it).
if has ncu_ladder; then
    begin ncu "Nsight Compute at 4096 on every GPU chapter (tools/measuring/ladder.py metrics)"
    mkdir -p "$OUT/ncu"  # the profile table is remade from every chapter's log: CHAPTERS splits it
    # The metrics this ncu knows (a megabyte of text: read here, not kept in OUT).
    known=$(mktemp)
    ncu --query-metrics > "$known" 2>&1 || true
    metrics=$(python3 -m tools.measuring.ladder metrics --available "$known")
    rm -f "$known"
    for ch in $GPU_CHAPTERS; do
        [ -x "build/chapters/$ch" ] || continue
        rm -f "$OUT/ncu/$ch.csv"
        # Only the chapter's own kernels (its kernel file's __global__ functions), not the
        # harness's conversions; all of them for a chapter that defines none.
        filter=()
        names=$(python3 -m tools.measuring.ladder kernels "$ch")
        [ -z "$names" ] || filter=(-k "regex:$names")
        for try in 1 2; do
            ncu --clock-control none --csv --print-units base --launch-count "${NCU_LAUNCHES:-8}" \
                "${filter[@]}" --metrics "$metrics" --log-file "$OUT/ncu/$ch.csv" \
                "build/chapters/$ch" --sizes 4096 --reps 1 --warmup 0 --no-baseline --check off \
                --l2-flush off --out /tmp/ncu_ladder > "$OUT/ncu/$ch.txt" 2>&1
            rc=$?
            # A metric this ncu does not know stops it: once, again without the ones it names.
            unknown=$(grep -ohE "Failed to find metric [A-Za-z0-9_.]+" "$OUT/ncu/$ch.csv" \
                "$OUT/ncu/$ch.txt" 2>/dev/null | awk '{print $5}' | sort -u)
            [ -n "$unknown" ] && [ "$try" = 1 ] || break
            echo "$ch: ncu does not know $(echo "$unknown" | tr '\n' ' ')- again without them"
            for m in $unknown; do metrics=$(echo ",$metrics," | sed "s/,$m,/,/; s/^,//; s/,$//"); done
        done
        echo "$ch ncu exit $rc"
    done
    python3 -m tools.measuring.ladder profile "$OUT" && cat "$OUT/ncu/profile.md"
    took
fi

if has plot; then
    begin plot "charts: tools/reporting/plot.py $OUT (ladder.svg, all_chapters.svg, results.md, roofline.svg)"
    "$PLOT_PY" -m tools.reporting.plot "$OUT"
    find "$OUT/suite" -name 'suite_*.csv' 2>/dev/null | while read -r f; do
        "$PLOT_PY" -m tools.reporting.plot "$(dirname "$f")"
    done
    took
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
    "$PLOT_PY" -m tools.reporting.plot "$OUT"/ablation/ablation_*.csv
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
    "$PLOT_PY" -m tools.reporting.plot "$OUT/shapes"
    grep -h -A12 "^tile model" "$OUT"/shapes/*.txt | head -40
fi

if has suite; then
    # The last chapter of the list that this build holds (on an H200 the last Hopper chapter).
    suite_ch=${SUITE_CHAPTER:-}
    if [ -z "$suite_ch" ]; then
        for ch in $(python3 -m tools.build.chapters ids --kind cuda,hopper --precision fp32,fp16); do
            [ ! -x "build/chapters/$ch" ] || suite_ch=$ch
        done
    fi
    log "shape suite: $suite_ch against cuBLAS on tools/measuring/suite_shapes.txt, three separate runs"
    mkdir -p "$OUT/suite"
    # A ceilings step of this session measured the copy bandwidth: use it, else plots/*/ceilings.csv.
    ceil=()
    [ ! -f "$OUT/ceilings.csv" ] || ceil=(--ceilings "$OUT/ceilings.csv")
    for i in 1 2 3; do
        python3 -m tools.measuring.suite "build/chapters/$suite_ch" --out "$OUT/suite/run$i" "${ceil[@]}" \
            > "$OUT/suite/run$i.txt" 2>&1
        echo "suite run $i exit $?"; sed -n '/^geomean/,/^wall time/p' "$OUT/suite/run$i.txt"
        "$PLOT_PY" -m tools.reporting.plot --png "$OUT/suite/run$i"
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
        case $ch in 1[1-9]_* | [2-9][0-9]_*) tools+=(racecheck) ;; esac
        for tool in "${tools[@]}"; do
            compute-sanitizer --tool "$tool" --error-exitcode 9 "build/chapters/$ch" \
                --sizes 1,17x33x65,127x1x129,100x37x19,300x260x270,520x512x136 --reps 1 --warmup 0 \
                --no-baseline --out /tmp/san > "$OUT/sanitize_${ch}_$tool.txt" 2>&1
            echo "$ch $tool exit $?"
            grep -m3 -E "ERROR SUMMARY|RACECHECK SUMMARY|Invalid" "$OUT/sanitize_${ch}_$tool.txt"
        done
    done
fi
if has check; then
    python3 -m tools.measuring.ladder check "$OUT" || echo "check: some results are not of the stamped commit (above)"
fi
# PACK=FILE.tgz: OUT as one archive (a machine that returns few files: the ladder is many).
if [ -n "${PACK:-}" ]; then
    tar -czf "$PACK" -C "$(dirname "$OUT")" "$(basename "$OUT")" && echo "packed $OUT into $PACK"
fi
log "done"

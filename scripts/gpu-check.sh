#!/usr/bin/env bash
# Runs wavewall's GPU checks and benchmarks on a bare Linux x86-64 GPU server (no display, no
# network, nothing of ours installed) from a bundle made by scripts/gpu-bundle.sh, through EGL's
# device platform and the GPU vendor's EGL library, and writes one report into OUTDIR:
#   report.md, report.json, and each step's log and JSON beside them.
#
#   bash scripts/gpu-check.sh OUTDIR [--bundle DIR] [--dry-run] [--budget-s S]
#
#   --bundle DIR  the bundle (default: this script's folder when it holds bin/wavewall, else
#                 build/gpu-check beside the scripts folder)
#   --dry-run     small sizes and the machine's own GL (Mesa llvmpipe here): the suite runs this
#                 so the script cannot rot; no step asks for a hardware renderer
#   --budget-s S  wall-clock budget of the whole run (default 480); a step that would start
#                 with too little of it left is reported as skipped (and fails the run)
# Exit: 0 when every step passed, 1 when one failed or was skipped, 2 on bad usage; 77 when a
# dry run finds no GL context and CI is not true (the suite's skip).
set -uo pipefail

usage() { echo "usage: $0 OUTDIR [--bundle DIR] [--dry-run] [--budget-s S]" >&2; exit 2; }
out="" bundle="" dry=0 budget=480
while [ $# -gt 0 ]; do
    case "$1" in
        --bundle) [ $# -ge 2 ] || usage; bundle=$2; shift 2 ;;
        --dry-run) dry=1; shift ;;
        --budget-s) [ $# -ge 2 ] || usage; budget=$2; shift 2 ;;
        -*) usage ;;
        *) [ -z "$out" ] || usage; out=$1; shift ;;
    esac
done
[ -n "$out" ] || usage
case "$budget" in '' | *[!0-9]*) echo "gpu-check: --budget-s must be a whole number of seconds" >&2; exit 2 ;; esac
here=$(cd "$(dirname "$0")" && pwd)
if [ -z "$bundle" ]; then
    if [ -x "$here/bin/wavewall" ]; then bundle=$here; else bundle=$here/../build/gpu-check; fi
fi
[ -x "$bundle/bin/wavewall" ] || {
    echo "gpu-check: no bundle at $bundle (make one with: bash scripts/gpu-bundle.sh)" >&2
    exit 2
}
bundle=$(cd "$bundle" && pwd)
mkdir -p "$out" 2>/dev/null && [ -w "$out" ] || { echo "gpu-check: cannot write to $out" >&2; exit 2; }
out=$(cd "$out" && pwd)
start=$(date +%s)

# --- Libraries: the bundle's first, then the GPU driver's EGL vendor library. ---------------
export LD_LIBRARY_PATH="$bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
vendor_note="the machine's own EGL vendors (dry run)"
if [ "$dry" = 0 ] && [ -z "${__EGL_VENDOR_LIBRARY_FILENAMES:-}" ]; then
    vendor_json=""
    for d in /usr/share/glvnd/egl_vendor.d /etc/glvnd/egl_vendor.d /usr/local/nvidia/share/glvnd/egl_vendor.d \
        /usr/local/share/glvnd/egl_vendor.d /usr/lib/nvidia/glvnd/egl_vendor.d; do
        f=$(ls "$d"/*nvidia*.json 2>/dev/null | head -n1)
        if [ -n "$f" ]; then vendor_json=$f; break; fi
    done
    if [ -n "$vendor_json" ]; then
        export __EGL_VENDOR_LIBRARY_FILENAMES=$vendor_json
        vendor_note="$vendor_json"
    else
        vendor_note="no NVIDIA EGL vendor file found (looked in /usr/share, /etc, /usr/local/nvidia)"
    fi
fi
# The driver's libEGL_nvidia and what it loads: wherever the loader does not already see them.
if [ "$dry" = 0 ] && ! ldconfig -p 2>/dev/null | grep -q 'libEGL_nvidia.so.0'; then
    for d in /usr/local/nvidia/lib64 /usr/local/nvidia/lib /usr/lib/x86_64-linux-gnu /usr/lib64; do
        if [ -e "$d/libEGL_nvidia.so.0" ]; then
            export LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$d"
            break
        fi
    done
fi
ww="$bundle/bin/wavewall"
export WAVEWALL_SOURCE_DIR="${WAVEWALL_SOURCE_DIR:-$(cd "$here/.." 2>/dev/null && pwd)}"

# --- Steps: each one's command, exit status, seconds and log go into the report. ------------
results="$out/steps.tsv"
: >"$results"
remaining() { echo $((budget - ($(date +%s) - start))); }
# step NAME LIMIT_S COMMAND...: runs COMMAND with its output in NAME.log, killed after LIMIT_S.
step() {
    local name=$1 limit=$2
    shift 2
    local left
    left=$(remaining)
    if [ "$left" -lt 5 ]; then
        printf '%s\tskipped\t-\t0\t%s\n' "$name" "$*" >>"$results"
        echo "== $name: skipped (budget spent)"
        return
    fi
    [ "$limit" -le "$left" ] || limit=$left
    echo "== $name (limit ${limit}s)"
    local t0 t1 rc
    t0=$(date +%s%N)
    timeout --kill-after=10 "$limit" "$@" >"$out/$name.log" 2>&1
    rc=$?
    t1=$(date +%s%N)
    local status=passed
    if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then status=timeout; elif [ "$rc" != 0 ]; then status=failed; fi
    local ds=$(((t1 - t0) / 100000000))
    printf '%s\t%s\t%s\t%d.%d\t%s\n' "$name" "$status" "$rc" $((ds / 10)) $((ds % 10)) "$*" >>"$results"
    tail -n 3 "$out/$name.log" | sed 's/^/   /'
}

# 1. The context and the compute self-test. A real run wants a hardware renderer.
step info 60 "$ww" info
renderer=$(sed -n 's/^renderer *//p' "$out/info.log" | head -n1)
if [ "$dry" = 1 ] && [ -z "$renderer" ] && [ "${CI:-}" != true ]; then
    # As the GPU tests do: no GL here skips the dry run locally (ctest's SKIP_RETURN_CODE),
    # and fails it under CI=true.
    echo "gpu-check: no GL context on this machine (see $out/info.log): dry run skipped"
    exit 77
fi
if [ "$dry" = 0 ] && echo "$renderer" | grep -qiE 'llvmpipe|softpipe|swrast|software'; then
    printf 'hardware-renderer\tfailed\t1\t0\tinfo renderer is "%s"\n' "$renderer" >>"$results"
fi

# 2. The GPU tests, each binary whole (its CPU references run beside its GPU tests); a missing
#    context fails instead of skipping. The shader validation is left out: it runs Khronos's
#    glslangValidator, a build tool the suite has and a GPU server need not.
test_filter='-ShaderValidation.*'
if [ "$dry" = 1 ]; then
    test_bins=(ww_gpu_tests)
else
    test_bins=(ww_gpu_tests ww_linalg_tests ww_cg_tests ww_wave_tests ww_rigid_tests ww_splash_tests
        ww_lcp_tests ww_render_tests)
fi
# The binaries run side by side (one GL context each); nothing timed runs meanwhile.
for t in "${test_bins[@]}"; do
    step "test-$t" 240 env CI=true WW_REQUIRE_GPU=1 "$bundle/tests/$t" --gtest_filter="$test_filter" \
        --gtest_output="json:$out/test-$t.json" --gtest_brief=1 &
done
wait

# 3. Scenes on both backends: the wall's collapse, a 100 x 100 wall (10 000 bricks), the big
#    water, the splash.
if [ "$dry" = 1 ]; then
    wall=10x6 wall_steps=40 shot=20 grid=128x64 water_steps=20 big_wall=20x10
else
    wall=40x25 wall_steps=300 shot=60 grid=2048x1024 water_steps=600 big_wall=100x100
fi
for be in cpu gpu; do
    step "wall-$wall-$be" 120 "$ww" headless --scene wall --wall "$wall" --column-gap 0 --backend "$be" \
        --steps "$wall_steps" --event "$shot:shoot" --check --summary-json "$out/wall-$wall-$be.json"
    step "water-$grid-$be" 120 "$ww" headless --scene water --grid "$grid" --backend "$be" \
        --steps "$water_steps" --event 0:rain:on --summary-json "$out/water-$grid-$be.json"
done
# A 10 000-brick wall, timed on both backends (without --check: whether so tall a wall stands
# is the wall suite's question, not this script's).
for be in cpu gpu; do
    step "wall-$big_wall-$be" 150 "$ww" headless --scene wall --wall "$big_wall" --column-gap 0 --backend "$be" \
        --steps "$wall_steps" --event "$shot:shoot" --summary-json "$out/wall-$big_wall-$be.json"
done
# The splash: the default scene for 30 s (1800 steps) and the 20 x 20 wall in a 512 x 512 pool
# (docs/splash.md), both under --check; the suite runs them shortened on llvmpipe.
splash_steps=1800
[ "$dry" = 1 ] && splash_steps=$wall_steps
step "splash-gpu" 120 "$ww" headless --scene splash --backend gpu --steps "$splash_steps" --event "$shot:shoot" \
    --check --summary-json "$out/splash-gpu.json"
if [ "$dry" = 0 ]; then
    step "splash-20x20-gpu" 120 "$ww" headless --scene splash --wall 20x20 --grid 512x512 --backend gpu \
        --steps 600 --event 60:shoot --check --summary-json "$out/splash-20x20-gpu.json"
fi

# 4. The CPU's thread scaling (what a 2-core machine cannot show), up to the machine's cores.
cores=$(nproc)
counts=()
for n in 1 2 4 8 16 32; do [ "$n" -le "$cores" ] && counts+=("$n"); done
[ "$dry" = 1 ] && counts=(1 2)
for n in "${counts[@]}"; do
    step "threads-$n-wall" 90 "$ww" headless --scene wall --wall "$wall" --column-gap 0 --backend cpu \
        --threads "$n" --steps "$wall_steps" --event "$shot:shoot" --summary-json "$out/threads-$n-wall.json"
    step "threads-$n-water" 90 "$ww" headless --scene water --grid "$grid" --backend cpu --threads "$n" \
        --steps "$((water_steps / 4 > 10 ? water_steps / 4 : 10))" --event 0:rain:on \
        --summary-json "$out/threads-$n-water.json"
done

# 5. The bench's GPU columns with their CPU baselines, suite by suite (each its own JSON);
#    last, so that a spent budget skips the longest steps only.
if [ "$dry" = 1 ]; then
    suites=(ops cg)
    bench_flags=(--quick --repeat 1)
else
    suites=(ops lcp cg water wall splash)
    bench_flags=(--repeat 3)
fi
for s in "${suites[@]}"; do
    step "bench-$s" 180 "$ww" bench --suite "$s" --backend gpu "${bench_flags[@]}" --json "$out/bench-$s.json"
done

# --- The report. ---------------------------------------------------------------------------
json_num() { # json_num FILE KEY SUBKEY: a number inside "KEY": {... "SUBKEY": x ...}, 3 decimals
    tr -d '\n ' <"$1" 2>/dev/null | grep -o "\"$2\":{[^}]*}" | grep -o "\"$3\":[-0-9.e+]*" | head -n1 |
        cut -d: -f2 | awk 'NF {printf "%.3f", $1}'
}
elapsed=$(($(date +%s) - start))
failed=0
grep -qv $'^[^\t]*\tpassed\t' "$results" && failed=1
gpu_name=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n1)
cpu_name=$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n1)
md="$out/report.md"
{
    echo "# wavewall gpu-check report"
    echo
    echo "- date: $(date -u +%Y-%m-%dT%H:%M:%SZ), $( [ "$dry" = 1 ] && echo 'dry run (small sizes)' || echo 'full run')"
    echo "- renderer: ${renderer:-none} ($(sed -n 's/^GL version *//p' "$out/info.log" | head -n1); $(sed -n 's/^platform *//p' "$out/info.log" | head -n1))"
    echo "- GPU: ${gpu_name:-not reported by nvidia-smi}; EGL vendor: $vendor_note"
    echo "- CPU: $cpu_name, $cores cores"
    echo "- bundle: $(sed -n 2p "$bundle/MANIFEST.txt" | sed 's/^# //')"
    echo "- elapsed: ${elapsed} s; result: $( [ "$failed" = 0 ] && echo PASSED || echo FAILED)"
    echo
    echo "| step | status | exit | seconds |"
    echo "|---|---|---|---|"
    awk -F'\t' '{printf "| %s | %s | %s | %s |\n", $1, $2, $3, $4}' "$results"
    echo
    echo "## Scenes (step ms from --summary-json)"
    echo
    echo "| run | step p50 | step p95 | solve p50 | collide p50 | assemble p50 | integrate p50 |"
    echo "|---|---|---|---|---|---|---|"
    for f in "$out"/wall-*.json "$out"/water-*.json "$out"/splash-*.json "$out"/threads-*.json; do
        [ -f "$f" ] || continue
        printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$(basename "$f" .json)" \
            "$(json_num "$f" step_ms p50)" "$(json_num "$f" step_ms p95)" "$(json_num "$f" phase_ms solve)" \
            "$(json_num "$f" phase_ms collide)" "$(json_num "$f" phase_ms assemble)" \
            "$(json_num "$f" phase_ms integrate)"
    done
    echo
    echo "## Bench tables"
    for s in "${suites[@]}"; do
        [ -f "$out/bench-$s.log" ] || continue
        echo
        echo "### $s"
        echo
        echo '```'
        cat "$out/bench-$s.log"
        echo '```'
    done
    echo
    echo "## Test failures"
    echo
    grep -h '^\[  FAILED  \]' "$out"/test-*.log 2>/dev/null | sort -u || true
    echo
    echo "## info"
    echo
    echo '```'
    cat "$out/info.log"
    echo '```'
} >"$md"

{
    printf '{\n  "dry_run": %s,\n  "passed": %s,\n  "elapsed_s": %s,\n' \
        "$( [ "$dry" = 1 ] && echo true || echo false)" "$( [ "$failed" = 0 ] && echo true || echo false)" "$elapsed"
    printf '  "renderer": "%s",\n  "gpu": "%s",\n  "cpu": "%s",\n  "cores": %s,\n  "steps": [\n' \
        "$(echo "$renderer" | tr -d '"\\')" "$(echo "$gpu_name" | tr -d '"\\')" "$(echo "$cpu_name" | tr -d '"\\')" "$cores"
    awk -F'\t' '{gsub(/["\\]/, "", $5); printf "%s    {\"name\": \"%s\", \"status\": \"%s\", \"exit\": \"%s\", \"seconds\": %s, \"command\": \"%s\"}", (NR > 1 ? ",\n" : ""), $1, $2, $3, $4, $5}' "$results"
    printf '\n  ],\n  "summaries": {'
    first=1
    for f in "$out"/wall-*.json "$out"/water-*.json "$out"/splash-*.json "$out"/threads-*.json; do
        [ -s "$f" ] || continue
        [ "$first" = 1 ] || printf ','
        first=0
        printf '\n    "%s": ' "$(basename "$f" .json)"
        cat "$f"
    done
    printf '\n  }\n}\n'
} >"$out/report.json"

echo "gpu-check: $( [ "$failed" = 0 ] && echo passed || echo FAILED) in ${elapsed} s; report: $md"
exit "$failed"

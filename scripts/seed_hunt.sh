#!/usr/bin/env bash
# Seed hunt: repeats the randomized tests many times, each repetition with fresh seeds, and
# prints every failure with the seed it reported. A test that fails for one seed in a hundred
# passes most CI runs and fails some; this finds it before CI does.
#   bash scripts/seed_hunt.sh               40 repetitions of every test under 1 s
#   bash scripts/seed_hunt.sh 200 'Lcp*'    200 repetitions of the tests matching a filter
#   WAVEWALL_BUILD=build-asan bash scripts/seed_hunt.sh     another build
# Replay a seed with WAVEWALL_TEST_SEED=<seed> where the test reads it (tests/solver/lcp), or
# by pinning it in the test's seed list (the other tests print theirs). The test durations come
# from the build's last ctest run (Testing/Temporary/CTestCostData.txt): run ctest once first.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${WAVEWALL_BUILD:-build}
repeat=${1:-40}
filter=${2:-}
cost="$build/Testing/Temporary/CTestCostData.txt"
[ -f "$cost" ] || { echo "seed_hunt: $cost missing: run ctest in $build once first" >&2; exit 2; }
fast=$(awk 'NF == 3 && $3 < 1.0 {print $1}' "$cost")
failed=0
for bin in "$build"/tests/solver/*/ww_*_tests "$build"/tests/render/ww_render_tests \
    "$build"/tests/app/ww_contact_overlay_tests; do
    [ -x "$bin" ] || continue
    names=$("$bin" --gtest_list_tests | awk '/^[^ ]/ {s = $1} /^  / {print s $1}')
    selected=""
    for n in $names; do
        if grep -qxF "$n" <<<"$fast"; then
            selected="$selected:$n"
        fi
    done
    [ -n "$selected" ] || continue
    args=(--gtest_filter="${selected#:}" --gtest_repeat="$repeat")
    if [ -n "$filter" ]; then
        # gtest takes one filter: intersect by running only the selected names that match.
        matching=$("$bin" --gtest_list_tests --gtest_filter="$filter" |
            awk '/^[^ ]/ {s = $1} /^  / {print s $1}' | grep -xF -f <(tr ':' '\n' <<<"${selected#:}") |
            paste -sd: - || true)
        [ -n "$matching" ] || continue
        args=(--gtest_filter="$matching" --gtest_repeat="$repeat")
    fi
    echo "== $(basename "$bin") x $repeat"
    log=$(mktemp)
    CI=true "$bin" "${args[@]}" >"$log" 2>&1 || true
    if grep -q '^\[  FAILED  \]' "$log"; then
        failed=1
        grep -E '^\[  FAILED  \] [A-Za-z]|Failure$|seed' "$log" | grep -vE '^seed [0-9]+$' |
            sort | uniq -c | sort -rn | head -30
    fi
    rm -f "$log"
done
if [ "$failed" = 1 ]; then
    echo "seed_hunt: failures above" >&2
    exit 1
fi
echo "seed_hunt: no failures in $repeat repetitions"

#!/usr/bin/env bash
# Seed hunt: repeats the randomized tests many times, each repetition with fresh seeds, and
# prints every failure with the seed it reported. A test that fails for one seed in a hundred
# passes most CI runs and fails some; this finds it before CI does.
#   bash scripts/seed_hunt.sh                 40 repetitions of every test under 1 s
#   bash scripts/seed_hunt.sh 200 'Lcp*'      200 repetitions of the tests matching a filter
#   bash scripts/seed_hunt.sh 50 'Threads*' 10    tests up to 10 s too (the default limit is 1 s)
#   WAVEWALL_BUILD=build-asan bash scripts/seed_hunt.sh     another build
# Replay a seed with WAVEWALL_TEST_SEED=<seed> where the test reads it (tests/solver/lcp), or
# by pinning it in the test's seed list (the other tests print theirs). The test durations come
# from the build's last ctest run (Testing/Temporary/CTestCostData.txt): run ctest once first.
# The windowed demo tests (tests/render/ww_demo_tests, run under xvfb-run by ctest) are not
# hunted here.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${WAVEWALL_BUILD:-build}
repeat=${1:-40}
filter=${2:-}
maxSeconds=${3:-1.0}
cost="$build/Testing/Temporary/CTestCostData.txt"
[ -f "$cost" ] || { echo "seed_hunt: $cost missing: run ctest in $build once first" >&2; exit 2; }
fast=$(awk -v max="$maxSeconds" 'NF == 3 && $3 < max + 0 {print $1}' "$cost")
# Tests that cannot repeat within one process (ctest runs each in its own): MemoryProbe expects
# the resident set to grow by a fresh 16 MiB block, but once an earlier repetition has freed
# such a block the allocator keeps its pages and hands them out again (glibc raises its mmap
# threshold after freeing a large mapped block), so from the second repetition on the heap
# grows by 16 MiB and the resident set by nothing.
unrepeatable='^MemoryProbe\.'
# As ctest does (tests/CMakeLists.txt): tests that load shipped files find them here.
export WAVEWALL_SOURCE_DIR="$PWD"
failed=0
for bin in "$build"/tests/solver/*/ww_*_tests "$build"/tests/render/ww_render_tests \
    "$build"/tests/app/ww_*_tests "$build"/tests/app/bench/ww_*_tests; do
    [ -x "$bin" ] || continue
    names=$("$bin" --gtest_list_tests | awk '/^[^ ]/ {s = $1} /^  / {print s $1}')
    selected=""
    for n in $names; do
        if [[ ! $n =~ $unrepeatable ]] && grep -qxF "$n" <<<"$fast"; then
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
    status=0
    CI=true "$bin" "${args[@]}" >"$log" 2>&1 || status=$?
    if grep -q '^\[  FAILED  \] [A-Za-z].* (' "$log"; then
        failed=1
        # Each failure with the seed lines its test printed (before or in its failure message).
        awk '/^\[ RUN      \]/ {seeds = ""}
             /[Ss]eed[ =:]*[0-9]+/ && !/^\[/ {seeds = seeds " | " $0}
             /^\[  FAILED  \] [A-Za-z].* \(/ {print "FAILED " $4 seeds}' "$log" |
            sort | uniq -c | sort -rn | head -30
        # The first failure message of each failing test.
        awk '/^\[ RUN      \]/ {t = $4} /Failure$/ && !shown[t]++ {n = 4} n > 0 {print; n--}' "$log"
    elif [ "$status" != 0 ]; then
        # A crash (or a sanitizer's abort) ends the repetitions without a FAILED line.
        failed=1
        echo "exit status $status; the last test started:"
        grep '^\[ RUN      \]' "$log" | tail -1
        tail -20 "$log"
    fi
    rm -f "$log"
done
if [ "$failed" = 1 ]; then
    echo "seed_hunt: failures above" >&2
    exit 1
fi
echo "seed_hunt: no failures in $repeat repetitions"

#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz, -DWW_FUZZ=ON with Debian's clang + libclang-rt) in
# their own build folder and runs each for a bounded time from its seed corpus.
#   bash scripts/fuzz.sh [SECONDS_PER_TARGET]     (default 60)
#   FUZZ_OUT=build-x/fuzz bash scripts/fuzz.sh     another build folder (default build-fuzz;
#                                                  one configured with WW_FUZZ=ON is reused)
#   FUZZ_TARGETS="state_file" bash scripts/fuzz.sh only some targets
#   FUZZ_JOBS=N                                    build jobs (default: the number of cores)
# Exits 1 when a target finds a problem (its input is written to $FUZZ_OUT/crashes/; turn it
# into a regression test in tests/solver/io or tests/app and add it to tests/fuzz/corpus/), 2
# when clang is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
command -v clang++ >/dev/null || {
    echo "fuzz: clang++ missing (apt-get install clang libclang-rt-14-dev, or scripts/install-deps.sh)" >&2
    exit 2
}

out=${FUZZ_OUT:-build-fuzz}
targets=(${FUZZ_TARGETS:-matrix_market config state_file})
launcher=()
if command -v ccache >/dev/null; then
    launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi
# Debug (asserts on) at -O1 with ASan + UBSan and coverage on every library (CMakeLists.txt,
# WW_FUZZ). No tests, and no -Werror: clang warns about a few flags and things g++ does not.
# A folder already configured with WW_FUZZ=ON is used as it is: scripts/test.sh --sanitize
# builds build-asan/ so, with the tests, and CI fuzzes from there (FUZZ_OUT=build-asan).
mkdir -p "$out"
if grep -q '^WW_FUZZ:BOOL=ON$' "$out/CMakeCache.txt" 2>/dev/null; then
    echo "fuzz: using the fuzz-enabled build in $out"
else
    CC=clang CXX=clang++ cmake -S . -B "$out" -DWW_FUZZ=ON -DWW_BUILD_TESTS=OFF -DWW_WERROR=OFF \
        -DCMAKE_BUILD_TYPE=Debug "${launcher[@]}" >"$out/configure.log" 2>&1 || {
        cat "$out/configure.log" >&2
        exit 1
    }
fi
cmake --build "$out" -j "${FUZZ_JOBS:-$(nproc)}" --target "${targets[@]/#/fuzz_}"

mkdir -p "$out/crashes"
# libFuzzer's default memory limits stay on (-rss_limit_mb=2048, -malloc_limit_mb the same): an
# input that makes a single allocation beyond 2 GB is a finding, as it fails in a container
# with a 2 GB limit. Do not raise them.
status=0
for target in "${targets[@]}"; do
    corpus="$out/corpus_$target"
    mkdir -p "$corpus"
    cp -n tests/fuzz/corpus/$target/* "$corpus/" 2>/dev/null || true
    # A state file seed (a small scene's snapshot) is a few kB; configs and matrices are small.
    max_len=4096
    [ "$target" = state_file ] && max_len=65536
    echo "== fuzz_$target for ${seconds}s"
    if ! "$out/tests/fuzz/fuzz_$target" "$corpus" -max_total_time="$seconds" -max_len=$max_len \
        -timeout=10 -artifact_prefix="$out/crashes/${target}-" -print_final_stats=1 \
        2>"$out/fuzz_$target.log"; then
        echo "fuzz_$target found a problem: see $out/fuzz_$target.log and $out/crashes/" >&2
        tail -n 30 "$out/fuzz_$target.log" >&2
        status=1
    fi
    grep -E "stat::number_of_executed_units|stat::peak_rss_mb|Done" "$out/fuzz_$target.log" || true
done
exit $status

#!/usr/bin/env bash
# Builds the libFuzzer targets (Debian's clang + libclang-rt) and runs each for a bounded time.
#   bash scripts/fuzz.sh [SECONDS_PER_TARGET]     (default 60)
# Crashes are written to build-fuzz/crashes/; turn each into a regression test (tests/solver/io,
# tests/app) and add the input to tests/fuzz/corpus/.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
command -v clang++ >/dev/null || { echo "fuzz: clang++ missing (apt-get install clang libclang-rt-14-dev)" >&2; exit 2; }

out=build-fuzz
mkdir -p "$out/crashes"
flags=(-std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -I. -I/usr/include)

clang++ "${flags[@]}" tests/fuzz/fuzz_matrix_market.cpp solver/io/matrix_market.cpp \
    -o "$out/fuzz_matrix_market"
clang++ "${flags[@]}" tests/fuzz/fuzz_config.cpp app/cli/option_table.cpp -o "$out/fuzz_config"

status=0
for target in matrix_market config; do
    corpus="$out/corpus_$target"
    mkdir -p "$corpus"
    cp -n tests/fuzz/corpus/$target/* "$corpus/" 2>/dev/null || true
    echo "== fuzz_$target for ${seconds}s"
    if ! "$out/fuzz_$target" "$corpus" -max_total_time="$seconds" -max_len=4096 -timeout=10 \
        -artifact_prefix="$out/crashes/${target}-" -print_final_stats=1 2>"$out/fuzz_$target.log"; then
        echo "fuzz_$target found a problem: see $out/fuzz_$target.log and $out/crashes/" >&2
        status=1
    fi
    grep -E "stat::number_of_executed_units|Done" "$out/fuzz_$target.log" || true
done
exit $status

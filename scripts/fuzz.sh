#!/usr/bin/env bash
# Builds the libFuzzer targets (Debian's clang + libclang-rt) and runs each for a bounded time.
#   bash scripts/fuzz.sh [SECONDS_PER_TARGET]     (default 60)
#   FUZZ_OUT=build-x/fuzz bash scripts/fuzz.sh     another output folder (default build-fuzz)
# Crashes are written to build-fuzz/crashes/; turn each into a regression test (tests/solver/io,
# tests/app) and add the input to tests/fuzz/corpus/.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
command -v clang++ >/dev/null || { echo "fuzz: clang++ missing (apt-get install clang libclang-rt-14-dev)" >&2; exit 2; }

out=${FUZZ_OUT:-build-fuzz}
mkdir -p "$out/crashes"
# Undefined behaviour aborts (a finding), as in the sanitizer build of the tests.
flags=(-std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -I.
    -I/usr/include)

clang++ "${flags[@]}" tests/fuzz/fuzz_matrix_market.cpp solver/io/matrix_market.cpp \
    -o "$out/fuzz_matrix_market"
# The config target validates scene settings as the CLI does (app/cli/scene_options.cpp); the
# wall's defaults come from solver/rigid/world.cpp, whose solver code the linker drops again
# (--gc-sections), so the target stays a few files instead of the whole solver.
clang++ -std=c++20 -O1 -I. -ffunction-sections -fdata-sections -c solver/rigid/world.cpp \
    -o "$out/world_defaults.o"  # not under test: no instrumentation, which would keep it all
clang++ "${flags[@]}" tests/fuzz/fuzz_config.cpp app/cli/option_table.cpp \
    app/cli/scene_options.cpp "$out/world_defaults.o" -Wl,--gc-sections -o "$out/fuzz_config"

# libFuzzer's default memory limits stay on (-rss_limit_mb=2048, -malloc_limit_mb the same): an
# input that makes a single allocation beyond 2 GB is a finding, as it fails in a container
# with a 2 GB limit. Do not raise them.
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

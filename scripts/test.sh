#!/usr/bin/env bash
# Builds wavewall and runs the whole test suite (ctest). Pass --sanitize to also build and
# run it under AddressSanitizer + UndefinedBehaviorSanitizer in build-asan/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh

jobs=$(nproc)
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j"$jobs"
ctest --test-dir build --output-on-failure -j"$jobs"

#!/usr/bin/env bash
# Builds wavewall and runs the demo: a desktop window when a display is available, otherwise
# a short headless simulation of both scenes with a printed summary. Extra arguments go to
# `wavewall demo` (e.g. --scene water).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)"
exec ./build/app/wavewall demo "$@"

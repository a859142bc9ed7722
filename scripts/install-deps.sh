#!/usr/bin/env bash
# Installs wavewall's build and test dependencies from Debian 12 packages.
# Idempotent: packages already present are skipped, so a second run is fast.
set -euo pipefail

packages=(
    build-essential cmake pkg-config git
    libglfw3-dev libglew-dev libglm-dev libimgui-dev libstb-dev
    libegl-dev libegl-mesa0 libgl1-mesa-dri libgl-dev
    libgtest-dev libgmock-dev libbenchmark-dev libeigen3-dev libopenblas-dev
    libcli11-dev nlohmann-json3-dev libtbb-dev
    libbullet-dev libode-dev  # the wall bench's peers (optional: without them it skips them)
    xvfb xauth
    openbox  # a window manager under Xvfb: the demo test minimizes the window
    xdotool  # the demo tests click, drag and press keys in the real window
    ffmpeg   # the demo's --record (video); without it the frames are PNGs
    python3 python3-matplotlib
    clang libclang-rt-14-dev  # scripts/fuzz.sh: the libFuzzer targets (clang++ -fsanitize=fuzzer)
    glslang-tools  # glslangValidator: tests/solver/gpu/shader_validation_test.cpp
    dpkg-dev file desktop-file-utils man-db  # scripts/install-check.sh: cpack -G DEB's
                                             # dpkg-shlibdeps, the desktop entry, the man page
)

missing=()
for p in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$p")
    fi
done

if [ ${#missing[@]} -eq 0 ]; then
    echo "install-deps: all ${#packages[@]} packages present"
    exit 0
fi

echo "install-deps: installing ${missing[*]}"
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
"${sudo_cmd[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"

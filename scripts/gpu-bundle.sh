#!/usr/bin/env bash
# Packs what scripts/gpu-check.sh needs on a bare GPU server into one folder:
#   bin/wavewall, tests/ww_*_tests (the test binaries that hold GPU tests), lib/ (every shared
#   library they load, copied from this machine's Debian packages, the C library itself excepted)
#   and MANIFEST.txt (each library with the Debian package and version it came from).
# The GL libraries carried are glvnd's vendor-neutral ones (libEGL, libOpenGL, libGL, libGLX,
# libGLdispatch): the GPU's own driver (libEGL_nvidia) is found on the server by gpu-check.sh.
#
#   bash scripts/gpu-bundle.sh [BUILD_DIR [BUNDLE_DIR]]     (defaults: build, BUILD_DIR/gpu-check)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
bundle=${2:-$build/gpu-check}

exe="$build/app/wavewall"
[ -x "$exe" ] || { echo "gpu-bundle: $exe missing: build first (cmake --build $build)" >&2; exit 2; }
# The test binaries whose suites hold GPU tests (WW_REQUIRE_GPU) and need no wavewall
# executable of their own (the app tests have its build path compiled in).
tests=(solver/gpu/ww_gpu_tests solver/linalg/ww_linalg_tests solver/cg/ww_cg_tests
    solver/wave/ww_wave_tests solver/rigid/ww_rigid_tests solver/splash/ww_splash_tests
    solver/lcp/ww_lcp_tests render/ww_render_tests)

rm -rf "$bundle"
mkdir -p "$bundle/bin" "$bundle/tests" "$bundle/lib"
binaries=("$exe")
strip -o "$bundle/bin/wavewall" "$exe"
for t in "${tests[@]}"; do
    [ -x "$build/tests/$t" ] || { echo "gpu-bundle: $build/tests/$t missing" >&2; exit 2; }
    strip -o "$bundle/tests/$(basename "$t")" "$build/tests/$t"
    binaries+=("$build/tests/$t")
done

# The C library and its loader stay the server's own (a newer glibc runs these binaries; an
# older one would not run a copied loader either).
is_system() {
    case "$1" in
        linux-vdso* | ld-linux* | libc.so* | libm.so* | libpthread.so* | libdl.so* | librt.so*) return 0 ;;
    esac
    return 1
}
declare -A seen=()
manifest="$bundle/MANIFEST.txt"
{
    echo "# wavewall gpu-check bundle, made $(date -u +%Y-%m-%dT%H:%MZ) on $(. /etc/os-release && echo "$PRETTY_NAME")"
    echo "# git $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet 2>/dev/null || echo ' (with local changes)')"
    echo "# library  package  version"
} >"$manifest"
for b in "${binaries[@]}"; do
    while read -r name _ path _; do
        [ -n "${path:-}" ] && [ -f "$path" ] || continue
        is_system "$name" && continue
        [ -n "${seen[$name]:-}" ] && continue
        seen[$name]=1
        cp -L "$path" "$bundle/lib/$name"
        real=$(readlink -f "$path")
        pkg=$(dpkg -S "$real" 2>/dev/null | head -n1 | cut -d: -f1 || true)
        [ -n "$pkg" ] || pkg=$(dpkg -S "$path" 2>/dev/null | head -n1 | cut -d: -f1 || true)
        ver=$( [ -n "$pkg" ] && dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null || echo "?")
        echo "$name  ${pkg:-?}  $ver" >>"$manifest"
    done < <(ldd "$b" | awk '/=>/ {print $1, $2, $3, $4}')
done
cp scripts/gpu-check.sh "$bundle/"
echo "gpu-bundle: $bundle ($(du -sh "$bundle" | cut -f1), ${#seen[@]} libraries, ${#tests[@]} test binaries)"

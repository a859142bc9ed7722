#!/usr/bin/env bash
# Checks wavewall installed like a package (docs/install.md):
#   1. builds BUILD_DIR (default build/; configured Release when it has no CMakeCache.txt),
#   2. installs it into BUILD_DIR/install-check/root (DESTDIR, prefix /usr) and checks the files
#      (binary, presets, docs, manual page, desktop entry, icon, headers, CMake package),
#   3. runs the installed binary: --version, the wall and the water headless (60 steps, CPU,
#      presets by name from another folder), an unknown preset naming the installed folder,
#   4. builds examples/solve_lcp_and_cg against the installed CMake package and runs it,
#   5. makes the .debs with cpack and lists them, checking what they must hold, and runs the
#      binary of the unpacked runtime package.
# Usage: scripts/install-check.sh [BUILD_DIR]. Idempotent: BUILD_DIR/install-check is made anew.
set -euo pipefail
cd "$(dirname "$0")/.."
src=$(pwd -P)

build="${1:-build}"
jobs=$(nproc)
step="start"
trap 'echo "install-check: FAILED at: $step" >&2' ERR
fail() {
    echo "install-check: FAILED at: $step: $*" >&2
    exit 1
}
begin() {
    step="$*"
    echo "== install-check: $step =="
}
need() {
    command -v "$1" >/dev/null || fail "'$1' is missing (install $2; scripts/install-deps.sh does)"
}
need cpack cmake
need dpkg-deb dpkg
need dpkg-shlibdeps dpkg-dev

begin "build $build"
if [ ! -f "$build/CMakeCache.txt" ]; then
    cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release
fi
# Everything: cpack installs the whole project, which needs every target built.
cmake --build "$build" -j"$jobs"
build=$(cd "$build" && pwd -P)
version=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$build/CMakeCache.txt")
[ -n "$version" ] || fail "no CMAKE_PROJECT_VERSION in $build/CMakeCache.txt"

work="$build/install-check"
root="$work/root"
rm -rf "$work"
mkdir -p "$work/elsewhere"

begin "install into $root (DESTDIR, prefix /usr)"
DESTDIR="$root" cmake --install "$build" --prefix /usr >"$work/install.log"
usr="$root/usr"
for f in bin/wavewall \
         share/wavewall/assets/wall.json share/wavewall/assets/water.json \
         share/man/man1/wavewall.1 \
         share/applications/wavewall.desktop \
         share/icons/hicolor/scalable/apps/wavewall.svg \
         share/doc/wavewall/README.md share/doc/wavewall/cli.md share/doc/wavewall/install.md \
         include/wavewall/solver/lcp/lcp_solver.h include/wavewall/solver/cg/cg_solver.h \
         lib/cmake/wavewall/wavewallConfig.cmake \
         lib/cmake/wavewall/wavewallConfigVersion.cmake \
         lib/cmake/wavewall/wavewallTargets.cmake; do
    [ -f "$usr/$f" ] || fail "$usr/$f was not installed"
done
[ -x "$usr/bin/wavewall" ] || fail "$usr/bin/wavewall is not executable"
grep -q '^\.SS "wavewall headless"' "$usr/share/man/man1/wavewall.1" ||
    fail "the manual page has no headless section"
if command -v man >/dev/null; then
    MANWIDTH=100 man -l "$usr/share/man/man1/wavewall.1" 2>&1 | grep -q -- "--steps" ||
        fail "man -l does not render the manual page with --steps"
fi
if command -v desktop-file-validate >/dev/null; then
    desktop-file-validate "$usr/share/applications/wavewall.desktop"
fi

begin "run the installed binary"
exe="$usr/bin/wavewall"
first=$("$exe" --version | head -n 1)
[ "$first" = "wavewall $version" ] || fail "--version printed '$first', not 'wavewall $version'"
"$exe" --version
# From another folder, presets by name: they come from $usr/share/wavewall/assets.
(cd "$work/elsewhere" && "$exe" headless --config wall --steps 60 --backend cpu --check \
    --summary-json wall.json) >"$work/wall.log" 2>&1 || { cat "$work/wall.log"; fail "the wall run"; }
(cd "$work/elsewhere" && "$exe" headless --config water --steps 60 --backend cpu --check \
    --summary-json water.json) >"$work/water.log" 2>&1 || { cat "$work/water.log"; fail "the water run"; }
grep -q '"scene": "wall"' "$work/elsewhere/wall.json" || fail "the wall run's summary is not the wall's"
grep -q '"scene": "water"' "$work/elsewhere/water.json" || fail "the water run's summary is not the water's"
tail -n 3 "$work/wall.log" "$work/water.log"
rc=0
(cd "$work/elsewhere" && "$exe" headless --config no_such_preset --steps 1 --backend cpu) \
    >"$work/unknown.log" 2>&1 || rc=$?
[ "$rc" = 2 ] || fail "an unknown preset exited $rc, not 2"
grep -q "$usr/share/wavewall/assets" "$work/unknown.log" ||
    fail "an unknown preset does not name the installed presets folder: $(cat "$work/unknown.log")"

begin "build examples/solve_lcp_and_cg against the installed package"
cmake -S examples/solve_lcp_and_cg -B "$work/example" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH="$usr" >"$work/example-configure.log"
found=$(sed -n 's/^wavewall_DIR:PATH=//p' "$work/example/CMakeCache.txt")
[ "$found" = "$usr/lib/cmake/wavewall" ] ||
    fail "find_package(wavewall) found '$found', not the install's $usr/lib/cmake/wavewall"
cmake --build "$work/example" -j"$jobs"
"$work/example/solve_lcp_and_cg" || fail "the example's residuals are too large"

begin "cpack -G DEB"
(cd "$build" && cpack -G DEB -B "$work/deb") >"$work/cpack.log" 2>&1 ||
    { cat "$work/cpack.log"; fail "cpack"; }
runtime=$(ls "$work/deb"/wavewall_"$version"_*.deb 2>/dev/null | head -n 1 || true)
dev=$(ls "$work/deb"/wavewall-dev_"$version"_*.deb 2>/dev/null | head -n 1 || true)
[ -n "$runtime" ] || fail "no wavewall_${version}_*.deb in $work/deb"
[ -n "$dev" ] || fail "no wavewall-dev_${version}_*.deb in $work/deb"
for deb in "$runtime" "$dev"; do
    echo "-- $(basename "$deb")"
    dpkg-deb -f "$deb" Package Version Architecture Depends
    dpkg-deb -c "$deb" | tee "$deb.list" | awk '{print "   " $6}' | grep -v '/$' | head -n 40
done
for f in ./usr/bin/wavewall ./usr/share/applications/wavewall.desktop \
         ./usr/share/icons/hicolor/scalable/apps/wavewall.svg ./usr/share/man/man1/wavewall.1 \
         ./usr/share/wavewall/assets/wall.json ./usr/share/doc/wavewall/install.md; do
    grep -q " $f\$" "$runtime.list" || fail "$(basename "$runtime") lacks $f"
done
for f in ./usr/include/wavewall/solver/lcp/lcp_solver.h ./usr/lib/cmake/wavewall/wavewallConfig.cmake \
         ./usr/lib/libwavewall_lcp.a ./usr/lib/libwavewall_cg.a; do
    grep -q " $f\$" "$dev.list" || fail "$(basename "$dev") lacks $f"
done
# The unpacked runtime package runs and finds its presets.
dpkg-deb -x "$runtime" "$work/deb/unpacked"
(cd "$work/elsewhere" && "$work/deb/unpacked/usr/bin/wavewall" headless --config wall --steps 5 \
    --backend cpu) >"$work/deb-run.log" 2>&1 || { cat "$work/deb-run.log"; fail "the packaged binary"; }
depends=$(dpkg-deb -f "$runtime" Depends)
for lib in libglew libglfw3 libegl1 libtbb; do
    case "$depends" in
        *"$lib"*) ;;
        *) fail "$(basename "$runtime") does not depend on $lib: $depends" ;;
    esac
done

echo "install-check: OK ($work)"

#!/usr/bin/env bash
# The big walls and long collapses at their default settings, headless on the CPU
# (docs/rigid.md, "Tall walls"):
#   - 100 x 100 and 200 x 50 (10 000 bricks each) shot at step 60 and collapsing for 600 steps
#     with --check (penetration within 0.1 m plus the fastest body's step, no NaN, no diverged
#     solve), past the steps where the upper rows land on the pile;
#   - the same walls at rest for 10 s: --check, and no brick drifts 10 cm or more;
#   - 64 x 64 at rest for 30 s: no brick drifts 1 cm or more;
#   - the 20 x 20 shot three times and the 40 x 25 twice, a pile shot again, with --check.
# Exits 1 when any run fails. Extra arguments go to every run (e.g. --threads 4).
#   bash scripts/tall-walls.sh
#   WAVEWALL_EXE=build-x/app/wavewall bash scripts/tall-walls.sh
set -euo pipefail
cd "$(dirname "$0")/.."
exe=${WAVEWALL_EXE:-build/app/wavewall}
[ -x "$exe" ] || { echo "tall-walls: $exe missing: build first (bash scripts/test.sh)" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

status=0
# run NAME DRIFT_LIMIT_M ARGS...: a headless wall run with --check; DRIFT_LIMIT_M (or -) bounds
# the summary's max_drift.
run() {
    local name=$1 limit=$2; shift 2
    local json="$out/$name.json" rc=0 start=$SECONDS
    echo "== $name: $*"
    "$exe" headless --scene wall --backend cpu --check --summary-json "$json" "$@" \
        >"$out/$name.log" 2>&1 || rc=$?
    if [ "$rc" != 0 ]; then
        grep -E "violation|error" "$out/$name.log" >&2 || tail -5 "$out/$name.log" >&2
        echo "tall-walls: $name failed (exit $rc)" >&2
        status=1
        return
    fi
    /usr/bin/python3 - "$json" "$limit" "$name" "$((SECONDS - start))" <<'PY' || status=1
import json, sys
path, limit, name, seconds = sys.argv[1:]
s = json.load(open(path))
drift, pen = s["max_drift"], s["max_penetration"]
p50 = s["step_ms"]["p50"]
print(f"   {name}: max drift {drift:.3g} m, max penetration {pen:.3g} m, step p50 {p50:.1f} ms, {seconds} s")
if limit != "-" and not drift < float(limit):
    print(f"tall-walls: {name}: a brick drifted {drift:.3g} m, the limit is {limit} m", file=sys.stderr)
    sys.exit(1)
PY
}

for wall in 100x100 200x50; do
    run "$wall-collapse" - --wall "$wall" --steps 600 --event 60:shoot "$@"
    run "$wall-rest" 0.10 --wall "$wall" --steps 600 "$@"
done
run 64x64-rest 0.01 --wall 64x64 --steps 1800 "$@"
run 20x20-three-shots - --wall 20x20 --steps 1600 --event 60:shoot --event 700:shoot \
    --event 1500:shoot "$@"
run 40x25-two-shots - --wall 40x25 --steps 1200 --event 60:shoot --event 700:shoot "$@"
[ "$status" = 0 ] && echo "tall-walls: all runs held"
exit "$status"

#!/usr/bin/env bash
# A simulation that leaves the sane bound stops with exit status 3, names the step and the particle,
# and still leaves complete files behind (summary.json says "diverged"; no temporary files).
set -u
loam="$1"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/fall.yaml" <<'YAML'
name: fall
sim: {dt: 1.0e-3, duration: 2.0, bound: 1.0}
particles:
  - points: {positions: [[0, 0, 0.5], [0.1, 0, 0.9]], radius: 0.01}
output: {frames: 4, png: false}
YAML
"$loam" run "$tmp/fall.yaml" --out "$tmp/out" --quiet 2> "$tmp/err"
status=$?
fail=0
if [ "$status" -ne 3 ]; then echo "FAIL: exit status $status, want 3"; fail=1; fi
# The lower particle (id 0, at 0.5 m) crosses z = -1 m first: t = sqrt(2 * 1.5 / 9.81) = 0.553 s.
if ! grep -Eq "diverged at step 55[0-9] .*particle 0 " "$tmp/err"; then
  echo "FAIL: message does not name the step and particle:"; cat "$tmp/err"; fail=1
fi
if ! grep -q '"status": "diverged"' "$tmp/out/summary.json" 2>/dev/null; then
  echo "FAIL: summary.json missing or not marked diverged"; fail=1
fi
if find "$tmp/out" -name '*.tmp.*' | grep -q .; then echo "FAIL: temporary files left"; fail=1; fi
python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$tmp/out/summary.json" || { echo "FAIL: summary.json is not valid JSON"; fail=1; }
[ $fail -eq 0 ] && echo "cli_diverge: exit 3 with step and particle named, files complete"
exit $fail

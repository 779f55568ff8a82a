#!/usr/bin/env bash
# The three environment scenes run from the `loam` command with their scripted policies (small beds
# through --set): exit 0, a summary naming the environment, PNG frames and ParaView files.
#   usage: cli_env_scenes.sh <path-to-loam> <source-dir>
set -u
loam="$1"
src="$2"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
failures=0
for kind in bulldozing gear_tower excavation; do
  out="$tmp/$kind"
  if ! "$loam" run "$src/scenes/$kind.yaml" --steps 30 --frames 2 --out "$out" --quiet \
      --set environment.particles=400 --set environment.settle_steps=20 --set environment.steps_per_action=10 \
      2>"$tmp/stderr"; then
    echo "FAIL: $kind: $(head -c 2000 "$tmp/stderr")" >&2
    failures=$((failures + 1))
    continue
  fi
  python3 - "$out/summary.json" "$kind" <<'PY' || failures=$((failures + 1))
import json, sys
s = json.load(open(sys.argv[1]))
kind = sys.argv[2]
assert s["status"] == "ok", s
assert s["environment"]["kind"] == kind, s["environment"]
assert s["particles"] == 400 and s["steps"] == 30, (s["particles"], s["steps"])
assert 0.0 <= s["environment"]["final_progress"] <= 1.0
PY
  for f in frames/frame_00000.png frames/frame_00001.png particles.pvd bodies.csv; do
    [ -s "$out/$f" ] || { echo "FAIL: $kind: no $f" >&2; failures=$((failures + 1)); }
  done
done
[ "$failures" -eq 0 ] && echo "all environment scenes ran" || echo "$failures failure(s)" >&2
exit $((failures > 0))

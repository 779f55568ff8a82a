#!/usr/bin/env bash
# Malformed scenes and bad --set overrides: `loam run` must exit with status 2 and say where the
# problem is. Every scenes/bad/*.yaml starts with "# expect-line: N"; the message must contain
# "<file>.yaml:N:" (the path as given on the command line, then the line). Nothing may be written
# to the output folder.
#   usage: cli_bad_scenes.sh <path-to-loam> <source-dir>
set -u
loam="$1"
src="$2"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

# run_bad NAME EXPECTED-SUBSTRING loam-args...: exit status 2, the substring in stderr, no output.
run_bad() {
  local name="$1" want="$2"
  shift 2
  local out="$tmp/out-$name"
  "$loam" run "$@" --out "$out" --steps 2 --quiet >"$tmp/stdout" 2>"$tmp/stderr"
  local rc=$?
  if [ "$rc" -ne 2 ]; then
    fail "$name: exit status $rc, want 2; stderr: $(head -c 2000 "$tmp/stderr")"
  elif ! grep -qF -- "$want" "$tmp/stderr"; then
    fail "$name: message does not contain '$want': $(head -c 2000 "$tmp/stderr")"
  fi
  if [ -e "$out" ]; then
    fail "$name: a failed run created its output folder $out"
  fi
  if [ "$(wc -l <"$tmp/stderr")" -gt 5 ]; then
    fail "$name: expected a short message, got $(wc -l <"$tmp/stderr") lines: $(head -c 2000 "$tmp/stderr")"
  fi
}

count=0
for f in "$src"/scenes/bad/*.yaml; do
  base="$(basename "$f")"
  line="$(sed -n '1s/^# expect-line: \([0-9][0-9]*\)$/\1/p' "$f")"
  if [ -z "$line" ]; then
    fail "$base: the first line must be '# expect-line: N'"
    continue
  fi
  run_bad "$base" "$f:$line:" "$f"
  count=$((count + 1))
done
if [ "$count" -lt 15 ]; then
  fail "only $count malformed scenes in scenes/bad (want at least 15)"
fi

# A file of zero bytes is an empty scene, reported at line 1.
: >"$tmp/zero.yaml"
run_bad zero-bytes "$tmp/zero.yaml:1:" "$tmp/zero.yaml"

# A file that is not valid UTF-8 is a syntax error, not a crash.
printf 'name: \xff\xfe\x00bad\n' >"$tmp/binary.yaml"
run_bad binary "$tmp/binary.yaml:" "$tmp/binary.yaml"

# --set errors: a valid scene with bad overrides. The message names the override, since the
# value does not come from the file.
good="$tmp/good.yaml"
cat >"$good" <<'EOF'
loam: 1
name: good
sim:
  dt: 1.0e-3
solver:
  sweeps: 3
particles:
  - points:
      positions: [[0, 0, 0.1], [0.05, 0, 0.1]]
      radius: 0.01
bodies:
  - name: blade
    shapes:
      - type: box
        half_extents: [0.01, 0.1, 0.05]
    motion:
      type: path
      waypoints:
        - {t: 0.0, position: [0, 0, 0.3]}
        - {t: 1.0, position: [0.2, 0, 0.3]}
output:
  png: false
  video: false
EOF
"$loam" run "$good" --out "$tmp/good-out" --steps 2 --quiet 2>"$tmp/stderr" || fail "the good scene does not run: $(cat "$tmp/stderr")"

run_bad set-bad-path-item "--set 'bodies.shovel.friction=0.3'" "$good" --set bodies.shovel.friction=0.3
run_bad set-bad-path-index "--set 'bodies.7.friction=0.3'" "$good" --set bodies.7.friction=0.3
run_bad set-path-through-value "--set 'solver.sweeps.max=3'" "$good" --set solver.sweeps.max=3
run_bad set-section-as-value "--set 'solver=3'" "$good" --set solver=3
run_bad set-no-equals "--set 'solver.sweeps'" "$good" --set solver.sweeps
run_bad set-empty-value "--set 'solver.sweeps='" "$good" --set solver.sweeps=
run_bad set-bad-value "--set 'solver.sweeps=many'" "$good" --set solver.sweeps=many
run_bad set-out-of-range "--set 'solver.baumgarte=7'" "$good" --set solver.baumgarte=7
run_bad set-bad-vector "--set 'sim.gravity=[0,-9.81]'" "$good" --set "sim.gravity=[0,-9.81]"
run_bad set-waypoint-order "--set 'bodies.blade.motion.waypoints.1.t=-1'" "$good" --set bodies.blade.motion.waypoints.1.t=-1
# Keys the format does not have: the message must name the override, not a line of the file.
run_bad set-unknown-key "--set 'solver.sweepz=5'" "$good" --set solver.sweepz=5
run_bad set-unknown-section "--set 'solvers.sweeps=5'" "$good" --set solvers.sweeps=5
run_bad set-unknown-nested "--set 'bodies.blade.motion.speed=2'" "$good" --set bodies.blade.motion.speed=2

if [ "$failures" -ne 0 ]; then
  echo "cli_bad_scenes: $failures failure(s)" >&2
  exit 1
fi
echo "cli_bad_scenes: $count malformed scenes and the --set errors are rejected with status 2 and their location"

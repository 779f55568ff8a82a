#!/usr/bin/env bash
# `loam run` command-line handling: bad options exit with status 2 and a message; --out creates
# missing parent folders; --set overrides reach the run (summary.json echoes the solver).
#   usage: cli_options.sh <path-to-loam> <source-dir>
set -u
loam="$1"
# $2, the source folder, is not needed: the scene is written here.
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

scene="$tmp/tiny.yaml"
cat >"$scene" <<'EOF'
loam: 1
name: tiny
sim:
  dt: 1.0e-3
  duration: 0.02
solver:
  sweeps: 3
particles:
  - lattice:
      lo: [-0.05, -0.05, 0.0]
      hi: [0.05, 0.05, 0.05]
      spacing: 0.02
      radius: 0.008
bodies:
  - name: floor
    shapes:
      - type: plane
output:
  frames: 2
  png: false
  video: false
EOF

# expect_status NAME STATUS MESSAGE-SUBSTRING loam-args...
expect_status() {
  local name="$1" want="$2" msg="$3"
  shift 3
  "$loam" "$@" >"$tmp/stdout" 2>"$tmp/stderr"
  local rc=$?
  if [ "$rc" -ne "$want" ]; then
    fail "$name: exit status $rc, want $want; stderr: $(head -c 2000 "$tmp/stderr")"
  elif [ -n "$msg" ] && ! grep -qF -- "$msg" "$tmp/stderr" "$tmp/stdout"; then
    fail "$name: output does not mention '$msg': $(head -c 2000 "$tmp/stderr")"
  fi
}

expect_status unknown-option 2 "--frobnicate" run "$scene" --frobnicate --out "$tmp/x1"
expect_status steps-and-duration 2 "not both" run "$scene" --steps 5 --duration 0.01 --out "$tmp/x2"
expect_status duration-and-steps 2 "not both" run "$scene" --duration 0.01 --steps 5 --out "$tmp/x3"
expect_status missing-scene 2 "$tmp/no-such-scene.yaml" run "$tmp/no-such-scene.yaml" --out "$tmp/x4"
expect_status no-scene 2 "" run --steps 3
expect_status two-scenes 2 "" run "$scene" "$scene" --out "$tmp/x5"
expect_status steps-not-a-number 2 "--steps" run "$scene" --steps ten --out "$tmp/x6"
expect_status steps-fraction 2 "--steps" run "$scene" --steps 2.5 --out "$tmp/x7"
expect_status steps-negative 2 "--steps" run "$scene" --steps -3 --out "$tmp/x8"
expect_status steps-missing-value 2 "--steps" run "$scene" --steps
expect_status threads-negative 2 "--threads" run "$scene" --threads -1 --out "$tmp/x9"
expect_status frames-not-a-number 2 "--frames" run "$scene" --frames many --out "$tmp/x10"
expect_status out-missing-value 2 "--out" run "$scene" --out
expect_status set-missing-value 2 "--set" run "$scene" --set
expect_status unknown-command 2 "frobnicate" frobnicate
expect_status no-command 2 "" 
for k in 1 2 3 4 5 6 7 8 9 10; do
  [ -e "$tmp/x$k" ] && fail "a rejected command line created $tmp/x$k"
done
expect_status help 0 "--steps" run --help
expect_status version 0 "loam" --version

# Every bad option value: exit status 2 and exactly one line on stderr naming the option (never two
# conflicting messages), for every command, before any work starts.
expect_one_error() {
  local name="$1" msg="$2"
  shift 2
  "$loam" "$@" >"$tmp/stdout" 2>"$tmp/stderr"
  local rc=$? lines
  lines=$(wc -l <"$tmp/stderr")
  if [ "$rc" -ne 2 ]; then
    fail "$name: exit status $rc, want 2; stderr: $(head -c 2000 "$tmp/stderr")"
  elif [ "$lines" -ne 1 ]; then
    fail "$name: want exactly one error line, got $lines: $(head -c 2000 "$tmp/stderr")"
  elif ! grep -qF -- "$msg" "$tmp/stderr"; then
    fail "$name: the error does not mention '$msg': $(cat "$tmp/stderr")"
  fi
}
expect_one_error run-steps-negative "--steps" run "$scene" --steps -1 --out "$tmp/y"
expect_one_error run-steps-word "--steps" run "$scene" --steps ten --out "$tmp/y"
expect_one_error run-steps-fraction "--steps" run "$scene" --steps 2.5 --out "$tmp/y"
expect_one_error run-steps-equals "--steps" run "$scene" --steps=-4 --out "$tmp/y"
expect_one_error run-steps-missing "--steps" run "$scene" --steps
expect_one_error run-duration-nan "--duration" run "$scene" --duration nan --out "$tmp/y"
expect_one_error run-frames-huge "--frames" run "$scene" --frames 1e9 --out "$tmp/y"
expect_one_error run-threads-negative "--threads" run "$scene" --threads -1 --out "$tmp/y"
expect_one_error run-out-empty "--out" run "$scene" --out ""
expect_one_error run-quiet-value "--quiet" run "$scene" --quiet=yes --out "$tmp/y"
expect_one_error run-unknown "--frobnicate" run "$scene" --frobnicate 3
expect_one_error granular-particles-zero "--particles" bench granular --particles 0
expect_one_error granular-solver "--solver" bench granular --solver sor
expect_one_error granular-dt-negative "--dt" bench granular --dt=-1e-3
expect_one_error env-kind "--kind" bench env --kind tractor
expect_one_error env-batch-zero "--batch" bench env --batch 0
expect_one_error env-json-value "--json" bench env --json=1
expect_one_error softbody-env "--env" bench softbody --env mars
expect_one_error softbody-iterations "--iterations" bench softbody --iterations 0
expect_one_error multibody-steps-zero "--steps" bench multibody --steps 0
expect_one_error multibody-solver "--solver" bench multibody --step-stats --solver simplex
expect_one_error multibody-scenario "--scenario" bench multibody --scenario juggling
expect_one_error multibody-sizes "--sizes" bench multibody --sizes 10,x
expect_one_error evolve-population "--population" evolve --population 2
expect_one_error evolve-env "--env" evolve --env space
expect_one_error robot-material "--material" robot voxel --material 99 --out "$tmp/y.json"
expect_one_error robot-seed "--seed" robot random --seed -5 --out "$tmp/y.json"
[ -e "$tmp/y" ] && fail "a rejected command line created $tmp/y"

# --out with parents that do not exist yet.
deep="$tmp/a/b/c/run"
expect_status nested-out 0 "" run "$scene" --steps 4 --out "$deep" --quiet
for f in summary.json bodies.csv particles.pvd particles/particles_00000.vtp particles/particles_00001.vtp; do
  [ -s "$deep/$f" ] || fail "nested --out: $deep/$f is missing or empty"
done
[ -e "$deep/frames" ] && fail "output.png=false still made a frames folder"
grep -q '"steps": 4,' "$deep/summary.json" || fail "summary.json does not record --steps 4: $(cat "$deep/summary.json")"
grep -q '"status": "ok"' "$deep/summary.json" || fail "summary.json status is not ok"

# --set reaches the run and summary.json shows it; the file's value is 3.
expect_status set-sweeps 0 "" run "$scene" --steps 3 --out "$tmp/set" --quiet --set solver.sweeps=5 \
  --set solver.baumgarte=0.375 --set "sim.gravity=[0, 0, -3.7]" --set material.friction=0.25
if [ -f "$tmp/set/summary.json" ]; then
  grep -q '"sweeps": 5,' "$tmp/set/summary.json" || fail "--set solver.sweeps=5 not in summary.json: $(cat "$tmp/set/summary.json")"
  grep -q '"baumgarte": 0.375' "$tmp/set/summary.json" || fail "--set solver.baumgarte=0.375 not in summary.json"
  grep -q '"friction": 0.25' "$tmp/set/summary.json" || fail "--set material.friction=0.25 not in summary.json"
else
  fail "--set run wrote no summary.json"
fi
# Without --set the file's value shows.
expect_status no-set 0 "" run "$scene" --steps 3 --out "$tmp/noset" --quiet
grep -q '"sweeps": 3,' "$tmp/noset/summary.json" 2>/dev/null || fail "summary.json does not show the file's sweeps: 3"
# --set of a section the file leaves out creates it (output.frames=0: no particle files).
expect_status set-new-key 0 "" run "$scene" --steps 3 --out "$tmp/newkey" --quiet --set output.frames=0 --set solver.tolerance=0.5
[ -e "$tmp/newkey/particles" ] && fail "--set output.frames=0 still wrote particle frames"
grep -q '"tolerance": 0.5' "$tmp/newkey/summary.json" 2>/dev/null || fail "--set solver.tolerance=0.5 (a key the file leaves out) not in summary.json"
# The last of two --set of the same key wins.
expect_status set-twice 0 "" run "$scene" --steps 3 --out "$tmp/twice" --quiet --set solver.sweeps=4 --set solver.sweeps=6
grep -q '"sweeps": 6,' "$tmp/twice/summary.json" 2>/dev/null || fail "the last --set solver.sweeps=6 did not win"

# --duration picks the step count from dt; --frames 1 writes just the final state.
expect_status duration 0 "" run "$scene" --duration 0.005 --frames 1 --out "$tmp/dur" --quiet
grep -q '"steps": 5,' "$tmp/dur/summary.json" 2>/dev/null || fail "--duration 0.005 with dt 1e-3 did not run 5 steps"
[ -s "$tmp/dur/particles/particles_00000.vtp" ] || fail "--frames 1 wrote no frame"
[ -e "$tmp/dur/particles/particles_00001.vtp" ] && fail "--frames 1 wrote more than one frame"

if [ "$failures" -ne 0 ]; then
  echo "cli_options: $failures failure(s)" >&2
  exit 1
fi
echo "cli_options: all checks passed"

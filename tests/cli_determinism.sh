#!/usr/bin/env bash
# Determinism of `loam run`:
#  - the same scene twice with the same thread count gives byte-identical outputs: summary.json
#    (less its timing keys), bodies.csv, particles.pvd and every .vtp frame;
#  - 1, 2 and 3 threads give byte-identical bodies.csv and .vtp frames (the engine works in fixed
#    blocks with sorted neighbour lists, so the thread count must not change a single bit), and
#    summary.json less timing keys and the thread count.
# The scene: 2,048 polydisperse particles poured into an open box for 200 steps, warm-started, renumbered
# every 10 steps, while a blade sweeps through them and a sphere spins in the pile, so there are
# many particle-particle and particle-body contacts.
#   usage: cli_determinism.sh <path-to-loam> <source-dir>
set -u
loam="$1"
tmp="$(mktemp -d)"
# 3 threads on a 2-core machine: sleep rather than spin while waiting (results do not depend on it).
export OMP_WAIT_POLICY="${OMP_WAIT_POLICY:-passive}"
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

scene="$tmp/det.yaml"
cat >"$scene" <<'EOF'
loam: 1
name: determinism
sim:
  dt: 1.0e-3
  duration: 0.2
solver:
  sweeps: 4
  reorder_interval: 10
material:
  friction: 0.5
particles:
  - lattice:                 # 16 x 8 x 16 = 2,048 particles
      lo: [-0.16, -0.08, 0.01]
      hi: [0.161, 0.081, 0.331]
      spacing: 0.02
      radius: 0.0085
      radius_spread: 0.15
      jitter: 0.2
      velocity: [0.05, 0, -0.5]
      seed: 11
bodies:
  - name: bin
    shapes:
      - type: open_box
        inner_half: [0.18, 0.1, 0.2]
        wall: 0.02
  - name: blade
    friction: 0.4
    shapes:
      - type: box
        half_extents: [0.01, 0.08, 0.06]
    motion:
      type: path
      waypoints:
        - {t: 0.0, position: [-0.17, 0, 0.12]}
        - {t: 0.05, position: [-0.17, 0, 0.08], rpy_deg: [0, 10, 0]}
        - {t: 0.2, position: [0.05, 0, 0.08], rpy_deg: [0, 20, 0]}
  - name: spinner
    shapes:
      - type: sphere
        radius: 0.03
    position: [0.1, 0, 0.05]
    motion: {type: twist, linear: [0, 0, 0], angular: [0, 0, 6]}
output:
  frames: 3
  png: false
  video: false
EOF

run() { # run NAME THREADS
  "$loam" run "$scene" --threads "$2" --out "$tmp/$1" --quiet 2>"$tmp/$1.stderr"
  local rc=$?
  [ "$rc" -eq 0 ] || fail "run $1 (--threads $2) exited with $rc: $(head -c 2000 "$tmp/$1.stderr")"
}

# summary.json less the keys that measure the machine rather than the simulation.
strip_summary() { # strip_summary FILE [extra-key-regex]
  local keys='wall_time_s|realtime_factor|particle_steps_per_s'
  [ -n "${2:-}" ] && keys="$keys|$2"
  grep -vE "^ *\"($keys)\":" "$1"
}

compare() { # compare A B WHAT [extra summary keys to ignore]
  local a="$tmp/$1" b="$tmp/$2" what="$3"
  local files
  files="$(cd "$a" && find . -type f | LC_ALL=C sort)"
  if [ "$files" != "$(cd "$b" && find . -type f | LC_ALL=C sort)" ]; then
    fail "$what: the runs wrote different files: $(diff <(echo "$files") <(cd "$b" && find . -type f | LC_ALL=C sort) | head -20)"
  fi
  local vtps=0
  for f in $files; do
    case "$f" in
      ./summary.json)
        if ! cmp -s <(strip_summary "$a/$f" "${4:-}") <(strip_summary "$b/$f" "${4:-}"); then
          fail "$what: summary.json differs: $(diff <(strip_summary "$a/$f" "${4:-}") <(strip_summary "$b/$f" "${4:-}") | head -20)"
        fi
        ;;
      *)
        [ -f "$b/$f" ] || continue
        if ! cmp -s "$a/$f" "$b/$f"; then
          fail "$what: $f differs ($(cmp "$a/$f" "$b/$f" 2>&1 | head -1))"
        fi
        ;;
    esac
    case "$f" in ./particles/*.vtp) vtps=$((vtps + 1)) ;; esac # body surfaces (bodies/*.vtp) are compared too
  done
  [ "$vtps" -eq 3 ] || fail "$what: expected 3 .vtp frames, found $vtps"
}

run t2a 2
run t2b 2
run t1 1
run t3 3

# The runs must have simulated something worth comparing.
if [ -f "$tmp/t2a/summary.json" ]; then
  grep -q '"particles": 2048,' "$tmp/t2a/summary.json" || fail "expected 2048 particles: $(grep particles "$tmp/t2a/summary.json")"
  grep -q '"steps": 200,' "$tmp/t2a/summary.json" || fail "expected 200 steps"
  grep -q '"status": "ok"' "$tmp/t2a/summary.json" || fail "the run did not end ok"
  contacts="$(sed -n 's/^ *"contacts": \([0-9]*\),*$/\1/p' "$tmp/t2a/summary.json")"
  body_contacts="$(sed -n 's/^ *"body_contacts": \([0-9]*\),*$/\1/p' "$tmp/t2a/summary.json")"
  [ "${contacts:-0}" -gt 2000 ] || fail "only ${contacts:-0} particle contacts at the end: the scene tests little"
  [ "${body_contacts:-0}" -gt 200 ] || fail "only ${body_contacts:-0} body contacts at the end: the scene tests little"
  # bodies.csv has a row per body per step.
  rows="$(wc -l <"$tmp/t2a/bodies.csv")"
  [ "$rows" -ge 600 ] || fail "bodies.csv has $rows lines, want a row per body per step (600+)"
fi

compare t2a t2b "same scene, 2 threads, twice"
compare t2a t1 "1 thread vs 2 threads" threads
compare t2a t3 "3 threads vs 2 threads" threads

if [ "$failures" -ne 0 ]; then
  echo "cli_determinism: $failures failure(s)" >&2
  exit 1
fi
echo "cli_determinism: identical bytes for repeated runs and for 1, 2 and 3 threads"

#!/usr/bin/env bash
# `loam view` without a display: options are checked (one message each, exit 2), --headless runs as
# `loam run` (PNG frames, particle and body files), and with no X server the window's failure says
# why and what to do (exit 4). A loam built without the viewer says so instead. The window itself is
# tested under Xvfb in tests/python/test_viewer.py.
#   usage: cli_view.sh <path-to-loam> <source-dir>
set -u
loam="$1"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

scene="$tmp/tiny.yaml"
cat >"$scene" <<'YAML'
loam: 1
name: tiny
sim: {dt: 1.0e-3, duration: 0.01}
particles:
  - lattice: {lo: [-0.05, -0.05, 0.0], hi: [0.05, 0.05, 0.05], spacing: 0.02, radius: 0.008}
bodies:
  - name: floor
    shapes: [{type: plane}]
  - name: pusher
    shapes: [{type: box, half_extents: [0.01, 0.05, 0.03]}]
    motion: {type: twist, linear: [0.1, 0, 0], angular: [0, 0, 0]}
output: {frames: 2, width: 64, height: 48, video: false}
YAML

# One error line and exit 2 for each bad invocation.
for args in "" "--max-steps -1 $scene" "--seconds nan $scene" "--size 10x10 $scene" "--bogus $scene" "$scene $scene" \
            "--screenshot"; do
  # shellcheck disable=SC2086
  env -u DISPLAY "$loam" view $args >"$tmp/out" 2>"$tmp/err"
  code=$?
  [ "$code" -eq 2 ] || fail "loam view $args: exit $code, expected 2"
  [ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "loam view $args: expected one error line, got: $(cat "$tmp/err")"
done

# --help documents the controls.
"$loam" view --help >"$tmp/help" || fail "loam view --help failed"
grep -q -- "--headless" "$tmp/help" || fail "loam view --help does not mention --headless"
grep -q "space pauses" "$tmp/help" || fail "loam view --help does not name the pause key"

# --headless: today's loam run output (PNG frames), plus the ParaView files of particles and bodies.
out="$tmp/headless"
env -u DISPLAY "$loam" view --headless "$scene" --out "$out" --quiet 2>"$tmp/err" || fail "--headless failed: $(cat "$tmp/err")"
for f in frames/frame_00000.png frames/frame_00001.png particles.pvd scene.pvd scene/scene_00001.vtm \
         bodies/floor.vtp bodies/pusher_00000.vtp bodies/pusher_00001.vtp summary.json; do
  [ -s "$out/$f" ] || fail "--headless: no $f"
done

# Without the viewer, or without a display: a clear message, no crash.
if grep -q "built without the viewer" "$tmp/help"; then
  env -u DISPLAY "$loam" view "$scene" 2>"$tmp/err"
  code=$?
  [ "$code" -eq 2 ] || fail "built without the viewer: exit $code, expected 2"
  grep -q "built without the viewer" "$tmp/err" || fail "no 'built without the viewer' message: $(cat "$tmp/err")"
else
  env -u DISPLAY -u WAYLAND_DISPLAY "$loam" view "$scene" --seconds 1 2>"$tmp/err"
  code=$?
  [ "$code" -eq 4 ] || fail "no display: exit $code, expected 4"
  grep -q "DISPLAY" "$tmp/err" && grep -q "xvfb-run" "$tmp/err" && grep -q -- "--headless" "$tmp/err" ||
    fail "no display: the message should name DISPLAY, xvfb-run and --headless: $(cat "$tmp/err")"
fi

[ "$failures" -eq 0 ] && echo "cli_view: all checks passed"
exit $((failures > 0))

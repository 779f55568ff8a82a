#!/usr/bin/env bash
# The Python distribution as users install it (issue 25, item 4), reusing this build's libloam
# (LOAM_BUILD_DIR) so no second library build runs:
#  - `pip wheel` makes loam_physics-*.whl; installed into a fresh venv (numpy and gymnasium from the
#    system's site-packages), `import loam` from outside the source tree loads the venv's copy and
#    its own libloam.so, and a world and a Gymnasium environment step;
#  - `pip install -e` (editable) of a copy of python/ builds once, and the package keeps importing
#    in new processes once pip's temporary folders are gone, with no build/ folder beside it.
# Both work on a copy of python/ (LOAM_SOURCE_DIR names the checkout), so the source tree stays clean.
#   usage: python_package.sh <build-dir> <source-dir>
set -u
build="$(cd "$1" && pwd)"
src="$(cd "$2" && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}
run() { # run NAME command...: must succeed
  local name="$1"
  shift
  "$@" >"$tmp/log" 2>&1 || fail "$name: '$*' failed: $(tail -c 3000 "$tmp/log")"
}
unset LOAM_LIBRARY PYTHONPATH
export LOAM_SOURCE_DIR="$src" LOAM_BUILD_DIR="$build" PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1
cp -r "$src/python" "$tmp/pkg"
rm -rf "$tmp/pkg/build" "$tmp/pkg"/*.egg-info "$tmp/pkg/loam/_libloam_path" "$tmp/pkg/loam/libloam.so"
cd "$tmp" || exit 1

# The wheel.
run wheel python3 -m pip wheel --no-deps --no-build-isolation -w "$tmp/wheels" "$tmp/pkg"
wheel="$(ls "$tmp"/wheels/loam_physics-*.whl 2>/dev/null | head -n 1)"
[ -n "$wheel" ] || fail "pip wheel made no loam_physics-*.whl: $(ls "$tmp/wheels")"
python3 -m zipfile -l "$wheel" | grep -q 'loam/libloam.so' || fail "the wheel does not hold loam/libloam.so"
run venv python3 -m venv --system-site-packages "$tmp/venv"
# --ignore-installed: a loam-physics in the system site-packages (pip install ./python) must not
# count as already installed in this venv
run wheel-install "$tmp/venv/bin/python" -m pip install --no-deps --no-index --ignore-installed "$wheel"
cat >"$tmp/check.py" <<'PY'
import os, sys
import numpy as np
import loam
# argv: where the package and where its libloam must come from
for what, path, prefix in (("loam.__file__", loam.__file__, sys.argv[1]), ("libloam", loam.library_path, sys.argv[2])):
    prefix = os.path.realpath(prefix)
    assert os.path.realpath(path).startswith(prefix + os.sep), f"{what} is {path}, not under {prefix}"
w = loam.World()
w.add_particles(np.array([[0.0, 0.0, 0.05]], dtype=np.float32), radius=0.01)
w.step(100)
z = float(w.particles.z[0])
fall = 0.5 * 9.81 * 0.1**2  # free fall for 0.1 s (no floor); the step's O(dt) error is 1e-3 m at most
assert abs((0.05 - z) - fall) < 1e-3, f"fell {0.05 - z} m in 0.1 s, expected {fall}"
import gymnasium as gym
env = gym.make("loam/Bulldozing-v0", particles=200)
obs, info = env.reset(seed=0)
obs, reward, terminated, truncated, info = env.step(env.action_space.sample())
assert env.observation_space.contains(obs), "the observation is outside the observation space"
env.close()
print("ok", loam.__file__, loam.library_path)
PY
run wheel-import "$tmp/venv/bin/python" "$tmp/check.py" "$tmp/venv" "$tmp/venv"
"$tmp/venv/bin/python" -m pip show loam-physics >/dev/null 2>&1 || fail "pip show loam-physics: not installed under that name"

# The editable install: built once into LOAM_BUILD_DIR, then imported in new processes.
run venv-editable python3 -m venv --system-site-packages "$tmp/venv-e"
# compat mode: a path entry in the venv's site-packages, which comes before the system's (the
# default finder hook would let a loam installed there win)
run editable-install "$tmp/venv-e/bin/python" -m pip install --no-deps --no-build-isolation --ignore-installed --config-settings editable_mode=compat -e "$tmp/pkg"
[ -f "$tmp/pkg/loam/_libloam_path" ] || fail "the editable install wrote no loam/_libloam_path"
run editable-import "$tmp/venv-e/bin/python" "$tmp/check.py" "$tmp/pkg" "$build"
run editable-import-again "$tmp/venv-e/bin/python" -c "import loam; assert loam.__file__.startswith('$tmp/pkg/')"

if [ "$failures" -ne 0 ]; then
  echo "python_package: $failures failure(s)" >&2
  exit 1
fi
echo "python_package: all checks passed"

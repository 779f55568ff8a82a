#!/usr/bin/env bash
# `loam run` reports the signed distance grid of every mesh shape: a stderr line at the start (the
# body, samples, spacing, bytes, and whether the grid was sampled or read from the cache) and
# summary.json's "mesh_grids", whose dims must fit the mesh's bounds, cell and margin and whose bytes
# must be 4 per sample plus the C struct loam_sdf_grid (sized here by ctypes, not by loam).
#   usage: cli_mesh_grids.sh <path-to-loam> <source-dir>
set -u
loam="$1"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
export LOAM_CACHE_DIR="$tmp/cache" # a fresh cache: the first run samples, the second reads
failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

# A 0.1 m cube, outward triangles; a second body uses it scaled by 2 with a coarser grid.
cat >"$tmp/cube.obj" <<'OBJ'
v 0 0 0
v 0.1 0 0
v 0.1 0.1 0
v 0 0.1 0
v 0 0 0.1
v 0.1 0 0.1
v 0.1 0.1 0.1
v 0 0.1 0.1
f 1 3 2
f 1 4 3
f 5 6 7
f 5 7 8
f 1 2 6
f 1 6 5
f 2 3 7
f 2 7 6
f 3 4 8
f 3 8 7
f 4 1 5
f 4 5 8
OBJ
cat >"$tmp/meshes.yaml" <<'YAML'
loam: 1
name: meshes
sim:
  dt: 1.0e-3
particles:
  - lattice:
      lo: [-0.04, -0.04, 0.3]
      hi: [0.04, 0.04, 0.34]
      spacing: 0.02
      radius: 0.008
bodies:
  - name: floor
    shapes:
      - type: plane
  - name: cube
    shapes:
      - type: mesh
        file: cube.obj
        cell: 0.01
        margin: 0.02
  - name: big_cube
    position: [0.4, 0, 0]
    shapes:
      - type: mesh
        file: cube.obj
        scale: 2
        cell: 0.025
        margin: 0.03
output:
  frames: 0
YAML

for run in first second; do
  if ! "$loam" run "$tmp/meshes.yaml" --steps 2 --threads 1 --out "$tmp/$run" 2>"$tmp/$run.stderr"; then
    fail "$run run: $(head -c 2000 "$tmp/$run.stderr")"
  fi
done
"$loam" run "$tmp/meshes.yaml" --steps 2 --threads 1 --out "$tmp/quiet" --quiet 2>"$tmp/quiet.stderr" ||
  fail "quiet run failed"
grep -q "mesh tool" "$tmp/quiet.stderr" && fail "--quiet still printed: $(cat "$tmp/quiet.stderr")"

python3 - "$tmp" <<'PY' || failures=$((failures + 1))
import ctypes, json, sys

tmp = sys.argv[1]


class Grid(ctypes.Structure):  # loam_sdf_grid (include/loam/sdf_grid.h)
    _fields_ = [("origin", ctypes.c_float * 3), ("cell", ctypes.c_float), ("margin", ctypes.c_float),
                ("nx", ctypes.c_int), ("ny", ctypes.c_int), ("nz", ctypes.c_int),
                ("values", ctypes.POINTER(ctypes.c_float))]


grids = json.load(open(f"{tmp}/first/summary.json"))["mesh_grids"]
assert [(g["body"], g["body_index"], g["shape"], g["shared_by"], g["file"]) for g in grids] == [
    ("cube", 1, 0, 1, "cube.obj"), ("big_cube", 2, 0, 1, "cube.obj")], grids
for g, extent, cell, margin in zip(grids, (0.1, 0.2), (0.01, 0.025), (0.02, 0.03)):
    assert (g["cell_m"], g["margin_m"]) == (cell, margin), g
    span = extent + 2 * margin  # the mesh's bounds grown by the margin, sampled every cell
    for n in g["dims"]:
        assert (n - 1) * cell >= span - 1e-6 and (n - 2) * cell < span + 1e-6, (g, n)
    nx, ny, nz = g["dims"]
    assert g["bytes"] == 4 * nx * ny * nz + ctypes.sizeof(Grid), (g, ctypes.sizeof(Grid))

# The same facts a second time (the grids now from the cache): summary.json repeats across runs.
assert json.load(open(f"{tmp}/second/summary.json"))["mesh_grids"] == grids

for run, how in (("first", "sampled"), ("second", "read from the cache")):
    lines = [l for l in open(f"{tmp}/{run}.stderr") if "mesh tool" in l]
    assert len(lines) == 2, (run, lines)
    for line, g, mm in zip(lines, grids, ("10", "25")):
        nx, ny, nz = g["dims"]
        want = (f"loam: mesh tool '{g['body']}' (bodies[{g['body_index']}]): grid {nx}x{ny}x{nz} samples "
                f"every {mm} mm, {g['bytes'] / 1e6:.3g} MB, cube.obj {how} in ")
        assert line.startswith(want), (line, want)
PY

if [ "$failures" -ne 0 ]; then
  echo "cli_mesh_grids: $failures failure(s)" >&2
  exit 1
fi
echo "cli_mesh_grids: all checks passed"

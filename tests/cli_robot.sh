#!/usr/bin/env bash
# `loam robot` writes robot files that load back (replayed by `loam evolve --replay`), including the
# network-generated kind; bad options and impossible robots are exit status 2 with a message.
set -u
loam="$1"
fail=0
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
out=$("$loam" robot voxel --size 3 --out "$dir/v.json") || { echo "FAIL: voxel"; fail=1; }
printf '%s' "$out" | grep -q '64 masses, 468 springs, 108 faces' || { echo "FAIL: 3x3x3 counts: $out"; fail=1; }
"$loam" robot random --size 4 --seed 7 --out "$dir/r.json" >/dev/null || { echo "FAIL: random"; fail=1; }
if out=$("$loam" robot nn --seed 2 --out "$dir/n.json" 2>&1); then
  printf '%s' "$out" | grep -q 'tetrahedra' || { echo "FAIL: nn report: $out"; fail=1; }
  "$loam" evolve --replay "$dir/n.json" --env land --sim-time 0.1 >/dev/null || { echo "FAIL: nn replay"; fail=1; }
else
  printf '%s' "$out" | grep -q 'without qhull' || { echo "FAIL: nn: $out"; fail=1; }
fi
for f in v r; do
  "$loam" evolve --replay "$dir/$f.json" --env water --sim-time 0.1 >/dev/null || { echo "FAIL: replay $f"; fail=1; }
done
"$loam" robot voxel --size 3 --material 23 --out "$dir/x.json" >/dev/null 2>&1
[ $? -eq 2 ] || { echo "FAIL: material 23 is not exit status 2"; fail=1; }
"$loam" robot voxel --size 3 >/dev/null 2>&1
[ $? -eq 2 ] || { echo "FAIL: no --out is not exit status 2"; fail=1; }
"$loam" robot blob --out "$dir/x.json" >/dev/null 2>&1
[ $? -eq 2 ] || { echo "FAIL: unknown kind is not exit status 2"; fail=1; }
[ ! -e "$dir/x.json" ] || { echo "FAIL: a refused robot left a file"; fail=1; }
[ $fail -eq 0 ] && echo "cli_robot: voxel, random and network robots written and replayed; bad input refused"
exit $fail

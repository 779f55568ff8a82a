#!/usr/bin/env bash
# `loam bench multibody --scenario insertion` runs the FEM beam insertion scene (size = beam pieces) and
# prints one JSON row per solver and budget; a size outside 1 to 8 pieces is an error naming it.
set -u
loam="$1"
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$loam" bench multibody --scenario insertion --sizes 2 --solvers pgs,nnewton --steps 2 --settle 20 --json > "$tmp/out.txt" 2>&1
status=$?
[ "$status" -eq 0 ] || { echo "FAIL: exit status $status"; cat "$tmp/out.txt"; fail=1; }
grep '^{' "$tmp/out.txt" | python3 -c '
import json, sys
rows = [json.loads(l) for l in sys.stdin]
assert len(rows) == 6, rows
for d in rows:
    assert d["scenario"] == "insertion" and d["n"] == 2 and d["steps"] == 2 and d["error"] >= 0, d
assert sorted(d["iterations"] for d in rows) == [3, 6, 9, 30, 60, 90], rows
' || { echo "FAIL: rows"; cat "$tmp/out.txt"; fail=1; }
"$loam" bench multibody --scenario insertion --sizes 9 --solvers pgs --steps 1 --settle 0 > "$tmp/bad.txt" 2>&1
grep -q "9 beam pieces, expected 1 to 8" "$tmp/bad.txt" || { echo "FAIL: size 9 not named"; cat "$tmp/bad.txt"; fail=1; }
[ "$fail" -eq 0 ] && echo "cli_bench_insertion: ok"
exit $fail

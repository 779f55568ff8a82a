#!/usr/bin/env bash
# `loam bench multibody --json` prints one JSON object per (scenario, size, solver, iterations) with the
# issue's keys (scenario, solver, iterations, time_s, error), budgets 30/60/90 (3/6/9 for nonsmooth
# Newton), one fit line per solver, and the same rows as CSV; the cable_manip scene runs and --png
# writes a PNG; bad options are exit status 2.
set -u
loam="$1"
src="$2"
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$loam" bench multibody --scenario spheres --sizes 20,40 --solvers pgs,subadmm,nnewton --steps 2 --settle 20 --max-dense 20 \
    --json --csv "$tmp/rows.csv" > "$tmp/out.txt" 2>&1
status=$?
[ "$status" -eq 0 ] || { echo "FAIL: exit status $status"; cat "$tmp/out.txt"; fail=1; }
grep '^{' "$tmp/out.txt" | python3 -c '
import json, sys
rows, fits = [], []
for line in sys.stdin:
    d = json.loads(line)
    (fits if "fit" in d else rows).append(d)
for d in rows:
    for k in ["scenario", "solver", "iterations", "time_s", "error", "n"]:
        assert k in d, "missing %s in %s" % (k, d)
    assert d["scenario"] == "spheres" and d["time_s"] >= 0 and d["error"] >= 0, d
its = sorted({(d["solver"], d["iterations"]) for d in rows})
assert its == [("nnewton", 3), ("nnewton", 6), ("nnewton", 9), ("pgs", 30), ("pgs", 60), ("pgs", 90),
               ("subadmm", 30), ("subadmm", 60), ("subadmm", 90)], its
assert len([d for d in rows if d["solver"] == "nnewton"]) == 3, "nnewton must stop at --max-dense"
assert len(rows) == 15, len(rows)
assert {f["solver"] for f in fits} == {"pgs", "subadmm"} and all(0 <= f["r2"] <= 1 for f in fits), fits
' || { echo "FAIL: JSON lines"; fail=1; }
[ "$(head -n 1 "$tmp/rows.csv")" = "scenario,n,solver,iterations,steps,time_s,error,contacts" ] || { echo "FAIL: CSV header"; fail=1; }
[ "$(wc -l < "$tmp/rows.csv")" -eq 16 ] || { echo "FAIL: CSV rows"; fail=1; }
# the two-robot cable scene, a comma list of scenarios and the PNG scaling plot
"$loam" bench multibody --scenario cable,cable_manip --sizes 60,64 --solvers pgs,subadmm --steps 1 --settle 2 --png "$tmp/scaling.png" \
    > "$tmp/png.txt" 2>&1
status=$?
[ "$status" -eq 0 ] || { echo "FAIL: cable_manip/--png exit status $status"; cat "$tmp/png.txt"; fail=1; }
[ "$(grep -c '^cable_manip ' "$tmp/png.txt")" -eq 12 ] || { echo "FAIL: expected 12 cable_manip rows"; cat "$tmp/png.txt"; fail=1; }
grep -q '^fit cable_manip subadmm' "$tmp/png.txt" || { echo "FAIL: no cable_manip fit"; fail=1; }
[ "$(head -c 4 "$tmp/scaling.png" | od -An -c | tr -d ' ')" = "211PNG" ] || { echo "FAIL: --png wrote no PNG"; fail=1; }
"$loam" bench multibody --scenario cable --png >/dev/null 2>&1
[ $? -eq 2 ] || { echo "FAIL: --png without a file is not exit status 2"; fail=1; }
# --target-error: per solver the iterations and time to reach the error, with the issue's keys
"$loam" bench multibody --scenario spheres --sizes 20 --solvers pgs,subadmm --steps 2 --settle 20 --target-error 1e-3 --json \
    > "$tmp/target.txt" 2>&1 || { echo "FAIL: --target-error exit status"; cat "$tmp/target.txt"; fail=1; }
grep '^{' "$tmp/target.txt" | python3 -c '
import json, sys
rows = [json.loads(line) for line in sys.stdin]
assert sorted(d["solver"] for d in rows) == ["pgs", "subadmm"], rows
for d in rows:
    assert d["target_error"] == 1e-3 and d["reached"] == 2 and d["steps"] == 2, d
    assert d["iterations_to_error"] >= 1 and d["time_to_error_s"] > 0 and 0 <= d["error"] <= 1e-3, d
' || { echo "FAIL: --target-error JSON lines"; cat "$tmp/target.txt"; fail=1; }
# several targets: a row per target and solver, largest target first, ratios to SubADMM, the
# work-precision PNG; a bad list is refused
"$loam" bench multibody --scenario spheres --sizes 20 --solvers pgs,subadmm --steps 1 --settle 20 --target-error 1e-4,1e-3 --json \
    --png "$tmp/precision.png" --csv "$tmp/targets.csv" > "$tmp/targets.txt" 2>&1 || { echo "FAIL: two targets: exit status"; cat "$tmp/targets.txt"; fail=1; }
[ "$(head -n 1 "$tmp/targets.csv")" = "scenario,n,target_error,solver,iterations_to_error,time_to_error_s,error,reached,steps" ] \
    || { echo "FAIL: two targets: CSV header"; fail=1; }
[ "$(wc -l < "$tmp/targets.csv")" -eq 5 ] || { echo "FAIL: two targets: CSV rows"; cat "$tmp/targets.csv"; fail=1; }
# a CSV that cannot be written: exit status 4, and nothing half-written under the name
"$loam" bench multibody --scenario spheres --sizes 20 --solvers pgs --steps 1 --settle 2 --csv "$tmp/no/such/dir/rows.csv" >/dev/null 2>&1
[ $? -eq 4 ] || { echo "FAIL: an unwritable --csv is not exit status 4"; fail=1; }
grep '^{' "$tmp/targets.txt" | python3 -c '
import json, sys
rows = [json.loads(line) for line in sys.stdin]
assert [(d["target_error"], d["solver"]) for d in rows] == [(1e-3, "subadmm"), (1e-3, "pgs"), (1e-4, "subadmm"), (1e-4, "pgs")], rows
' || { echo "FAIL: two targets: JSON lines"; cat "$tmp/targets.txt"; fail=1; }
[ "$(grep -c '^ratio spheres .* pgs/subadmm ' "$tmp/targets.txt")" -eq 2 ] || { echo "FAIL: two targets: ratio lines"; cat "$tmp/targets.txt"; fail=1; }
[ "$(head -c 4 "$tmp/precision.png" | od -An -c | tr -d ' ')" = "211PNG" ] || { echo "FAIL: --target-error --png wrote no PNG"; fail=1; }
for bad in 0 1e-3,x 1e-3,,1e-4 -1; do
    "$loam" bench multibody --target-error "$bad" >/dev/null 2>&1
    [ $? -eq 2 ] || { echo "FAIL: --target-error $bad is not exit status 2"; fail=1; }
done
"$loam" bench multibody --relaxation 2 >/dev/null 2>&1
[ $? -eq 2 ] || { echo "FAIL: --relaxation 2 is not exit status 2"; fail=1; }
"$loam" bench multibody --sizes 0 >/dev/null 2>&1
[ $? -eq 2 ] || { echo "FAIL: a bad --sizes is not exit status 2"; fail=1; }
# --repeat: each step timed several times, the least kept; the rows are the same budgets
"$loam" bench multibody --scenario spheres --sizes 20 --solvers pgs,pgs_cg --steps 2 --settle 5 --repeat 3 > "$tmp/repeat.txt" 2>&1 \
    || { echo "FAIL: --repeat exit status"; cat "$tmp/repeat.txt"; fail=1; }
[ "$(grep -c '^spheres ' "$tmp/repeat.txt")" -eq 6 ] || { echo "FAIL: --repeat: expected 6 rows"; cat "$tmp/repeat.txt"; fail=1; }
"$loam" bench multibody --repeat 0 >/dev/null 2>&1
[ $? -eq 2 ] || { echo "FAIL: --repeat 0 is not exit status 2"; fail=1; }
"$loam" bench multibody --solvers gauss >/dev/null 2>&1
[ $? -eq 2 ] || { echo "FAIL: a bad --solvers is not exit status 2"; fail=1; }
"$loam" bench multibody --scenario stirring --sizes 5 --steps 1 --settle 1 --urdf "$src/tests/data/urdf_bad/joint_cycle.urdf" >/dev/null 2>&1
[ $? -eq 2 ] || { echo "FAIL: a bad --urdf is not exit status 2"; fail=1; }
[ $fail -eq 0 ] && echo "cli_bench_multibody: rows, budgets, fits, CSV, --repeat and --target-error (one and several targets, PNG) as documented; bad options rejected"
exit $fail

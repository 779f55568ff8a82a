#!/usr/bin/env bash
# `loam bench softbody --json` ends with one JSON object with the issue's keys, consistent with each
# other; bad options are exit status 2.
set -u
loam="$1"
fail=0
out=$("$loam" bench softbody --size 3 --sim-time 0.01 --target 1e6 --threads 1 --json --quiet 2>/dev/null)
status=$?
[ "$status" -eq 0 ] || { echo "FAIL: exit status $status"; fail=1; }
printf '%s\n' "$out" | tail -n 1 | python3 -c '
import json, sys
d = json.loads(sys.stdin.read())
need = ["springs_per_s", "total_springs", "robots", "solver", "threads", "series"]
missing = [k for k in need if k not in d]
assert not missing, "missing keys %s" % missing
assert d["springs_per_robot"] == 468 and d["solver"] == "force" and d["threads"] == 1, d
assert d["total_springs"] == 468 * d["robots"], "total springs is robots x springs"
last = d["series"][-1]
assert abs(d["springs_per_s"] - d["total_springs"] * d["steps"] / last["wall_s"]) < 1e-6 * d["springs_per_s"]
assert d["total_springs"] * d["steps"] >= 1e6, "stopped before the target"
assert [p["robots"] for p in d["series"]] == [2 ** k for k in range(len(d["series"]))], "populations double"
' || { echo "FAIL: JSON line"; fail=1; }
"$loam" bench softbody --solver nope >/dev/null 2>&1
[ $? -eq 2 ] || { echo "FAIL: a bad --solver is not exit status 2"; fail=1; }
"$loam" bench softbody --size 0 >/dev/null 2>&1
[ $? -eq 2 ] || { echo "FAIL: --size 0 is not exit status 2"; fail=1; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$loam" robot random --size 3 --seed 3 --out "$dir/r.json" >/dev/null &&
  "$loam" bench softbody --robot "$dir/r.json" --sim-time 0.001 --target 1e3 --threads 1 --json --quiet | tail -n 1 |
  python3 -c 'import json, sys; d = json.loads(sys.stdin.read()); assert d["robot_file"].endswith("r.json") and d["springs_per_s"] > 0, d' ||
  { echo "FAIL: --robot FILE"; fail=1; }
"$loam" bench softbody --robot "$dir/missing.json" >/dev/null 2>&1
[ $? -eq 2 ] || { echo "FAIL: a missing robot file is not exit status 2"; fail=1; }
for s in xpbd_jacobi xpbd_gs; do
  "$loam" bench softbody --size 2 --sim-time 0.001 --target 1e3 --solver $s --env land --threads 1 --quiet >/dev/null 2>&1 ||
    { echo "FAIL: solver $s on land"; fail=1; }
done
[ $fail -eq 0 ] && echo "cli_bench_softbody: JSON keys present and consistent; bad options rejected"
exit $fail

#!/usr/bin/env bash
# `loam evolve` writes the fitness curve (CSV and PNG) and the best robot; replaying the robot with
# the same options gives the fitness evolve reported (bit-identical populations); bad options exit 2.
set -u
loam="$1"
fail=0
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
for env in water land; do
  out=$("$loam" evolve --env $env --generations 3 --population 8 --size 2 --sim-time 0.2 --threads 2 --out "$dir/$env" 2>&1)
  [ $? -eq 0 ] || { echo "FAIL: evolve --env $env: $out"; fail=1; continue; }
  for f in fitness.csv fitness.png best_robot.json; do
    [ -s "$dir/$env/$f" ] || { echo "FAIL: $env: no $f"; fail=1; }
  done
  [ "$(wc -l < "$dir/$env/fitness.csv")" -eq 4 ] || { echo "FAIL: $env: fitness.csv is not 3 generations"; fail=1; }
  best=$(printf '%s\n' "$out" | sed -n 's/^best: \([0-9.]*\) body lengths.*/\1/p')
  again=$("$loam" evolve --replay "$dir/$env/best_robot.json" --env $env --sim-time 0.2 --threads 1 | sed -n 's/.*: \([0-9.]*\) body lengths.*/\1/p')
  [ -n "$best" ] && [ "$best" = "$again" ] || { echo "FAIL: $env: evolve best '$best', replay '$again'"; fail=1; }
  # the elitist best never falls
  python3 - "$dir/$env/fitness.csv" <<'PY' || { echo "FAIL: $env: best fitness fell"; fail=1; }
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
b = [float(r["best"]) for r in rows]
assert all(y >= x for x, y in zip(b, b[1:])), b
assert all(float(r["mean"]) <= float(r["best"]) for r in rows)
PY
done
"$loam" evolve --replay "$dir/land/best_robot.json" --env land --sim-time 0.05 --frames 3 --out "$dir/frames" >/dev/null 2>&1
[ -s "$dir/frames/frame_00002.png" ] || { echo "FAIL: replay frames"; fail=1; }
"$loam" evolve --population 2 >/dev/null 2>&1
[ $? -eq 2 ] || { echo "FAIL: --population 2 is not exit status 2"; fail=1; }
"$loam" evolve --env lava >/dev/null 2>&1
[ $? -eq 2 ] || { echo "FAIL: --env lava is not exit status 2"; fail=1; }
echo '{"masses": [[0,0,0]], "springs": [[0,3,22]]}' > "$dir/bad.json"
msg=$("$loam" evolve --replay "$dir/bad.json" 2>&1)
[ $? -eq 2 ] && printf '%s' "$msg" | grep -q 'springs\[0\]' || { echo "FAIL: bad robot file: $msg"; fail=1; }
[ $fail -eq 0 ] && echo "cli_evolve: curves, best robot, bit-identical replay, frames, bad input"
exit $fail

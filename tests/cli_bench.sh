#!/usr/bin/env bash
# `loam bench granular --json` ends with one JSON object carrying the issue's keys, with sane values;
# a bad option is exit status 2.
set -u
loam="$1"
fail=0
out=$("$loam" bench granular --particles 1500 --steps 20 --settle 200 --threads 1 --json --quiet 2>/dev/null)
status=$?
[ "$status" -eq 0 ] || { echo "FAIL: exit status $status"; fail=1; }
printf '%s\n' "$out" | tail -n 1 | python3 -c '
import json, sys
d = json.loads(sys.stdin.read())
need = ["particle_steps_per_s", "steps_per_s", "realtime_factor", "contacts_per_particle", "dt", "sweeps", "threads", "particles"]
missing = [k for k in need if k not in d]
assert not missing, "missing keys %s" % missing
assert d["particles"] > 1000 and d["sweeps"] == 3 and d["threads"] == 1, d
assert abs(d["realtime_factor"] - d["steps_per_s"] * d["dt"]) <= 1e-9 + 1e-6 * d["realtime_factor"], "realtime factor is not steps/s x dt"
assert abs(d["particle_steps_per_s"] - d["steps_per_s"] * d["particles"]) <= 1e-6 * d["particle_steps_per_s"], "particle-steps/s"
assert d["contacts_per_particle"] > 1.0, "a settled bed has contacts"
' || { echo "FAIL: JSON line"; fail=1; }
"$loam" bench granular --particles nope >/dev/null 2>&1
[ $? -eq 2 ] || { echo "FAIL: a bad --particles is not exit status 2"; fail=1; }
[ $fail -eq 0 ] && echo "cli_bench: JSON keys present and consistent; bad option rejected"
exit $fail

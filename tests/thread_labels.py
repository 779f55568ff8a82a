#!/usr/bin/env python3
"""The tests labelled single_thread (tests/CMakeLists.txt) start no thread: each runs here again, with
OMP_NUM_THREADS=2 and thread_probe.c preloaded, and a test that creates a thread fails this one
(scripts/test.sh's ThreadSanitizer stage skips the label, so a wrong label would hide a race).
With --all, every test runs and those that start no thread are listed: candidates for the label.

thread_labels.py BUILD_DIR PROBE_SO [--all]"""
import json, os, subprocess, sys, tempfile

build, probe = sys.argv[1], sys.argv[2]
survey = "--all" in sys.argv[3:]
select = [] if survey else ["-L", "single_thread"]
listing = subprocess.run(["ctest", "--test-dir", build, "--show-only=json-v1", *select], check=True,
                         capture_output=True, text=True).stdout
tests = json.loads(listing)["tests"]
threaded, single, failed = [], [], []
with tempfile.TemporaryDirectory() as tmp:
    for t in tests:
        if t["name"] == "single_thread_labels":
            continue
        props = {p["name"]: p["value"] for p in t.get("properties", [])}
        env = dict(os.environ)
        env.update(v.split("=", 1) for v in props.get("ENVIRONMENT", []))
        marker = os.path.join(tmp, t["name"])
        env.update(OMP_NUM_THREADS="2", LD_PRELOAD=probe, LOAM_THREAD_PROBE=marker)
        run = subprocess.run(t["command"], cwd=props.get("WORKING_DIRECTORY", build), env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if run.returncode not in (0, props.get("SKIP_RETURN_CODE", 0)):
            failed.append(t["name"])
        (threaded if os.path.exists(marker) else single).append(t["name"])
if survey:
    print("start no thread:", " ".join(single))
    sys.exit(0)
for name in failed:
    print(f"{name}: failed under the probe")
for name in threaded:
    print(f"{name}: labelled single_thread but starts a thread (remove the label in tests/CMakeLists.txt)")
print(f"{len(tests)} single_thread tests, {len(threaded)} start a thread")
sys.exit(1 if threaded or failed else 0)

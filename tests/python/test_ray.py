"""examples/ray_rollouts.py on a local Ray cluster with 2 workers and small sizes."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

import pytest

import loam

ray = pytest.importorskip("ray", reason="ray is not installed (scripts/setup.sh installs it)")


def test_ray_rollouts_example(repo):
    if not loam.HAS_ENVIRONMENTS:
        pytest.skip("libloam without environments")
    env = dict(os.environ)
    # the workers import the same loam as this test (an installed one, or the source tree's)
    pkg_parent = os.path.dirname(os.path.dirname(os.path.abspath(loam.__file__)))
    env["PYTHONPATH"] = os.pathsep.join([pkg_parent] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    env.pop("RAY_ADDRESS", None)  # a local cluster, whatever the machine has running
    tmp = tempfile.mkdtemp(prefix="loamray")  # short: Ray's socket paths must fit in 107 bytes
    env["RAY_TMPDIR"] = tmp
    cmd = [sys.executable, os.path.join(repo, "examples", "ray_rollouts.py"), "--workers", "2", "--envs-per-worker", "2",
           "--particles", "400", "--settle-steps", "20", "--steps-per-action", "10", "--steps", "10"]
    try:
        out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=150)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    summary = json.loads(out.stdout.strip().splitlines()[-1])
    assert summary["workers"] == 2 and summary["env_steps"] == 2 * 2 * 10
    assert summary["sim_seconds"] > 0 and summary["env_steps_per_second"] > 0
    assert len([line for line in out.stdout.splitlines() if line.startswith("worker ")]) == 2

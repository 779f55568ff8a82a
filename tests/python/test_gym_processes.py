"""Gymnasium's vector environments over processes, and thread counts at creation.

libgomp cannot start threads in a child forked after the parent ran OpenMP teams; loam notices such a
fork (a pthread_atfork handler) and runs single-threaded there. The forked cases run in a subprocess
of their own with a hard timeout, so that a regression fails instead of hanging the suite."""
import os
import signal
import subprocess
import sys
import textwrap

import pytest

import loam

gym = pytest.importorskip("gymnasium")
pytestmark = pytest.mark.skipif(not loam.HAS_ENVIRONMENTS, reason="libloam without environments")

SMALL = {"particles": 600, "settle_steps": 30, "steps_per_action": 5}
IDS = ["loam/Bulldozing-v0", "loam/GearTower-v0", "loam/Excavation-v0"]


def _python(code, timeout):
    """Run `code` in a fresh interpreter in its own session; on timeout kill the whole session (forked
    workers included) and fail. Returns (stdout, stderr)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    proc = subprocess.Popen([sys.executable, "-c", textwrap.dedent(code)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True, env=env)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        pytest.fail(f"no result within {timeout} s (a deadlock?)\nstdout:\n{out}\nstderr:\n{err}")
    assert proc.returncode == 0, f"exit {proc.returncode}\nstdout:\n{out}\nstderr:\n{err}"
    return out, err


@pytest.mark.parametrize("env_id", IDS)
def test_make_vec_sync(env_id):
    envs = gym.make_vec(env_id, num_envs=2, vectorization_mode="sync", **SMALL)
    obs, _ = envs.reset(seed=1)
    assert envs.observation_space.contains(obs)
    obs, rewards, term, trunc, infos = envs.step(envs.action_space.sample())
    assert envs.observation_space.contains(obs) and rewards.shape == (2,)
    envs.close()


def test_make_vec_async_fork_after_the_parent_ran_threads():
    # The case: the parent created and stepped an environment on two threads (so libgomp
    # has a pool), then an async vector environment forks its workers.
    out, err = _python(f"""
        import time
        import gymnasium as gym
        import loam
        parent = gym.make("loam/Bulldozing-v0", threads=2, **{SMALL!r})
        parent.reset(seed=0)
        parent.step(parent.action_space.sample())
        assert not loam.threads_forked()
        t0 = time.monotonic()
        envs = gym.make_vec("loam/Bulldozing-v0", num_envs=2, vectorization_mode="async",
                            vector_kwargs={{"context": "fork"}}, threads=2, **{SMALL!r})
        obs, _ = envs.reset(seed=1)
        for _ in range(2):
            obs, rewards, term, trunc, infos = envs.step(envs.action_space.sample())
        assert envs.observation_space.contains(obs) and rewards.shape == (2,)
        envs.close()
        print("seconds", time.monotonic() - t0)
        parent.step(parent.action_space.sample())  # the parent keeps its threads
        assert not loam.threads_forked()
    """, timeout=90)
    seconds = float(out.split()[-1])
    assert seconds < 60
    # each worker said once that it runs single-threaded
    assert err.count("loam runs single-threaded here") == 2, err


def test_fork_before_any_threads_keeps_threads():
    # A child forked from a parent that never ran a team may use OpenMP as usual.
    out, _ = _python("""
        import os
        import loam
        pid = os.fork()
        if pid == 0:
            env = loam.Env("gear_tower", particles=400, settle_steps=10, steps_per_action=2, threads=2)
            env.reset(0)
            env.step([0.1] * env.action_dim)
            os._exit(3 if loam.threads_forked() else 0)
        _, status = os.waitpid(pid, 0)
        print("child", os.waitstatus_to_exitcode(status))
    """, timeout=60)
    assert out.split()[-1] == "0"


def test_creation_honours_threads():
    # libgomp's pool threads stay alive after a region: counting the process's threads shows how many
    # a creation used. threads=1 must start none (it used to settle the bed on every core).
    out, _ = _python("""
        import os
        import loam
        def count():
            return len(os.listdir("/proc/self/task"))
        before = count()
        loam.Env("bulldozing", particles=600, settle_steps=30, threads=1)
        one = count()
        loam.Env("bulldozing", particles=600, settle_steps=30, threads=3)
        three = count()
        print(one - before, three - before)
    """, timeout=60)
    assert out.split() == ["0", "2"]


@pytest.mark.parametrize("env_id", IDS)
def test_stable_baselines3_checker(env_id):
    sb3_checker = pytest.importorskip("stable_baselines3.common.env_checker")
    env = gym.make(env_id, **SMALL)
    sb3_checker.check_env(env.unwrapped, warn=True)
    env.close()

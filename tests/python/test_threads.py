"""Python threads on loam objects: calls on one object take turns (its lock), different objects step in
parallel (ctypes releases the GIL), and step_batch refuses an environment given twice before it
locks anything. Each case runs LOAM_THREAD_REPS times (200 by default); scripts/test.sh runs this file
once more against the AddressSanitizer build of libloam (tests/python/run_asan.sh)."""
import ctypes
import importlib
import os
import threading

import numpy as np
import pytest

import loam

pytestmark = pytest.mark.skipif(not loam.HAS_ENVIRONMENTS, reason="libloam without environments")

REPS = int(os.environ.get("LOAM_THREAD_REPS", "200"))
# Tiny and quick: the point is the interleaving, not the physics.
TINY = {"particles": 120, "settle_steps": 5, "steps_per_action": 2, "threads": 2}
ACTION = np.array([0.7, -0.2], np.float32)


def _run(targets):
    """Start every target on its own thread at once (a barrier), join them, re-raise the first error."""
    errors = []
    start = threading.Barrier(len(targets))

    def wrap(fn):
        def run():
            try:
                start.wait()
                fn()
            except BaseException as e:  # noqa: BLE001 (reported below)
                errors.append(e)
        return run

    threads = [threading.Thread(target=wrap(fn)) for fn in targets]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]


def _positions(env):
    p = env.world.particles
    return np.stack([p.x, p.y, p.z, p.vx, p.vy, p.vz]).copy(), p.id.copy()


def test_the_gil_is_released_during_calls():
    # CDLL (not PyDLL) calls drop the GIL; PyDLL's would serialise every object's steps
    lib = importlib.import_module("loam._lib").lib
    assert isinstance(lib, ctypes.CDLL) and not lib._func_flags_ & ctypes._FUNCFLAG_PYTHONAPI


def test_four_threads_two_environments():
    a = loam.Env("bulldozing", **TINY)
    b = a.clone()
    reference = a.clone()
    steps_each = 2  # per thread per round; two threads share each environment
    a.reset(3), b.reset(3), reference.reset(3)
    for _ in range(REPS):
        _run([lambda e=e: [e.step(ACTION) for _ in range(steps_each)] for e in (a, b, a, b)])
    # every step took the same action, so any order of the turns gives the same world; a race would not
    for _ in range(REPS * 2 * steps_each):
        reference.step(ACTION)
    ref = _positions(reference)
    for env in (a, b):
        got = _positions(env)
        assert np.array_equal(got[1], ref[1]) and np.array_equal(got[0], ref[0])
        assert env.world.step_index == reference.world.step_index == REPS * 2 * steps_each * TINY["steps_per_action"]
    for e in (a, b, reference):
        e.close()


def test_batch_with_one_environment_twice_raises_and_never_deadlocks():
    a = loam.Env("bulldozing", **TINY)
    b = a.clone()
    a.reset(1), b.reset(2)
    actions = np.tile(ACTION, (2, 1))
    before = a.world.step_index

    def duplicate():
        with pytest.raises(ValueError, match=r"envs\[0\] and envs\[1\] are the same environment"):
            loam.step_batch([a, a], actions)

    for _ in range(REPS):
        # duplicates, while two batches over the same pair in opposite orders and a plain step run
        _run([duplicate, lambda: loam.step_batch([a, b], actions), lambda: loam.step_batch([b, a], actions),
              lambda: a.step(ACTION)])
    assert a.world.step_index == before + REPS * 3 * TINY["steps_per_action"]
    a.close(), b.close()


def test_close_waits_for_a_step_in_progress():
    for _ in range(max(1, REPS // 10)):
        env = loam.Env("gear_tower", **TINY)
        env.reset(0)
        def stepper():
            try:
                for _ in range(3):
                    env.step([0.5] * env.action_dim)
            except loam.ClosedError:  # closed between two steps: fine; freed during one: a crash
                pass

        _run([stepper, env.close])
        assert env.closed

"""loam.Model: model and state apart, as in C (include/loam/granular.h). Worlds of one model step to
the bits of a world filled with add_particles / add_body; they are independent, step in parallel from
Python threads to the bits of each alone, share the model's memory, and keep it alive; a model is
fixed once it has worlds. A vector environment's copies share one model."""
import ctypes
import threading

import numpy as np
import pytest

import loam
from loam._lib import lib

N = 400


def _particles():
    i = np.arange(N)
    xyz = np.stack([-0.1 + 0.021 * (i % 10), -0.1 + 0.021 * ((i // 10) % 10), 0.02 + 0.021 * (i // 100) + 0.0005 * (i % 7)], 1)
    radius = 0.0095 + 0.0001 * (i % 5)
    return xyz.astype(np.float32), radius.astype(np.float32)


def _bodies():
    return [loam.Body("ground", [loam.plane(friction=0.5)])]


def _model(**params):
    m = loam.Model(reorder_interval=7, **params)
    xyz, r = _particles()
    assert m.add_particles(xyz, r) == range(0, N)
    for b in _bodies():
        m.add_body(b)
    return m


def _state(w):
    p = w.particles
    return [a.copy() for a in (p.x, p.y, p.z, p.vx, p.vy, p.vz, p.id)] + [w.bodies.copy()]


def _same(a, b):
    return all(np.array_equal(x, y) for x, y in zip(a, b))


def test_model_world_matches_a_world_filled_by_add():
    m = _model(threads=1)
    w = m.world()
    alone = loam.World(reorder_interval=7, threads=1)
    for b in _bodies():
        alone.add_body(b)
    xyz, r = _particles()
    alone.add_particles(xyz, r)
    assert _same(_state(w), _state(alone))
    w.step(30)
    alone.step(30)
    assert _same(_state(w), _state(alone))
    assert m.particle_count == N and m.body_count == 1 and m.memory > N * 8 * 4
    assert m.params["reorder_interval"] == 7


def test_model_is_fixed_once_it_has_worlds_and_its_worlds_take_nothing():
    m = _model()
    w = loam.World(model=m)
    with pytest.raises(loam.InputError, match="already has worlds"):
        m.add_particles([[0, 0, 1]], 0.01)
    with pytest.raises(loam.InputError, match="already has worlds"):
        m.add_body(loam.Body("more", [loam.plane()]))
    with pytest.raises(loam.InputError, match="shared model"):
        w.add_particles([[0, 0, 1]], 0.01)
    with pytest.raises(loam.InputError, match="parameters are the model's"):
        loam.World(model=m, dt=1e-4)


def test_worlds_are_independent_and_outlive_the_model():
    m = _model(threads=1)
    a, b = m.world(), m.world()
    m.close()
    del m
    before = _state(b)
    a.step(20)
    assert _same(_state(b), before)
    b.step(20)
    assert _same(_state(a), _state(b))
    c = a.clone()
    c.step(5)
    a.step(5)
    assert _same(_state(a), _state(c))


def test_two_threads_step_two_worlds_of_one_model():
    m = _model(threads=1)
    ref = m.world()
    ref.step(40)
    want = _state(ref)
    worlds = [m.world() for _ in range(2)]
    threads = [threading.Thread(target=w.step, args=(40,)) for w in worlds]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for w in worlds:
        assert _same(_state(w), want)


def test_state_files_between_worlds_of_one_model(tmp_path):
    m = _model(threads=1)
    a, b = m.world(), m.world()
    a.step(15)
    a.save_state(tmp_path / "a.state")
    b.load_state(tmp_path / "a.state")
    a.step(10)
    b.step(10)
    assert _same(_state(a), _state(b))


def test_vector_env_copies_share_one_model():
    gym = pytest.importorskip("gymnasium")  # noqa: F841
    from loam.gymnasium_envs import LoamVectorEnv

    v = LoamVectorEnv(3, "bulldozing", particles=200, settle_steps=20, steps_per_action=2)
    try:
        v.reset(seed=3)
        models = {lib.loam_world_model(e.world.address) for e in v.envs}
        assert len(models) == 1
    finally:
        v.close()

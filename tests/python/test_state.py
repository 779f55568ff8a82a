"""State copies and state files from Python (docs/state-files.md): a World cloned, copied or
loaded steps on to the same bits as the world that never stopped; an environment restored from a
file or an in-memory snapshot (env.unwrapped.save_state / restore_state) steps on to the same
observations and rewards; bad files raise InputError naming the file; views block a restore."""
import os

import numpy as np
import pytest

import loam


def _world():
    w = loam.World(sweeps=3)
    w.add_body(loam.Body("ground", [loam.plane(friction=0.5)]))
    rng = np.random.default_rng(3)
    xyz = np.column_stack([rng.uniform(-0.05, 0.05, 400), rng.uniform(-0.05, 0.05, 400), rng.uniform(0.01, 0.3, 400)])
    w.add_particles(xyz, radius=0.006)
    return w


def _snapshot(w):
    p = w.particles
    out = np.concatenate([p.positions(), p.velocities()], axis=1).copy(), np.array(p.id).copy()
    del p
    return out


def _same(a, b):
    return np.array_equal(a[0].view(np.uint32), b[0].view(np.uint32)) and np.array_equal(a[1], b[1])


def test_world_clone_copy_and_file(tmp_path):
    w = _world()
    w.step(150)
    path = tmp_path / "world.state"
    w.save_state(path)
    clone = w.clone()
    copy = _world()
    copy.step(5)
    copy.copy_state_from(w)
    w.step(60)  # the reference: never stopped
    loaded = _world()
    loaded.load_state(str(path))
    for other in (clone, copy, loaded):
        other.step(60)
        assert other.step_index == w.step_index
        assert _same(_snapshot(other), _snapshot(w))
    clone.step(1)
    assert not _same(_snapshot(clone), _snapshot(w))  # the comparison can tell


def test_world_bad_files(tmp_path):
    w = _world()
    w.step(20)
    good = tmp_path / "good.state"
    w.save_state(good)
    data = good.read_bytes()
    bad = tmp_path / "bad.state"
    for cut in (0, 10, 32, len(data) // 2, len(data) - 1):
        bad.write_bytes(data[:cut])
        with pytest.raises(loam.InputError, match="bad.state"):
            w.load_state(bad)
    flipped = bytearray(data)
    flipped[len(data) // 2] ^= 0x40
    bad.write_bytes(bytes(flipped))
    with pytest.raises(loam.InputError, match="bad.state.*(checksum|CRC)"):
        w.load_state(bad)
    other = loam.World()
    other.add_particles([[0, 0, 0.1]], radius=0.01)
    with pytest.raises(loam.InputError, match="particles"):
        other.load_state(good)
    views = w.particles  # noqa: F841 a live view: loading would free the arrays under it
    with pytest.raises(loam.InputError, match="view"):
        w.load_state(good)


@pytest.mark.skipif(not loam.HAS_ENVIRONMENTS, reason="library built without environments")
@pytest.mark.parametrize("env_id", ["loam/Bulldozing-v0", "loam/GearTower-v0", "loam/Excavation-v0"])
def test_env_restore_to_saved_state(tmp_path, env_id):
    gym = pytest.importorskip("gymnasium")
    env = gym.make(env_id, particles=300, settle_steps=30, steps_per_action=5)
    env.reset(seed=4)
    u = env.unwrapped
    for _ in range(3):
        env.step(u.scripted_action())
    path = tmp_path / "env.state"
    assert u.save_state(path) == path
    snap = u.save_state()  # in memory

    def rollout():
        out = []
        for _ in range(4):
            obs, reward, *_ = env.step(u.scripted_action())
            out.append((reward, {k: v.copy() for k, v in obs.items()}))
        return out

    def same(a, b):
        return all(ra == rb and all(np.array_equal(oa[k], ob[k]) for k in oa) for (ra, oa), (rb, ob) in zip(a, b))

    ref = rollout()
    obs = u.restore_state(path)
    assert set(obs) == set(ref[0][1])
    assert same(rollout(), ref)
    u.restore_state(snap)
    assert same(rollout(), ref)
    # the restored environment is independent of the snapshot: stepping the snapshot changes nothing here
    snap.step(snap.scripted_action())
    u.restore_state(path)
    assert same(rollout(), ref)
    # a file of another kind is refused, naming the file
    other = gym.make("loam/GearTower-v0" if "Bulldozing" not in env_id else "loam/Excavation-v0", particles=100, settle_steps=1)
    with pytest.raises(loam.InputError, match="env.state"):
        other.unwrapped.restore_state(path)
    other.close()
    env.close()
    assert os.path.exists(path)

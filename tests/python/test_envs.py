"""The Gymnasium environments: registration, spaces from loam's observation specs, seeding, rendering,
info, copies versus zero-copy buffers, and gymnasium's own env_checker on each of the three."""
import gc
import warnings

import numpy as np
import pytest

import loam

gym = pytest.importorskip("gymnasium")
from gymnasium.utils.env_checker import check_env  # noqa: E402

# Small and quick: a thousand particles, a short settle, ten physics steps per action.
SMALL = {"particles": 1000, "settle_steps": 50, "steps_per_action": 10}
IDS = ["loam/Bulldozing-v0", "loam/GearTower-v0", "loam/Excavation-v0"]
INFO = ("sim_time", "tool_force", "progress", "contacts", "episode_seed")
TIMING = ("realtime_factor", "physics_seconds", "sensor_seconds")


@pytest.mark.parametrize("env_id", IDS)
def test_check_env(env_id):
    # default arguments but size: the checker wants info to repeat exactly for a seed, so the default
    # keeps wall-clock timings out of it
    env = gym.make(env_id, render_mode="rgb_array", render_width=64, render_height=48, **SMALL)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any complaint of the checker fails the test
        check_env(env.unwrapped, skip_render_check=False)
    env.close()


@pytest.mark.parametrize("env_id", IDS)
def test_check_env_default_arguments(env_id):
    # exactly as python/README.md makes them: full-size beds (10-20 s each on 2 cores)
    env = gym.make(env_id)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(env.unwrapped)
    env.close()


@pytest.mark.parametrize("env_id", IDS)
def test_spaces_step_and_info(env_id):
    env = gym.make(env_id, **SMALL)
    core = env.unwrapped.core
    assert env.action_space == gym.spaces.Box(-1.0, 1.0, (core.action_dim,), np.float32)
    assert set(env.observation_space.spaces) == {s.name for s in core.obs_specs}
    for s in core.obs_specs:
        box = env.observation_space[s.name]
        assert box.shape == s.shape and box.dtype == np.float32
        assert float(box.low.min()) == s.low and float(box.high.max()) == s.high
    obs, info = env.reset(seed=5)
    assert env.observation_space.contains(obs)
    assert info["sim_time"] == 0.0
    obs, reward, terminated, truncated, info = env.step(env.action_space.sample())
    assert env.observation_space.contains(obs)
    assert isinstance(reward, float) and isinstance(terminated, bool) and isinstance(truncated, bool)
    assert set(info) == set(INFO)
    dt, spa = core.config["dt"], core.config["steps_per_action"]
    assert info["sim_time"] == pytest.approx(dt * spa)
    assert info["tool_force"].shape == (3,)
    # the wall-clock timings live beside info
    timing = env.unwrapped.last_timing
    assert set(timing) == set(TIMING) and timing["realtime_factor"] > 0 and timing["physics_seconds"] > 0
    assert timing["realtime_factor"] == pytest.approx(dt * spa / (timing["physics_seconds"] + timing["sensor_seconds"]),
                                                      rel=1e-9)
    env.close()


def test_kwargs_map_onto_the_c_config():
    env = gym.make("loam/GearTower-v0", particles=800, gears=2, max_gear_speed=5.0, sweeps=2, dt=2e-3,
                   steps_per_action=7, episode_time=3.0, settle_steps=20, seed=9, threads=1)
    cfg = env.unwrapped.core.config
    assert (cfg["particles"], cfg["gears"], cfg["sweeps"], cfg["steps_per_action"], cfg["seed"], cfg["threads"]) == \
        (800, 2, 2, 7, 9, 1)
    assert cfg["max_gear_speed"] == 5.0 and cfg["dt"] == 2e-3 and cfg["episode_time"] == 3.0
    assert env.action_space.shape == (2,)
    assert env.unwrapped.metadata["render_fps"] == pytest.approx(1.0 / (2e-3 * 7))
    env.close()


def test_seeding_is_deterministic_and_none_draws_from_np_random():
    env = gym.make("loam/Bulldozing-v0", **SMALL)
    a = np.array([0.7, -0.3], np.float32)
    runs = []
    for _ in range(2):
        obs, _ = env.reset(seed=11)
        first = obs
        for _ in range(3):
            obs, r, *_ = env.step(a)
        runs.append((obs, r))
    for k in runs[0][0]:
        np.testing.assert_array_equal(runs[0][0][k], runs[1][0][k])
    assert runs[0][1] == runs[1][1]
    o1, _ = env.reset(seed=12)
    assert not np.array_equal(o1["pose"], first["pose"])  # another seed, another start pose
    # seed=None: drawn from np_random, which reset(seed=s) seeded: the same sequence again
    env.reset(seed=3)
    env.reset()
    s1 = env.unwrapped.core.last_seed
    env.reset(seed=3)
    env.reset()
    assert env.unwrapped.core.last_seed == s1
    env.close()


def test_observations_are_copies_and_buffers_are_zero_copy():
    env = gym.make("loam/Bulldozing-v0", **SMALL)
    obs, _ = env.reset(seed=1)
    bufs = env.unwrapped.obs_buffers
    depth0 = obs["depth"].copy()
    pose_buf = bufs["pose"]
    assert not np.shares_memory(obs["pose"], pose_buf)
    addr = pose_buf.__array_interface__["data"][0]
    core = env.unwrapped.core
    from loam._lib import lib
    import ctypes

    names = [s.name for s in core.obs_specs]
    c_addr = ctypes.cast(lib.loam_env_obs_buffer(core.ptr, names.index("pose")), ctypes.c_void_p).value
    assert addr == c_addr  # the buffer view is loam's own memory
    assert not pose_buf.flags.writeable
    before = pose_buf.copy()
    for _ in range(3):
        env.step(np.array([1.0, 0.0], np.float32))
    assert not np.array_equal(pose_buf, before)  # refreshed in place by step
    np.testing.assert_array_equal(obs["depth"], depth0)  # what reset returned did not change
    env.close()


def test_render_rgb_array():
    env = gym.make("loam/Excavation-v0", render_mode="rgb_array", render_width=80, render_height=60, **SMALL)
    env.reset(seed=0)
    img = env.render()
    assert img.shape == (60, 80, 3) and img.dtype == np.uint8 and img.std() > 0
    env.close()
    env = gym.make("loam/Excavation-v0", **SMALL)
    env.reset(seed=0)
    with pytest.warns(UserWarning):
        assert env.render() is None
    env.close()


def test_episode_world_views_and_reset():
    env = gym.make("loam/Bulldozing-v0", **SMALL)
    env.reset(seed=2)
    world = env.unwrapped.world
    p = world.particles
    assert p.count == 1000
    b = world.bodies
    assert len(b) >= 1
    before = b["position"].copy()
    env.step(np.array([1.0, 0.0], np.float32))
    assert not np.array_equal(b["position"], before)  # the same view sees the bulldozer drive on
    assert world.time == pytest.approx(0.01)
    np.testing.assert_array_equal(p.z, world.particles.z)
    with pytest.raises(loam.InputError, match="view"):
        env.reset(seed=3)  # views of the episode's world are alive: reset would free their memory
    del p, b
    gc.collect()
    env.reset(seed=3)
    with pytest.raises(loam.ClosedError):
        world.particles  # that episode's world is gone
    assert env.unwrapped.world.particles.count == 1000
    env.close()


def test_scripted_policy_runs_on_bulldozing():
    env = gym.make("loam/Bulldozing-v0", particles=1000, settle_steps=50, steps_per_action=50)
    env.reset(seed=0)
    total = 0.0
    for _ in range(10):
        a = env.unwrapped.scripted_action()
        assert env.action_space.contains(a)
        _, r, term, trunc, info = env.step(a)
        total += r
    assert np.isfinite(total) and info["sim_time"] == pytest.approx(0.5)
    env.close()


def test_truncation_by_episode_time():
    env = gym.make("loam/GearTower-v0", particles=500, settle_steps=10, steps_per_action=10, episode_time=0.03)
    env.reset(seed=0)
    flags = [env.step(np.zeros(4, np.float32))[3] for _ in range(3)]
    assert flags == [False, False, True]
    env.close()


def test_clone_is_independent_and_equal_after_the_same_reset():
    a = loam.env.Env("gear_tower", particles=400, settle_steps=20, steps_per_action=5)
    b = a.clone()
    a.reset(seed=9)
    b.reset(seed=9)
    for k, v in a.observation().items():
        np.testing.assert_array_equal(v, b.observation()[k])
    a.close()  # the clone owns its own bed, grids and buffers
    b.step(np.zeros(b.action_dim, np.float32))
    assert all(np.isfinite(v).all() for v in b.observation().values())
    b.close()

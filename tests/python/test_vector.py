"""The vector environment: B worlds stepped by one C call (loam_env_step_batch), Gymnasium 1.x
autoreset semantics, and the same numbers as B single environments."""
import numpy as np
import pytest

import loam

gym = pytest.importorskip("gymnasium")
from gymnasium.vector import AutoresetMode, VectorEnv  # noqa: E402

SMALL = {"particles": 600, "settle_steps": 30, "steps_per_action": 10}


def test_make_vec_uses_the_batched_class():
    envs = gym.make_vec("loam/Bulldozing-v0", num_envs=3, **SMALL)
    assert isinstance(envs.unwrapped, loam.LoamVectorEnv) and isinstance(envs, VectorEnv)
    assert envs.num_envs == 3 and envs.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    assert envs.action_space.shape == (3, 2) and envs.single_action_space.shape == (2,)
    obs, infos = envs.reset(seed=0)
    assert envs.observation_space.contains(obs)
    assert obs["depth"].shape == (3, 36, 36) and infos["_sim_time"].all()
    obs, rewards, term, trunc, infos = envs.step(envs.action_space.sample())
    assert rewards.shape == (3,) and term.dtype == bool and trunc.dtype == bool
    assert envs.observation_space.contains(obs)
    for k in ("sim_time", "tool_force", "progress", "contacts"):
        assert k in infos and infos[f"_{k}"].all(), k
    assert infos["tool_force"].shape == (3, 3)
    np.testing.assert_allclose(infos["sim_time"], 0.01)
    assert "realtime_factor" not in infos  # wall-clock timings stay out of infos by default
    assert all(t["physics_seconds"] > 0 for t in envs.unwrapped.last_timing)
    envs.close()


@pytest.mark.parametrize("kind,dim", [("bulldozing", 2), ("gear_tower", 4), ("excavation", 7)])
def test_batch_equals_single_environments(kind, dim):
    n, steps = 3, 4
    rng = np.random.default_rng(0)
    actions = rng.uniform(-1.2, 1.2, size=(steps, n, dim)).astype(np.float32)  # some out of range: clipped
    venv = loam.LoamVectorEnv(n, kind, **SMALL)
    obs_v, _ = venv.reset(seed=100)
    rewards_v = []
    for a in actions:
        obs_v, r, *_ = venv.step(a)
        rewards_v.append(r)
    venv.close()
    for i in range(n):
        env = loam.LoamEnv(kind, **SMALL)
        env.reset(seed=100 + i)
        for t in range(steps):
            obs, r, *_ = env.step(actions[t, i])
            assert r == rewards_v[t][i]
        for k in obs:
            np.testing.assert_array_equal(obs[k], obs_v[k][i])
        env.close()


def test_next_step_autoreset():
    # three actions per episode: truncated on the third step, reset by the fourth
    envs = loam.LoamVectorEnv(2, "gear_tower", particles=400, settle_steps=10, steps_per_action=10, episode_time=0.03)
    envs.reset(seed=7)
    a = np.full((2, 4), 0.5, np.float32)
    flags = []
    for _ in range(3):
        obs, r, term, trunc, infos = envs.step(a)
        flags.append(trunc.tolist())
    assert flags == [[False, False], [False, False], [True, True]]
    obs, r, term, trunc, infos = envs.step(a)  # the autoreset step: actions ignored
    assert r.tolist() == [0.0, 0.0] and not term.any() and not trunc.any()
    assert infos["sim_time"].tolist() == [0.0, 0.0]
    # the observation is that of a fresh reset with the seed the vector env drew
    single = loam.Env("gear_tower", particles=400, settle_steps=10, steps_per_action=10, episode_time=0.03)
    single.reset(int(infos["episode_seed"][1]))
    for k, v in single.observation().items():
        np.testing.assert_array_equal(obs[k][1], v)
    obs, r, term, trunc, infos = envs.step(a)
    assert infos["sim_time"].tolist() == pytest.approx([0.01, 0.01])
    envs.close()


def test_same_step_autoreset():
    envs = loam.LoamVectorEnv(2, "gear_tower", particles=400, settle_steps=10, steps_per_action=10, episode_time=0.02,
                              autoreset_mode="SameStep")
    assert envs.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    envs.reset(seed=1)
    a = np.zeros((2, 4), np.float32)
    envs.step(a)
    obs, r, term, trunc, infos = envs.step(a)
    assert trunc.all() and infos["_final_obs"].all()
    assert infos["final_info"]["sim_time"].tolist() == pytest.approx([0.02, 0.02])
    assert set(infos["final_obs"][0]) == set(obs)
    obs2, r2, term2, trunc2, infos2 = envs.step(a)  # the new episodes go on at once
    assert not trunc2.any() and infos2["sim_time"].tolist() == pytest.approx([0.01, 0.01])
    envs.close()


def test_reset_mask_and_seeds():
    envs = loam.LoamVectorEnv(3, "bulldozing", **SMALL)
    obs, _ = envs.reset(seed=[5, 6, 7])
    obs_b, _ = envs.reset(seed=5)
    for k in obs:
        np.testing.assert_array_equal(obs[k], obs_b[k])  # seed s gives s, s + 1, s + 2
    envs.step(np.ones((3, 2), np.float32))
    obs_c, infos = envs.reset(options={"reset_mask": np.array([True, False, False])})
    assert infos["_sim_time"].tolist() == [True, False, False]
    envs.close()


def test_bad_vector_input():
    envs = loam.LoamVectorEnv(2, "bulldozing", **SMALL)
    with pytest.raises(loam.InputError, match="before reset"):
        envs.step(np.zeros((2, 2)))
    envs.reset(seed=0)
    for bad, match in [(np.zeros((3, 2)), "shape"), (np.zeros(2), "shape"), ([[0, 0], [0, np.nan]], "finite"),
                       (np.full((2, 2), "x"), "dtype"), ([[0, 0], [0]], "not an array")]:
        with pytest.raises(loam.InputError, match=match):
            envs.step(bad)
    with pytest.raises(loam.InputError):
        envs.reset(seed=[1, 2, 3])
    envs.close()
    with pytest.raises(loam.ClosedError):
        envs.step(np.zeros((2, 2)))
    with pytest.raises(loam.ClosedError):
        envs.reset()
    with pytest.raises(loam.InputError):
        loam.LoamVectorEnv(0, "bulldozing")
    with pytest.raises(loam.InputError):
        loam.LoamVectorEnv(2, "bulldozing", particles=-5)

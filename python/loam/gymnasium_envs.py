"""Gymnasium environments over loam's C environments.

    import gymnasium as gym, loam
    env = gym.make("loam/Bulldozing-v0", particles=2000, render_mode="rgb_array")
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(env.action_space.sample())

    envs = gym.make_vec("loam/Bulldozing-v0", num_envs=8, particles=2000)   # one C call steps all 8

Keyword arguments are loam_env_config fields (loam.env.CONFIG_DOC, docs/python.md), plus render_mode
("rgb_array", "human": a window through loam.viewer, or None), render_width and render_height (pixels) and timing_info (False). Observations
are returned as copies; `env.unwrapped.obs_buffers` gives the zero-copy buffers loam refreshes in
place, and `env.unwrapped.world` the episode's particles and bodies as numpy views.

info is a pure function of the seed and the actions (gymnasium's check_env demands it): the step's
wall-clock timings are in `env.unwrapped.last_timing`, and in info only with timing_info=True.

Threads: each environment serialises its own calls (a lock); different environments step in
parallel from Python threads. Processes: gymnasium.make_vec(..., vectorization_mode="async") works
with the fork start method even after the parent ran loam's OpenMP threads; each forked worker then
runs loam on one thread (libloam notices the fork and says so once on stderr; loam.threads_forked())."""
import threading

import numpy as np
import gymnasium as gym
from gymnasium import spaces
from gymnasium.vector import VectorEnv
from gymnasium.vector.utils import batch_space

try:
    from gymnasium.vector import AutoresetMode
except ImportError:  # gymnasium < 1.1
    from gymnasium.vector.vector_env import AutoresetMode

from . import _types as T
from .env import INFO_KEYS, TIMING_KEYS, Env, _batch_actions, info_dict, step_batch
from .errors import ClosedError, InputError
from .viewer import with_window_modes

ENV_IDS = {
    "loam/Bulldozing-v0": "bulldozing",
    "loam/GearTower-v0": "gear_tower",
    "loam/Excavation-v0": "excavation",
}

_SEED_HIGH = 2**63  # seeds drawn for loam_env_reset when reset() gets none


def _spaces(core):
    obs = spaces.Dict(
        {s.name: spaces.Box(low=s.low, high=s.high, shape=s.shape, dtype=np.float32) for s in core.obs_specs}
    )
    act = spaces.Box(low=-1.0, high=1.0, shape=(core.action_dim,), dtype=np.float32)
    return obs, act


def _reset_info(core, timing=False):
    info = {k: 0.0 for k in INFO_KEYS if timing or k not in TIMING_KEYS}
    info["tool_force"] = np.zeros(3)
    info["contacts"] = 0
    info["episode_seed"] = int(core.last_seed)
    return info


def _check_render_mode(render_mode, metadata):
    if render_mode is not None and render_mode not in metadata["render_modes"]:
        raise InputError(f"render_mode {render_mode!r} is not one of {metadata['render_modes']} (or None)")


class LoamEnv(gym.Env):
    """A loam environment as a gymnasium.Env: Dict observations (one Box per loam observation), Box
    actions in [-1, 1]^action_dim (float32; values outside are clipped, NaN raises InputError).

    info holds sim_time (s), tool_force (N, 3), progress, contacts and episode_seed: a pure function of
    seed and actions, as gymnasium's check_env demands. The step's wall-clock timings (realtime_factor,
    physics_seconds, sensor_seconds), which differ from run to run by nature, are in
    `env.unwrapped.last_timing` (None before the first step); timing_info=True copies them into info
    too (and then check_env's determinism check fails on them).

    Thread-safe: calls on one environment take turns; different environments step in parallel."""

    metadata = {"render_modes": ["rgb_array", "human"], "render_fps": 10}

    def __init__(self, kind="bulldozing", render_mode=None, render_width=480, render_height=360, timing_info=False,
                 **config):
        _check_render_mode(render_mode, self.metadata)
        self.timing_info = bool(timing_info)
        self.core = Env(kind, **config)
        self.render_mode = render_mode
        self.render_width, self.render_height = int(render_width), int(render_height)
        cfg = self.core.config
        self.metadata = dict(self.metadata, render_fps=1.0 / (cfg["dt"] * cfg["steps_per_action"]))
        self.metadata["render_modes"] = with_window_modes(self.metadata["render_modes"])  # "human" needs a display
        self.observation_space, self.action_space = _spaces(self.core)

    # zero-copy access for power users
    @property
    def obs_buffers(self):
        """Read-only views of loam's observation buffers: no copies, overwritten by every reset and step."""
        return self.core.obs_buffers

    @property
    def world(self):
        """The current episode's loam.World (numpy views of particles and bodies)."""
        return self.core.world

    @property
    def last_timing(self):
        """Wall-clock timings of the last step: {"realtime_factor", "physics_seconds", "sensor_seconds"
        (s)}, or None before the first step."""
        return self.core.last_timing

    def reset(self, *, seed=None, options=None):
        with self.core._lock:  # the whole call, not only each loam call in it
            super().reset(seed=seed)
            if seed is None:
                seed = int(self.np_random.integers(0, _SEED_HIGH))
            self.core.reset(seed)
            self._show_human()
            return self.core.observation(), _reset_info(self.core, self.timing_info)

    def step(self, action):
        with self.core._lock:  # the observation must be this step's, not another thread's
            reward, terminated, truncated, info = self.core.step(action)
            info["episode_seed"] = int(self.core.last_seed)
            if not self.timing_info:
                for k in TIMING_KEYS:
                    info.pop(k)
            self._show_human()
            return self.core.observation(), reward, terminated, truncated, info

    def _show_human(self):
        """render_mode="human": a window (loam.viewer) shows every reset and step; no-op otherwise."""
        if self.render_mode == "human":
            from .viewer import HumanRenderer  # OpenGL only for those who ask for a window
            if getattr(self, "_human", None) is None:
                self._human = HumanRenderer(title=f"loam {self.core.kind_name}", fps=self.metadata["render_fps"])
            self._human.show(self)

    def render(self):
        if self.render_mode == "human":
            return self._show_human()
        if self.render_mode is None:
            gym.logger.warn("render() without a render_mode: make the environment with render_mode='rgb_array'")
            return None
        return self.core.render(self.render_width, self.render_height)

    def scripted_action(self):
        """loam's scripted policy for the current state (a baseline and a demo)."""
        return self.core.scripted_action()

    def close(self):
        if getattr(self, "_human", None) is not None:
            self._human.close()
        self.core.close()
        super().close()

    def save_state(self, path=None):
        """The episode's state, to a file (returns path) or in memory (path None: returns a snapshot)."""
        return self.core.save_state(path)

    def restore_state(self, state):
        """Back to a state from save_state (a reset to a saved state); returns the observation."""
        self.core.restore_state(state)
        return self.core.observation()


class LoamVectorEnv(VectorEnv):
    """num_envs independent loam environments of one kind, stepped by one C call
    (loam_env_step_batch: environments in parallel, each world on one thread).

    Autoreset follows Gymnasium 1.x: metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP by default (an
    environment that ended is reset by the following step(), whose action for it is ignored and which
    returns its first observation with reward 0), or SAME_STEP (reset at once; the last observation and
    info are in infos["final_obs"] and infos["final_info"]). Seeds: reset(seed=s) gives environment i
    the seed s + i; autoresets draw seeds from self.np_random.

    When a world fails (DivergedError), step() raises that environment's error with `.env_index`
    set; the others have stepped, and the next step() starts the failed one anew.

    infos hold no wall-clock timings unless timing_info=True; `last_timing` has each environment's.
    Calls on one vector environment from several Python threads take turns (a lock)."""

    metadata = {"render_modes": ["rgb_array"], "autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(self, num_envs=1, kind="bulldozing", render_mode=None, render_width=480, render_height=360,
                 autoreset_mode=AutoresetMode.NEXT_STEP, timing_info=False, **config):
        _check_render_mode(render_mode, self.metadata)
        self._lock = threading.RLock()
        self.timing_info = bool(timing_info)
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise InputError(f"num_envs: {num_envs!r} must be an integer >= 1")
        autoreset_mode = AutoresetMode(autoreset_mode)
        if autoreset_mode == AutoresetMode.DISABLED:
            raise InputError("autoreset_mode: DISABLED is not supported; use NEXT_STEP or SAME_STEP")
        self.num_envs = int(num_envs)
        self.envs = []
        try:
            # One bed is built and settled; the others share it, its grids and its granular model
            # (loam_env_clone).
            self.envs.append(Env(kind, **config))
            for _ in range(self.num_envs - 1):
                self.envs.append(self.envs[0].clone())
        except BaseException:
            for e in self.envs:
                e.close()
            raise
        self.render_mode = render_mode
        self.render_width, self.render_height = int(render_width), int(render_height)
        self.autoreset_mode = autoreset_mode
        cfg = self.envs[0].config
        self.metadata = dict(self.metadata, autoreset_mode=autoreset_mode,
                             render_fps=1.0 / (cfg["dt"] * cfg["steps_per_action"]))
        self.single_observation_space, self.single_action_space = _spaces(self.envs[0])
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._autoreset = np.zeros(self.num_envs, bool)
        self._infos_c = (T.EnvStepInfo * self.num_envs)()
        self._errors_c = (T.Error * self.num_envs)()
        self._started = False

    def _live(self):
        if self.closed:
            raise ClosedError("vector environment is closed")
        return self.envs

    @property
    def last_timing(self):
        """Per environment, the wall-clock timings of its last step (see LoamEnv.last_timing)."""
        return [e.last_timing for e in self._live()]

    def _observations(self):
        return {s.name: np.stack([e._buffers[s.name] for e in self.envs]) for s in self.envs[0].obs_specs}

    def _draw_seed(self):
        return int(self.np_random.integers(0, _SEED_HIGH))

    def reset(self, *, seed=None, options=None):
        with self._lock:
            return self._reset(seed, options)

    def _reset(self, seed, options):
        envs = self._live()
        if seed is None:
            seeds = [None] * self.num_envs
        elif isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
            seeds = [int(seed) + i for i in range(self.num_envs)]
        else:
            seeds = list(seed)
            if len(seeds) != self.num_envs:
                raise InputError(f"seed: {len(seeds)} seeds for {self.num_envs} environments")
        if seed is not None:
            super().reset(seed=seeds[0])
        mask = np.ones(self.num_envs, bool)
        if options is not None and "reset_mask" in options:
            mask = np.asarray(options["reset_mask"])
            if mask.shape != (self.num_envs,) or mask.dtype != np.bool_:
                raise InputError(f"options['reset_mask']: a bool array of shape ({self.num_envs},) expected")
        infos = {}
        for i, e in enumerate(envs):
            if not mask[i]:
                continue
            e.reset(seeds[i] if seeds[i] is not None else self._draw_seed())
            self._autoreset[i] = False
            infos = self._add_info(infos, _reset_info(e, self.timing_info), i)
        self._started = True
        return self._observations(), infos

    def step(self, actions):
        with self._lock:
            return self._step(actions)

    def _step(self, actions):
        envs = self._live()
        if not self._started:
            raise InputError("step() before reset(): reset the vector environment first")
        actions = _batch_actions(actions, self.num_envs, envs[0].action_dim)
        n = self.num_envs
        rewards = np.zeros(n, np.float64)
        term = np.zeros(n, bool)
        trunc = np.zeros(n, bool)
        infos = {}
        # NEXT_STEP: environments that ended last step start anew now (their actions are ignored); an
        # environment whose world diverged (the error was raised by the previous step) starts anew too
        reset_now = np.array([e._needs_reset for e in envs])
        if self.autoreset_mode == AutoresetMode.NEXT_STEP:
            reset_now |= self._autoreset
        stepping = [i for i in range(n) if not reset_now[i]]
        for i in np.flatnonzero(reset_now):
            envs[i].reset(self._draw_seed())
            infos = self._add_info(infos, _reset_info(envs[i], self.timing_info), i)
        if stepping:
            sub = [envs[i] for i in stepping]
            r, te, tr, cinfos = step_batch(sub, actions[stepping], self._infos_c, self._errors_c)
            for k, i in enumerate(stepping):
                rewards[i], term[i], trunc[i] = r[k], te[k], tr[k]
                info = info_dict(cinfos[k], self.timing_info)
                info["episode_seed"] = int(envs[i].last_seed)
                infos = self._add_info(infos, info, i)
        obs = self._observations()
        done = term | trunc
        if self.autoreset_mode == AutoresetMode.SAME_STEP and done.any():
            final = {"final_obs": np.full(n, None, object), "_final_obs": done.copy(),
                     "final_info": {}, "_final_info": done.copy()}
            for i in np.flatnonzero(done):
                final["final_obs"][i] = {k: v[i].copy() for k, v in obs.items()}
                one = {k: (v[i] if isinstance(v, np.ndarray) else v) for k, v in infos.items() if not k.startswith("_")}
                final["final_info"] = self._add_info(final["final_info"], one, i)
                envs[i].reset(self._draw_seed())
                for k in obs:
                    obs[k][i] = envs[i]._buffers[k]
            infos.update(final)
            self._autoreset[:] = False
        else:
            self._autoreset = done
        return obs, rewards, term, trunc, infos

    def render(self):
        envs = self._live()
        if self.render_mode is None:
            gym.logger.warn("render() without a render_mode: make the environment with render_mode='rgb_array'")
            return None
        return tuple(e.render(self.render_width, self.render_height) for e in envs)

    @property
    def obs_buffers(self):
        """Per environment, loam's zero-copy observation buffers (see LoamEnv.obs_buffers)."""
        return [e.obs_buffers for e in self._live()]

    def scripted_actions(self):
        return np.stack([e.scripted_action() for e in self._live()])

    def close_extras(self, **kwargs):
        with getattr(self, "_lock", threading.RLock()):
            for e in getattr(self, "envs", []):
                e.close()


def register():
    """Register loam/Bulldozing-v0, loam/GearTower-v0 and loam/Excavation-v0 (idempotent)."""
    for env_id, kind in ENV_IDS.items():
        if env_id in gym.registry:
            continue
        gym.register(
            id=env_id,
            entry_point="loam.gymnasium_envs:LoamEnv",
            vector_entry_point="loam.gymnasium_envs:LoamVectorEnv",
            kwargs={"kind": kind},
        )

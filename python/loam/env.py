"""loam's environments (include/loam/env.h) without Gymnasium: the thin layer the Gymnasium classes
(loam.gymnasium_envs) are built on, also usable alone.

    env = loam.Env("bulldozing", particles=2000)
    env.reset(seed=1)
    info = env.step([0.5, 0.0])
    depth = env.obs_buffers["depth"]   # zero-copy, refreshed in place by every reset and step

Configuration keywords are the fields of loam_env_config (see CONFIG_DOC and docs/python.md).

Threads: calls on one Env from several Python threads take turns (each Env holds a lock); C calls
release the GIL, so different environments step in parallel. step_batch takes the locks of all its
environments (in one global order, so two batches never deadlock) after refusing an environment
given twice."""
import ctypes as C
import contextlib
from collections import namedtuple

import numpy as np

from . import _convert as cv
from . import _types as T
from ._handle import Handle, Owned, live_views, locked, new_registry, view
from ._lib import has, lib
from .errors import ClosedError, InputError, LoamError, check, from_status
from .world import World

KINDS = ("bulldozing", "gear_tower", "excavation")

# Every configuration keyword, with its unit and default (include/loam/env.h).
CONFIG_DOC = {
    "particles": "number of particles; default 10,000 (GranularGym's), gear tower 20,000",
    "radius": "particle radius, m; bulldozing 0.02, gear tower 0.004, excavation 0.008",
    "density": "kg/m^3; default 2500",
    "friction": "particle-particle and particle-tool Coulomb coefficient; default 0.5",
    "dt": "physics time step, s; default 1e-3 (excavation 5e-4)",
    "sweeps": "contact sweeps per step; default 3",
    "steps_per_action": "physics steps per env step; default 100",
    "episode_time": "simulated seconds per episode before truncation; default 60, gear tower 10, excavation 20",
    "gears": "gear tower: number of gears, 1 .. 16; default 4",
    "max_gear_speed": "gear tower: rad/s at action 1; default 10",
    "max_speed": "bulldozing: forward speed at action 1, m/s; default 0.5",
    "max_yaw_rate": "bulldozing: yaw rate at action 1, rad/s; default 1.0",
    "threads": "OpenMP threads of this environment (creation, steps, observations), 0 = the default (all cores); default 0",
    "hash_table_size": "spatial hash buckets, 0 = 2 N; default 0",
    "observe": "compute observations on every step, 0/1; default 1",
    "settle_steps": "physics steps that settle the bed at creation; default kind-specific",
    "sleep_speed": "particles slower than this for 0.05 s sleep until touched by something faster, m/s; 0 = never; default 0.01",
    "seed": "seed of the bed built at creation (reset's seed moves things around); default 1",
}

ObsSpec = namedtuple("ObsSpec", "name shape low high")

INFO_KEYS = ("sim_time", "realtime_factor", "physics_seconds", "sensor_seconds", "tool_force", "progress", "contacts")
# Wall-clock measurements: they differ from run to run, unlike everything else a step reports.
TIMING_KEYS = ("realtime_factor", "physics_seconds", "sensor_seconds")


def _require_env_api():
    if not has("loam_env_create"):
        from ._lib import path

        raise ImportError(f"the loaded libloam ({path}) has no environment module (loam_env_*); rebuild it")


def parse_kind(kind):
    if isinstance(kind, str):
        k = C.c_int(-1)
        if lib.loam_env_kind_parse(kind.encode("utf-8"), C.byref(k)) != 0:
            raise InputError(f"environment kind '{kind}' is not one of {', '.join(KINDS)}")
        return k.value
    k = cv.integer(kind, "kind")
    if not 0 <= k < len(KINDS):
        raise InputError(f"environment kind {k} is not in 0 .. {len(KINDS) - 1}")
    return k


def default_config(kind):
    """loam_env_default_config(kind) as a dict."""
    _require_env_api()
    return cv.struct_to_dict(lib.loam_env_default_config(parse_kind(kind)), CONFIG_DOC)


def _config(kind, values):
    cfg = lib.loam_env_default_config(kind)
    special = {"observe": cv.flag}
    cv.set_struct_fields(cfg, values, "config", special)
    if "kind" in values:
        raise InputError("config.kind: give the kind as the first argument")
    return cfg


def as_action(action, dim, name="action"):
    """Check and convert an action: real numbers, shape (dim,); NaN or infinite values are errors,
    values outside [-1, 1] are clipped (Gymnasium's convention for Box actions)."""
    a = cv.real_array(action, name, None, np.float64)
    if a.shape != (dim,):
        raise InputError(f"{name}: shape {a.shape}, expected ({dim},)")
    bad = ~np.isfinite(a)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InputError(f"{name}[{i}] is {a[i]}: actions must be finite numbers")
    return np.clip(a, -1.0, 1.0).astype(np.float32)


def info_dict(info, timing=True):
    """A loam_env_step_info as a dict; timing=False leaves out the wall-clock timings (TIMING_KEYS)."""
    d = {
        "sim_time": info.sim_time,
        "tool_force": np.array(info.tool_force[:], dtype=np.float64),
        "progress": info.progress,
        "contacts": int(info.contacts),
    }
    if timing:
        d.update(timing_dict(info))
    return d


def timing_dict(info):
    """The wall-clock timings of a step: realtime_factor, physics_seconds and sensor_seconds (s)."""
    return {k: float(getattr(info, k)) for k in TIMING_KEYS}


def _seed(seed):
    return cv.integer(seed, "seed", 0, 2**64 - 1)


class Env(Owned):
    """One environment (loam_env). Keywords: the loam_env_config fields (CONFIG_DOC)."""

    _what = "environment"

    def __init__(self, kind="bulldozing", _source=None, **config):
        _require_env_api()
        err = T.new(T.Error, "loam_error")
        if _source is not None:  # clone(): the source's config, bed and grids, nothing rebuilt
            self.kind, self.kind_name = _source.kind, _source.kind_name
            ptr = lib.loam_env_clone(_source.ptr, C.byref(err))
        else:
            self.kind = parse_kind(kind)
            self.kind_name = lib.loam_env_kind_name(self.kind).decode()
            cfg = _config(self.kind, config)
            ptr = lib.loam_env_create(C.byref(cfg), C.byref(err))
        if not ptr:
            check(err.status or T.ERR_INTERNAL, err)
        self._h = Handle(ptr, lib.loam_env_destroy)
        self._views = new_registry()
        self.action_dim = lib.loam_env_action_dim(ptr)
        specs = []
        for i in range(lib.loam_env_obs_count(ptr)):
            s = lib.loam_env_obs_spec_get(ptr, i)
            specs.append(ObsSpec(s.name.decode(), tuple(s.shape[: s.rank]), float(s.low), float(s.high)))
        self.obs_specs = tuple(specs)
        self._buffers = {}
        for i, s in enumerate(self.obs_specs):
            addr = C.cast(lib.loam_env_obs_buffer(ptr, i), C.c_void_p).value
            self._buffers[s.name] = view(addr, s.shape, np.float32, self._h, True, self._views)
        self._info = T.new(T.EnvStepInfo, "loam_env_step_info")
        self._episode = 0  # counts resets; a borrowed World is valid for one episode
        self._world_views = new_registry()  # views of the episode's world: reset refuses while any lives
        self._needs_reset = True
        self.last_seed = None
        self.last_timing = None  # timing_dict of the last step

    @locked
    def clone(self):
        """A new, independent environment like this one (same config, settled bed and grids) made
        without building or settling anything (loam_env_clone); reset it before stepping."""
        return Env(_source=self)

    @property
    def ptr(self):
        return self._handle().obj

    @property
    @locked
    def config(self):
        """The environment's configuration (a dict copy)."""
        return cv.struct_to_dict(lib.loam_env_get_config(self.ptr).contents, CONFIG_DOC)

    @property
    @locked
    def obs_buffers(self):
        """{name: read-only ndarray} over the environment's own observation buffers: no copies, refreshed in
        place by every reset and step (so keep a copy of anything you need to hold on to)."""
        self._handle()
        return dict(self._buffers)

    @locked
    def observation(self):
        """{name: ndarray}: copies of the current observations."""
        self._handle()
        return {k: v.copy() for k, v in self._buffers.items()}

    @locked
    def reset(self, seed=0):
        """Start an episode, deterministic in (config, seed); seed in [0, 2^64)."""
        ptr = self.ptr
        s = _seed(seed)
        n = live_views(self._world_views)
        if n:
            raise InputError(
                f"reset: {n} numpy view(s) of the episode's world are alive, and reset frees that world; "
                "delete them (or keep copies) first"
            )
        err = T.new(T.Error, "loam_error")
        self._episode += 1  # the previous episode's world is gone from here on
        check(lib.loam_env_reset(ptr, s, C.byref(err)), err)
        self._needs_reset = False
        self.last_seed = s

    @locked
    def step(self, action):
        """One action (action_dim values in [-1, 1]); returns (reward, terminated, truncated, info)."""
        ptr = self.ptr
        a = as_action(action, self.action_dim)
        err = T.new(T.Error, "loam_error")
        st = lib.loam_env_step(ptr, a.ctypes.data_as(C.POINTER(C.c_float)), C.byref(self._info), C.byref(err))
        if st != T.OK:
            if st == T.ERR_DIVERGED:
                self._needs_reset = True
            check(st, err)
        i = self._info
        self.last_timing = timing_dict(i)
        return float(i.reward), bool(i.terminated), bool(i.truncated), info_dict(i)

    @locked
    def render(self, width=480, height=360):
        """An RGB picture (height x width x 3 uint8, a copy) from the environment's default viewpoint."""
        ptr = self.ptr
        w = cv.integer(width, "width", 1, T.IMAGE_MAX_SIDE)
        h = cv.integer(height, "height", 1, T.IMAGE_MAX_SIDE)
        img = T.new(T.Image, "loam_image")
        err = T.new(T.Error, "loam_error")
        check(lib.loam_image_alloc(C.byref(img), w, h, C.byref(err)), err)
        try:
            check(lib.loam_env_render(ptr, C.byref(img), C.byref(err)), err)
            rgb = np.ctypeslib.as_array(img.rgb, shape=(h, w, 3)).copy()
        finally:
            lib.loam_image_destroy(C.byref(img))
        return rgb

    @locked
    def scripted_action(self):
        """The environment's scripted policy for the current state (action_dim values)."""
        ptr = self.ptr
        out = np.zeros(self.action_dim, np.float32)
        lib.loam_env_scripted_action(ptr, out.ctypes.data_as(C.POINTER(C.c_float)))
        return out

    @locked
    def set_threads(self, threads):
        """This environment's OpenMP threads from the next call on (0 = the default); no bit changes."""
        ptr = self.ptr
        err = T.new(T.Error, "loam_error")
        check(lib.loam_env_set_threads(ptr, cv.integer(threads, "threads", 0), C.byref(err)), err)

    @property
    @locked
    def world(self):
        """The current episode's World (its particle and body views), valid until the next reset or close;
        its calls take this environment's lock."""
        ptr = self.ptr
        wptr = lib.loam_env_world(ptr)
        if not wptr:
            raise InputError("the environment has no world before its first reset")
        episode = self._episode
        return World._borrow(wptr, self._h, lambda: self._h is not None and self._episode == episode,
                             f"{self.kind_name} episode world", self._world_views, self._lock)

    @locked
    def close(self):
        self._h = None
        self._buffers = {}

    def __repr__(self):
        return f"<loam.Env {self.kind_name}{' closed' if self.closed else ''}>"

    # ---- state copies and state files (docs/state-files.md) --------------------------------------

    def _replacing_world(self, what):
        n = live_views(self._world_views)
        if n:
            raise InputError(
                f"{what}: {n} numpy view(s) of the episode's world are alive, and {what} replaces that world; "
                "delete them (or keep copies) first"
            )

    def save_state(self, path=None):
        """The episode's state: to `path` (a state file, written atomically; returns the path), or with
        path=None in memory (returns a snapshot: an Env holding a copy). restore_state takes either."""
        ptr = self.ptr
        err = T.new(T.Error, "loam_error")
        if path is None:
            snap = self.clone()
            check(lib.loam_env_copy_state(snap.ptr, ptr, C.byref(err)), err)
            snap._needs_reset = False
            return snap
        check(lib.loam_env_save_state(ptr, cv.path(path, "path"), C.byref(err)), err)
        return path

    def restore_state(self, state):
        """Go back to a saved state (a path from save_state, or a snapshot Env of the same kind and
        config): stepping on gives the bits stepping on from the saved state gave. Views of the old
        episode's world must be gone (the world is replaced); the observations are refreshed."""
        ptr = self.ptr
        self._replacing_world("restore_state")
        err = T.new(T.Error, "loam_error")
        if isinstance(state, Env):
            st = lib.loam_env_copy_state(ptr, state.ptr, C.byref(err))
        else:
            st = lib.loam_env_load_state(ptr, cv.path(state, "state"), C.byref(err))
        self._episode += 1  # the world wrappers of before point at a world that is gone
        check(st, err)
        self._needs_reset = False


def _refuse_duplicates(envs):
    first = {}
    for i, e in enumerate(envs):
        j = first.setdefault(id(e), i)
        if j != i:
            raise InputError(f"step_batch: envs[{j}] and envs[{i}] are the same environment; each may appear once")


def step_batch(envs, actions, infos=None, errors=None):
    """Step several environments in one call, in parallel (loam_env_step_batch: each world on one thread).
    `actions`: (len(envs), action_dim). Returns (rewards, terminated, truncated, infos) as arrays; on a
    failure the error of the first failing environment is raised with `.env_index` set (the others
    stepped). An environment given twice raises InputError (a ValueError) before anything is locked
    or stepped."""
    envs = list(envs)
    _refuse_duplicates(envs)  # before any lock: a duplicate can never deadlock or step twice at once
    if not all(isinstance(e, Env) for e in envs):
        raise InputError("step_batch: expected loam.Env objects (a Gymnasium env's is env.unwrapped.core)")
    with contextlib.ExitStack() as held:
        for e in sorted(envs, key=id):  # one global order: batches over overlapping sets never deadlock
            held.enter_context(e._lock)
        return _step_batch_locked(envs, actions, infos, errors)


def _step_batch_locked(envs, actions, infos, errors):
    n = len(envs)
    if n == 0:
        return np.zeros(0), np.zeros(0, bool), np.zeros(0, bool), []
    ptrs = (C.c_void_p * n)(*[e.ptr for e in envs])
    dim = envs[0].action_dim
    if any(e.action_dim != dim for e in envs):
        raise InputError("step_batch: the environments have different action dimensions")
    a = _batch_actions(actions, n, dim)
    if infos is None:
        infos = (T.EnvStepInfo * n)()
    if errors is None:
        errors = (T.Error * n)()
    st = lib.loam_env_step_batch(ptrs, n, a.ctypes.data_as(C.POINTER(C.c_float)), infos, errors)
    if st != T.OK:
        for i in range(n):
            if errors[i].status != T.OK:
                if errors[i].status == T.ERR_DIVERGED:
                    envs[i]._needs_reset = True
                e = from_status(errors[i].status, errors[i].message.decode("utf-8", "replace") or "step failed")
                e.env_index = i
                raise e
        raise from_status(st, "loam_env_step_batch failed")
    for i, e in enumerate(envs):
        e.last_timing = timing_dict(infos[i])
    rewards = np.array([infos[i].reward for i in range(n)], np.float64)
    term = np.array([bool(infos[i].terminated) for i in range(n)])
    trunc = np.array([bool(infos[i].truncated) for i in range(n)])
    return rewards, term, trunc, infos


def _batch_actions(actions, n, dim):
    a = cv.real_array(actions, "actions", None, np.float64)
    if a.shape != (n, dim):
        raise InputError(f"actions: shape {a.shape}, expected ({n}, {dim})")
    bad = ~np.isfinite(a)
    if bad.any():
        i, j = (int(v) for v in np.argwhere(bad)[0])
        raise InputError(f"actions[{i}][{j}] is {a[i, j]}: actions must be finite numbers")
    return np.ascontiguousarray(np.clip(a, -1.0, 1.0), dtype=np.float32)


__all__ = ["Env", "KINDS", "CONFIG_DOC", "ObsSpec", "default_config", "step_batch", "as_action", "ClosedError",
           "LoamError"]

"""Scene files (docs/scene-format.md) from Python.

    scene = loam.Scene.load("scenes/plough.yaml", overrides={"solver.sweeps": 10})
    world = scene.create_world()

Overrides are the `loam run --set` ones: a dict {dotted.key: value} or a list of "dotted.key=value"
strings. Errors carry loam's message, which names file, line, column, key and value."""
import ctypes as C

import numpy as np

from . import _convert as cv
from . import _types as T
from ._handle import Handle, Owned
from ._lib import lib
from .errors import InputError, check
from .world import World, params_dict


def _overrides(overrides):
    if overrides is None:
        return []
    if isinstance(overrides, dict):
        items = []
        for k, v in overrides.items():
            if isinstance(v, bool):
                v = "true" if v else "false"
            items.append(f"{k}={v}")
    elif isinstance(overrides, (list, tuple)):
        items = list(overrides)
    else:
        raise InputError(f"overrides: expected a dict or a list of 'key=value' strings, not {type(overrides).__name__}")
    out = []
    for i, s in enumerate(items):
        b = cv.text(s, f"overrides[{i}]")
        if b"=" not in b:
            raise InputError(f"overrides[{i}]: '{b.decode()}' is not key=value")
        out.append(b)
    return out


def _free_scene(s):
    lib.loam_scene_destroy(C.byref(s))


class Scene(Owned):
    _what = "scene"

    def __init__(self, path, overrides=None):
        ov = _overrides(overrides)
        arr = (C.c_char_p * max(1, len(ov)))(*ov)
        s = T.new(T.Scene, "loam_scene")
        err = T.new(T.Error, "loam_error")
        st = lib.loam_scene_load(cv.path(path, "scene path"), arr, len(ov), C.byref(s), C.byref(err))
        check(st, err)
        self._h = Handle(s, _free_scene)

    @classmethod
    def load(cls, path, overrides=None):
        """Read a scene file."""
        return cls(path, overrides)

    @classmethod
    def from_string(cls, text, name="<string>", overrides=None):
        """Read a scene from YAML text; `name` stands for the file in messages (and mesh files are looked
        up relative to the current directory)."""
        self = cls.__new__(cls)
        data = cv.text(text, "scene text")
        ov = _overrides(overrides)
        arr = (C.c_char_p * max(1, len(ov)))(*ov)
        s = T.new(T.Scene, "loam_scene")
        err = T.new(T.Error, "loam_error")
        st = lib.loam_scene_load_buffer(data, len(data), cv.text(name, "name"), arr, len(ov), C.byref(s), C.byref(err))
        check(st, err)
        self._h = Handle(s, _free_scene)
        return self

    @property
    def _s(self):
        return self._handle().obj

    name = property(lambda self: self._s.name.decode("utf-8", "replace"))
    path = property(lambda self: self._s.path.decode("utf-8", "replace"))
    duration = property(lambda self: self._s.duration, doc="s")
    threads = property(lambda self: self._s.threads)
    density = property(lambda self: self._s.density, doc="kg/m^3")
    particle_count = property(lambda self: self._s.particle_count)
    body_count = property(lambda self: self._s.body_count)

    @property
    def params(self):
        return params_dict(self._s.params)

    @property
    def steps(self):
        """Steps in the scene's duration."""
        s = self._s
        return int(round(s.duration / s.params.dt))

    def _copy(self, ptr, count, cols):
        if count == 0 or not ptr:
            return np.zeros((count, cols) if cols > 1 else (count,), np.float32)
        a = np.ctypeslib.as_array(ptr, shape=(count * cols,)).copy()
        return a.reshape(count, cols) if cols > 1 else a

    @property
    def positions(self):
        """Initial positions (n x 3, m), a copy."""
        s = self._s
        return self._copy(s.xyz, s.particle_count, 3)

    @property
    def velocities(self):
        s = self._s
        return self._copy(s.vel, s.particle_count, 3)

    @property
    def radius(self):
        s = self._s
        return self._copy(s.radius, s.particle_count, 1)

    def body_names(self):
        s = self._s
        return [s.bodies[i].name.decode("utf-8", "replace") for i in range(s.body_count)]

    @property
    def has_environment(self):
        """Whether the scene is an `environment:` section (then create_env, not create_world)."""
        return bool(self._s.has_environment)

    @property
    def environment_config(self):
        """The environment's kind and configuration as keywords: loam.Env(**scene.environment_config) or
        gymnasium.make(id, **...) without `kind`. None for a particle scene."""
        from . import _convert as cv2
        from .env import CONFIG_DOC, KINDS

        s = self._s
        if not s.has_environment:
            return None
        d = cv2.struct_to_dict(s.environment, CONFIG_DOC)
        d["kind"] = KINDS[s.environment.kind]
        return d

    @property
    def environment_reset_seed(self):
        return int(self._s.environment_reset_seed)

    def create_env(self):
        """The scene's environment (loam.Env), reset with the scene's seed."""
        from .env import Env

        cfg = self.environment_config
        if cfg is None:
            raise InputError(f"scene '{self.name}' has no environment section: use create_world()")
        env = Env(**cfg)
        env.reset(self.environment_reset_seed)
        return env

    def create_world(self):
        """A World holding the scene's particles and bodies (the scene's mesh grids stay alive with it)."""
        h = self._handle()
        err = T.new(T.Error, "loam_error")
        ptr = lib.loam_scene_create_world(C.byref(h.obj), C.byref(err))
        if not ptr:
            check(err.status or T.ERR_INTERNAL, err)
        w = World.__new__(World)
        w._h = Handle(ptr, lib.loam_world_destroy, keep=[h])
        from ._handle import new_registry

        w._views = new_registry()
        w._valid = None
        return w

    def __repr__(self):
        if self.closed:
            return "<loam.Scene closed>"
        return f"<loam.Scene '{self.name}' particles={self.particle_count} bodies={self.body_count}>"


def load_world(path, overrides=None):
    """Scene.load(path, overrides).create_world()."""
    return Scene.load(path, overrides).create_world()

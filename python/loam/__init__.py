"""loam: granular physics for robots, from Python.

    import loam
    world = loam.World(dt=1e-3)                                  # or loam.Scene.load(path).create_world()
    world.add_body(loam.Body("ground", [loam.plane()]))
    world.add_particles([[0, 0, 0.05]], radius=0.01)
    world.step(100)
    world.particles.z                                            # a numpy view of loam's array

    import gymnasium as gym
    env = gym.make("loam/Bulldozing-v0", particles=2000)        # registered on `import loam`

Errors from loam raise loam.LoamError subclasses carrying loam's message (docs/python.md)."""
from . import _types  # noqa: F401  (loam._types: the ctypes mirrors, for C extensions)
from ._lib import has as _has
from ._lib import lib as _lib
from ._lib import path as library_path
from .errors import (
    ClosedError,
    DivergedError,
    InputError,
    InternalError,
    LoamError,
    LoamIOError,
    NoMemoryError,
)
from .geometry import (
    Body,
    Mesh,
    SdfGrid,
    Shape,
    box,
    capsule,
    cylinder,
    mesh,
    open_box,
    plane,
    sphere,
    tube,
    tube_container,
)
from .scene import Scene, load_world
from .world import BODY_STATE_DTYPE, Model, Particles, World, default_params

__version__ = "0.1.0"


def version():
    """The C library's version string."""
    return _lib.loam_version().decode()


def set_threads(threads):
    """The default thread count of worlds and environments made with threads=0 (0 = all cores).
    Each object has its own count (World(threads=...), Env(threads=...), set_threads methods);
    results do not depend on it. Set it once, before other Python threads step."""
    from ._convert import integer

    _lib.loam_set_threads(integer(threads, "threads", 0))


def get_threads():
    """The default thread count (set_threads)."""
    return _lib.loam_get_threads()


def threads_forked():
    """True in a process forked after its parent ran loam's OpenMP threads: loam runs single-threaded
    there (libgomp cannot start threads in such a child; Gymnasium's async vector environments are
    such children when the parent stepped an environment first)."""
    return bool(_lib.loam_threads_forked()) if _has("loam_threads_forked") else False


HAS_ENVIRONMENTS = _has("loam_env_create")
if HAS_ENVIRONMENTS:
    from .env import CONFIG_DOC, Env, default_config, step_batch  # noqa: F401

try:
    import gymnasium as _gymnasium  # noqa: F401
except ImportError:  # Gymnasium is optional: the physics works without it
    _gymnasium = None
if _gymnasium is not None and HAS_ENVIRONMENTS:
    from .gymnasium_envs import ENV_IDS, LoamEnv, LoamVectorEnv, register

    register()

__all__ = [
    "World", "Model", "Particles", "Scene", "load_world", "default_params", "BODY_STATE_DTYPE",
    "Body", "Shape", "Mesh", "SdfGrid", "plane", "box", "sphere", "capsule", "cylinder", "tube", "mesh", "open_box",
    "tube_container",
    "LoamError", "InternalError", "InputError", "DivergedError", "LoamIOError", "NoMemoryError", "ClosedError",
    "version", "set_threads", "get_threads", "threads_forked", "library_path", "HAS_ENVIRONMENTS",
]
if HAS_ENVIRONMENTS:
    __all__ += ["Env", "CONFIG_DOC", "default_config", "step_batch"]
    if _gymnasium is not None:
        __all__ += ["LoamEnv", "LoamVectorEnv", "ENV_IDS", "register"]

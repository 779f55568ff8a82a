"""The granular world (include/loam/granular.h) with numpy views of its state.

    import loam
    w = loam.World(dt=1e-3, sweeps=3)
    w.add_body(loam.Body("ground", [loam.plane(friction=0.5)]))
    w.add_particles([[0, 0, 0.05], [0.03, 0, 0.1]], radius=0.01, density=2500)
    w.step(1000)
    p = w.particles          # views of loam's arrays, no copies
    p.z[p.id == 0]           # slots are renumbered every reorder_interval steps; id maps slot -> particle

Model and state apart, as in C: a Model holds the particles by id (with their initial state) and the
bodies, once; each of its worlds is a state that steps on its own:

    m = loam.Model(dt=1e-3)
    m.add_body(loam.Body("ground", [loam.plane()]))
    m.add_particles(positions, radius=0.01)
    worlds = [m.world() for _ in range(8)]   # or loam.World(model=m); the model is fixed from here

Views read and write loam's memory directly: writing p.vz changes what the next step sees. Their
pointers stay valid until particles are added (which loam allows only before the first step, and which
this wrapper refuses while views are alive), and the memory stays alive as long as any view does.
"""
import ctypes as C

import numpy as np

from . import _convert as cv
from . import _types as T
from ._handle import Handle, Owned, live_views, locked, new_registry, view
from ._lib import lib
from .errors import ClosedError, InputError, check
from .geometry import Body

_SOLVERS = {"gauss_seidel": T.SOLVER_GAUSS_SEIDEL, "jacobi": T.SOLVER_JACOBI}
_AXES = {None: -1, "none": -1, "x": 0, "y": 1, "z": 2}


def _solver(value, name):
    if isinstance(value, str):
        if value not in _SOLVERS:
            raise InputError(f"{name}: {value!r} is not one of {', '.join(_SOLVERS)}")
        return _SOLVERS[value]
    return cv.integer(value, name)


def _axis(value, name):
    if value is None or isinstance(value, str):
        if value not in _AXES:
            raise InputError(f"{name}: {value!r} is not one of none, x, y, z (or -1, 0, 1, 2)")
        return _AXES[value]
    return cv.integer(value, name)


_PARAM_SPECIAL = {"solver": _solver, "periodic_axis": _axis}


def default_params():
    """loam_granular_default_params() as a dict (see include/loam/granular.h for units)."""
    return params_dict(lib.loam_granular_default_params())


def params_dict(p):
    d = cv.struct_to_dict(p)
    d["solver"] = {v: k for k, v in _SOLVERS.items()}.get(d["solver"], d["solver"])
    return d


def make_params(base=None, **overrides):
    p = lib.loam_granular_default_params()
    if base is not None:
        if isinstance(base, T.GranularParams):
            C.memmove(C.byref(p), C.byref(base), C.sizeof(p))
        elif isinstance(base, dict):
            cv.set_struct_fields(p, base, "params", _PARAM_SPECIAL)
        else:
            raise InputError(f"params: expected a dict, not {type(base).__name__}")
    cv.set_struct_fields(p, overrides, "params", _PARAM_SPECIAL)
    return p


class Particles:
    """Views of the world's particle arrays (structure of arrays), valid as described in World.

    x, y, z (m) and vx, vy, vz (m/s) are writable; radius (m), inv_mass (1/kg) and id are read-only.
    `id[k]` is the particle (in order of addition) that sits in slot k. contact_count (contacts of each
    slot's particle in the last step) is a copy taken at each access: loam keeps it in scratch memory
    that a structural set_params() reallocates."""

    __slots__ = ("count", "x", "y", "z", "vx", "vy", "vz", "radius", "inv_mass", "id", "_world")

    def __init__(self, p, owner, registry, world):
        n = p.count
        self.count = n
        self._world = world
        addr = lambda ptr: C.cast(ptr, C.c_void_p).value  # noqa: E731
        for name in ("x", "y", "z", "vx", "vy", "vz"):
            setattr(self, name, view(addr(getattr(p, name)), (n,), np.float32, owner, False, registry))
        self.radius = view(addr(p.radius), (n,), np.float32, owner, True, registry)
        self.inv_mass = view(addr(p.inv_mass), (n,), np.float32, owner, True, registry)
        self.id = view(addr(p.id), (n,), np.int32, owner, True, registry)

    @property
    def contact_count(self):
        p = lib.loam_world_particles(self._world._ptr())
        if not p.contact_count or p.count == 0:
            return np.zeros(p.count, np.int32)
        return np.ctypeslib.as_array(p.contact_count, shape=(p.count,)).copy()

    def positions(self):
        """(n, 3) copy of the positions, in slot order."""
        return np.stack([self.x, self.y, self.z], axis=1)

    def velocities(self):
        return np.stack([self.vx, self.vy, self.vz], axis=1)

    def by_id(self, array):
        """`array` (per slot) reordered by particle id: out[i] belongs to particle i."""
        out = np.empty_like(array)
        out[self.id] = array
        return out

    def __len__(self):
        return self.count


# loam_body_state as a numpy record (80 bytes, every field 4-byte).
BODY_STATE_DTYPE = np.dtype(
    [
        ("position", np.float32, 3),
        ("quat", np.float32, 4),
        ("velocity", np.float32, 3),
        ("angular_velocity", np.float32, 3),
        ("force", np.float32, 3),
        ("torque", np.float32, 3),
        ("contacts", np.int32),
    ]
)
assert BODY_STATE_DTYPE.itemsize == C.sizeof(T.BodyState)


def _no_destroy(ptr):
    pass


def _particle_arrays(positions, radius, velocities):
    xyz = cv.real_array(positions, "positions", (None, 3))
    n = len(xyz)
    r = cv.real_array(radius, "radius")
    if r.ndim == 0:
        r = np.full(n, r, np.float32)
    elif r.shape != (n,):
        raise InputError(f"radius: shape {r.shape}, expected a single value or ({n},)")
    vel = None if velocities is None else cv.real_array(velocities, "velocities", (n, 3))
    return xyz, r, vel


class Model(Owned):
    """What does not change while stepping (loam_granular_model): particles by id with their initial
    positions and velocities, bodies, and the parameters its worlds start with.

    Model(params=None, **kw) takes World's parameters. Fill it with add_particles and add_body, then make
    worlds of it (model.world() or World(model=model)): each holds a reference to the model's memory
    instead of a copy, and steps independently of the others (from any Python thread). A model is fixed
    once it has worlds: adding then raises loam.InputError. The model's memory lives as long as any of
    its worlds, whatever order they are closed in."""

    _what = "model"

    def __init__(self, params=None, **overrides):
        p = make_params(params, **overrides)
        err = T.new(T.Error, "loam_error")
        ptr = lib.loam_granular_model_create(C.byref(p), C.byref(err))
        if not ptr:
            check(err.status or T.ERR_INTERNAL, err)
        self._h = Handle(ptr, lib.loam_granular_model_destroy)

    def _ptr(self):
        return self._handle().obj

    @locked
    def add_particles(self, positions, radius, density=2500.0, velocities=None):
        """Append n particles, as World.add_particles: their ids (a range). Only before the first world."""
        ptr = self._ptr()
        xyz, r, vel = _particle_arrays(positions, radius, velocities)
        dens = cv.real(density, "density")
        first = self.particle_count
        err = T.new(T.Error, "loam_error")
        fp = C.POINTER(C.c_float)
        st = lib.loam_granular_model_add_particles(ptr, len(xyz), xyz.ctypes.data_as(fp),
                                                   None if vel is None else vel.ctypes.data_as(fp),
                                                   r.ctypes.data_as(fp), dens, C.byref(err))
        check(st, err)
        return range(first, first + len(xyz))

    @locked
    def add_body(self, body):
        """Add a kinematic body (loam.Body; its pose is its initial pose); returns its index. Only before
        the first world."""
        ptr = self._ptr()
        if not isinstance(body, Body):
            raise InputError(f"add_body: expected a loam.Body, not {type(body).__name__}")
        d = body._to_c()
        err = T.new(T.Error, "loam_error")
        idx = lib.loam_granular_model_add_body(ptr, C.byref(d), C.byref(err))
        if idx < 0:
            check(err.status or T.ERR_INPUT, err)
        self._h.keep.extend(g._handle() for g in body.grids())  # its worlds point into the grids
        return idx

    def world(self):
        """A new World in the model's initial state (World(model=self))."""
        return World(model=self)

    @property
    @locked
    def particle_count(self):
        return lib.loam_granular_model_particle_count(self._ptr())

    @property
    @locked
    def body_count(self):
        return lib.loam_granular_model_body_count(self._ptr())

    @property
    @locked
    def params(self):
        """The parameters its worlds start with, as a dict (a copy)."""
        return params_dict(lib.loam_granular_model_params(self._ptr()).contents)

    @property
    @locked
    def memory(self):
        """Bytes the model holds, once for all its worlds."""
        return lib.loam_granular_model_memory(self._ptr())

    def __repr__(self):
        if self.closed:
            return "<loam.Model closed>"
        return f"<loam.Model particles={self.particle_count} bodies={self.body_count}>"


class World(Owned):
    """A granular world: particles pushed by kinematic bodies.

    World(params=None, **kw): params is a dict (or loam's ctypes struct) of loam_granular_params fields,
    and keywords override single fields: dt (s), gravity (3-vector, m/s^2), solver ("gauss_seidel" or
    "jacobi"), sweeps, tolerance (m/s), baumgarte, push_sweeps, relaxation, friction, damping (1/s),
    margin, skin, warm_start, hash_table_size, reorder_interval, periodic_axis (None/"x"/"y"/"z"),
    periodic_lo, periodic_hi (m), bound (m), sleep_speed (m/s), sleep_time (s), threads (this world's
    OpenMP threads, 0 = loam.set_threads's default). Defaults: loam.default_params().

    World(model=m): a world of a loam.Model, in its initial state, with its particles and bodies
    (nothing can be added to it) and its parameters (set_params changes this world's only).

    Thread-safe: calls on one world from several Python threads take turns (a lock); steps release
    the GIL, so different worlds step in parallel."""

    _what = "world"

    def __init__(self, params=None, model=None, **overrides):
        err = T.new(T.Error, "loam_error")
        if model is not None:
            if not isinstance(model, Model):
                raise InputError(f"model: expected a loam.Model, not {type(model).__name__}")
            if params is not None or overrides:
                raise InputError("World(model=...): the parameters are the model's (change them with set_params)")
            with model._lock:
                ptr = lib.loam_world_create_from_model(model._ptr(), C.byref(err))
            keep = [model._handle()]  # and through it the grids its bodies point into
        else:
            p = make_params(params, **overrides)
            ptr = lib.loam_world_create(C.byref(p), C.byref(err))
            keep = []
        if not ptr:
            check(err.status or T.ERR_INTERNAL, err)
        self._h = Handle(ptr, lib.loam_world_destroy, keep=keep)
        self._views = new_registry()
        self._valid = None

    @classmethod
    def _borrow(cls, ptr, owner, valid, what, registry, lock):
        """A world owned by something else (an environment's episode); `valid()` says whether it still
        exists; its views register in the owner's `registry`; its calls take the owner's `lock`."""
        self = cls.__new__(cls)
        self._lock = lock
        self._h = Handle(ptr, _no_destroy, keep=[owner])
        self._views = registry
        self._valid = valid
        self._what = what
        return self

    def _ptr(self):
        h = self._handle()
        if self._valid is not None and not self._valid():
            self._h = None
            raise ClosedError(f"{self._what} is gone (the environment was reset or closed)")
        return h.obj

    def _refuse_if_views(self, what):
        n = live_views(self._views)
        if n:
            raise InputError(
                f"{what}: {n} numpy view(s) of this world's arrays are alive, and {what} moves the arrays; "
                "delete the views (or copy what you need) first"
            )

    # ---- building --------------------------------------------------------------------------------

    @locked
    def add_particles(self, positions, radius, density=2500.0, velocities=None):
        """Append n particles: positions (n x 3, m), radius (one value or n values, m), density (kg/m^3),
        velocities (n x 3, m/s, or None for at rest). Only before the first step. Returns the ids
        given to them (a range)."""
        ptr = self._ptr()
        xyz, r, vel = _particle_arrays(positions, radius, velocities)
        n = len(xyz)
        dens = cv.real(density, "density")
        self._refuse_if_views("add_particles")
        first = self.particle_count
        err = T.new(T.Error, "loam_error")
        fp = C.POINTER(C.c_float)
        st = lib.loam_world_add_particles(ptr, n, xyz.ctypes.data_as(fp), None if vel is None else vel.ctypes.data_as(fp),
                                          r.ctypes.data_as(fp), dens, C.byref(err))
        check(st, err)
        return range(first, first + n)

    @locked
    def add_body(self, body):
        """Add a kinematic body (loam.Body); returns its index."""
        ptr = self._ptr()
        if not isinstance(body, Body):
            raise InputError(f"add_body: expected a loam.Body, not {type(body).__name__}")
        d = body._to_c()
        self._refuse_if_views("add_body")
        err = T.new(T.Error, "loam_error")
        idx = lib.loam_world_add_body(ptr, C.byref(d), C.byref(err))
        if idx < 0:
            check(err.status or T.ERR_INPUT, err)
        # the world points into the grids of mesh shapes: keep them for as long as the world lives
        self._h.keep.extend(g._handle() for g in body.grids())
        return idx

    # ---- stepping --------------------------------------------------------------------------------

    @locked
    def step(self, steps=1):
        """Advance `steps` steps (0 does nothing) in one C call, the same bits as `steps` calls of one.
        DivergedError names the step and the particle; the state is then left as it was before the
        failing step, after the steps before it."""
        ptr = self._ptr()
        steps = cv.integer(steps, "steps", 0)
        err = T.new(T.Error, "loam_error")
        check(lib.loam_world_step(ptr, steps, C.byref(err)), err)

    @locked
    def set_params(self, params=None, **overrides):
        """Change parameters between steps (validated as at creation)."""
        ptr = self._ptr()
        p = make_params(params if params is not None else self.params, **overrides)
        err = T.new(T.Error, "loam_error")
        check(lib.loam_world_set_params(ptr, C.byref(p), C.byref(err)), err)

    @locked
    def set_threads(self, threads):
        """This world's OpenMP threads from the next step on (0 = the default); unlike set_params it
        keeps the neighbour list, so the run goes on with the same bits."""
        ptr = self._ptr()
        err = T.new(T.Error, "loam_error")
        check(lib.loam_world_set_threads(ptr, cv.integer(threads, "threads", 0), C.byref(err)), err)

    @locked
    def command_body(self, body, velocity=(0, 0, 0), angular_velocity=(0, 0, 0)):
        """For a "commanded" body: the twist (m/s, rad/s, world axes) used from the next step on."""
        ptr = self._ptr()
        b = self._body_index(body)
        tw = T.Twist(cv.vec3(velocity, "velocity"), cv.vec3(angular_velocity, "angular_velocity"))
        err = T.new(T.Error, "loam_error")
        check(lib.loam_world_command_body(ptr, b, tw, C.byref(err)), err)

    @locked
    def place_body(self, body, position, quat=None, rpy_deg=None):
        """For a "commanded" body: put it at a pose before the next step."""
        from .geometry import pose

        ptr = self._ptr()
        b = self._body_index(body)
        err = T.new(T.Error, "loam_error")
        check(lib.loam_world_place_body(ptr, b, pose(position, quat, rpy_deg), C.byref(err)), err)

    @locked
    def _body_index(self, body):
        ptr = self._ptr()
        if isinstance(body, str):
            idx = lib.loam_world_find_body(ptr, cv.text(body, "body"))
            if idx < 0:
                raise InputError(f"no body named '{body}'")
            return idx
        idx = cv.integer(body, "body")
        if not 0 <= idx < lib.loam_world_body_count(ptr):
            raise InputError(f"body {idx}: the world has {lib.loam_world_body_count(ptr)} bodies")
        return idx

    # ---- state -----------------------------------------------------------------------------------

    @property
    @locked
    def particles(self):
        """Views (no copies) of every particle array; see Particles."""
        ptr = self._ptr()
        return Particles(lib.loam_world_particles(ptr), self._h, self._views, self)

    @property
    @locked
    def particle_count(self):
        return lib.loam_world_particles(self._ptr()).count

    @property
    @locked
    def bodies(self):
        """A read-only record view (no copy) of every body's state: position, quat (w, x, y, z),
        velocity, angular_velocity, force (N) and torque (N m) from particles in the last step, contacts."""
        ptr = self._ptr()
        n = lib.loam_world_body_count(ptr)
        addr = C.cast(lib.loam_world_body_state(ptr, 0), C.c_void_p).value if n else None
        return view(addr, (n,), BODY_STATE_DTYPE, self._h, True, self._views)

    @property
    @locked
    def body_count(self):
        return lib.loam_world_body_count(self._ptr())

    @locked
    def body_names(self):
        ptr = self._ptr()
        return [lib.loam_world_body_def(ptr, i).contents.name.decode("utf-8", "replace")
                for i in range(lib.loam_world_body_count(ptr))]

    @locked
    def find_body(self, name):
        """Index of the body with this name, or -1."""
        return lib.loam_world_find_body(self._ptr(), cv.text(name, "name"))

    @property
    @locked
    def params(self):
        """The parameters as a dict (a copy)."""
        return params_dict(lib.loam_world_params(self._ptr()).contents)

    @property
    @locked
    def time(self):
        """Simulated time, s."""
        return lib.loam_world_time(self._ptr())

    @property
    @locked
    def step_index(self):
        return lib.loam_world_step_index(self._ptr())

    @property
    @locked
    def last_stats(self):
        """Counters and stage timings (s) of the last step, as a dict."""
        return cv.struct_to_dict(lib.loam_world_last_stats(self._ptr()))

    @property
    @locked
    def memory(self):
        """Bytes held by the world."""
        return lib.loam_world_memory(self._ptr())

    @locked
    def kinetic_energy(self):
        """Sum of 1/2 m v^2, J."""
        return lib.loam_world_kinetic_energy(self._ptr())

    @property
    @locked
    def address(self):
        """The loam_world* as an integer (for C extensions)."""
        return self._ptr()

    def __repr__(self):
        if self.closed:
            return "<loam.World closed>"
        try:
            return f"<loam.World particles={self.particle_count} bodies={self.body_count} t={self.time:.4g} s>"
        except ClosedError:
            return "<loam.World gone>"

    # ---- state copies and state files (docs/state-files.md) --------------------------------------

    def clone(self):
        """A new World that is a copy of this one's state down to its caches (warm start, contact
        colours, neighbour list, numbering), of the same model: stepping either gives the same bits."""
        err = T.new(T.Error, "loam_error")
        ptr = lib.loam_world_clone(self._ptr(), C.byref(err))
        if not ptr:
            check(err.status or T.ERR_NOMEM, err)
        c = World.__new__(World)
        c._h = Handle(ptr, lib.loam_world_destroy, keep=list(self._h.keep))  # mesh grids it points into
        c._views = new_registry()
        c._valid = None
        return c

    def copy_state_from(self, other):
        """Make this world's whole state `other`'s (a World of the same particles and bodies: of the same
        Model, or of one built alike); this world keeps its model."""
        if not isinstance(other, World):
            raise InputError(f"copy_state_from: expected a loam.World, not {type(other).__name__}")
        ptr, src = self._ptr(), other._ptr()
        self._refuse_if_views("copy_state_from")
        err = T.new(T.Error, "loam_error")
        check(lib.loam_world_copy_state(ptr, src, C.byref(err)), err)

    def save_state(self, path):
        """Write the whole state to `path` (atomically: a temporary name renamed into place)."""
        err = T.new(T.Error, "loam_error")
        check(lib.loam_world_save(self._ptr(), cv.path(path, "path"), C.byref(err)), err)

    def load_state(self, path):
        """Replace the state with the one saved in `path` (a world of the same particles and bodies, saved
        by the same build of loam); on error (loam.InputError names the file and field) nothing changes."""
        ptr = self._ptr()
        p = cv.path(path, "path")
        self._refuse_if_views("load_state")
        err = T.new(T.Error, "loam_error")
        check(lib.loam_world_load(ptr, p, C.byref(err)), err)

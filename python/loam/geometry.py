"""Tools for worlds built from Python: shapes, bodies and their motions, triangle meshes and their
signed distance grids (include/loam/geom.h, body.h, mesh.h, sdf_grid.h).

Units are SI (m, s, rad; rotations given as roll-pitch-yaw are in degrees, as in scene files),
z up. A pose is a position plus either a unit quaternion `quat=(w, x, y, z)` or `rpy_deg=(roll,
pitch, yaw)` (intrinsic Z-Y-X, as scene files write them)."""
import ctypes as C

import numpy as np

from . import _convert as cv
from . import _types as T
from ._handle import Handle, Owned, new_registry, view
from ._lib import lib
from .errors import InputError, check


def pose(position=(0.0, 0.0, 0.0), quat=None, rpy_deg=None, name="pose"):
    """A loam_pose from a position and a rotation (quaternion w-first, or roll-pitch-yaw in degrees)."""
    if quat is not None and rpy_deg is not None:
        raise InputError(f"{name}: give quat or rpy_deg, not both")
    p = cv.vec3(position, f"{name}.position")
    if quat is not None:
        q = cv.real_array(quat, f"{name}.quat", (4,), np.float64)
        norm = float(np.linalg.norm(q))
        if not np.isfinite(norm) or norm < 1e-6:
            raise InputError(f"{name}.quat: {tuple(q)} is not a rotation (zero or non-finite)")
        q = T.Quat(*(float(v) for v in q / norm))
    elif rpy_deg is not None:
        q = lib.loam_quat_from_euler_deg(cv.vec3(rpy_deg, f"{name}.rpy_deg"))
    else:
        q = T.Quat(1.0, 0.0, 0.0, 0.0)
    return T.Pose(p, q)


class Shape:
    """One piece of a body: its type, pose in the body's frame, size and friction against particles.
    Make them with the functions below (box, sphere, plane, capsule, cylinder, tube, mesh)."""

    def __init__(self, type_, size=(0.0, 0.0, 0.0), friction=0.5, position=(0, 0, 0), quat=None, rpy_deg=None,
                 grid=None):
        self.type = type_
        self.size = tuple(float(v) for v in cv.real_array(size, "shape.size", (3,), np.float64))
        self.friction = cv.real(friction, "shape.friction")
        self.local = pose(position, quat, rpy_deg, "shape")
        if grid is not None and not isinstance(grid, SdfGrid):
            raise InputError(f"mesh shape: grid must be a loam.SdfGrid, not {type(grid).__name__}")
        self.grid = grid

    def _to_c(self, out):
        out.type = self.type
        out.local = self.local
        out.size = T.Vec3(*self.size)
        out.friction = self.friction
        out.grid = C.pointer(self.grid._handle().obj) if self.grid is not None else None

    def __repr__(self):
        names = {T.SHAPE_PLANE: "plane", T.SHAPE_BOX: "box", T.SHAPE_SPHERE: "sphere", T.SHAPE_CAPSULE: "capsule",
                 T.SHAPE_CYLINDER: "cylinder", T.SHAPE_TUBE: "tube", T.SHAPE_MESH: "mesh", T.SHAPE_HEIGHTFIELD: "heightfield"}
        return f"<loam.Shape {names.get(self.type, self.type)} size={self.size} friction={self.friction}>"


def plane(friction=0.5, **pose_kw):
    """The half-space z <= 0 of its frame (solid below)."""
    return Shape(T.SHAPE_PLANE, friction=friction, **pose_kw)


def box(half_extents, friction=0.5, **pose_kw):
    """A box with half extents (hx, hy, hz), m."""
    return Shape(T.SHAPE_BOX, half_extents, friction, **pose_kw)


def sphere(radius, friction=0.5, **pose_kw):
    return Shape(T.SHAPE_SPHERE, (radius, 0, 0), friction, **pose_kw)


def capsule(radius, half_length, friction=0.5, **pose_kw):
    """A capsule along the frame's z: radius and the half length of its axis segment, m."""
    return Shape(T.SHAPE_CAPSULE, (radius, 0, half_length), friction, **pose_kw)


def cylinder(radius, half_height, friction=0.5, **pose_kw):
    """A solid cylinder along z."""
    return Shape(T.SHAPE_CYLINDER, (radius, 0, half_height), friction, **pose_kw)


def tube(inner_radius, wall, half_height, friction=0.5, **pose_kw):
    """A hollow cylinder wall along z, open at both ends."""
    return Shape(T.SHAPE_TUBE, (inner_radius, wall, half_height), friction, **pose_kw)


def mesh(grid, friction=0.5, **pose_kw):
    """A triangle mesh through its signed distance grid (SdfGrid): any tool shape."""
    if not isinstance(grid, SdfGrid):
        raise InputError(f"mesh shape: grid must be a loam.SdfGrid, not {type(grid).__name__}")
    return Shape(T.SHAPE_MESH, friction=friction, grid=grid, **pose_kw)


def _pieces(shapes, count):
    out = []
    for s in shapes[:count]:
        sh = Shape(s.type, (s.size.x, s.size.y, s.size.z), s.friction)
        sh.local = T.Pose(s.local.p, s.local.q)
        out.append(sh)
    return out


def open_box(inner_half, wall, friction=0.5):
    """An open-topped box as 5 pieces (floor at z = 0): `inner_half` the free space's half extents."""
    arr = (T.Shape * 5)()
    n = lib.loam_open_box_pieces(cv.vec3(inner_half, "open_box.inner_half"), cv.real(wall, "open_box.wall"),
                                 cv.real(friction, "open_box.friction"), arr)
    return _pieces(arr, n)


def tube_container(inner_radius, half_height, wall, floor=True, friction=0.5):
    """A tube with (or without) a floor, as pieces."""
    arr = (T.Shape * 2)()
    n = lib.loam_tube_pieces(cv.real(inner_radius, "tube.inner_radius"), cv.real(half_height, "tube.half_height"),
                             cv.real(wall, "tube.wall"), cv.flag(floor, "tube.floor"), cv.real(friction, "tube.friction"),
                             arr)
    return _pieces(arr, n)


_MOTIONS = {"fixed": T.MOTION_FIXED, "twist": T.MOTION_TWIST, "path": T.MOTION_PATH, "commanded": T.MOTION_COMMANDED}


class Body:
    """A kinematic body: shapes plus a motion.

    motion: "fixed" (never moves), "twist" (constant `twist=(v, w)`: linear velocity of the origin and
    angular velocity, world axes, m/s and rad/s), "path" (`waypoints`: a list of dicts with `t` (s),
    `position` and optionally `quat` or `rpy_deg`; strictly increasing t), or "commanded" (the script
    sets a twist each step with World.command_body, or places it with World.place_body)."""

    def __init__(self, name="", shapes=(), motion="fixed", position=(0, 0, 0), quat=None, rpy_deg=None, twist=None,
                 waypoints=()):
        self.name = cv.text(name, "body.name").decode("utf-8")
        if len(self.name.encode()) >= T.NAME_MAX:
            raise InputError(f"body.name: '{self.name}' is longer than {T.NAME_MAX - 1} bytes")
        if isinstance(shapes, Shape):
            shapes = [shapes]
        self.shapes = list(shapes)
        for i, s in enumerate(self.shapes):
            if not isinstance(s, Shape):
                raise InputError(f"body '{self.name}': shapes[{i}] is a {type(s).__name__}, not a loam.Shape")
        if len(self.shapes) > T.BODY_MAX_SHAPES:
            raise InputError(f"body '{self.name}': {len(self.shapes)} shapes, at most {T.BODY_MAX_SHAPES}")
        if motion not in _MOTIONS:
            raise InputError(f"body '{self.name}': motion {motion!r} is not one of {', '.join(_MOTIONS)}")
        self.motion = motion
        self.pose = pose(position, quat, rpy_deg, "body")
        v, w = (0, 0, 0), (0, 0, 0)
        if twist is not None:
            try:
                v, w = twist
            except (TypeError, ValueError):
                raise InputError(f"body '{self.name}': twist must be (v, w), two 3-vectors") from None
        self.twist = T.Twist(cv.vec3(v, "body.twist.v"), cv.vec3(w, "body.twist.w"))
        self.waypoints = []
        if len(waypoints) > T.BODY_MAX_WAYPOINTS:
            raise InputError(f"body '{self.name}': {len(waypoints)} waypoints, at most {T.BODY_MAX_WAYPOINTS}")
        for i, wp in enumerate(waypoints):
            if not isinstance(wp, dict) or "t" not in wp:
                raise InputError(f"body '{self.name}': waypoints[{i}] must be a dict with t and position")
            extra = set(wp) - {"t", "position", "quat", "rpy_deg"}
            if extra:
                raise InputError(f"body '{self.name}': waypoints[{i}] has unknown keys {sorted(extra)}")
            self.waypoints.append(T.Waypoint(cv.real(wp["t"], f"waypoints[{i}].t"),
                                             pose(wp.get("position", (0, 0, 0)), wp.get("quat"), wp.get("rpy_deg"),
                                                  f"waypoints[{i}]")))

    def _to_c(self):
        d = lib.loam_body_default_def()
        d.name = self.name.encode("utf-8")
        d.pose = self.pose
        d.motion = _MOTIONS[self.motion]
        d.twist = self.twist
        d.waypoint_count = len(self.waypoints)
        for i, wp in enumerate(self.waypoints):
            d.waypoints[i] = wp
        d.shape_count = len(self.shapes)
        for i, s in enumerate(self.shapes):
            s._to_c(d.shapes[i])
        return d

    def grids(self):
        return [s.grid for s in self.shapes if s.grid is not None]


def _free_mesh(m):
    lib.loam_mesh_destroy(C.byref(m))


class Mesh(Owned):
    """A triangle mesh read from OBJ or STL (loam_mesh_load) or from OBJ text. `vertices` (V x 3, m) and
    `triangles` (T x 3 vertex indices) are views of loam's arrays."""

    _what = "mesh"

    def __init__(self, path):
        m = T.new(T.Mesh, "loam_mesh")
        err = T.new(T.Error, "loam_error")
        check(lib.loam_mesh_load(cv.path(path, "mesh path"), C.byref(m), C.byref(err)), err)
        self._h = Handle(m, _free_mesh)
        self._views = new_registry()

    @classmethod
    def from_obj(cls, text, name="<obj>"):
        self = cls.__new__(cls)
        data = cv.text(text, "obj text")
        m = T.new(T.Mesh, "loam_mesh")
        err = T.new(T.Error, "loam_error")
        check(lib.loam_mesh_read_obj(data, len(data), cv.text(name, "name"), C.byref(m), C.byref(err)), err)
        self._h = Handle(m, _free_mesh)
        self._views = new_registry()
        return self

    @property
    def vertices(self):
        h = self._handle()
        m = h.obj
        return view(C.cast(m.vertices, C.c_void_p).value, (m.vertex_count, 3), np.float32, h, True, self._views)

    @property
    def triangles(self):
        h = self._handle()
        m = h.obj
        return view(C.cast(m.triangles, C.c_void_p).value, (m.triangle_count, 3), np.int32, h, True, self._views)

    def sdf_grid(self, cell, margin, cache_dir=None):
        """Sample the signed distance every `cell` m over the mesh's bounds grown by `margin` m (margin >=
        cell; at least the largest particle radius plus the contact margin). With `cache_dir`, grids
        are cached there as files keyed by the mesh, cell and margin."""
        return SdfGrid(self, cell, margin, cache_dir)


def _free_grid(g):
    lib.loam_sdf_grid_destroy(C.byref(g))


class SdfGrid(Owned):
    """A signed distance grid of a mesh (negative inside, m). A body's mesh shape points to it: the
    grid's memory stays alive for as long as any world uses it, even after close()."""

    _what = "signed distance grid"

    def __init__(self, mesh, cell, margin, cache_dir=None):
        if isinstance(mesh, Mesh):
            mh = mesh._handle()
        else:
            raise InputError(f"sdf_grid: mesh must be a loam.Mesh, not {type(mesh).__name__}")
        g = T.new(T.SdfGrid, "loam_sdf_grid")
        err = T.new(T.Error, "loam_error")
        cell = cv.real(cell, "sdf_grid.cell")
        margin = cv.real(margin, "sdf_grid.margin")
        if cache_dir is None:
            st = lib.loam_sdf_grid_build(C.byref(mh.obj), cell, margin, C.byref(g), C.byref(err))
            self.from_cache = False
        else:
            fc = C.c_int(0)
            st = lib.loam_sdf_grid_build_cached(C.byref(mh.obj), cell, margin, cv.path(cache_dir, "cache_dir"),
                                                C.byref(g), C.byref(fc), C.byref(err))
            self.from_cache = bool(fc.value)
        check(st, err)
        self._h = Handle(g, _free_grid)
        self._views = new_registry()

    @property
    def shape(self):
        g = self._handle().obj
        return (g.nz, g.ny, g.nx)

    @property
    def origin(self):
        g = self._handle().obj
        return (g.origin.x, g.origin.y, g.origin.z)

    @property
    def cell(self):
        return self._handle().obj.cell

    @property
    def memory_bytes(self):
        """Bytes the grid holds (loam_sdf_grid_memory): 4 per sample plus the C struct. Halving `cell`
        multiplies it by about 8."""
        return lib.loam_sdf_grid_memory(C.byref(self._handle().obj))

    @property
    def values(self):
        """The samples as a (nz, ny, nx) view (x fastest), m."""
        h = self._handle()
        g = h.obj
        return view(C.cast(g.values, C.c_void_p).value, (g.nz, g.ny, g.nx), np.float32, h, True, self._views)

    def query(self, points):
        """Signed distances at points (n x 3, m) by trilinear interpolation."""
        h = self._handle()
        pts = cv.real_array(points, "points", (None, 3), np.float64)
        out = np.empty(len(pts), np.float32)
        gp = C.byref(h.obj)
        for i, p in enumerate(pts):
            out[i] = lib.loam_sdf_grid_query(gp, T.Vec3(*p), None)
        return out

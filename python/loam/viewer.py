"""A live window on a simulation: libloam_viewer (GLFW and OpenGL 3.3, include/loam/viewer.h).

    import loam, loam.viewer
    world = loam.Scene.load("scenes/plough.yaml").create_world()
    with loam.viewer.Viewer(title="plough") as v:
        while not v.poll()["close"]:
            world.step(10)
            v.draw(world)          # particles and bodies; draw_triangles adds soft-body surfaces
            v.present()

Mouse: left drag orbits, right or middle drag pans, the wheel zooms, R frames everything again.
Keys: space pauses, N or Right steps once, Esc or Q closes. Gymnasium environments made with
render_mode="human" show themselves in one (HumanRenderer) at every reset and step.

libloam_viewer.so is found beside the libloam.so in use (loam.library_path), or at
$LOAM_VIEWER_LIBRARY. It is built only where GLFW and OpenGL were found; without it, or without a
display ($DISPLAY; use xvfb-run on a server), Viewer() raises loam.LoamIOError saying which."""
import ctypes as C
import os
import time

import numpy as np

from ._lib import lib as _clib
from ._lib import path as _clib_path
from . import _types as T
from .errors import InputError, LoamIOError, check, raise_error

P = C.POINTER
ERR = P(T.Error)


class _Options(C.Structure):
    _fields_ = [("width", C.c_int), ("height", C.c_int), ("title", C.c_char_p)]


class _Input(C.Structure):
    _fields_ = [("close", C.c_int), ("paused", C.c_int), ("steps", C.c_int)]


class _Triangles(C.Structure):  # loam_render_triangles (loam/render.h)
    _fields_ = [("count", C.c_int), ("index", P(C.c_int32)), ("vertex_count", C.c_int),
                ("x", P(C.c_float)), ("y", P(C.c_float)), ("z", P(C.c_float)), ("scalar", P(C.c_float)),
                ("scalar_min", C.c_float), ("scalar_max", C.c_float), ("colormap", C.c_int),
                ("color", C.c_uint8 * 3)]


_PROTOTYPES = {
    "loam_viewer_default_options": (_Options, []),
    "loam_viewer_create": (C.c_void_p, [P(_Options), ERR]),
    "loam_viewer_destroy": (None, [C.c_void_p]),
    "loam_viewer_draw_granular": (C.c_int, [C.c_void_p, C.c_void_p, ERR]),
    "loam_viewer_draw_triangles": (C.c_int, [C.c_void_p, P(_Triangles), ERR]),
    "loam_viewer_present": (C.c_int, [C.c_void_p, C.c_char_p, ERR]),
    "loam_viewer_poll": (C.c_int, [C.c_void_p, P(_Input), ERR]),
    "loam_viewer_set_status": (None, [C.c_void_p, C.c_char_p]),
    "loam_viewer_look_at": (C.c_int, [C.c_void_p, T.Vec3, T.Vec3, ERR]),
}

_vlib = None


def _library_path():
    env = os.environ.get("LOAM_VIEWER_LIBRARY")
    candidates = [env] if env else [os.path.join(os.path.dirname(os.path.abspath(_clib_path)), "libloam_viewer.so")]
    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    if not env and os.path.isfile(os.path.join(repo, "CMakeLists.txt")):  # imported from the source tree
        candidates.append(os.path.join(repo, "build", "libloam_viewer.so"))
    path = next((p for p in candidates if os.path.isfile(p)), None)
    if path is None:
        raise LoamIOError(f"loam was built without the viewer: no {' or '.join(candidates)} (it is built where GLFW "
                          "and OpenGL are found: install libglfw3-dev and libgl-dev and rebuild, or set "
                          "LOAM_VIEWER_LIBRARY)")
    return path


def library():
    """The loaded libloam_viewer (ctypes.CDLL); LoamIOError when this loam has none."""
    global _vlib
    if _vlib is not None:
        return _vlib
    path = _library_path()
    # It links libloam.so by name; the copy already loaded (same soname) is the one it uses.
    vlib = C.CDLL(path)
    for name, (res, args) in _PROTOTYPES.items():
        f = getattr(vlib, name)
        f.restype, f.argtypes = res, args
    _vlib = vlib
    return vlib


def window_possible():
    """Whether a window could open here: libloam_viewer is there and a display is named ($DISPLAY or
    $WAYLAND_DISPLAY). Cheap: nothing is loaded or connected."""
    if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        return False
    try:
        _library_path()
    except LoamIOError:
        return False
    return True


def with_window_modes(render_modes):
    """render_modes without "human" where no window can open (a server, CI), so that checkers which
    try every declared mode (gymnasium's check_env) test what works here."""
    return list(render_modes) if window_possible() else [m for m in render_modes if m != "human"]


def _world_ptr(target):
    """A loam_world* from a loam.World, a loam.Env or a Gymnasium env made by loam."""
    for attr in ("unwrapped", "core"):  # gymnasium wrappers, then LoamEnv's loam.Env
        if not hasattr(target, "_ptr") and hasattr(target, attr) and getattr(target, attr) is not target:
            target = getattr(target, attr)
    if hasattr(target, "world") and not hasattr(target, "_ptr"):
        target = target.world
    if not hasattr(target, "_ptr"):
        raise InputError(f"cannot draw a {type(target).__name__}: give a loam.World, loam.Env or a loam Gymnasium env")
    return target._ptr()


class Viewer:
    """A window (width x height pixels). Not thread-safe: use it from the thread that made it."""

    def __init__(self, width=1024, height=640, title="loam"):
        vlib = library()
        opts = vlib.loam_viewer_default_options()
        opts.width, opts.height = int(width), int(height)
        self._title = str(title).encode("utf-8", "replace")
        opts.title = self._title
        err = T.Error()
        self._v = vlib.loam_viewer_create(C.byref(opts), C.byref(err))
        if not self._v:
            raise_error(err.status or T.ERR_IO, err)
        self._lib = vlib
        self._keep = []  # arrays of the frame being queued

    def _ptr(self):
        if not self._v:
            raise LoamIOError("the viewer is closed")
        return self._v

    def look_at(self, eye, target):
        """Look from eye at target (m, z up) instead of framing the first thing drawn; R returns here."""
        err = T.Error()
        check(self._lib.loam_viewer_look_at(self._ptr(), T.Vec3(*map(float, eye)), T.Vec3(*map(float, target)),
                                            C.byref(err)), err)

    def draw(self, world):
        """Queue a world's particles and bodies for the next present()."""
        err = T.Error()
        check(self._lib.loam_viewer_draw_granular(self._ptr(), _world_ptr(world), C.byref(err)), err)

    def draw_triangles(self, triangles, vertices, scalars=None, scalar_range=None, color=(210, 110, 60), colormap=0):
        """Queue a triangle surface (a soft body's): triangles (T, 3) vertex indices, vertices (V, 3) m,
        scalars (V,) coloured by the colormap over scalar_range (default: their min and max), else `color`."""
        tri = np.ascontiguousarray(triangles, dtype=np.int32).reshape(-1, 3)
        xyz = np.asarray(vertices, dtype=np.float32).reshape(-1, 3)
        cols = [np.ascontiguousarray(xyz[:, k]) for k in range(3)]
        t = _Triangles()
        t.count, t.vertex_count = len(tri), len(xyz)
        t.index = tri.ctypes.data_as(P(C.c_int32))
        t.x, t.y, t.z = (c.ctypes.data_as(P(C.c_float)) for c in cols)
        keep = [tri, *cols]
        if scalars is not None:
            s = np.ascontiguousarray(scalars, dtype=np.float32).ravel()
            if len(s) != len(xyz):
                raise InputError(f"draw_triangles: {len(s)} scalars for {len(xyz)} vertices")
            lo, hi = scalar_range if scalar_range is not None else (float(s.min(initial=0)), float(s.max(initial=1)))
            t.scalar, t.scalar_min, t.scalar_max = s.ctypes.data_as(P(C.c_float)), lo, hi
            keep.append(s)
        t.colormap = int(colormap)
        t.color[:] = [int(c) for c in color]
        err = T.Error()
        check(self._lib.loam_viewer_draw_triangles(self._ptr(), C.byref(t), C.byref(err)), err)

    def present(self, screenshot=None):
        """Draw the queued frame and show it; screenshot: also write it to this PNG path."""
        err = T.Error()
        path = os.fsencode(screenshot) if screenshot is not None else None
        check(self._lib.loam_viewer_present(self._ptr(), path, C.byref(err)), err)

    def poll(self):
        """Window events: {"close": bool, "paused": bool, "steps": single steps asked for}."""
        inp, err = _Input(), T.Error()
        check(self._lib.loam_viewer_poll(self._ptr(), C.byref(inp), C.byref(err)), err)
        return {"close": bool(inp.close), "paused": bool(inp.paused), "steps": int(inp.steps)}

    def set_status(self, text):
        """Text shown after the title in the title bar."""
        self._lib.loam_viewer_set_status(self._ptr(), str(text).encode("utf-8", "replace"))

    def close(self):
        if self._v:
            self._lib.loam_viewer_destroy(self._v)
            self._v = None

    @property
    def closed(self):
        return not self._v

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass


class HumanRenderer:
    """What render_mode="human" uses: show(env) draws the env's world with its step rate, at most fps
    times a second (Gymnasium's render_fps: an env's steps then pass in real time; None: no limit);
    while the user has paused (space), show() waits, redrawing, until they resume, step (N) or close
    the window. After the window is closed, show() does nothing."""

    def __init__(self, title="loam", width=1024, height=640, fps=None):
        self.viewer = Viewer(width, height, title)
        self.fps = fps
        self._last, self._rate, self._count = time.perf_counter(), 0.0, 0
        self._shown = None

    def show(self, env):
        v = self.viewer
        if v.closed:
            return
        self._count += 1
        now = time.perf_counter()
        if now - self._last >= 0.5:
            self._rate, self._count, self._last = self._count / (now - self._last), 0, now
        world = _world_ptr(env)  # the live episode's world
        t = _clib.loam_world_time(world)
        while True:
            state = v.poll()
            if state["close"]:
                v.close()
                return
            paused = state["paused"] and state["steps"] == 0
            v.set_status(f"{self._rate:.0f} env steps/s, t = {t:.3f} s" + (" [paused: space runs, N steps]" if paused else ""))
            v.draw(env)
            v.present()
            if not paused:
                break
            time.sleep(1 / 60)
        if self.fps:  # pace like Gymnasium's own human renderers (clock.tick(render_fps))
            wait = (self._shown or 0.0) + 1.0 / self.fps - time.perf_counter()
            if self._shown is not None and wait > 0:
                time.sleep(wait)
        self._shown = time.perf_counter()

    def close(self):
        self.viewer.close()

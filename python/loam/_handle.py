"""Lifetimes of C objects and zero-copy numpy views of their memory.

A Handle owns one C object and frees it when the last Python reference to the handle goes. The
wrapper (World, Env, SdfGrid, Scene) holds the handle until close(); every numpy view made by
`view()` holds it too, through the array's base. So close() makes the wrapper unusable at once (its
methods raise ClosedError), but the C memory is freed only when no view can still read it: a view
never dangles, whatever order a script drops things in.

Views also register in a WeakSet, so an operation that moves the C arrays (adding particles or
bodies) can refuse while views of the old arrays are alive instead of leaving them pointing at freed
memory.

Threads: every wrapper holds a re-entrant lock (`_lock`), and its methods that touch the C object run
under it (the `locked` decorator), so calls on one object from several Python threads take turns;
a world borrowed from an environment shares the environment's lock. libloam is loaded with
ctypes.CDLL, which releases the GIL for the duration of every C call, so different objects step in
parallel. close() takes the lock too: it waits for a call in progress instead of freeing the object
under it."""
import functools
import threading
import weakref

import numpy as np

from .errors import ClosedError


class Handle:
    __slots__ = ("obj", "_destroy", "keep", "__weakref__")

    def __init__(self, obj, destroy, keep=()):
        self.obj = obj          # the C pointer (int) or ctypes struct
        self._destroy = destroy  # called once with obj
        self.keep = list(keep)  # Python objects the C object points into (grids, scenes, owners)

    def __del__(self):
        obj, self.obj = self.obj, None
        if obj is not None and self._destroy is not None:
            try:
                self._destroy(obj)
            except Exception:  # interpreter shutdown: the library may already be gone
                pass


class _Buffer:
    """Exposes C memory to numpy and keeps its owner alive for as long as any array built on it."""

    __slots__ = ("__array_interface__", "owner", "__weakref__")

    def __init__(self, address, shape, typestr, readonly, owner):
        self.__array_interface__ = {
            "data": (address, readonly),
            "shape": tuple(shape),
            "typestr": typestr,
            "version": 3,
        }
        self.owner = owner


def view(address, shape, dtype, owner, readonly=False, registry=None):
    """An ndarray over `address` (C memory) without copying. `owner` (a Handle) is kept alive by the
    array; `registry` (a WeakSet) learns of it so the wrapper can tell whether views are alive."""
    dtype = np.dtype(dtype)
    shape = tuple(int(s) for s in shape)
    n = int(np.prod(shape)) if shape else 1
    if not address or n == 0:
        arr = np.zeros(shape, dtype)
        arr.flags.writeable = not readonly
        return arr
    if dtype.fields is not None:  # structured: view raw bytes as records
        buf = _Buffer(address, (n * dtype.itemsize,), "|u1", readonly, owner)
        arr = np.asarray(buf).view(dtype).reshape(shape)
    else:
        buf = _Buffer(address, shape, dtype.str, readonly, owner)
        arr = np.asarray(buf)
    if registry is not None:
        registry.add(buf)
    return arr


def locked(method):
    """Run the method under the object's lock (see the module's note on threads)."""

    @functools.wraps(method)
    def run(self, *args, **kwargs):
        with self._lock:
            return method(self, *args, **kwargs)

    return run


class Owned:
    """Mixin: a wrapper holding a Handle in self._h, with close(), a context manager and a lock."""

    _h = None
    _what = "object"

    def __new__(cls, *args, **kwargs):
        self = super().__new__(cls)
        self._lock = threading.RLock()  # made here, so that no construction path can miss it
        return self

    def _handle(self):
        h = self._h
        if h is None or h.obj is None:
            raise ClosedError(f"{self._what} is closed")
        return h

    @property
    def closed(self):
        return self._h is None

    @locked
    def close(self):
        """Release the C object (its memory goes once no numpy view of it is left). Idempotent; waits
        for a call in progress on another thread."""
        self._h = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


def live_views(registry):
    return sum(1 for _ in registry)


def new_registry():
    return weakref.WeakSet()

"""Checked conversions from Python values to C arguments: every bad value becomes an InputError that
names the argument, never a ctypes TypeError, a silent truncation or a crash."""
import math
import numbers
import os

import numpy as np

from . import _types as T
from .errors import InputError

INT_MIN, INT_MAX = -(2**31), 2**31 - 1


def real_array(value, name, shape=None, dtype=np.float32):
    """A C-contiguous array of `dtype` from `value`, which must hold real numbers (bool, int, float);
    `shape`: the required shape, with None for any length on that axis."""
    try:
        arr = np.asarray(value)
    except Exception as e:  # ragged lists and the like
        raise InputError(f"{name}: not an array of numbers ({e})") from None
    if arr.dtype.kind not in "biuf":
        raise InputError(f"{name}: dtype {arr.dtype} is not a real number type (expected {np.dtype(dtype).name})")
    if shape is not None:
        ok = arr.ndim == len(shape) and all(s is None or s == a for s, a in zip(shape, arr.shape))
        if not ok:
            want = "(" + ", ".join("n" if s is None else str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"
            raise InputError(f"{name}: shape {arr.shape}, expected {want}")
    return np.asarray(arr, dtype=dtype, order="C")


def real(value, name):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        if isinstance(value, np.ndarray) and value.shape == () and value.dtype.kind in "iuf":
            return float(value)
        raise InputError(f"{name}: {value!r} is not a real number")
    return float(value)


def integer(value, name, lo=INT_MIN, hi=INT_MAX):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        if isinstance(value, numbers.Real) and float(value).is_integer():
            value = int(value)
        else:
            raise InputError(f"{name}: {value!r} is not an integer")
    value = int(value)
    if not lo <= value <= hi:
        raise InputError(f"{name}: {value} is out of range [{lo}, {hi}]")
    return value


def flag(value, name):
    if isinstance(value, (bool, np.bool_)):
        return int(bool(value))
    return integer(value, name, 0, 1)


def vec3(value, name):
    a = real_array(value, name, (3,), np.float64)
    return T.Vec3(*(float(v) for v in a))


def quat(value, name):
    a = real_array(value, name, (4,), np.float64)
    return T.Quat(*(float(v) for v in a))


def path(value, name):
    """A file system path as bytes for C; InputError for anything that is not one."""
    if not isinstance(value, (str, bytes, os.PathLike)):
        raise InputError(f"{name}: {value!r} is not a path")
    b = os.fsencode(value)
    if b"\0" in b:
        raise InputError(f"{name}: the path contains a NUL character")
    if not b:
        raise InputError(f"{name}: empty path")
    return b


def text(value, name):
    if not isinstance(value, (str, bytes)):
        raise InputError(f"{name}: {value!r} is not a string")
    b = value.encode("utf-8") if isinstance(value, str) else value
    if b"\0" in b:
        raise InputError(f"{name}: the string contains a NUL character")
    return b


def set_struct_fields(struct, values, what, special=None):
    """Assign dict `values` to ctypes `struct` by field name, converting each with the field's C type.
    `special`: field name -> converter(value, name) for fields that are not plain numbers."""
    special = special or {}
    types = dict(struct._fields_)
    for key, value in values.items():
        if key not in types:
            known = ", ".join(sorted(k for k in types))
            raise InputError(f"{what}: unknown parameter '{key}' (known: {known})")
        name = f"{what}.{key}"
        if key in special:
            setattr(struct, key, special[key](value, name))
            continue
        ctype = types[key]
        if ctype in (T.C.c_float, T.C.c_double):
            v = real(value, name)
            if ctype is T.C.c_float and math.isfinite(v) and abs(v) > 3.4e38:
                raise InputError(f"{name}: {v} does not fit a float")
            setattr(struct, key, v)
        elif ctype is T.C.c_uint64:
            setattr(struct, key, integer(value, name, 0, 2**64 - 1))
        elif ctype in (T.C.c_int, T.C.c_int32):
            setattr(struct, key, integer(value, name))
        elif ctype is T.Vec3:
            setattr(struct, key, vec3(value, name))
        else:  # pragma: no cover - every mirrored parameter struct is covered above
            raise InputError(f"{name}: cannot be set from Python")


def struct_to_dict(struct, names=None):
    out = {}
    for key, ctype in struct._fields_:
        if names is not None and key not in names:
            continue
        if ctype is T.C.c_void_p:  # a process address (params.context), not a parameter
            continue
        v = getattr(struct, key)
        if ctype is T.C.c_float:
            v = float(str(np.float32(v)))  # the shortest decimal that is this float32: 0.02, not 0.0199999995
        elif isinstance(v, T.Vec3):
            v = tuple(float(str(np.float32(c))) for c in (v.x, v.y, v.z))
        elif isinstance(v, bytes):
            v = v.decode("utf-8", "replace")
        out[key] = v
    return out

"""The ctypes mirrors match the C structs byte for byte: sizes and every field offset, as the C library
itself reports them (loam_abi_sizeof / loam_abi_offsetof, src/core/abi.c)."""
import ctypes

import pytest

from loam import _types as T
from loam._lib import lib

C_TYPES = []
i = 0
while True:
    name = lib.loam_abi_type_name(i)
    if name is None:
        break
    C_TYPES.append(name.decode())
    i += 1


def test_every_listed_c_type_is_mirrored():
    assert len(C_TYPES) >= 20
    assert sorted(C_TYPES) == sorted(T.MIRRORS)


@pytest.mark.parametrize("name", sorted(T.MIRRORS))
def test_size_and_offsets(name):
    mirror = T.MIRRORS[name]
    assert ctypes.sizeof(mirror) == lib.loam_abi_sizeof(name.encode()), name
    for field, _ in mirror._fields_:
        c_off = lib.loam_abi_offsetof(name.encode(), field.encode())
        assert c_off != ctypes.c_size_t(-1).value, f"{name}.{field} is not a C field"
        assert getattr(mirror, field).offset == c_off, f"{name}.{field}"


def test_unknown_names():
    assert lib.loam_abi_sizeof(b"no_such_type") == 0
    assert lib.loam_abi_sizeof(None) == 0
    assert lib.loam_abi_offsetof(b"loam_error", b"nope") == ctypes.c_size_t(-1).value

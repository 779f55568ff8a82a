"""Finding and loading libloam, and the prototypes of the functions the package calls.

Where the library comes from, first match wins:
  1. $LOAM_LIBRARY, a path to libloam.so (development: point it at a fresh CMake build);
  2. libloam.so inside the installed package (what `pip install ./python` and the wheel ship);
  3. the library an editable install (`pip install -e ./python`) built, named in loam/_libloam_path;
  4. <repo>/build/libloam.so when the package is imported from the source tree (python/loam);
  5. the system's search path (ctypes.util.find_library("loam")).
"""
import ctypes as C
import ctypes.util
import os

from . import _types as T

_HERE = os.path.dirname(os.path.abspath(__file__))


def _candidates():
    env = os.environ.get("LOAM_LIBRARY")
    if env:
        return [env]  # an explicit choice is never second-guessed
    out = [os.path.join(_HERE, "libloam.so")]
    try:
        with open(os.path.join(_HERE, "_libloam_path")) as f:
            out.append(f.read().strip())
    except OSError:
        pass
    repo = os.path.dirname(os.path.dirname(_HERE))
    if os.path.isfile(os.path.join(repo, "CMakeLists.txt")):
        out.append(os.path.join(repo, "build", "libloam.so"))
    found = ctypes.util.find_library("loam")
    if found:
        out.append(found)
    return out


def _load():
    tried = []
    for path in _candidates():
        if os.path.sep in path and not os.path.isfile(path):
            tried.append(f"{path} (no such file)")
            continue
        try:
            return C.CDLL(path), path
        except OSError as e:
            tried.append(f"{path} ({e})")
    raise ImportError(
        "loam: cannot load libloam.so; tried: " + "; ".join(tried) +
        ". Install the package with `pip install ./python`, build the library with CMake "
        "(target loam_shared) into build/, or set LOAM_LIBRARY=/path/to/libloam.so"
    )


lib, path = _load()
# CDLL, not PyDLL: ctypes releases the GIL around every call into it, which is what lets different
# objects step in parallel from Python threads (tests/python/test_threads.py checks the flag).

P = C.POINTER
c_int, c_float, c_double, c_char_p, c_void_p, c_size_t = C.c_int, C.c_float, C.c_double, C.c_char_p, C.c_void_p, C.c_size_t
ERR = P(T.Error)
WORLD = c_void_p
MODEL = c_void_p
ENV = c_void_p

_PROTOTYPES = {
    # core
    "loam_version": (c_char_p, []),
    "loam_set_threads": (None, [c_int]),
    "loam_get_threads": (c_int, []),
    "loam_threads_forked": (c_int, []),
    "loam_bytes_in_use": (c_size_t, []),
    "loam_abi_sizeof": (c_size_t, [c_char_p]),
    "loam_abi_offsetof": (c_size_t, [c_char_p, c_char_p]),
    "loam_abi_type_name": (c_char_p, [c_int]),
    # geometry, bodies
    "loam_pose_identity": (T.Pose, []),
    "loam_quat_from_euler_deg": (T.Quat, [T.Vec3]),
    "loam_body_default_def": (T.BodyDef, []),
    "loam_body_def_validate": (c_int, [P(T.BodyDef), ERR]),
    "loam_open_box_pieces": (c_int, [T.Vec3, c_float, c_float, P(T.Shape)]),
    "loam_tube_pieces": (c_int, [c_float, c_float, c_float, c_int, c_float, P(T.Shape)]),
    "loam_shape_sdf": (c_float, [P(T.Shape), T.Vec3, P(T.Vec3)]),
    # granular world
    "loam_granular_default_params": (T.GranularParams, []),
    "loam_granular_params_validate": (c_int, [P(T.GranularParams), ERR]),
    "loam_world_create": (WORLD, [P(T.GranularParams), ERR]),
    "loam_world_destroy": (None, [WORLD]),
    "loam_world_add_particles": (c_int, [WORLD, c_int, P(c_float), P(c_float), P(c_float), c_float, ERR]),
    "loam_world_add_body": (c_int, [WORLD, P(T.BodyDef), ERR]),
    "loam_granular_model_create": (MODEL, [P(T.GranularParams), ERR]),
    "loam_granular_model_destroy": (None, [MODEL]),
    "loam_granular_model_add_particles": (c_int, [MODEL, c_int, P(c_float), P(c_float), P(c_float), c_float, ERR]),
    "loam_granular_model_add_body": (c_int, [MODEL, P(T.BodyDef), ERR]),
    "loam_granular_model_particle_count": (c_int, [MODEL]),
    "loam_granular_model_body_count": (c_int, [MODEL]),
    "loam_granular_model_params": (P(T.GranularParams), [MODEL]),
    "loam_granular_model_memory": (c_size_t, [MODEL]),
    "loam_world_create_from_model": (WORLD, [MODEL, ERR]),
    "loam_world_model": (MODEL, [WORLD]),
    "loam_world_step": (c_int, [WORLD, c_int, ERR]),
    "loam_world_set_params": (c_int, [WORLD, P(T.GranularParams), ERR]),
    "loam_world_set_threads": (c_int, [WORLD, c_int, ERR]),
    "loam_world_command_body": (c_int, [WORLD, c_int, T.Twist, ERR]),
    "loam_world_place_body": (c_int, [WORLD, c_int, T.Pose, ERR]),
    "loam_world_particles": (T.Particles, [WORLD]),
    "loam_world_params": (P(T.GranularParams), [WORLD]),
    "loam_world_time": (c_double, [WORLD]),
    "loam_world_step_index": (C.c_int64, [WORLD]),
    "loam_world_body_count": (c_int, [WORLD]),
    "loam_world_body_def": (P(T.BodyDef), [WORLD, c_int]),
    "loam_world_body_state": (P(T.BodyState), [WORLD, c_int]),
    "loam_world_find_body": (c_int, [WORLD, c_char_p]),
    "loam_world_last_stats": (T.StepStats, [WORLD]),
    "loam_world_memory": (c_size_t, [WORLD]),
    "loam_world_kinetic_energy": (c_double, [WORLD]),
    # meshes and signed distance grids
    "loam_mesh_load": (c_int, [c_char_p, P(T.Mesh), ERR]),
    "loam_mesh_read_obj": (c_int, [c_char_p, c_size_t, c_char_p, P(T.Mesh), ERR]),
    "loam_mesh_destroy": (None, [P(T.Mesh)]),
    "loam_sdf_grid_build": (c_int, [P(T.Mesh), c_float, c_float, P(T.SdfGrid), ERR]),
    "loam_sdf_grid_build_cached": (c_int, [P(T.Mesh), c_float, c_float, c_char_p, P(T.SdfGrid), P(c_int), ERR]),
    "loam_sdf_grid_query": (c_float, [P(T.SdfGrid), T.Vec3, P(T.Vec3)]),
    "loam_sdf_grid_memory": (c_size_t, [P(T.SdfGrid)]),
    "loam_sdf_grid_destroy": (None, [P(T.SdfGrid)]),
    # scenes
    "loam_scene_load": (c_int, [c_char_p, P(c_char_p), c_int, P(T.Scene), ERR]),
    "loam_scene_load_buffer": (c_int, [c_char_p, c_size_t, c_char_p, P(c_char_p), c_int, P(T.Scene), ERR]),
    "loam_scene_destroy": (None, [P(T.Scene)]),
    "loam_scene_create_world": (WORLD, [P(T.Scene), ERR]),
    # images
    "loam_image_alloc": (c_int, [P(T.Image), c_int, c_int, ERR]),
    "loam_image_destroy": (None, [P(T.Image)]),
    # environments (include/loam/env.h)
    "loam_env_kind_name": (c_char_p, [c_int]),
    "loam_env_kind_parse": (c_int, [c_char_p, P(c_int)]),
    "loam_env_default_config": (T.EnvConfig, [c_int]),
    "loam_env_config_validate": (c_int, [P(T.EnvConfig), ERR]),
    "loam_env_create": (ENV, [P(T.EnvConfig), ERR]),
    "loam_env_clone": (ENV, [ENV, ERR]),
    "loam_env_destroy": (None, [ENV]),
    "loam_env_get_config": (P(T.EnvConfig), [ENV]),
    "loam_env_action_dim": (c_int, [ENV]),
    "loam_env_obs_count": (c_int, [ENV]),
    "loam_env_obs_spec_get": (T.EnvObsSpec, [ENV, c_int]),
    "loam_env_obs_buffer": (P(c_float), [ENV, c_int]),
    "loam_env_reset": (c_int, [ENV, C.c_uint64, ERR]),
    "loam_env_step": (c_int, [ENV, P(c_float), P(T.EnvStepInfo), ERR]),
    "loam_env_step_batch": (c_int, [P(ENV), c_int, P(c_float), P(T.EnvStepInfo), ERR]),
    "loam_env_set_threads": (c_int, [ENV, c_int, ERR]),
    "loam_env_world": (WORLD, [ENV]),
    "loam_env_render": (c_int, [ENV, P(T.Image), ERR]),
    "loam_env_scripted_action": (None, [ENV, P(c_float)]),
    # state copy and state files (docs/state-files.md)
    "loam_world_clone": (WORLD, [WORLD, ERR]),
    "loam_world_copy_state": (c_int, [WORLD, WORLD, ERR]),
    "loam_world_save": (c_int, [WORLD, c_char_p, ERR]),
    "loam_world_load": (c_int, [WORLD, c_char_p, ERR]),
    "loam_env_copy_state": (c_int, [ENV, ENV, ERR]),
    "loam_env_save_state": (c_int, [ENV, c_char_p, ERR]),
    "loam_env_load_state": (c_int, [ENV, c_char_p, ERR]),
}

missing = []
for _name, (_res, _args) in _PROTOTYPES.items():
    try:
        _fn = getattr(lib, _name)
    except AttributeError:
        missing.append(_name)
        continue
    _fn.restype = _res
    _fn.argtypes = _args


def has(name):
    """Whether the loaded library exports `name` (the environment module may be absent from old builds)."""
    return name in _PROTOTYPES and name not in missing


def _check_layouts():
    """Refuse a library whose structs differ from the mirrors: C would read and write the wrong bytes."""
    if "loam_abi_sizeof" in missing:
        raise ImportError(f"loam: {path} has no loam_abi_sizeof: it is older than this package; rebuild it")
    bad = T.layout_mismatches()
    if bad:
        desc = ", ".join(f"{n} (Python {a} bytes, C {b})" for n, a, b in bad)
        raise ImportError(
            f"loam: the structs of {path} differ from this package's mirrors: {desc}. The library and the "
            "package come from different versions of loam: rebuild/reinstall both from one checkout"
        )


_check_layouts()


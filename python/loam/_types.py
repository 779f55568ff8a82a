"""ctypes mirrors of loam's public C structs, field for field (include/loam/*.h).

tests/python/test_abi.py compares every size and field offset here with what the C library reports
(loam_abi_sizeof / loam_abi_offsetof), so a header change that is not mirrored fails a test instead of
reading the wrong bytes."""
import ctypes as C

# Status codes (loam_status).
OK = 0
ERR_INTERNAL = 1
ERR_INPUT = 2
ERR_DIVERGED = 3
ERR_IO = 4
ERR_NOMEM = 5

# Enums are C ints.
SHAPE_PLANE, SHAPE_BOX, SHAPE_SPHERE, SHAPE_CAPSULE, SHAPE_CYLINDER, SHAPE_TUBE, SHAPE_MESH, SHAPE_HEIGHTFIELD = range(8)
MOTION_FIXED, MOTION_TWIST, MOTION_PATH, MOTION_COMMANDED = range(4)
SOLVER_GAUSS_SEIDEL, SOLVER_JACOBI = range(2)
ENV_BULLDOZING, ENV_GEAR_TOWER, ENV_EXCAVATION = range(3)

NAME_MAX = 64
BODY_MAX_SHAPES = 16
BODY_MAX_WAYPOINTS = 64
ENV_MAX_OBS = 4
IMAGE_MAX_SIDE = 16384
ENV_MAX_ACTION = 16


class Error(C.Structure):
    _fields_ = [("status", C.c_int), ("message", C.c_char * 1024)]


class Vec3(C.Structure):
    _fields_ = [("x", C.c_float), ("y", C.c_float), ("z", C.c_float)]


class Quat(C.Structure):
    _fields_ = [("w", C.c_float), ("x", C.c_float), ("y", C.c_float), ("z", C.c_float)]


class Pose(C.Structure):
    _fields_ = [("p", Vec3), ("q", Quat)]


class Twist(C.Structure):
    _fields_ = [("v", Vec3), ("w", Vec3)]


class GranularParams(C.Structure):
    _fields_ = [
        ("dt", C.c_double),
        ("gravity", Vec3),
        ("solver", C.c_int),
        ("sweeps", C.c_int),
        ("tolerance", C.c_float),
        ("baumgarte", C.c_float),
        ("push_sweeps", C.c_int),
        ("relaxation", C.c_float),
        ("friction", C.c_float),
        ("damping", C.c_float),
        ("margin", C.c_float),
        ("skin", C.c_float),
        ("warm_start", C.c_int),
        ("hash_table_size", C.c_int),
        ("reorder_interval", C.c_int),
        ("periodic_axis", C.c_int),
        ("periodic_lo", C.c_float),
        ("periodic_hi", C.c_float),
        ("bound", C.c_float),
        ("sleep_speed", C.c_float),
        ("sleep_time", C.c_float),
        ("threads", C.c_int),
        ("context", C.c_void_p),
    ]


class Particles(C.Structure):
    _fields_ = [
        ("count", C.c_int),
        ("x", C.POINTER(C.c_float)),
        ("y", C.POINTER(C.c_float)),
        ("z", C.POINTER(C.c_float)),
        ("vx", C.POINTER(C.c_float)),
        ("vy", C.POINTER(C.c_float)),
        ("vz", C.POINTER(C.c_float)),
        ("radius", C.POINTER(C.c_float)),
        ("inv_mass", C.POINTER(C.c_float)),
        ("contact_count", C.POINTER(C.c_int)),
        ("id", C.POINTER(C.c_int32)),
    ]


class BodyState(C.Structure):
    _fields_ = [
        ("pose", Pose),
        ("twist", Twist),
        ("force", Vec3),
        ("torque", Vec3),
        ("contacts", C.c_int),
    ]


class SdfGrid(C.Structure):
    _fields_ = [
        ("origin", Vec3),
        ("cell", C.c_float),
        ("margin", C.c_float),
        ("nx", C.c_int),
        ("ny", C.c_int),
        ("nz", C.c_int),
        ("values", C.POINTER(C.c_float)),
    ]


class Shape(C.Structure):
    _fields_ = [
        ("type", C.c_int),
        ("local", Pose),
        ("size", Vec3),
        ("friction", C.c_float),
        ("grid", C.POINTER(SdfGrid)),
    ]


class Waypoint(C.Structure):
    _fields_ = [("t", C.c_double), ("pose", Pose)]


class BodyDef(C.Structure):
    _fields_ = [
        ("name", C.c_char * NAME_MAX),
        ("pose", Pose),
        ("motion", C.c_int),
        ("twist", Twist),
        ("waypoint_count", C.c_int),
        ("waypoints", Waypoint * BODY_MAX_WAYPOINTS),
        ("shape_count", C.c_int),
        ("shapes", Shape * BODY_MAX_SHAPES),
    ]


class StepStats(C.Structure):
    _fields_ = [
        ("contacts", C.c_int),
        ("body_contacts", C.c_int),
        ("sweeps_run", C.c_int),
        ("max_overlap", C.c_float),
        ("last_sweep_change", C.c_float),
        ("list_rebuilt", C.c_int),
        ("list_builds", C.c_longlong),
        ("recolored", C.c_int),
        ("blocks_relisted", C.c_int),
        ("time_detect", C.c_double),
        ("time_color", C.c_double),
        ("time_solve", C.c_double),
        ("time_push", C.c_double),
        ("time_finish", C.c_double),
        ("dropped_neighbors", C.c_int),
        ("sleeping", C.c_int),
        ("quiet", C.c_int),
    ]


class Mesh(C.Structure):
    _fields_ = [
        ("vertex_count", C.c_int),
        ("triangle_count", C.c_int),
        ("vertices", C.POINTER(C.c_float)),
        ("triangles", C.POINTER(C.c_int32)),
    ]


class SceneOutput(C.Structure):
    _fields_ = [
        ("frames", C.c_int),
        ("png", C.c_int),
        ("vtp", C.c_int),
        ("video", C.c_int),
        ("width", C.c_int),
        ("height", C.c_int),
        ("color_by", C.c_int),
    ]


class SceneCamera(C.Structure):
    _fields_ = [
        ("eye", Vec3),
        ("target", Vec3),
        ("up", Vec3),
        ("fov_deg", C.c_float),
        ("has_eye", C.c_int),
        ("has_target", C.c_int),
    ]


class Image(C.Structure):
    _fields_ = [
        ("width", C.c_int),
        ("height", C.c_int),
        ("rgb", C.POINTER(C.c_uint8)),
        ("depth", C.POINTER(C.c_float)),
    ]


class Camera(C.Structure):
    _fields_ = [
        ("eye", Vec3),
        ("target", Vec3),
        ("up", Vec3),
        ("fov_deg", C.c_float),
        ("ortho_height", C.c_float),
        ("width", C.c_int),
        ("height", C.c_int),
    ]


class EnvConfig(C.Structure):
    _fields_ = [
        ("kind", C.c_int),
        ("particles", C.c_int),
        ("radius", C.c_float),
        ("density", C.c_float),
        ("friction", C.c_float),
        ("dt", C.c_double),
        ("sweeps", C.c_int),
        ("steps_per_action", C.c_int),
        ("episode_time", C.c_double),
        ("gears", C.c_int),
        ("max_gear_speed", C.c_float),
        ("max_speed", C.c_float),
        ("max_yaw_rate", C.c_float),
        ("threads", C.c_int),
        ("hash_table_size", C.c_int),
        ("observe", C.c_int),
        ("settle_steps", C.c_int),
        ("sleep_speed", C.c_float),
        ("seed", C.c_uint64),
        ("context", C.c_void_p),
    ]


class EnvObsSpec(C.Structure):
    _fields_ = [
        ("name", C.c_char_p),
        ("rank", C.c_int),
        ("shape", C.c_int * 3),
        ("low", C.c_float),
        ("high", C.c_float),
    ]


class EnvStepInfo(C.Structure):
    _fields_ = [
        ("reward", C.c_double),
        ("terminated", C.c_int),
        ("truncated", C.c_int),
        ("sim_time", C.c_double),
        ("realtime_factor", C.c_double),
        ("physics_seconds", C.c_double),
        ("sensor_seconds", C.c_double),
        ("tool_force", C.c_double * 3),
        ("progress", C.c_double),
        ("contacts", C.c_int),
    ]


class Scene(C.Structure):
    _fields_ = [
        ("name", C.c_char * NAME_MAX),
        ("path", C.c_char * 1024),
        ("params", GranularParams),
        ("duration", C.c_double),
        ("threads", C.c_int),
        ("density", C.c_float),
        ("particle_count", C.c_int),
        ("xyz", C.POINTER(C.c_float)),
        ("vel", C.POINTER(C.c_float)),
        ("radius", C.POINTER(C.c_float)),
        ("body_count", C.c_int),
        ("bodies", C.POINTER(BodyDef)),
        ("grid_count", C.c_int),
        ("grids", C.POINTER(C.POINTER(SdfGrid))),
        ("output", SceneOutput),
        ("camera", SceneCamera),
        ("has_environment", C.c_int),
        ("environment", EnvConfig),
        ("environment_reset_seed", C.c_uint64),
    ]


# C type name -> mirror, for the ABI test.
MIRRORS = {
    "loam_error": Error,
    "loam_vec3": Vec3,
    "loam_quat": Quat,
    "loam_pose": Pose,
    "loam_twist": Twist,
    "loam_granular_params": GranularParams,
    "loam_particles": Particles,
    "loam_body_state": BodyState,
    "loam_shape": Shape,
    "loam_waypoint": Waypoint,
    "loam_body_def": BodyDef,
    "loam_step_stats": StepStats,
    "loam_mesh": Mesh,
    "loam_sdf_grid": SdfGrid,
    "loam_scene_output": SceneOutput,
    "loam_scene_camera": SceneCamera,
    "loam_scene": Scene,
    "loam_image": Image,
    "loam_camera": Camera,
    "loam_env_config": EnvConfig,
    "loam_env_obs_spec": EnvObsSpec,
    "loam_env_step_info": EnvStepInfo,
}


_C_SIZES = {}


def c_size(c_name):
    """sizeof of loam's C struct `c_name`, as the loaded library was compiled (0 if it does not list it)."""
    if c_name not in _C_SIZES:
        from ._lib import lib

        _C_SIZES[c_name] = int(lib.loam_abi_sizeof(c_name.encode()))
    return _C_SIZES[c_name]


def layout_mismatches():
    """Mirrors whose size differs from the loaded library's struct: [(c_name, python size, C size)]."""
    return [(n, C.sizeof(m), c_size(n)) for n, m in MIRRORS.items() if C.sizeof(m) != c_size(n)]


def new(struct, c_name):
    """A zeroed instance of `struct` for C to write into, backed by at least as many bytes as C's own
    struct has, so C can never write past the Python-side allocation."""
    return struct.from_buffer(bytearray(max(C.sizeof(struct), c_size(c_name))))

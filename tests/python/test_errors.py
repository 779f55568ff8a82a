"""Bad input from Python never crashes the interpreter: every case raises a clear loam exception,
and errors that loam's C code reports arrive with its message verbatim and its status number."""
import glob
import math
import os

import numpy as np
import pytest

import loam


def test_exception_hierarchy():
    assert issubclass(loam.InputError, loam.LoamError) and issubclass(loam.InputError, ValueError)
    assert issubclass(loam.LoamIOError, OSError) and issubclass(loam.DivergedError, loam.LoamError)
    assert issubclass(loam.ClosedError, loam.LoamError)
    assert (loam.InternalError.status, loam.InputError.status, loam.DivergedError.status, loam.LoamIOError.status,
            loam.NoMemoryError.status) == (1, 2, 3, 4, 5)


def test_c_message_is_verbatim():
    w = loam.World()
    with pytest.raises(loam.InputError) as e:
        w.add_particles([[0, 0, 0]], radius=0.01, density=-1.0)
    assert str(e.value) == "add_particles: density -1 must be > 0 (kg/m^3)"
    assert e.value.status == 2 and e.value.message == str(e.value)
    with pytest.raises(loam.InputError) as e:
        w.add_particles([[0, 0, 0]], radius=-0.5)
    assert str(e.value) == "add_particles: particle 0 radius -0.5 must be in (0, 1000) m"


BAD_PARTICLES = [
    ({"positions": [[0, 0]], "radius": 0.01}, "shape"),
    ({"positions": [0, 0, 0], "radius": 0.01}, "shape"),
    ({"positions": np.zeros((2, 3, 1)), "radius": 0.01}, "shape"),
    ({"positions": [["a", "b", "c"]], "radius": 0.01}, "dtype"),
    ({"positions": np.zeros((1, 3), complex), "radius": 0.01}, "dtype"),
    ({"positions": [[0, 0], [0, 0, 0]], "radius": 0.01}, "not an array"),
    ({"positions": [[0, 0, 0]], "radius": [0.01, 0.02]}, "radius"),
    ({"positions": [[0, 0, 0]], "radius": "big"}, "dtype"),
    ({"positions": [[math.nan, 0, 0]], "radius": 0.01}, "not finite"),
    ({"positions": [[1e9, 0, 0]], "radius": 0.01}, "bound"),
    ({"positions": [[0, 0, 0]], "radius": 0.01, "velocities": [[0, 0]]}, "velocities"),
    ({"positions": [[0, 0, 0]], "radius": 0.01, "velocities": [[0, math.inf, 0]]}, "velocity"),
    ({"positions": [[0, 0, 0]], "radius": 0.01, "density": "heavy"}, "density"),
    ({"positions": [[0, 0, 0]], "radius": 0.01, "density": math.nan}, "density"),
]


@pytest.mark.parametrize("kwargs,match", BAD_PARTICLES)
def test_bad_particles(kwargs, match):
    w = loam.World()
    with pytest.raises(loam.InputError, match=match):
        w.add_particles(**kwargs)
    assert w.particle_count == 0


def test_particles_after_first_step():
    w = loam.World()
    w.step()
    with pytest.raises(loam.InputError, match="before the first step"):
        w.add_particles([[0, 0, 0]], radius=0.01)


BAD_PARAMS = [
    ({"sweeps": -1}, None),
    ({"dt": 0.0}, None),
    ({"dt": math.nan}, None),
    ({"dt": "fast"}, "not a real number"),
    ({"sweeps": 2.5}, "not an integer"),
    ({"sweeps": 2**40}, "out of range"),
    ({"gravity": (0, 0)}, "shape"),
    ({"solver": "newton"}, "not one of"),
    ({"periodic_axis": "w"}, "not one of"),
    ({"no_such_param": 1}, "unknown parameter 'no_such_param'"),
    ({"friction": -0.5}, None),
    ({"bound": 1e39}, "does not fit"),
]


@pytest.mark.parametrize("kwargs,match", BAD_PARAMS)
def test_bad_params(kwargs, match):
    with pytest.raises(loam.InputError, match=match) as e:
        loam.World(**kwargs)
    assert e.value.status == 2 and str(e.value)
    w = loam.World()
    with pytest.raises(loam.InputError):
        w.set_params(**kwargs)
    assert w.params == loam.World().params  # unchanged


def test_params_not_a_dict():
    with pytest.raises(loam.InputError, match="expected a dict"):
        loam.World([1, 2, 3])


BAD_BODIES = [
    (lambda: loam.Body("b", shapes=[1]), "not a loam.Shape"),
    (lambda: loam.Body("b", motion="teleport"), "motion"),
    (lambda: loam.Body("x" * 100), "longer than"),
    (lambda: loam.Body("b", twist=(1, 2, 3)), "twist"),
    (lambda: loam.Body("b", waypoints=[{"t": 0, "place": (0, 0, 0)}]), "unknown keys"),
    (lambda: loam.Body("b", shapes=[loam.box([1, 1])]), "shape"),
    (lambda: loam.Body("b", quat=(0, 0, 0, 0)), "not a rotation"),
    (lambda: loam.Body("b", quat=(1, 0, 0, 0), rpy_deg=(0, 0, 0)), "not both"),
    (lambda: loam.Body("b", shapes=[loam.box([0.1, 0.1, 0.1])] * 17), "at most 16"),
    (lambda: loam.mesh("blade.obj"), "SdfGrid"),
    (lambda: loam.SdfGrid("blade.obj", 0.01, 0.02), "loam.Mesh"),
]


@pytest.mark.parametrize("make,match", BAD_BODIES)
def test_bad_bodies(make, match):
    with pytest.raises(loam.InputError, match=match):
        make()


def test_bodies_rejected_by_c():
    w = loam.World()
    with pytest.raises(loam.InputError) as e:
        w.add_body(loam.Body("bad", [loam.box([-1, 1, 1])]))
    assert "bad" in str(e.value)
    with pytest.raises(loam.InputError):
        w.add_body(loam.Body("p", motion="path", waypoints=[{"t": 1.0}, {"t": 0.5}]))
    with pytest.raises(loam.InputError, match="expected a loam.Body"):
        w.add_body("ground")
    assert w.body_count == 0
    w.add_body(loam.Body("tool", [loam.sphere(0.1)], motion="commanded"))
    with pytest.raises(loam.InputError, match="no body named"):
        w.command_body("nope", (1, 0, 0))
    with pytest.raises(loam.InputError, match="bodies"):
        w.command_body(5, (1, 0, 0))
    with pytest.raises(loam.InputError, match="velocity"):
        w.command_body(0, (1, 0))
    with pytest.raises(loam.InputError):
        w.command_body(0, (math.nan, 0, 0))
    with pytest.raises(loam.InputError, match="steps"):
        w.step(-1)
    with pytest.raises(loam.InputError, match="steps"):
        w.step("ten")


def test_missing_and_bad_mesh_files(tmp_path):
    with pytest.raises(loam.LoamError) as e:
        loam.Mesh(tmp_path / "no_such_tool.stl")
    assert "no_such_tool.stl" in str(e.value) and e.value.status in (2, 4)
    bad = tmp_path / "bad.obj"
    bad.write_text("v 0 0 0\nf 1 2 3\n")
    with pytest.raises(loam.InputError, match="bad.obj"):
        loam.Mesh(bad)
    weird = tmp_path / "tool.ply"
    weird.write_text("ply\n")
    with pytest.raises(loam.LoamError, match="tool.ply"):
        loam.Mesh(weird)
    with pytest.raises(loam.InputError, match="path"):
        loam.Mesh(42)
    with pytest.raises(loam.InputError, match="NUL"):
        loam.Mesh("a\0b.obj")
    with pytest.raises(loam.InputError):
        loam.Mesh.from_obj("v 0 0 0\nbogus line\n")
    cube = loam.Mesh.from_obj("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n")
    with pytest.raises(loam.InputError):
        cube.sdf_grid(cell=0.1, margin=0.01)  # margin < cell
    with pytest.raises(loam.InputError):
        cube.sdf_grid(cell=-1, margin=0.1)


def test_bad_scene_paths_and_overrides(repo, tmp_path):
    with pytest.raises(loam.InputError) as e:
        loam.Scene.load(tmp_path / "nope.yaml")
    assert "nope.yaml" in str(e.value)
    with pytest.raises(loam.LoamError) as e:
        loam.Scene.load(tmp_path)  # a folder: loam says it cannot be read (status 4)
    assert str(tmp_path) in str(e.value)
    plough = os.path.join(repo, "scenes", "plough.yaml")
    with pytest.raises(loam.InputError, match="no_such_key"):
        loam.Scene.load(plough, overrides={"solver.no_such_key": 1})
    with pytest.raises(loam.InputError):
        loam.Scene.load(plough, overrides={"solver.sweeps": "many"})
    with pytest.raises(loam.InputError, match="key=value"):
        loam.Scene.load(plough, overrides=["solver.sweeps"])
    with pytest.raises(loam.InputError, match="overrides"):
        loam.Scene.load(plough, overrides=42)
    with pytest.raises(loam.InputError):
        loam.Scene.from_string("loam: 1\nparticles: [", "broken.yaml")


def test_every_bad_scene_in_the_repository_raises(repo):
    files = sorted(glob.glob(os.path.join(repo, "scenes", "bad", "*.yaml")))
    assert len(files) > 20
    for f in files:
        with pytest.raises(loam.LoamError) as e:
            loam.Scene.load(f)
        assert e.value.status in (2, 4), f
        assert os.path.basename(f) in str(e.value), (f, str(e.value))


def test_use_after_close_raises(repo):
    objs = []
    w = loam.World()
    objs.append((w, [lambda: w.step(), lambda: w.particles, lambda: w.bodies, lambda: w.time,
                     lambda: w.add_particles([[0, 0, 0]], radius=0.01), lambda: w.params]))
    s = loam.Scene.load(os.path.join(repo, "scenes", "plough.yaml"))
    objs.append((s, [lambda: s.create_world(), lambda: s.positions, lambda: s.name]))
    m = loam.Mesh.from_obj("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n")
    g = m.sdf_grid(0.1, 0.2)
    objs.append((g, [lambda: g.query([[0, 0, 0]]), lambda: g.values, lambda: loam.mesh(g) and
                     loam.World().add_body(loam.Body("t", [loam.mesh(g)]))]))
    objs.append((m, [lambda: m.vertices, lambda: m.sdf_grid(0.1, 0.2)]))
    for obj, calls in objs:
        obj.close()
        for call in calls:
            with pytest.raises(loam.ClosedError):
                call()
        obj.close()



# ---- environments ------------------------------------------------------------------------------

SMALL_ENV = {"particles": 500, "settle_steps": 10, "steps_per_action": 5}


def _env():
    gym = pytest.importorskip("gymnasium")
    if not loam.HAS_ENVIRONMENTS:
        pytest.skip("libloam without environments")
    return gym.make("loam/Bulldozing-v0", **SMALL_ENV)


BAD_ACTIONS = [
    ([0.0], "shape"),
    ([0.0, 0.0, 0.0], "shape"),
    ([[0.0, 0.0]], "shape"),
    (0.5, "shape"),
    ([np.nan, 0.0], "finite"),
    ([0.0, np.inf], "finite"),
    ([0.0, -np.inf], "finite"),
    (["a", "b"], "dtype"),
    (np.array([1 + 1j, 0]), "dtype"),
    ([None, 0.0], "dtype"),
    ([[0.0], [0.0, 1.0]], "not an array"),
    ("forward", "dtype"),
]


@pytest.mark.parametrize("action,match", BAD_ACTIONS)
def test_bad_actions(action, match):
    env = _env()
    env.reset(seed=0)
    with pytest.raises(loam.InputError, match=match):
        env.step(action)
    env.step(np.zeros(2, np.float32))  # the environment is still usable
    env.close()


def test_out_of_range_actions_are_clipped():
    env = _env()
    results = []
    for a in ([5.0, -7.0], [1.0, -1.0], np.array([1e300, -1e300])):
        obs, _ = env.reset(seed=4)
        obs, r, *_ = env.step(a)
        results.append((obs["pose"].copy(), r))
    for pose, r in results[1:]:
        np.testing.assert_array_equal(pose, results[0][0])
        assert r == results[0][1]
    # integer and float64 actions are accepted and converted
    env.reset(seed=4)
    env.step(np.array([1, 0], np.int64))
    env.close()


def test_bad_env_config():
    gym = pytest.importorskip("gymnasium")
    if not loam.HAS_ENVIRONMENTS:
        pytest.skip("libloam without environments")
    cases = [({"particles": -5}, "particles"), ({"particles": "many"}, "not an integer"),
             ({"sweeps": 0}, "sweeps"), ({"dt": -1.0}, "dt"), ({"dt": np.nan}, "dt"),
             ({"no_such_option": 1}, "unknown parameter 'no_such_option'"), ({"gears": 99}, "gears"),
             ({"observe": 2}, "observe"), ({"seed": -1}, "seed"), ({"radius": 0.0}, "radius"),
             ({"steps_per_action": 2**40}, "out of range")]
    for kwargs, match in cases:
        with pytest.raises(loam.InputError, match=match):
            gym.make("loam/Bulldozing-v0", **kwargs)
    with pytest.raises(loam.InputError, match="not one of"):
        loam.Env("digging")
    with pytest.raises(loam.InputError):
        loam.Env(7)
    with pytest.raises(loam.InputError, match="render_mode"):
        loam.LoamEnv("bulldozing", render_mode="ansi", **SMALL_ENV)


def test_env_misuse():
    env = _env()
    core = env.unwrapped.core
    with pytest.raises(loam.InputError, match="before reset"):
        core.step([0.0, 0.0])  # the C check: stepping before the first reset
    with pytest.raises(loam.InputError, match="before its first reset"):
        core.world
    with pytest.raises(loam.InputError, match="seed"):
        core.reset(-1)
    with pytest.raises(loam.InputError, match="seed"):
        core.reset(2**64)
    with pytest.raises(loam.InputError, match="seed"):
        core.reset("x")
    env.reset(seed=0)
    with pytest.raises(loam.InputError, match="width"):
        core.render(0, 10)
    with pytest.raises(loam.InputError, match="height"):
        core.render(10, 10**6)
    bufs = env.unwrapped.obs_buffers
    env.close()
    for call in (lambda: env.step(np.zeros(2, np.float32)), lambda: env.reset(seed=1), lambda: core.render(8, 8),
                 lambda: env.unwrapped.obs_buffers, lambda: core.world, lambda: core.scripted_action(),
                 lambda: core.config):
        with pytest.raises(loam.ClosedError):
            call()
    assert bufs["pose"].shape == (3,)  # the buffers stay readable: their memory lives while they do
    env.close()  # twice is fine


def test_diverged_world_raises_and_needs_a_reset():
    gym = pytest.importorskip("gymnasium")
    if not loam.HAS_ENVIRONMENTS:
        pytest.skip("libloam without environments")
    env = gym.make("loam/GearTower-v0", particles=300, settle_steps=0, steps_per_action=5)
    env.reset(seed=0)
    world = env.unwrapped.world
    p = world.particles
    p.vz[0] = np.nan  # corrupt the state through the zero-copy view
    del p
    with pytest.raises(loam.DivergedError) as e:
        env.step(np.zeros(4, np.float32))
    assert e.value.status == 3 and "particle" in str(e.value)
    with pytest.raises(loam.InputError, match="reset"):
        env.step(np.zeros(4, np.float32))
    env.reset(seed=0)
    env.step(np.zeros(4, np.float32))
    env.close()

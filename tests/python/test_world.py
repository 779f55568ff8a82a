"""Worlds built from Python, numpy views of their state without copies, scenes from files."""
import ctypes
import gc
import os

import numpy as np
import pytest

import loam

G = 9.81


def test_free_fall_matches_semi_implicit_euler():
    dt = 1e-3
    w = loam.World(dt=dt)
    w.add_particles([[0.0, 0.0, 1.0]], radius=0.01)
    n = 200
    w.step(n)
    p = w.particles
    # v_k = -g k dt, z_n = z0 - g dt^2 n (n + 1) / 2 (velocity first, then position)
    assert p.z[0] == pytest.approx(1.0 - G * dt * dt * n * (n + 1) / 2, rel=1e-5)
    assert p.vz[0] == pytest.approx(-G * dt * n, rel=1e-5)
    assert w.time == pytest.approx(n * dt)
    assert w.step_index == n


def test_particles_rest_on_plane_and_ground_feels_their_weight():
    w = loam.World(dt=1e-3)
    ground = w.add_body(loam.Body("ground", [loam.plane(friction=0.5)]))
    xyz = [[0.0, 0.0, 0.05], [0.03, 0.0, 0.10], [0.06, 0.0, 0.15]]
    w.add_particles(xyz, radius=0.01, density=2500.0)
    w.step(1000)
    p = w.particles
    np.testing.assert_allclose(p.z, 0.01, atol=2e-4)
    mass = 2500.0 * 4.0 / 3.0 * np.pi * 0.01**3
    np.testing.assert_allclose(p.inv_mass, 1.0 / mass, rtol=1e-5)
    b = w.bodies[ground]
    assert b["contacts"] == 3
    assert b["force"][2] == pytest.approx(-3 * mass * G, rel=1e-3)  # particles push the ground down
    assert w.find_body("ground") == ground and w.body_names() == ["ground"]


def _bed(n_side=6, r=0.01, reorder=1):
    w = loam.World(dt=1e-3, reorder_interval=reorder)
    w.add_body(loam.Body("bin", loam.open_box([0.1, 0.1, 0.2], 0.02)))
    g = np.stack(np.meshgrid(*[np.arange(n_side)] * 3, indexing="ij"), -1).reshape(-1, 3)
    xyz = (g - (n_side - 1) / 2) * 2.2 * r + [0.0, 0.0, 0.1]
    xyz[:, 2] += (n_side - 1) * 1.1 * r
    w.add_particles(xyz[::-1].copy(), radius=r)
    return w


def test_step_count_is_the_bits_of_single_steps():
    # World.step(n) is one C call, loam_world_step(world, n): the same bytes as n calls of step()
    # (renumbering every step inside the call); 0 does nothing; a negative count is an InputError.
    one, many = _bed(), _bed()
    for _ in range(60):
        one.step()
    many.step(0)
    assert many.step_index == 0
    many.step(60)
    a, b = one.particles, many.particles
    assert many.step_index == 60 and many.time == one.time
    for name in ("id", "x", "y", "z", "vx", "vy", "vz"):
        assert getattr(a, name).tobytes() == getattr(b, name).tobytes(), name
    with pytest.raises(loam.InputError, match="steps"):
        many.step(-1)
    assert many.step_index == 60


def test_views_share_memory_with_loam():
    w = _bed()
    p = w.particles
    q = w.particles
    for name in ("x", "y", "z", "vx", "vy", "vz", "radius", "inv_mass", "id"):
        a, b = getattr(p, name), getattr(q, name)
        assert np.shares_memory(a, b), name  # both are views of the same C array
        assert a.__array_interface__["data"][0] == b.__array_interface__["data"][0]
        assert not a.flags.owndata
    assert p.x.flags.writeable and not p.radius.flags.writeable and not p.id.flags.writeable
    import ctypes

    from loam._lib import lib

    c = lib.loam_world_particles(w.address)  # the pointers loam hands out: the views start there
    for name in ("x", "y", "z", "vx", "vy", "vz", "radius", "inv_mass", "id"):
        assert getattr(p, name).__array_interface__["data"][0] == ctypes.cast(getattr(c, name), ctypes.c_void_p).value
    states = w.bodies
    assert states.__array_interface__["data"][0] == ctypes.cast(lib.loam_world_body_state(w.address, 0),
                                                                ctypes.c_void_p).value
    # A bed falling as a whole keeps its neighbour list; once it lands the list is rebuilt and the
    # particles reordered in place: the views stay valid and see the renumbering.
    w.step(200)
    assert sorted(p.id.tolist()) == list(range(p.count))
    assert p.id.tolist() != list(range(p.count))  # particles were added in reverse z order: slots moved
    np.testing.assert_array_equal(p.z, w.particles.z)


def test_writing_through_a_view_changes_what_loam_steps():
    w = loam.World(dt=1e-3, gravity=(0, 0, 0))
    w.add_particles([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0]], radius=0.01)
    p = w.particles
    k = int(np.flatnonzero(p.id == 1)[0])
    p.vz[k] = 2.0  # m/s, written into loam's array
    w.step(10)
    assert p.z[k] == pytest.approx(0.02, rel=1e-5)
    assert p.z[1 - k] == 0.0
    assert w.kinetic_energy() == pytest.approx(0.5 * (1.0 / p.inv_mass[k]) * 4.0, rel=1e-5)


def test_body_state_view_follows_a_commanded_body():
    w = loam.World(dt=1e-3)
    b = w.add_body(loam.Body("tool", [loam.box([0.05, 0.05, 0.05])], motion="commanded", position=(0, 0, 0.5)))
    states = w.bodies
    assert states.dtype == loam.BODY_STATE_DTYPE and not states.flags.writeable
    w.command_body("tool", velocity=(0.2, 0, 0))
    w.step(100)
    assert states[b]["position"][0] == pytest.approx(0.02, rel=1e-4)  # the same view, updated by C
    assert states[b]["velocity"][0] == pytest.approx(0.2)
    w.place_body(b, (1.0, 2.0, 3.0), rpy_deg=(0, 0, 90))
    w.step(1)
    assert states[b]["position"][1] == pytest.approx(2.0, abs=1e-3)


def test_path_and_twist_bodies():
    w = loam.World(dt=1e-2)
    w.add_body(loam.Body("spin", [loam.cylinder(0.05, 0.1)], motion="twist", twist=((0, 0, 0.1), (0, 0, 1.0))))
    w.add_body(loam.Body("path", [loam.sphere(0.05)], motion="path",
                         waypoints=[{"t": 0.0, "position": (0, 0, 1)}, {"t": 1.0, "position": (1, 0, 1)}]))
    w.step(50)
    s = w.bodies
    assert s[0]["position"][2] == pytest.approx(0.05, rel=1e-4)
    assert s[1]["position"][0] == pytest.approx(0.5, rel=1e-4)


def test_every_primitive_shape_stops_a_falling_particle():
    shapes = {
        "box": loam.box([0.1, 0.1, 0.1]),
        "sphere": loam.sphere(0.1),
        "capsule": loam.capsule(0.1, 0.05, rpy_deg=(90, 0, 0)),
        "cylinder": loam.cylinder(0.1, 0.1),
        "plane": loam.plane(position=(0, 0, 0.1)),
    }
    for name, shape in shapes.items():
        w = loam.World(dt=1e-3)
        w.add_body(loam.Body(name, [shape]))
        w.add_particles([[0.0, 0.0, 0.3]], radius=0.01)
        w.step(600)
        assert w.particles.z[0] == pytest.approx(0.11, abs=2e-3), name
    # a tube: a particle inside falls through (open ends), one on the wall's top rests
    w = loam.World(dt=1e-3)
    w.add_body(loam.Body("tube", [loam.tube(0.1, 0.02, 0.1)]))
    w.add_body(loam.Body("cup", loam.tube_container(0.3, 0.2, 0.02, floor=True), position=(0, 0, -1.0)))
    w.add_particles([[0.0, 0.0, 0.3], [0.11, 0.0, 0.3]], radius=0.01)
    w.step(600)
    z = w.particles.by_id(w.particles.z)
    assert z[0] < -0.5 and z[1] == pytest.approx(0.11, abs=2e-3)


def test_mesh_tool_from_obj_file(repo, tmp_path):
    mesh = loam.Mesh(os.path.join(repo, "scenes", "meshes", "blade.obj"))
    assert mesh.vertices.shape[1] == 3 and mesh.triangles.max() < len(mesh.vertices)
    cube = loam.Mesh.from_obj(
        "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0 0 1\nv 1 0 1\nv 1 1 1\nv 0 1 1\n"
        "f 1 4 3 2\nf 5 6 7 8\nf 1 2 6 5\nf 2 3 7 6\nf 3 4 8 7\nf 4 1 5 8\n", "cube.obj")
    grid = cube.sdf_grid(cell=0.05, margin=0.1, cache_dir=str(tmp_path))
    assert not grid.from_cache
    assert cube.sdf_grid(cell=0.05, margin=0.1, cache_dir=str(tmp_path)).from_cache
    d = grid.query([[0.5, 0.5, 0.5], [0.5, 0.5, 1.2]])
    assert d[0] == pytest.approx(-0.5, abs=0.03) and d[1] == pytest.approx(0.2, abs=0.03)
    assert grid.values.shape == grid.shape
    w = loam.World(dt=1e-3)
    w.add_body(loam.Body("cube", [loam.mesh(grid, position=(-0.5, -0.5, -1.0))]))  # top face at z = 0
    del mesh, cube
    grid.close()  # the world keeps the grid's memory alive
    gc.collect()
    w.add_particles([[0.0, 0.0, 0.2]], radius=0.01)
    w.step(600)
    assert w.particles.z[0] == pytest.approx(0.01, abs=3e-3)


def test_sdf_grid_memory_bytes():
    cube = loam.Mesh.from_obj(
        "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0 0 1\nv 1 0 1\nv 1 1 1\nv 0 1 1\n"
        "f 1 4 3 2\nf 5 6 7 8\nf 1 2 6 5\nf 2 3 7 6\nf 3 4 8 7\nf 4 1 5 8\n", "cube.obj")
    header = ctypes.sizeof(loam._types.SdfGrid)  # the C struct, which test_abi.py holds to the header
    # A 1 m cube grown by the margin on both sides, sampled at both ends: (1 + 2 margin) / cell + 1 per axis
    # (powers of two, so no rounding moves a sample).
    for cell, n in ((0.25, 7), (0.125, 13)):
        grid = cube.sdf_grid(cell=cell, margin=0.25)
        assert grid.shape == (n, n, n)
        assert grid.memory_bytes == 4 * n ** 3 + header
        grid.close()
        with pytest.raises(loam.ClosedError):
            grid.memory_bytes


def test_scene_file_with_overrides(repo):
    scene = loam.Scene.load(os.path.join(repo, "scenes", "mesh_plough.yaml"),
                            overrides={"solver.sweeps": 5, "sim.duration": 0.01,
                                       "bodies.blade.shapes.0.cell": 0.01})  # a coarse grid: fast to build
    assert scene.name == "mesh_plough" and scene.params["sweeps"] == 5 and scene.steps == 10
    n = scene.particle_count
    assert n > 4000 and scene.positions.shape == (n, 3) and scene.radius.shape == (n,)
    assert scene.body_names() == ["bin", "blade"]
    w = scene.create_world()
    scene.close()  # the world holds the scene's mesh grid
    gc.collect()
    w.step(10)
    assert w.particle_count == n and w.time == pytest.approx(0.01)
    assert w.params["sweeps"] == 5
    s2 = loam.Scene.load(os.path.join(repo, "scenes", "plough.yaml"), overrides=["material.friction=0.3"])
    assert s2.params["friction"] == pytest.approx(0.3)


def test_scene_from_string():
    text = """
loam: 1
sim: {dt: 0.002, duration: 0.1}
particles:
  - points: {positions: [[0, 0, 0.1], [0.05, 0, 0.1]], radius: 0.01}
bodies:
  - name: ground
    shapes: [{type: plane}]
"""
    w = loam.Scene.from_string(text, "inline.yaml").create_world()
    w.step(300)
    np.testing.assert_allclose(w.particles.z, 0.01, atol=5e-4)


def test_params_round_trip_and_set_params():
    d = loam.default_params()
    assert d["dt"] == 1e-3 and d["solver"] == "gauss_seidel" and d["gravity"] == pytest.approx((0, 0, -9.81))
    w = loam.World(d, solver="jacobi", periodic_axis="x", periodic_lo=-1, periodic_hi=1)
    assert w.params["solver"] == "jacobi" and w.params["periodic_axis"] == 0
    w.set_params(friction=0.2)
    assert w.params["friction"] == pytest.approx(0.2) and w.params["solver"] == "jacobi"


def test_views_outlive_close_and_block_moving_the_arrays():
    w = loam.World()
    w.add_particles([[0, 0, 1]], radius=0.01)
    p = w.particles
    with pytest.raises(loam.InputError, match="numpy view"):
        w.add_particles([[0, 0, 2]], radius=0.01)
    del p
    gc.collect()
    w.add_particles([[0, 0, 2]], radius=0.01)  # no views left: fine
    p = w.particles
    b = w.bodies
    w.close()
    assert p.z.tolist() == pytest.approx([1.0, 2.0])  # the memory lives while a view does
    assert b.shape == (0,)
    with pytest.raises(loam.ClosedError):
        w.step()
    with pytest.raises(loam.ClosedError):
        w.particles
    w.close()  # idempotent
    with loam.World() as w2:
        w2.step()
    assert w2.closed


def test_threads_do_not_change_results():
    out = []
    for t in (1, 2):
        loam.set_threads(t)
        w = _bed(reorder=3)
        w.step(60)
        p = w.particles
        out.append((p.by_id(p.x).copy(), p.by_id(p.z).copy()))
    loam.set_threads(0)
    np.testing.assert_array_equal(out[0][0], out[1][0])
    np.testing.assert_array_equal(out[0][1], out[1][1])


def test_environment_scene(repo):
    if not loam.HAS_ENVIRONMENTS:
        pytest.skip("libloam without environments")
    path = os.path.join(repo, "scenes", "gear_tower.yaml")
    if not os.path.exists(path):
        pytest.skip("no environment scene in this checkout")
    scene = loam.Scene.load(path, overrides={"environment.particles": 400, "environment.settle_steps": 10})
    assert scene.has_environment and scene.environment_config["kind"] == "gear_tower"
    assert scene.environment_config["particles"] == 400
    with pytest.raises(loam.InputError):
        scene.create_world()
    env = scene.create_env()
    reward, *_ = env.step(np.zeros(env.action_dim))
    assert np.isfinite(reward)
    assert not loam.Scene.load(os.path.join(repo, "scenes", "plough.yaml")).has_environment


def test_closing_frees_loam_memory(repo):
    from loam._lib import lib

    gc.collect()
    before = lib.loam_bytes_in_use()
    for _ in range(3):
        w = _bed()
        w.step(5)
        p = w.particles
        w.close()
        assert lib.loam_bytes_in_use() > before  # a view is alive: the world's memory is still there
        del p
        gc.collect()
        s = loam.Scene.load(os.path.join(repo, "scenes", "plough.yaml"))
        w = s.create_world()
        del s, w
        gc.collect()
        if loam.HAS_ENVIRONMENTS:
            e = loam.Env("gear_tower", particles=300, settle_steps=5)
            e.reset(1)
            e.step([0, 0, 0, 0])
            e.close()
        gc.collect()
    assert lib.loam_bytes_in_use() == before


def test_warm_start_survives_a_solver_switch():
    # Gauss-Seidel keeps pair impulses only in its rows; Jacobi in its contact slots. A column at rest
    # that switches solver must start from the other's impulses: with 3 sweeps from zero, the ground
    # would feel a fraction of the column's weight (measured 0.63 with the copy disabled).
    w = loam.World(dt=1e-3, reorder_interval=3)
    ground = w.add_body(loam.Body("ground", [loam.plane(friction=0.5)]))
    r = 0.004
    ax = np.arange(12) * 2.05 * r
    xyz = [[x, y, 1.05 * r + z] for z in ax for y in ax for x in ax]
    w.add_particles(xyz, radius=r)
    w.step(1500)
    weight = 9.81 * np.sum(1.0 / w.particles.inv_mass.astype(float))
    for solver in ("jacobi", "gauss_seidel", "jacobi"):
        w.set_params(solver=solver)
        w.step(1)
        assert -w.bodies[ground]["force"][2] == pytest.approx(weight, rel=0.02), solver

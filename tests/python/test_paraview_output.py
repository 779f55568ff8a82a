"""`loam run` output read back by third-party clients: VTK's own XML readers and pyvista.

A small scene with fixed and moving bodies of every shape kind (plane, open box, box, sphere, capsule,
cylinder, tube, an OBJ mesh) runs for a few frames; the test then checks what ParaView would show:
the time values of both .pvd series, particle counts against summary.json, non-empty closed body
surfaces of the right size, and that each moving surface follows the body's prescribed motion (and
bodies.csv), while fixed ones stay put. Needs the `loam` command: $LOAM_BIN, else build/loam."""
import csv
import json
import math
import os
import subprocess
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from conftest import loam_bin

vtk = pytest.importorskip("vtk")
pv = pytest.importorskip("pyvista")
from vtk.util.numpy_support import vtk_to_numpy  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
STEPS, FRAMES, DT = 120, 5, 1.0e-3
LINEAR, ANGULAR = np.array([0.25, -0.1, 0.05]), np.array([0.3, -0.2, 2.0])  # the paddle's twist
MESH_CELL = 0.003

SCENE = """
loam: 1
name: vtk_check
sim: {{dt: {dt}, duration: 1.0}}
particles:
  - lattice: {{lo: [-0.1, -0.1, 0.02], hi: [0.1, 0.1, 0.12], spacing: 0.025, radius: 0.01}}
bodies:
  - name: floor
    shapes: [{{type: plane}}]
  - name: bin
    shapes: [{{type: open_box, inner_half: [0.3, 0.3, 0.15], wall: 0.02}}]
  - name: paddle
    position: [0.1, 0.05, 0.2]
    rpy_deg: [10, 20, 30]
    shapes: [{{type: box, half_extents: [0.02, 0.1, 0.05]}}]
    motion: {{type: twist, linear: [{lin}], angular: [{ang}]}}
  - name: ball
    position: [0.0, 0.0, 0.5]
    shapes: [{{type: sphere, radius: 0.04}}]
  - name: "odd name/&"
    position: [0.0, 0.2, 0.5]
    shapes:
      - {{type: capsule, radius: 0.02, half_length: 0.05}}
      - {{type: cylinder, radius: 0.03, half_height: 0.02, position: [0.1, 0, 0]}}
      - {{type: tube, inner_radius: 0.03, half_height: 0.04, wall: 0.01, floor: false, position: [-0.1, 0, 0]}}
    motion:
      type: path
      waypoints:
        - {{t: 0.0, position: [0.0, 0.2, 0.5]}}
        - {{t: 0.2, position: [0.1, 0.2, 0.6], rpy_deg: [0, 0, 90]}}
  - name: blade
    position: [0.0, -0.2, 0.6]
    shapes: [{{type: mesh, file: {mesh}, cell: {cell}, margin: 0.012}}]
    motion: {{type: twist, linear: [0, 0, 0.1], angular: [0, 0, 0]}}
output: {{frames: {frames}, png: false, video: false}}
"""


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("vtk")
    scene = tmp / "scene.yaml"
    scene.write_text(SCENE.format(dt=DT, lin=", ".join(map(str, LINEAR)), ang=", ".join(map(str, ANGULAR)),
                                  mesh=os.path.join(REPO, "scenes", "meshes", "blade.obj"), cell=MESH_CELL,
                                  frames=FRAMES))
    out = tmp / "out"
    env = dict(os.environ, OMP_WAIT_POLICY="passive", LOAM_CACHE_DIR=str(tmp / "cache"))
    r = subprocess.run([loam_bin(), "run", str(scene), "--steps", str(STEPS), "--out", str(out), "--quiet"],
                       env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return out


def frame_times():
    # Frame k is written after step round(k * steps / (frames - 1)) (loam run's rule).
    return [round(k * STEPS / (FRAMES - 1)) * DT for k in range(FRAMES)]


def pvd_entries(path):
    return [(float(d.get("timestep")), d.get("file")) for d in ET.parse(path).getroot().iter("DataSet")]


def read_vtm(path):
    r = vtk.vtkXMLMultiBlockDataReader()
    r.SetFileName(str(path))
    r.Update()
    mb = r.GetOutput()
    return {mb.GetMetaData(i).Get(vtk.vtkCompositeDataSet.NAME()): mb.GetBlock(i) for i in range(mb.GetNumberOfBlocks())}


def points(poly):
    return vtk_to_numpy(poly.GetPoints().GetData()).astype(np.float64)


def field(poly, name):
    return vtk_to_numpy(poly.GetFieldData().GetArray(name)).astype(np.float64).ravel()


def rotation(q):
    w, x, y, z = q / np.linalg.norm(q)
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def axis_angle(w, t):
    angle = np.linalg.norm(w) * t
    if angle == 0.0:
        return np.eye(3)
    k = w / np.linalg.norm(w)
    K = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + math.sin(angle) * K + (1 - math.cos(angle)) * K @ K


def test_pvd_time_values(run_dir):
    for name in ("scene.pvd", "particles.pvd"):
        entries = pvd_entries(run_dir / name)
        assert [t for t, _ in entries] == pytest.approx(frame_times(), abs=1e-12)
        assert all((run_dir / f).is_file() for _, f in entries)
    reader = pv.get_reader(str(run_dir / "scene.pvd"))
    assert reader.time_values == pytest.approx(frame_times(), abs=1e-12)


def test_vtk_reader_counts_and_surfaces(run_dir):
    summary = json.loads((run_dir / "summary.json").read_text())
    names = ["particles", "floor", "bin", "paddle", "ball", "odd name/&", "blade"]
    for _, vtm in pvd_entries(run_dir / "scene.pvd"):
        blocks = read_vtm(run_dir / vtm)
        assert list(blocks) == names
        assert blocks["particles"].GetNumberOfPoints() == summary["particles"] > 100
        for name in names[1:]:
            poly = blocks[name]
            assert poly.GetNumberOfPoints() > 0 and poly.GetNumberOfCells() > 0, name
            assert all(poly.GetCellType(c) == vtk.VTK_TRIANGLE for c in range(poly.GetNumberOfCells())), name
            # Closed surfaces: no edge of a single triangle (the plane is a lone square), and for the
            # primitives none shared by more than two (surface nets may join sheets at ambiguous cells).
            edges = vtk.vtkFeatureEdges()
            edges.SetInputData(poly)
            edges.BoundaryEdgesOn(), edges.FeatureEdgesOff(), edges.ManifoldEdgesOff()
            edges.SetNonManifoldEdges(name != "blade")
            edges.Update()
            assert (edges.GetOutput().GetNumberOfCells() == 0) == (name != "floor"), name


def test_pyvista_volumes(run_dir):
    # Outward closed surfaces have the solid's volume: exact for a box, an inscribed polyhedron's for
    # round shapes, and within the grid's resolution for a mesh (surface nets).
    reader = pv.get_reader(str(run_dir / "scene.pvd"))
    reader.set_active_time_value(reader.time_values[-1])
    data = reader.read()
    frame = data[0] if data.n_blocks == 1 and isinstance(data[0], pv.MultiBlock) else data
    assert frame["paddle"].volume == pytest.approx(8 * 0.02 * 0.1 * 0.05, rel=1e-4)
    assert frame["ball"].volume == pytest.approx(4 / 3 * math.pi * 0.04**3, rel=0.03)
    ro, ri = 0.04, 0.03
    expected = math.pi * 0.02**2 * 0.1 + 4 / 3 * math.pi * 0.02**3 + math.pi * 0.03**2 * 0.04 + math.pi * (ro**2 - ri**2) * 0.08
    assert frame["odd name/&"].volume == pytest.approx(expected, rel=0.03)
    obj = pv.read(os.path.join(REPO, "scenes", "meshes", "blade.obj"))
    blade = frame["blade"]
    # The mesh's own coordinates, moved to the body's position at the last frame (it rises at 0.1 m/s).
    offset = [0.0, 0.0, -0.2, -0.2, 0.6 + 0.1 * frame_times()[-1], 0.6 + 0.1 * frame_times()[-1]]
    for k in range(6):
        assert abs(blade.bounds[k] - (obj.bounds[k] + offset[k])) < MESH_CELL, (k, blade.bounds, obj.bounds)
    assert blade.volume == pytest.approx(obj.volume, rel=0.25)


def test_surfaces_follow_the_motion(run_dir):
    entries = pvd_entries(run_dir / "scene.pvd")
    first = read_vtm(run_dir / entries[0][1])
    rows = list(csv.DictReader(open(run_dir / "bodies.csv")))
    for k, (t, vtm) in enumerate(entries):
        blocks = read_vtm(run_dir / vtm)
        # The paddle's twist, integrated exactly: origin p0 + v t, orientation exp(w t) R0.
        p0, q0 = field(first["paddle"], "position"), field(first["paddle"], "orientation")
        R = axis_angle(ANGULAR, t)
        expect = (points(first["paddle"]) - p0) @ R.T + p0 + LINEAR * t
        assert np.abs(points(blocks["paddle"]) - expect).max() < 2e-5, k
        assert np.abs(field(blocks["paddle"], "position") - (p0 + LINEAR * t)).max() < 2e-5
        assert np.abs(rotation(field(blocks["paddle"], "orientation")) - R @ rotation(q0)).max() < 2e-5
        assert field(blocks["paddle"], "TimeValue")[0] == pytest.approx(t, abs=1e-12)
        # Every moving body's points are its frame-0 points moved by the pose change the file states.
        for name in ("paddle", "odd name/&", "blade"):
            p, q = field(blocks[name], "position"), field(blocks[name], "orientation")
            moved = (points(first[name]) - field(first[name], "position")) @ (rotation(q) @ rotation(field(first[name], "orientation")).T).T + p
            assert np.abs(points(blocks[name]) - moved).max() < 2e-5, (name, k)
            if k > 0:  # bodies.csv: positions after each step; frame k follows step round(t / dt)
                step = round(t / DT)
                row = next(r for r in rows if int(r["step"]) == step and r["body"] == name)
                assert [float(row[c]) for c in ("x_m", "y_m", "z_m")] == pytest.approx(p, abs=1e-6)
        # Fixed bodies: one file shared by every frame, never moved.
        for name in ("floor", "bin", "ball"):
            assert np.array_equal(points(blocks[name]), points(first[name]))
    # The path body climbs linearly from z = 0.5 m to 0.6 m over 0.2 s.
    t = entries[-1][0]
    assert field(read_vtm(run_dir / entries[-1][1])["odd name/&"], "position")[2] == pytest.approx(0.5 + 0.5 * t, abs=1e-6)

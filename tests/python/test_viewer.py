"""The live viewer under a virtual X server (Xvfb, with Mesa's software OpenGL): `loam view` and
Python's render_mode="human" open a real window, and a screenshot of it shows the particles.

Particles are drawn in viridis colours (purple, teal, green, yellow), bodies in translucent grey or
orange on a near-white background, so "particle pixels" are the coloured ones (channels differ by
more than 25 of 255) that are not orange (blue above red, or green above 0.7 red). Needs xvfb-run (Debian
xvfb) and a loam built with the viewer (libglfw3-dev, libgl-dev); skipped, with the reason, without."""
import os
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from conftest import loam_bin

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def xvfb_run(cmd, timeout=240, **kw):
    if not shutil.which("xvfb-run"):
        pytest.skip("xvfb-run is not installed (Debian package xvfb)")
    env = dict(os.environ, OMP_WAIT_POLICY="passive", LIBGL_ALWAYS_SOFTWARE="1")
    env.update(kw.pop("env", {}))
    # -noreset: Xvfb otherwise restarts when its last client disconnects, and a window opened during
    # that restart (a second viewer after the first closed) finds no display.
    return subprocess.run(["xvfb-run", "-a", "-s", "-screen 0 1280x1024x24 -noreset", *cmd], env=env, capture_output=True,
                          text=True, timeout=timeout, **kw)


def read_png(path):
    mpimg = pytest.importorskip("matplotlib.image")
    img = mpimg.imread(str(path))  # floats in [0, 1], rows top to bottom
    return (np.asarray(img)[..., :3] * 255).round().astype(int)


def particle_fraction(rgb):
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    coloured = rgb.max(axis=-1) - rgb.min(axis=-1) > 25
    return float(np.mean(coloured & ((b > r) | (g > 0.7 * r))))


def test_loam_view_screenshot_shows_particles(tmp_path):
    exe = loam_bin()
    if "without the viewer" in subprocess.run([exe, "view", "--help"], capture_output=True, text=True).stdout:
        pytest.skip("this loam was built without the viewer")
    shot = tmp_path / "view.png"
    r = xvfb_run([exe, "view", os.path.join(REPO, "scenes", "plough.yaml"), "--max-steps", "20", "--seconds", "4",
                  "--size", "640x400", "--threads", "1", "--screenshot", str(shot)])
    assert r.returncode == 0, r.stderr
    assert "20 steps" in r.stderr  # it simulated while it showed
    rgb = read_png(shot)
    assert rgb.shape == (400, 640, 3)
    # The bed of 19,800 particles fills a good part of the auto-framed view (4.4% measured; seen
    # through the bin's translucent walls, with gaps between the lattice's spheres).
    assert particle_fraction(rgb) > 0.025, particle_fraction(rgb)
    # ... and the same scene with its bed cut to a particle or two shows none of that colour: the
    # count is the particles, not the background, the bin or the blade.
    empty = tmp_path / "empty.png"
    r = xvfb_run([exe, "view", os.path.join(REPO, "scenes", "plough.yaml"), "--max-steps", "1", "--seconds", "1",
                  "--size", "640x400", "--set", "particles.0.lattice.hi=[-0.44, -0.19, 0.06]", "--screenshot", str(empty)])
    assert r.returncode == 0, r.stderr
    assert particle_fraction(read_png(empty)) < 0.002


def test_loam_view_soft_robot(tmp_path):
    exe = loam_bin()
    if "without the viewer" in subprocess.run([exe, "view", "--help"], capture_output=True, text=True).stdout:
        pytest.skip("this loam was built without the viewer")
    robot, shot = tmp_path / "robot.json", tmp_path / "robot.png"
    subprocess.run([exe, "robot", "voxel", "--size", "4", "--out", str(robot)], check=True, capture_output=True)
    r = xvfb_run([exe, "view", "--robot", str(robot), "--env", "land", "--max-steps", "50", "--seconds", "3",
                  "--size", "320x240", "--screenshot", str(shot)])
    assert r.returncode == 0, r.stderr
    assert "50 steps" in r.stderr
    rgb = read_png(shot)
    # The surface in turbo colours (muscle activation) and the sand-coloured floor around it.
    coloured = rgb.max(axis=-1) - rgb.min(axis=-1) > 60
    assert coloured.mean() > 0.01, coloured.mean()


SCRIPT = textwrap.dedent("""
    import sys, gymnasium as gym, numpy as np, loam, loam.viewer
    env = gym.make("loam/Bulldozing-v0", particles=800, render_mode="human")
    env.reset(seed=1)
    for _ in range(3):
        env.step(np.zeros(env.action_space.shape, np.float32))
    human = env.unwrapped._human
    assert not human.viewer.closed
    human.viewer.draw(env)
    human.viewer.present(screenshot=sys.argv[1])
    env.close()
    assert human.viewer.closed
    # A soft body's surface (any triangles) in a window of its own: one big red tetrahedron.
    with loam.viewer.Viewer(320, 240, "triangles") as v:
        xyz = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], float)
        v.draw_triangles([[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]], xyz, color=(220, 20, 20))
        v.poll()
        v.present(screenshot=sys.argv[2])
    # Gymnasium's own checker, which makes the env again in every declared render mode: with a display
    # that includes "human", so the window passes its render checks too.
    import warnings
    from gymnasium.utils.env_checker import check_env
    checked = gym.make("loam/Bulldozing-v0", render_mode="rgb_array", render_width=64, render_height=48,
                       timing_info=False, particles=300, settle_steps=20, steps_per_action=10)
    assert "human" in checked.unwrapped.metadata["render_modes"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(checked.unwrapped, skip_render_check=False)
    checked.close()
    print("ok")
""")


def test_gymnasium_human_render_mode(tmp_path):
    pytest.importorskip("gymnasium")
    env = {}
    built = os.path.join(REPO, "build", "libloam_viewer.so")
    if not os.environ.get("LOAM_VIEWER_LIBRARY") and os.path.isfile(built):
        env["LOAM_VIEWER_LIBRARY"] = built  # the installed package may not ship one; this tree's works with it
    probe = subprocess.run([sys.executable, "-c", "import loam.viewer; loam.viewer.library()"], capture_output=True,
                           text=True, env=dict(os.environ, **env))
    if probe.returncode != 0 and "without the viewer" in probe.stderr:
        pytest.skip(probe.stderr.strip().splitlines()[-1])
    r = xvfb_run([sys.executable, "-c", SCRIPT, str(tmp_path / "env.png"), str(tmp_path / "tri.png")], env=env)
    assert r.returncode == 0 and "ok" in r.stdout, r.stderr
    # 800 particles in a pile a few centimetres across, in a 1024 x 640 view of the whole arena: about
    # 950 pixels of particle colour measured; an arena without particles has none.
    assert particle_fraction(read_png(tmp_path / "env.png")) * 1024 * 640 > 400
    tri = read_png(tmp_path / "tri.png")
    red = (tri[..., 0] > tri[..., 1] + 60) & (tri[..., 0] > tri[..., 2] + 60)
    assert red.mean() > 0.05

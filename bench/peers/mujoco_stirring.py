#!/usr/bin/env python3
"""MuJoCo (PyPI `mujoco`) on loam's granular stirring scene, built the same way: the Panda from
urdf/panda.urdf (same links, inertials, joint origins and capsule collision shapes), the same stirrer
on the flange, the same spheres on the same jittered lattice in the same walled box, the same
collision masks, friction 0.5, dt = 2 ms, the same PD gains and sweep of joint 1 (with gravity
compensation), the same settling before the measured steps. Prints one JSON line per size, like
`loam bench multibody --step-stats`:
  {"engine":"mujoco","scenario":"stirring","n":N,"solver":"Newton","iterations":100,"steps":S,
   "step_s":...,"max_depth_m":...,"mean_depth_m":...}
step_s is the wall time of mj_step alone (the controller, computed in Python, is not timed; loam's
figure likewise excludes its controller). Differences that remain, on purpose or not:
- MuJoCo's contacts are soft (solref/solimp): some penetration is its model, not an error;
- the two cylinders of the Panda (link 0, link 7) collide with nothing, as in loam, which has no
  cylinder-sphere contact yet;
- the PD law is explicit here (loam's is implicit), effort-clamped through actuator ctrlrange.
- --solref T,D sets every geom's solref (MuJoCo's default 0.02,1): a smaller time constant makes
  contacts stiffer, so MuJoCo can be compared at a penetration as small as loam's (MuJoCo asks for
  T >= 2 dt = 0.004 s).
Usage: python3 bench/peers/mujoco_stirring.py [--sizes 100,200,400] [--settle 400] [--steps 200]
       [--cone pyramidal|elliptic] [--solver Newton|PGS|CG] [--iterations 100] [--solref 0.02,1]"""
import argparse
import json
import math
import os
import time
import xml.etree.ElementTree as ET

import mujoco
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
URDF = os.path.join(HERE, "..", "..", "urdf", "panda.urdf")
# Must match bench/scenarios/scenario_stirring.c
BALL_R, BALL_RHO, BOX_X, BOX_HALF, WALL, WALL_H = 0.01, 2500.0, 0.58, 0.12, 0.01, 0.15
STIR_R, STIR_HALF = 0.015, 0.11
Q0 = [0, 0.35, 0, -2.1, 0, 2.45, 0.785]
KP = [600, 600, 600, 600, 150, 150, 150]
KD = [40, 40, 40, 40, 10, 10, 10]
AMPLITUDE, PERIOD, HOLD, DT = 0.15, 1.0, 0.3, 2e-3


def quat_rpy(r, p, y):
    """URDF's R = Rz(y) Ry(p) Rx(r) as a w-first quaternion."""
    cr, sr, cp, sp, cy, sy = (math.cos(r / 2), math.sin(r / 2), math.cos(p / 2), math.sin(p / 2), math.cos(y / 2), math.sin(y / 2))
    return [cy * cp * cr + sy * sp * sr, cy * cp * sr - sy * sp * cr, cy * sp * cr + sy * cp * sr, sy * cp * cr - cy * sp * sr]


def origin(el):
    o = el.find("origin")
    xyz = [float(v) for v in (o.get("xyz", "0 0 0") if o is not None else "0 0 0").split()]
    rpy = [float(v) for v in (o.get("rpy", "0 0 0") if o is not None else "0 0 0").split()]
    return xyz, quat_rpy(*rpy)


def fmt(v):
    return " ".join(repr(float(x)) for x in v)


def link_xml(link):
    out = []
    inertial = link.find("inertial")
    if inertial is not None:
        xyz, q = origin(inertial)
        assert q == [1.0, 0.0, 0.0, 0.0], "the shipped Panda's inertial frames are unrotated"
        i = inertial.find("inertia")
        full = [float(i.get(k)) for k in ("ixx", "iyy", "izz", "ixy", "ixz", "iyz")]
        out.append(f'<inertial pos="{fmt(xyz)}" mass="{float(inertial.find("mass").get("value"))!r}" fullinertia="{fmt(full)}"/>')
    for col in link.findall("collision"):
        xyz, q = origin(col)
        g = col.find("geometry")[0]
        r = float(g.get("radius", "0"))
        half = 0.5 * float(g.get("length", "0"))
        if g.tag == "capsule":
            out.append(f'<geom type="capsule" size="{r!r} {half!r}" pos="{fmt(xyz)}" quat="{fmt(q)}" contype="2" conaffinity="0"/>')
        elif g.tag == "cylinder":  # loam has no cylinder-sphere contact yet: these touch nothing there either
            out.append(f'<geom type="cylinder" size="{r!r} {half!r}" pos="{fmt(xyz)}" quat="{fmt(q)}" contype="0" conaffinity="0"/>')
    return out


def arm_xml():
    root = ET.parse(URDF).getroot()
    links = {l.get("name"): l for l in root.findall("link")}
    joints = root.findall("joint")
    children = {}
    for j in joints:
        children.setdefault(j.find("parent").get("link"), []).append(j)

    def body(name, joint, depth):
        pad = "  " * depth
        lines = []
        if joint is None:
            lines.append(f'{pad}<body name="{name}" gravcomp="1">')
        else:
            xyz, q = origin(joint)
            lines.append(f'{pad}<body name="{name}" pos="{fmt(xyz)}" quat="{fmt(q)}" gravcomp="1">')
            if joint.get("type") == "revolute":
                lim = joint.find("limit")
                axis = joint.find("axis").get("xyz")
                lines.append(f'{pad}  <joint name="{joint.get("name")}" axis="{axis}" range="{lim.get("lower")} {lim.get("upper")}" limited="true"/>')
        lines += [pad + "  " + x for x in link_xml(links[name])]
        if name == "panda_link8":  # the stirrer
            lines.append(f'{pad}  <geom type="capsule" size="{STIR_R!r} {STIR_HALF!r}" pos="0 0 {STIR_HALF!r}" contype="2" conaffinity="0"/>')
        for j in children.get(name, []):
            lines += body(j.find("child").get("link"), j, depth + 1)
        lines.append(f"{pad}</body>")
        return lines

    return body("panda_link0", None, 2)


def lattice(n):
    """The jittered lattice of scenario_stirring.c, with its linear congruential generator."""
    per_row = int(math.floor((2 * BOX_HALF - 2 * BALL_R) / (2.2 * BALL_R)))
    seed, placed, site, out = 7, 0, 0, []
    while placed < n:
        layer, cell = divmod(site, per_row * per_row)
        site += 1
        x = BOX_X - BOX_HALF + 2 * BALL_R + 2.2 * BALL_R * (cell % per_row)
        y = -BOX_HALF + 2 * BALL_R + 2.2 * BALL_R * (cell // per_row)
        if math.hypot(x - BOX_X, y) < STIR_R + 2 * BALL_R:
            continue
        seed = (seed * 1664525 + 1013904223) & 0xFFFFFFFF
        jitter = 0.05 * BALL_R * ((seed >> 8) / 16777216.0 - 0.5)
        out.append((x + jitter, y - jitter, BALL_R + 0.0005 + 2.2 * BALL_R * layer))
        placed += 1
    return out


def scene_xml(n, cone, solver, iterations, solref):
    mass = 4.0 / 3.0 * math.pi * BALL_R ** 3 * BALL_RHO
    off = BOX_HALF + WALL
    walls = [((BOX_X - off, 0, WALL_H), (WALL, BOX_HALF + 2 * WALL, WALL_H)), ((BOX_X + off, 0, WALL_H), (WALL, BOX_HALF + 2 * WALL, WALL_H)),
             ((BOX_X, -off, WALL_H), (BOX_HALF + 2 * WALL, WALL, WALL_H)), ((BOX_X, off, WALL_H), (BOX_HALF + 2 * WALL, WALL, WALL_H))]
    lines = ['<mujoco model="stirring">', '  <compiler angle="radian"/>',
             f'  <option timestep="{DT}" gravity="0 0 -9.81" cone="{cone}" solver="{solver}" iterations="{iterations}"/>',
             f'  <default><geom friction="0.5 0.005 0.0001" solref="{solref[0]!r} {solref[1]!r}"/></default>',
             '  <worldbody>',
             '    <geom type="plane" size="5 5 0.1" contype="1" conaffinity="1"/>']
    lines += [f'    <geom type="box" pos="{fmt(p)}" size="{fmt(s)}" contype="1" conaffinity="1"/>' for p, s in walls]
    lines += arm_xml()
    for i, (x, y, z) in enumerate(lattice(n)):
        lines.append(f'    <body name="ball{i}" pos="{x!r} {y!r} {z!r}"><freejoint/>'
                     f'<geom type="sphere" size="{BALL_R!r}" mass="{mass!r}" contype="1" conaffinity="3"/></body>')
    lines.append("  </worldbody>")
    lines.append("  <actuator>")
    effort = [87, 87, 87, 87, 12, 12, 12]
    for j in range(7):
        lines.append(f'    <motor joint="panda_joint{j + 1}" ctrlrange="{-effort[j]} {effort[j]}" ctrllimited="true"/>')
    lines.append("  </actuator>")
    lines.append("</mujoco>")
    return "\n".join(lines)


def run(n, settle, steps, cone, solver, iterations, solref):
    model = mujoco.MjModel.from_xml_string(scene_xml(n, cone, solver, iterations, solref))
    data = mujoco.MjData(model)
    data.qpos[:7] = Q0
    mujoco.mj_forward(model, data)
    elapsed, max_depth, sum_depth, ndepth = 0.0, 0.0, 0.0, 0
    for i in range(settle + steps):
        t = data.time + DT
        phase = 2 * math.pi * (t - HOLD) / PERIOD if t > HOLD else 0.0
        qref = list(Q0)
        qdref = [0.0] * 7
        qref[0] = Q0[0] + AMPLITUDE * math.sin(phase)
        if t > HOLD:
            qdref[0] = AMPLITUDE * 2 * math.pi / PERIOD * math.cos(phase)
        q, qd = data.qpos[:7], data.qvel[:7]
        data.ctrl[:] = [KP[j] * (qref[j] - q[j]) + KD[j] * (qdref[j] - qd[j]) for j in range(7)]
        t0 = time.perf_counter()
        mujoco.mj_step(model, data)
        dt = time.perf_counter() - t0
        if i < settle:
            continue
        elapsed += dt
        if data.ncon:
            depth = np.maximum(-data.contact.dist[: data.ncon], 0.0)
            max_depth = max(max_depth, float(depth.max()))
            sum_depth += float(depth.sum())
            ndepth += data.ncon
    return {"engine": "mujoco", "scenario": "stirring", "n": n, "solver": solver, "iterations": iterations, "cone": cone, "steps": steps, "solref": list(solref),
            "step_s": elapsed / steps, "max_depth_m": max_depth, "mean_depth_m": sum_depth / ndepth if ndepth else 0.0,
            "mujoco": mujoco.__version__}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="100,200,400")
    ap.add_argument("--settle", type=int, default=400)
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--cone", default="pyramidal", choices=["pyramidal", "elliptic"])
    ap.add_argument("--solver", default="Newton", choices=["Newton", "PGS", "CG"])
    ap.add_argument("--iterations", type=int, default=100)
    ap.add_argument("--solref", default="0.02,1", help="time constant (s), damping ratio of every contact")
    a = ap.parse_args()
    solref = tuple(float(v) for v in a.solref.split(","))
    if len(solref) != 2 or not all(math.isfinite(v) for v in solref) or solref[0] <= 0 or solref[1] <= 0:
        ap.error(f"--solref {a.solref!r}: expected two positive numbers, time constant and damping ratio")
    for n in [int(s) for s in a.sizes.split(",")]:
        print(json.dumps(run(n, a.settle, a.steps, a.cone, a.solver, a.iterations, solref)), flush=True)


if __name__ == "__main__":
    main()

#!/usr/bin/env bash
# Installs what loam needs to build, test and make videos, from Debian's packages. Idempotent: it
# skips apt-get when everything is already there.
set -euo pipefail
packages=(build-essential cmake pkg-config libyaml-dev libpng-dev libcjson-dev libqhull-dev libxml2-dev ffmpeg clang libomp-dev
          libclang-rt-14-dev python3 python3-venv
          libglfw3-dev libgl-dev libgl1-mesa-dri xvfb xauth)  # the live viewer, and its test under a virtual X server
# urdfdom's check_urdf: scripts/urdf_sweep.py compares loam's URDF reader with it (test urdf_sweep_pybullet)
packages+=(liburdfdom-tools)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
# Python: what the package (python/), its tests and examples need, from PyPI; skipped when it all
# imports already. PyTorch (for examples/train_bulldozing_sb3.py) is deliberately not installed.
if ! python3 -c "import numpy, gymnasium, pytest, matplotlib, ray, setuptools, wheel, vtk, pyvista" >/dev/null 2>&1; then
  if ! python3 -m pip --version >/dev/null 2>&1; then
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq python3-pip >/dev/null
  fi
  echo "setup: installing Python packages (numpy gymnasium pytest matplotlib ray vtk pyvista)"
  pip_flags=(-q --root-user-action=ignore)
  # a Debian-managed Python refuses pip (PEP 668) unless told to
  python3 -c 'import os, sys, sysconfig; sys.exit(not os.path.exists(os.path.join(sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED")))' &&
    pip_flags+=(--break-system-packages)
  # vtk and pyvista read loam's ParaView output back in tests/python/test_paraview_output.py
  python3 -m pip install "${pip_flags[@]}" numpy gymnasium pytest matplotlib ray setuptools wheel vtk pyvista
fi
# pybullet's wheel ships pybullet_data, the public robot descriptions (Franka Panda, KUKA iiwa, the
# quadrupeds, 1,095 URDFs) that test_urdf_wheels and urdf_sweep_pybullet load unchanged.
if ! python3 -c "import pybullet_data" >/dev/null 2>&1; then
  echo "setup: installing pybullet (for pybullet_data)"
  urdf_pip_flags=(-q --root-user-action=ignore)
  python3 -c 'import os, sys, sysconfig; sys.exit(not os.path.exists(os.path.join(sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED")))' &&
    urdf_pip_flags+=(--break-system-packages)
  python3 -m pip install "${urdf_pip_flags[@]}" pybullet
fi

"""Builds libloam with CMake from the repository this folder sits in and ships it inside the package.

    pip install ./python                 # from the repository root
    pip wheel ./python                   # a wheel (loam_physics-*.whl) holding libloam.so (and libloam_viewer.so where GLFW is found)
    pip install -e ./python              # editable: the package from python/loam, libloam built once

The library is built in a temporary folder (or $LOAM_BUILD_DIR, kept for the next build: a folder that
CMake already configured is only rebuilt, so LOAM_BUILD_DIR=build reuses the repository's own build)
with `cmake -S <repo> -B <build> -DCMAKE_BUILD_TYPE=Release` and `cmake --build <build> --target
loam_shared`, and copied to loam/libloam.so. An editable install instead builds in a folder that stays,
$LOAM_BUILD_DIR or <repo>/build-python, and writes its library's path to loam/_libloam_path (which
loam/_lib.py reads), so the package keeps importing after pip's temporary folders are gone and
`cmake --build build-python --target loam_shared` updates it in place. $LOAM_SOURCE_DIR names another
checkout; $LOAM_CMAKE_ARGS adds CMake options (e.g. "-DLOAM_NATIVE=ON"). Needs what the C library needs
(scripts/setup.sh installs it)."""
import os
import shlex
import shutil
import subprocess
import tempfile

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = os.path.dirname(os.path.abspath(__file__))


def _repo_root():
    root = os.path.abspath(os.environ.get("LOAM_SOURCE_DIR") or os.path.dirname(HERE))
    if not os.path.isfile(os.path.join(root, "CMakeLists.txt")) or not os.path.isdir(os.path.join(root, "src")):
        raise RuntimeError(
            f"loam: no loam checkout at {root} (CMakeLists.txt and src/ expected). Install from the repository "
            "(`pip install ./python`) or set LOAM_SOURCE_DIR to a checkout."
        )
    return root


def _cmake_build(root, build):
    """Configure (unless `build` is a configured folder and no extra options are asked for) and build
    loam_shared in `build`; returns the path of the library it made."""
    if shutil.which("cmake") is None:
        raise RuntimeError("loam: cmake is not installed (scripts/setup.sh installs what the C library needs)")
    jobs = str(os.cpu_count() or 1)
    extra = shlex.split(os.environ.get("LOAM_CMAKE_ARGS", ""))
    if extra or not os.path.isfile(os.path.join(build, "CMakeCache.txt")):
        configure = ["cmake", "-S", root, "-B", build, "-DCMAKE_BUILD_TYPE=Release"] + extra
        print("loam:", " ".join(configure), flush=True)
        subprocess.check_call(configure)
    subprocess.check_call(["cmake", "--build", build, "--target", "loam_shared", "-j", jobs])
    lib = os.path.join(build, "libloam.so")
    if not os.path.isfile(lib):
        raise RuntimeError(f"loam: the build did not produce {lib}")
    # The live viewer (render_mode="human") exists where CMake found GLFW and OpenGL.
    targets = subprocess.run(["cmake", "--build", build, "--target", "help"], capture_output=True, text=True).stdout
    if "loam_viewer" in targets.split():
        subprocess.check_call(["cmake", "--build", build, "--target", "loam_viewer", "-j", jobs])
    return os.path.realpath(lib)


def _viewer_beside(lib):
    """The libloam_viewer.so built with lib, or None."""
    path = os.path.join(os.path.dirname(lib), "libloam_viewer.so")
    return os.path.realpath(path) if os.path.isfile(path) else None


def _build_libloam(root):
    """Copies of a freshly built libloam.so and libloam_viewer.so (None without the viewer) in
    temporary files."""
    keep = os.environ.get("LOAM_BUILD_DIR")
    build = os.path.abspath(keep) if keep else tempfile.mkdtemp(prefix="loam-build-")
    try:
        lib = _cmake_build(root, build)
        copies = []
        for src in (lib, _viewer_beside(lib)):
            if src is None:
                copies.append(None)
                continue
            fd, tmp = tempfile.mkstemp(prefix="libloam-", suffix=".so")
            os.close(fd)
            shutil.copyfile(src, tmp)
            copies.append(tmp)
        return copies
    finally:
        if not keep:
            shutil.rmtree(build, ignore_errors=True)


class build_py_with_libloam(build_py):
    def run(self):
        super().run()
        root = _repo_root()
        if getattr(self, "editable_mode", False):
            # pip install -e: python/loam is imported in place; build where the library can stay.
            keep = os.environ.get("LOAM_BUILD_DIR")
            build = os.path.abspath(keep) if keep else os.path.join(root, "build-python")
            lib = _cmake_build(root, build)
            with open(os.path.join(HERE, "loam", "_libloam_path"), "w") as f:
                f.write(lib + "\n")
            return
        for tmp, name in zip(_build_libloam(root), ("libloam.so", "libloam_viewer.so")):
            if tmp is None:
                continue
            dest = os.path.join(self.build_lib, "loam", name)
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            shutil.move(tmp, dest)
            os.chmod(dest, 0o755)


class BinaryDistribution(Distribution):
    """The wheel holds a native library: tag it for this platform, not as pure Python."""

    def has_ext_modules(self):
        return True


setup(cmdclass={"build_py": build_py_with_libloam}, distclass=BinaryDistribution)

"""Builds libloam with CMake from the repository this folder sits in and ships it inside the package.

    pip install ./python                 # from the repository root

The library is built in a temporary folder (or $LOAM_BUILD_DIR, kept for the next build) with
`cmake -S <repo> -B <build> -DCMAKE_BUILD_TYPE=Release` and `cmake --build <build> --target loam_shared`,
and copied to loam/libloam.so. $LOAM_SOURCE_DIR names another checkout; $LOAM_CMAKE_ARGS adds CMake
options (e.g. "-DLOAM_NATIVE=ON"). Needs what the C library needs (scripts/setup.sh installs it)."""
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


def _build_libloam(root):
    if shutil.which("cmake") is None:
        raise RuntimeError("loam: cmake is not installed (scripts/setup.sh installs what the C library needs)")
    keep = os.environ.get("LOAM_BUILD_DIR")
    build = os.path.abspath(keep) if keep else tempfile.mkdtemp(prefix="loam-build-")
    try:
        jobs = str(os.cpu_count() or 1)
        configure = ["cmake", "-S", root, "-B", build, "-DCMAKE_BUILD_TYPE=Release"]
        configure += shlex.split(os.environ.get("LOAM_CMAKE_ARGS", ""))
        print("loam:", " ".join(configure), flush=True)
        subprocess.check_call(configure)
        subprocess.check_call(["cmake", "--build", build, "--target", "loam_shared", "-j", jobs])
        lib = os.path.join(build, "libloam.so")
        if not os.path.isfile(lib):
            raise RuntimeError(f"loam: the build did not produce {lib}")
        fd, tmp = tempfile.mkstemp(prefix="libloam-", suffix=".so")
        os.close(fd)
        shutil.copyfile(lib, tmp)
        return tmp
    finally:
        if not keep:
            shutil.rmtree(build, ignore_errors=True)


class build_py_with_libloam(build_py):
    def run(self):
        super().run()
        lib = _build_libloam(_repo_root())
        dest = os.path.join(self.build_lib, "loam", "libloam.so")
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        shutil.move(lib, dest)
        os.chmod(dest, 0o755)


class BinaryDistribution(Distribution):
    """The wheel holds a native library: tag it for this platform, not as pure Python."""

    def has_ext_modules(self):
        return True


setup(cmdclass={"build_py": build_py_with_libloam}, distclass=BinaryDistribution)

"""pytest set-up for loam's Python tests (run from the repository root: python3 -m pytest tests/python -q).

The tests import the installed package (`pip install ./python`, which scripts/test.sh does). For a
development loop without installing: PYTHONPATH=python LOAM_LIBRARY=build/libloam.so python3 -m pytest tests/python"""
import os
import shutil

import pytest

# OpenMP threads that spin while they wait make a busy machine (another build, another test process)
# up to 40x slower on these tiny worlds; sleeping waiters cost nothing here. Set before libloam (and
# with it libgomp) is loaded.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def loam_bin():
    """The `loam` command the tests run: $LOAM_BIN, build/loam, or the one on PATH (skips without one)."""
    path = os.environ.get("LOAM_BIN") or os.path.join(REPO, "build", "loam")
    if not os.access(path, os.X_OK):
        path = shutil.which("loam")
    if not path:
        pytest.skip("no loam command: build it (cmake --build build) or set LOAM_BIN")
    return path


@pytest.fixture
def repo():
    return REPO


def pytest_report_header(config):
    try:
        import loam

        return f"loam {loam.version()} from {loam.library_path} (environments: {loam.HAS_ENVIRONMENTS})"
    except Exception as e:  # the tests themselves report the failure
        return f"loam: import failed: {e}"

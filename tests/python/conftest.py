"""pytest set-up for loam's Python tests (run from the repository root: python3 -m pytest tests/python -q).

The tests import the installed package (`pip install ./python`, which scripts/test.sh does). For a
development loop without installing: PYTHONPATH=python LOAM_LIBRARY=build/libloam.so python3 -m pytest tests/python"""
import os

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture
def repo():
    return REPO


def pytest_report_header(config):
    try:
        import loam

        return f"loam {loam.version()} from {loam.library_path} (environments: {loam.HAS_ENVIRONMENTS})"
    except Exception as e:  # the tests themselves report the failure
        return f"loam: import failed: {e}"

"""What the tests share: the package under test, the tree's program and
meshes, and loaded meshes.

KCBP_TEST_INSTALLED=1 (scripts/python_test.sh): kcbp must come from an
installed package with its bundled libkcbp, not from python/ of this tree.
KCBP_TEST_FROM_TREE=1: python/ of this tree (its library from build/)."""
import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), os.pardir, os.pardir))
if os.environ.get("KCBP_TEST_FROM_TREE"):
    sys.path.insert(0, os.path.join(ROOT, "python"))
import kcbp  # noqa: E402

EXE = os.environ.get("KCBP_EXE") or os.path.join(ROOT, "kcbp")
if not os.path.isabs(EXE):
    EXE = os.path.join(ROOT, EXE)
BUNNY = os.path.join(ROOT, "meshes", "bunny2.obj")
SPOT = os.path.join(ROOT, "meshes", "spot.obj")
CUBE = os.path.join(ROOT, "tests", "install", "cube.obj")


def run_cli(*args, check=True):
    """The program's JSON lines (check=False: the CompletedProcess)."""
    p = subprocess.run([EXE] + [str(a) for a in args], capture_output=True, text=True)
    if not check:
        return p
    if p.returncode != 0:
        raise AssertionError("kcbp %s: exit %d: %s" % (" ".join(map(str, args)), p.returncode, p.stderr))
    return [json.loads(line) for line in p.stdout.splitlines() if line.strip()]


@pytest.fixture(scope="session")
def bunny():
    return kcbp.load(BUNNY)


@pytest.fixture(scope="session")
def spot():
    return kcbp.load(SPOT)


def pytest_report_header(config):
    return "kcbp %s from %s, libkcbp %s" % (kcbp.VERSION, os.path.dirname(kcbp.__file__), kcbp._lib.lib._name)


# The depth bracket's aim kcbp.CollisionManager asks for overlapping meshes:
# kcbp.distance(signed=True, **MANAGER_DEPTH) gives the manager's numbers.
MANAGER_DEPTH = {"depth_tolerance": kcbp._manager._DEPTH_TOLERANCE, "max_steps": kcbp._manager._DEPTH_STEPS}

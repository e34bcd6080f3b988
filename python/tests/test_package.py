"""The package as installed: where it comes from and what it carries."""
import os

from conftest import ROOT, kcbp


def test_installed_package_is_the_one_tested():
    if not os.environ.get("KCBP_TEST_INSTALLED"):
        return
    here = os.path.dirname(os.path.realpath(kcbp.__file__))
    tree = os.path.realpath(os.path.join(ROOT, "python"))
    assert not here.startswith(tree + os.sep), "kcbp imported from the tree, not the installed package: " + here
    lib = os.path.realpath(kcbp._lib.lib._name)
    assert os.path.dirname(lib) == here, "libkcbp not the bundled copy: " + lib
    assert os.path.basename(lib).startswith("libkcbp.so")


def test_version():
    assert kcbp.__version__ == kcbp.VERSION
    with open(os.path.join(ROOT, "include", "kcbp", "base.h")) as f:
        assert '#define KCBP_VERSION_STRING "%s"' % kcbp.VERSION in f.read()


def test_bundled_libraries_are_the_ones_loaded():
    """A wheel built with patchelf (KCBP_TEST_BUNDLED, scripts/python_test.sh)
    carries qhull_r, cJSON and GMP in kcbp/.libs: those copies are the ones
    mapped in this process, and with the system's hidden
    (KCBP_TEST_HIDDEN) the system's cannot even be opened."""
    if not os.environ.get("KCBP_TEST_BUNDLED"):
        return
    import ctypes
    here = os.path.dirname(os.path.realpath(kcbp.__file__))
    libs = os.path.join(here, ".libs")
    bundled = sorted(os.listdir(libs))
    assert any(n.startswith("libgmp-") for n in bundled), bundled
    assert any(n.startswith("libqhull_r-") for n in bundled), bundled
    assert any(n.startswith("libcjson-") for n in bundled), bundled
    assert len(os.listdir(os.path.join(libs, "licenses"))) >= 3
    assert os.path.isfile(os.path.join(here, "py.typed"))
    with open("/proc/self/maps") as f:
        mapped = {line.split()[-1] for line in f if "/" in line}
    ours = [m for m in mapped if any(k in os.path.basename(m) for k in ("libgmp", "qhull_r", "libcjson"))]
    assert ours and all(os.path.dirname(m) == libs for m in ours), ours
    hidden = os.environ.get("KCBP_TEST_HIDDEN")
    if hidden:
        for soname in ("libgmp.so.10", "libcjson.so.1"):
            try:
                ctypes.CDLL(soname)
            except OSError:
                continue
            raise AssertionError("%s is still loadable: the system's libraries are not hidden" % soname)
        # and the package works: a hull (qhull) and an exact test (GMP)
        h = kcbp.Hull([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]])
        assert kcbp.collide(h, kcbp.Sphere(0.1))["collide"]

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

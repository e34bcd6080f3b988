"""Builds the Python package with libkcbp inside it (pyproject.toml holds
the metadata).

The library is compiled from the C sources by the project's Makefile (`make
shared`, the one description of how libkcbp is built), in a build folder of
setuptools' own (build/python/temp.*/libkcbp, under the tree's build/, which
`make clean` removes; nothing else of the source tree is written), and the shared
library it makes is copied into the package beside its Python files, where
kcbp/_lib.py looks first. The wheel holds no Python extension (ctypes), so
it is tagged py3-none-<platform>: any Python 3 on that platform, with the
system's qhull_r, libcjson and gmp (README.md, "Python").

Environment: KCBP_BUILD_JOBS (make's -j, default: the number of CPUs), MAKE,
CC, OPT (passed to make when set).
"""
import glob
import os
import re
import shutil
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.egg_info import egg_info
from setuptools.dist import Distribution

ROOT = os.path.dirname(os.path.abspath(__file__))
# Everything the Python build writes goes under build/python/ (setuptools'
# build, temp and bdist folders, the egg-info, libkcbp's objects), out of the
# way of the Makefile's own build/ outputs; `make clean` removes it too.
BUILD_BASE = os.path.join("build", "python")


def read_version():
    with open(os.path.join(ROOT, "include", "kcbp", "base.h")) as f:
        m = re.search(r'#define KCBP_VERSION_STRING "([^"]+)"', f.read())
    if not m:
        raise RuntimeError("kcbp: no KCBP_VERSION_STRING in include/kcbp/base.h")
    return m.group(1)


def built_library(where, version):
    """The shared library `make shared` left under `where`: the real file
    libkcbp.so.VERSION of this source tree's version (not its links, nor a
    library of an older version built in the same folder), wherever the
    Makefile puts it."""
    name = "libkcbp.so." + version
    found = [p for p in glob.glob(os.path.join(where, "**", name), recursive=True)
             if os.path.isfile(p) and not os.path.islink(p)]
    if not found:
        raise RuntimeError("kcbp: `make shared` left no %s under %s" % (name, where))
    return max(found, key=os.path.getmtime)


class BuildPyWithLibrary(build_py):
    """build_py, then `make shared` into a build folder and the library into
    the package."""

    def run(self):
        super().run()
        if self.dry_run:
            return
        build_temp = self.get_finalized_command("build").build_temp
        out = os.path.abspath(os.path.join(build_temp, "libkcbp"))
        os.makedirs(out, exist_ok=True)
        jobs = os.environ.get("KCBP_BUILD_JOBS") or str(os.cpu_count() or 1)
        cmd = [os.environ.get("MAKE", "make"), "-C", ROOT, "-j" + jobs, "B=" + out, "shared"]
        for var in ("CC", "OPT"):
            if os.environ.get(var):
                cmd.append("%s=%s" % (var, os.environ[var]))
        self.announce("building libkcbp: " + " ".join(cmd), level=2)
        subprocess.check_call(cmd)
        lib = built_library(out, read_version())
        dest = os.path.join(self.build_lib, "kcbp")
        os.makedirs(dest, exist_ok=True)
        for old in glob.glob(os.path.join(dest, "libkcbp.so*")):
            os.remove(old)
        shutil.copy2(lib, os.path.join(dest, os.path.basename(lib)))


class EggInfoInBuild(egg_info):
    """The package's metadata folder (kcbp.egg-info) under build/, not in
    python/ beside the sources."""

    def initialize_options(self):
        super().initialize_options()
        if os.path.abspath(os.getcwd()) == ROOT:
            os.makedirs(BUILD_BASE, exist_ok=True)
            self.egg_base = BUILD_BASE


class BinaryDistribution(Distribution):
    """The package carries a compiled library: a platform wheel."""

    def has_ext_modules(self):
        return True


cmdclass = {"build_py": BuildPyWithLibrary, "egg_info": EggInfoInBuild}
try:
    from wheel.bdist_wheel import bdist_wheel

    class BdistWheelAnyPython(bdist_wheel):
        """py3-none-<platform>: the library is loaded with ctypes, so no
        Python ABI is involved."""

        def finalize_options(self):
            super().finalize_options()
            self.root_is_pure = False

        def get_tag(self):
            _, _, plat = super().get_tag()
            return "py3", "none", plat

    cmdclass["bdist_wheel"] = BdistWheelAnyPython
except ImportError:  # no wheel package: pip install still works through setup.py's own install
    pass

setup(version=read_version(), cmdclass=cmdclass, distclass=BinaryDistribution,
      options={"build": {"build_base": BUILD_BASE}})

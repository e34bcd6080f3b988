"""Builds the Python package with libkcbp inside it (pyproject.toml holds
the metadata).

The library is compiled from the C sources by the project's Makefile (`make
shared`, the one description of how libkcbp is built), in a build folder of
setuptools' own (build/python/temp.*/libkcbp, under the tree's build/, which
`make clean` removes; nothing else of the source tree is written), and the shared
library it makes is copied into the package beside its Python files, where
kcbp/_lib.py looks first. The wheel holds no Python extension (ctypes), so
it is tagged py3-none-<platform>: any Python 3 on that platform.

The library is stripped, and the shared libraries it needs beyond the C
library's own (libc, libm, ...: the manylinux set) -- qhull_r, cJSON, GMP --
are bundled beside it the way `auditwheel repair` does it: copied into
kcbp/.libs/ under names of their own (name-<hash>.so.N, so that another copy
of the same library loaded in the process is never mistaken for ours, nor
ours for it), libkcbp's DT_NEEDED entries renamed to match and its run path
set to $ORIGIN/.libs (patchelf), with each bundled library's licence
(Debian's copyright file of its package) in kcbp/.libs/licenses/. The
wheel then loads where none of those libraries is installed.

Environment: KCBP_BUILD_JOBS (make's -j, default: the number of CPUs), MAKE,
CC, OPT (passed to make when set); KCBP_BUNDLE: "1" bundles (an error
without patchelf), "0" does not (the library then needs the system's
qhull_r, cJSON and GMP), unset: bundles when patchelf is found; STRIP,
PATCHELF (the tools).
"""
import glob
import hashlib
import os
import re
import shutil
import subprocess
import sys

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


# The libraries every Linux x86-64 system has (the manylinux policy's set):
# never bundled.
SYSTEM_LIBS = ("libc.so.6", "libm.so.6", "libpthread.so.0", "libdl.so.2", "librt.so.1", "libgcc_s.so.1",
               "libstdc++.so.6", "libutil.so.1", "libresolv.so.2", "ld-linux-x86-64.so.2", "linux-vdso.so.1")


def needed(lib):
    """The DT_NEEDED entries of lib and where the loader finds them (ldd)."""
    out = subprocess.run(["ldd", lib], capture_output=True, text=True, check=True).stdout
    found = {}
    for line in out.splitlines():
        m = re.match(r"\s*(\S+) => (\S+) \(", line)
        if m:
            found[m.group(1)] = m.group(2)
        elif "=> not found" in line:
            raise RuntimeError("kcbp: %s needs %s, which the loader cannot find" % (lib, line.split()[0]))
    return found


def licence_of(path):
    """Debian's copyright file of the package that ships path, or None."""
    real = os.path.realpath(path)
    for p in (real, path, real.replace("/lib/", "/usr/lib/", 1) if real.startswith("/lib/") else real):
        try:
            out = subprocess.run(["dpkg", "-S", p], capture_output=True, text=True)
        except OSError:
            return None
        if out.returncode == 0:
            pkg = out.stdout.split(":")[0].strip()
            f = os.path.join("/usr/share/doc", pkg, "copyright")
            if os.path.isfile(f):
                return pkg, f
    return None


def bundle(lib, dest, announce):
    """Strips lib and bundles its non-system shared libraries in
    dest/.libs (see the module's docstring). Returns the bundled names."""
    strip = os.environ.get("STRIP", "strip")
    subprocess.check_call([strip, "--strip-unneeded", lib])
    mode = os.environ.get("KCBP_BUNDLE")
    patchelf = shutil.which(os.environ.get("PATCHELF", "patchelf"))
    if mode == "0":
        return []
    if not patchelf:
        if mode == "1":
            raise RuntimeError("kcbp: KCBP_BUNDLE=1 needs patchelf (Debian: apt-get install patchelf)")
        announce("kcbp: patchelf not found: the library is not bundled with qhull_r, cJSON and GMP (the "
                 "package then needs the system's)", level=3)
        return []
    libs_dir = os.path.join(dest, ".libs")
    shutil.rmtree(libs_dir, ignore_errors=True)
    os.makedirs(os.path.join(libs_dir, "licenses"))
    bundled = []
    for soname, path in sorted(needed(lib).items()):
        if soname in SYSTEM_LIBS or soname.startswith(("libc.", "libm.", "ld-linux")):
            continue
        with open(path, "rb") as f:
            digest = hashlib.sha256(f.read()).hexdigest()[:8]
        stem, _, ver = soname.partition(".so")
        new = "%s-%s.so%s" % (stem, digest, ver)
        target = os.path.join(libs_dir, new)
        shutil.copyfile(path, target)
        os.chmod(target, 0o755)
        subprocess.check_call([strip, "--strip-unneeded", target])
        subprocess.check_call([patchelf, "--set-soname", new, target])
        subprocess.check_call([patchelf, "--set-rpath", "$ORIGIN", target])
        subprocess.check_call([patchelf, "--replace-needed", soname, new, lib])
        lic = licence_of(path)
        if lic:
            shutil.copyfile(lic[1], os.path.join(libs_dir, "licenses", "%s.copyright" % lic[0]))
        else:
            announce("kcbp: no licence file found for %s (%s)" % (soname, path), level=3)
        bundled.append((soname, new))
        announce("kcbp: bundled %s as .libs/%s" % (soname, new), level=2)
    # The bundled libraries' own non-system needs (none for qhull_r, cJSON
    # and GMP today) would be missing: refuse rather than ship a wheel that
    # fails elsewhere.
    for _, new in bundled:
        for soname in needed(os.path.join(libs_dir, new)):
            if soname not in SYSTEM_LIBS and not soname.startswith(("libc.", "libm.", "ld-linux")):
                raise RuntimeError("kcbp: bundled %s needs %s too, which is not bundled" % (new, soname))
    subprocess.check_call([patchelf, "--set-rpath", "$ORIGIN/.libs", lib])
    return bundled


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
        target = os.path.join(dest, os.path.basename(lib))
        shutil.copy2(lib, target)
        bundle(target, dest, self.announce)


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

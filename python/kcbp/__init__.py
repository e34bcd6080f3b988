"""kcbp: exact collision detection between triangle meshes, from Python.

A thin ctypes layer over libkcbp.so (no compiled extension): the library is
found in the build tree (build/ beside python/), through the environment
variable KCBP_LIBRARY, or where `make install` put it.

    import kcbp
    bunny = kcbp.load("meshes/bunny2.obj")
    r = kcbp.collide(bunny, bunny, pose_b=(0.05, 0, 0, 0, 0, 1, 30), contacts="first")
    r["collide"], r["decided_by"], r["contacts"]
    hits = kcbp.collide_many(bunny, bunny, poses)   # (n, 7) or (n, 4, 4): (n,) bool

Every failure is a kcbp.Error carrying kcbp's own message. Calls release the
GIL while in C (ctypes does), so threads can query shared meshes in
parallel (models are read-only during queries).
"""
from ._lib import VERSION, Error
from ._api import Mesh, cbp, collide, collide_many, distance, load, pose, sweep, RIGID_TOL
from ._scene import Scene

__version__ = VERSION
__all__ = ["Error", "Mesh", "Scene", "cbp", "collide", "collide_many", "distance", "load", "pose", "sweep",
           "VERSION", "RIGID_TOL"]

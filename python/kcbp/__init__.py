"""kcbp: exact collision detection between triangle meshes, from Python.

A thin ctypes layer over libkcbp.so (no compiled extension): the library is
the copy bundled in the installed package (with the qhull_r, cJSON and GMP
it needs, in kcbp/.libs), or found in the build tree (build/ beside
python/), through the environment variable KCBP_LIBRARY, or where `make
install` put it.

    import kcbp
    bunny = kcbp.load("meshes/bunny2.obj")
    r = kcbp.collide(bunny, bunny, pose_b=(0.05, 0, 0, 0, 0, 1, 30), contacts="first")
    r["collide"], r["decided_by"], r["contacts"]
    hits = kcbp.collide_many(bunny, bunny, poses)   # (n, 7) or (n, 4, 4): (n,) bool
    kcbp.distance(bunny, kcbp.Capsule(0.05, 0.4), pose_b=(0.3, 0, 0, 1, 0, 0, 90))
    kcbp.distance(kcbp.Box(1, 1, 1), kcbp.Sphere(0.3), signed=True)  # minus the depth
    cm = kcbp.CollisionManager()       # trimesh.collision.CollisionManager's API
    cm.add_object("a", bunny); cm.add_object("b", bunny, kcbp.pose((0.1, 0, 0)))
    cm.in_collision_internal(return_names=True)   # (True, {("a", "b")})

Shapes (kcbp.Sphere(r), Capsule(r, length), Box(x, y, z), Cylinder(r,
height), FCL's conventions, and Hull(points)) are accepted wherever a
kcbp.Mesh is by the pair functions; they are solids, and their side of a
contact is None (-1 in the manager's ContactData, as FCL's).

2D (include/kcbp/kcbp2d.h): kcbp.Polygon(exterior, holes) (non-convex,
with holes; Polygon.load / kcbp.load2d read GeoJSON and SVG), and the
convex Circle(r), Capsule2D(r, length), Rect(w, h, radius=0) and
ConvexPolygon(points) go to the same collide and distance, with 2D poses
(tx, ty, degrees) or 3x3 matrices (kcbp.pose2 makes one);
kcbp.CollisionManager2D is the manager for them; kcbp.sweep gives their
time of impact, and kcbp.Scene reads 2D scene files too (a kcbp.Scene2D).
A 2D geometry against a 3D one is a kcbp.Error.

Every failure is a kcbp.Error, a ValueError, carrying kcbp's own message
(a missing mesh file: kcbp.FileNotFound, also a FileNotFoundError). Calls
release the GIL while in C (ctypes does), so threads can query shared
meshes in parallel (models are read-only during queries).
"""
from ._lib import VERSION, Error, FileNotFound
from ._api import Box, Capsule, Cylinder, Hull, Mesh, Sphere, cbp, collide, collide_many, distance, load, pose, sweep, RIGID_TOL
from ._api2d import Capsule2D, Circle, ConvexPolygon, Polygon, Rect, load2d, pose2
from ._scene import Scene
from ._scene2d import Scene2D
from ._manager import CollisionManager, CollisionObject, ContactData, DistanceData
from ._manager2d import CollisionManager2D, CollisionObject2D
from . import collision  # kcbp.collision: trimesh.collision's names (import kcbp; kcbp.collision.CollisionManager())
from .collision import scene_to_collision

__version__ = VERSION
__all__ = ["Error", "FileNotFound", "Mesh", "Scene", "CollisionManager", "CollisionObject", "ContactData",
           "DistanceData", "Sphere", "Capsule", "Box", "Cylinder", "Hull", "cbp", "collide", "collide_many",
           "distance", "load", "pose", "sweep", "VERSION", "RIGID_TOL", "Polygon", "ConvexPolygon", "Circle", "Capsule2D",
           "Rect", "load2d", "pose2", "CollisionManager2D", "CollisionObject2D", "Scene2D", "collision",
           "scene_to_collision"]

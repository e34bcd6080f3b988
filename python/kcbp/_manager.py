"""kcbp.CollisionManager: trimesh's CollisionManager over kcbp_world.

The names, arguments, defaults, return shapes and exceptions are
trimesh.collision.CollisionManager's (trimesh 4 and 5), so code written for
it ports by changing the import; underneath is the C world of include/kcbp/world.h (a box-tree broad phase
refitted after moves, and per-pair caches kept from one query to the next),
so a loop of small set_transform moves and in_collision_internal calls runs
at the speed of a moving scene.
"""
from __future__ import annotations

import ctypes
import math
import threading
from typing import Any, Hashable, List, Optional, Tuple, Union
from ctypes import POINTER, byref, c_bool, c_double, c_int, c_size_t, c_uint32, c_uint64, c_void_p

import numpy as np

from . import _lib, _meshcache
from ._api import Mesh, _matrix_of, _Shape, _pose, collide, _depth_model, _signed_raw, _distance_raw, _Using
from ._api2d import Geometry2D
from ._containment import Static, _closed, any_closed, contained_pairs
from ._lib import Error, Vec3, lib

# What the methods take (PEP 561 hints): a trimesh.Trimesh or anything with
# vertices and faces arrays, a kcbp.Mesh or shape; a (4, 4) transform.
MeshLike = Any
Transform = Optional[Union[np.ndarray, List[List[float]], Tuple[float, ...]]]

_P = POINTER
_types = None


def _world_types():
    """The ctypes mirrors of kcbp_world_options, kcbp_world_hit(s) and
    kcbp_world_distance_result at the library's offsets (kcbp_layout), and
    the world functions' prototypes; set up on first use."""
    global _types
    if _types is None:
        if not hasattr(lib, "kcbp_world_new") or _lib.layout("kcbp_world_hits") is None:
            raise Error("CollisionManager needs kcbp_world, which this libkcbp (%s) lacks" % _lib.VERSION,
                        "unsupported")
        opts = _lib.struct("kcbp_world_options", [("collide", _lib.CollideOptions), ("coherent", c_bool),
                                                  ("cbp_adaptive", c_bool), ("jobs", ctypes.c_uint)])
        hit = _lib.struct("kcbp_world_hit", [("a", c_uint64), ("b", c_uint64), ("first", c_size_t),
                                             ("count", c_size_t)])
        hits = _lib.struct("kcbp_world_hits", [("hits", c_void_p), ("nhits", c_size_t), ("cap_hits", c_size_t),
                                               ("contacts", c_void_p), ("ncontacts", c_size_t),
                                               ("cap_contacts", c_size_t), ("broadphase", c_uint64),
                                               ("mesh_tested", c_uint64), ("cache_hits", c_uint64)])
        dist = _lib.struct("kcbp_world_distance_result", [
            ("found", c_bool), ("distance", c_double), ("a", c_uint64), ("b", c_uint64), ("point_a", Vec3),
            ("point_b", Vec3), ("tri_a", c_uint32), ("tri_b", c_uint32), ("measured", c_uint64)])
        st, E, M, Po = c_int, _P(_lib.ErrorStruct), _P(_lib.ModelStruct), _P(_lib.Pose)
        for name, res, args in (
                ("kcbp_world_options_default", opts, []),
                ("kcbp_world_new", st, [_P(opts), _P(c_void_p), E]),
                ("kcbp_world_free", None, [c_void_p]),
                ("kcbp_world_add", st, [c_void_p, M, Po, ctypes.c_char_p, _P(c_uint64), E]),
                ("kcbp_world_remove", st, [c_void_p, c_uint64, E]),
                ("kcbp_world_set_pose", st, [c_void_p, c_uint64, Po, E]),
                ("kcbp_world_count", c_uint32, [c_void_p]),
                ("kcbp_world_hits_free", None, [_P(hits)]),
                ("kcbp_world_collide", st, [c_void_p, _P(hits), E]),
                ("kcbp_world_collide_model", st, [c_void_p, M, Po, _P(hits), E]),
                ("kcbp_world_distance", st, [c_void_p, _P(dist), E]),
                ("kcbp_world_distance_model", st, [c_void_p, M, Po, _P(dist), E])):
            f = getattr(lib, name)
            f.restype, f.argtypes = res, args
        _types = (opts, hit, hits, dist)
    return _types


_hit_dt = None


def _hit_dtype():
    """kcbp_world_hit as a numpy dtype (its ids a and b at the library's
    offsets), to read an answer's pairs without a ctypes type per count."""
    global _hit_dt
    if _hit_dt is None:
        hit = _world_types()[1]
        _hit_dt = np.dtype({"names": ["a", "b"], "formats": [np.uint64, np.uint64],
                            "offsets": [hit.a.offset, hit.b.offset], "itemsize": ctypes.sizeof(hit)})
    return _hit_dt


def _as_geometry(mesh):
    """A kcbp.Mesh or shape as given; anything with vertices (n, 3) and
    faces (m, 3) arrays (a trimesh.Trimesh) as a new kcbp.Mesh of them."""
    if isinstance(mesh, (Mesh, _Shape)):
        return mesh
    if isinstance(mesh, Geometry2D):
        raise Error("kcbp.%s is 2D: kcbp.CollisionManager2D holds 2D geometries" % type(mesh).__name__)
    v, f = getattr(mesh, "vertices", None), getattr(mesh, "faces", None)
    if v is None or f is None:
        raise _lib.WrongType("mesh must be a kcbp.Mesh, a kcbp shape, or have vertices and faces arrays (a "
                    "trimesh.Trimesh), not %s" % type(mesh).__name__)
    return _meshcache.mesh_of(v, f, Mesh)


def _transform(transform):
    """trimesh's transform argument: None (identity) or a (4, 4) array
    (float64 exactly, float32 within its precision), and kcbp's 7-number
    pose; ValueError (kcbp.Error) for any other shape or a matrix that is
    not a rigid motion."""
    if transform is not None and not isinstance(transform, (tuple, list)):
        shape = getattr(transform, "shape", None)
        if shape is not None and tuple(shape) not in ((4, 4), (7,)):
            raise Error("transform must be (4,4), not shape %s" % (tuple(shape),))
    return _pose(transform, "transform")


_NONE = -1  # the index of a shape's side: FCL's Contact::NONE


def _sorted_pair(p, q):
    """(p, q) in sorted order, as trimesh's tuple(sorted(names)); names that
    do not compare with each other (a str and a tuple, an int and a str)
    by their text, as CollisionManager2D orders them, where sorted() raised
    TypeError."""
    try:
        return (p, q) if p <= q else (q, p)
    except TypeError:
        return (p, q) if str(p) <= str(q) else (q, p)

# A mesh pair's depth is a proven bracket whose upper bound the manager
# reports; the library's default aim (10 %) is far looser than FCL's EPA
# on convex meshes, which trimesh users compare with: narrowed to 0.1 %
# (up to 256 refinement steps: a sphere mesh in a slab, 0.2 to 0.4 ms).
_DEPTH_TOLERANCE, _DEPTH_STEPS = 1e-3, 256


def _signed(ma, pa, mb, pb):
    return _signed_raw(ma, pa, mb, pb, depth_tolerance=_DEPTH_TOLERANCE, max_steps=_DEPTH_STEPS)


def _signed_or_none(ga, pa, gb, pb):
    """The pair's kcbp_signed_distance result, or None where the library
    cannot give a depth (an open mesh, whose inside is undefined, or a
    depth it does not support)."""
    try:
        return _signed(_depth_model(ga, None), pa, _depth_model(gb, None), pb)
    except Error as e:
        if e.code in ("geometry", "invalid", "unsupported"):
            return None
        raise


def _feature(i):
    return _NONE if i is None or i == _lib.SHAPE_FEATURE else int(i)


def _v(x):
    return np.array([x.x, x.y, x.z], dtype=np.float64)


class ContactData:
    """One contact of ``return_data=True``, as trimesh's ContactData:

    - ``names``: the set of the two objects' names ("__external" for the
      mesh of in_collision_single);
    - ``index(name)``: the triangle of that object in the contact (int; -1,
      FCL's Contact::NONE, for a shape's side);
    - ``point``: (3,) float64, a point of the contact (world frame): the
      centroid of where the two triangles meet; for a triangle and a shape,
      the triangle's point nearest the shape's centre; for two shapes, the
      midpoint of their deepest points;
    - ``normal``: (3,) float64, unit, from the first object toward the
      second as trimesh's FCL orders them (the names' order of the query:
      in_collision_internal, the slot order; in_collision_other, this
      manager's then the other's; in_collision_single, the manager's object
      then "__external");
    - ``depth``: float >= 0, the penetration depth: when the two objects
      overlap as solids (shapes, closed meshes), the pair's depth
      (kcbp_signed_distance: the least translation of the second that
      separates them; exact to 1e-9 of the scale for two shapes, a proven
      upper bound with a mesh), the same on every contact of the pair, and
      ``normal`` is then that translation's unit direction (from the first
      toward the second), as FCL's contact of two convex objects (which is
      how trimesh passes convex meshes) gives them; otherwise (objects that
      only touch, an open mesh) the local depth: the shortest push along
      one triangle's normal that clears the other triangle (or the shape)
      off that triangle's plane (0 for triangles that only touch), with
      the contact's own normal.

    The contacts themselves are exact (kcbp.collide); point, normal and
    depth are constructed in double."""

    __slots__ = ("names", "_inds", "_point", "_normal", "_depth")

    def __init__(self, names, index, point, normal, depth):
        self.names = set(names)
        self._inds = index
        self._point = point
        self._normal = normal
        self._depth = float(depth)

    @property
    def point(self) -> np.ndarray:
        return self._point

    @property
    def normal(self) -> np.ndarray:
        return self._normal

    @property
    def depth(self) -> float:
        return self._depth

    def index(self, name: Hashable) -> int:
        return self._inds[name]

    def __repr__(self):
        return "kcbp.ContactData(names=%r, index=%r, point=%r, depth=%r)" % (
            sorted(self.names, key=str), self._inds, self._point.tolist(), self._depth)


class DistanceData:
    """The closest pair of a min_distance_* query with ``return_data=True``,
    as trimesh's DistanceData: ``names`` (the set of the two names),
    ``index(name)`` (that object's triangle, -1 for a shape), ``point(name)``
    ((3,) float64, world frame: the closest point on that object; when the
    two overlap, the deepest points, on each surface, of the penetration
    depth) and ``distance`` (the signed distance: negative when they
    overlap, as trimesh asks FCL for it)."""

    __slots__ = ("names", "_inds", "_points", "_distance")

    def __init__(self, names, index, points, distance):
        self.names = set(names)
        self._inds = index
        self._points = points
        self._distance = float(distance)

    @property
    def distance(self) -> float:
        return self._distance

    def index(self, name: Hashable) -> int:
        return self._inds[name]

    def point(self, name: Hashable) -> np.ndarray:
        return self._points[name]

    def __repr__(self):
        return "kcbp.DistanceData(names=%r, distance=%r)" % (sorted(self.names, key=str), self._distance)


class CollisionObject:
    """What add_object returns (trimesh returns FCL's CollisionObject): the
    object's ``name``, its ``mesh`` (the kcbp geometry), and its current
    ``transform`` (a 4x4 float64 copy; getTranslation() and getRotation()
    as FCL's)."""

    __slots__ = ("name", "mesh", "_manager")

    def __init__(self, name, mesh, manager):
        self.name, self.mesh, self._manager = name, mesh, manager

    @property
    def transform(self) -> np.ndarray:
        return _matrix_of(self._manager._poses[self.name])

    def getTranslation(self) -> np.ndarray:
        return self.transform[:3, 3]

    def getRotation(self) -> np.ndarray:
        return self.transform[:3, :3]

    def __repr__(self):
        return "kcbp.CollisionObject(%r, %r)" % (self.name, self.mesh)


# --- the geometry of contacts (point, normal, depth) ---------------------------

def _world_triangles(geom, pose, idx):
    """The world coordinates ((n, 3, 3)) of triangles idx of a mesh."""
    tris = getattr(geom, "_tri_cache", None)
    if tris is None:
        tris = geom.vertices[geom.faces]
        geom._tri_cache = tris
    m = _matrix_of(pose)
    return tris[idx] @ m[:3, :3].T + m[:3, 3]


def _unit(v):
    n = np.linalg.norm(v, axis=-1, keepdims=True)
    return np.divide(v, n, out=np.zeros_like(v), where=n > 0)


def _shape_extent(geom, pose, n):
    """min and max of n . x over the posed shape (n unit, world)."""
    m = _matrix_of(pose)
    c = m[:3, 3]
    if geom.kind == "hull":
        w = geom.vertices @ m[:3, :3].T + c
        d = w @ n
        return float(d.min()), float(d.max())
    nl = m[:3, :3].T @ n
    kind = geom.kind
    if kind == "sphere":
        h = geom.radius
    elif kind == "capsule":
        h = geom.radius + abs(nl[2]) * geom.length / 2
    elif kind == "box":
        h = float(np.abs(nl) @ np.asarray(geom.size)) / 2
    else:  # cylinder
        h = abs(nl[2]) * geom.height / 2 + geom.radius * math.sqrt(max(0.0, 1 - nl[2] ** 2))
    cn = float(c @ n)
    return cn - h, cn + h


def _closest_on_triangle(p, a, b, c):
    """The point of triangle abc nearest p (Ericson's regions)."""
    ab, ac, ap = b - a, c - a, p - a
    d1, d2 = ab @ ap, ac @ ap
    if d1 <= 0 and d2 <= 0:
        return a
    bp = p - b
    d3, d4 = ab @ bp, ac @ bp
    if d3 >= 0 and d4 <= d3:
        return b
    vc = d1 * d4 - d3 * d2
    if vc <= 0 and d1 >= 0 and d3 <= 0:
        return a + ab * (d1 / (d1 - d3))
    cp = p - c
    d5, d6 = ab @ cp, ac @ cp
    if d6 >= 0 and d5 <= d6:
        return c
    vb = d5 * d2 - d1 * d6
    if vb <= 0 and d2 >= 0 and d6 <= 0:
        return a + ac * (d2 / (d2 - d6))
    va = d3 * d6 - d5 * d4
    if va <= 0 and d4 - d3 >= 0 and d5 - d6 >= 0:
        return b + (c - b) * ((d4 - d3) / ((d4 - d3) + (d5 - d6)))
    den = va + vb + vc
    if den == 0:
        return (a + b + c) / 3
    return a + ab * (vb / den) + ac * (vc / den)


def _plane_push(tri, other_lo, other_hi):
    """The shortest push along tri's plane normal that clears [lo, hi] (the
    other's extent along that normal, relative to the plane) off it."""
    return max(0.0, min(-other_lo, other_hi))


def _pair_depth(ga, pa, gb, pb):
    """(depth, normal) of two posed geometries that overlap: the pair's
    penetration depth (kcbp_signed_distance: the least translation of b
    that separates the solids; a proven upper bound for meshes) and its
    unit direction from a toward b; None when they only touch or the depth
    is undefined (an open mesh)."""
    r = _signed_or_none(ga, pa, gb, pb)
    if r is None:
        return None
    if not r.signed_distance < 0:
        return None
    n = _v(r.normal)
    if not np.all(np.isfinite(n)) or np.linalg.norm(n) == 0:
        return None
    return float(-r.signed_distance), n


def _contacts(name_a, geom_a, pose_a, name_b, geom_b, pose_b):
    """Every contact of the pair (a first), as ContactData; when the two
    overlap (closed solids), every contact carries the pair's depth and
    direction (_pair_depth), as FCL's contact of two convex objects does."""
    out = _surface_contacts(name_a, geom_a, pose_a, name_b, geom_b, pose_b)
    if out and not (isinstance(geom_a, _Shape) and isinstance(geom_b, _Shape)):
        pd = _pair_depth(geom_a, pose_a, geom_b, pose_b)
        if pd is not None:
            for c in out:
                c._depth, c._normal = pd[0], pd[1].copy()
    return out


def _surface_contacts(name_a, geom_a, pose_a, name_b, geom_b, pose_b):
    """Every contact of the pair (a first), as ContactData, with the local
    depths and normals of the surfaces' contacts."""
    sa, sb = isinstance(geom_a, _Shape), isinstance(geom_b, _Shape)
    if sa and sb:
        r = _signed(geom_a._model(), pose_a, geom_b._model(), pose_b)
        pa, pb = _v(r.point_a), _v(r.point_b)
        return [ContactData((name_a, name_b), {name_a: _NONE, name_b: _NONE}, (pa + pb) / 2, _v(r.normal),
                            max(0.0, -r.signed_distance))]
    both = not sa and not sb
    r = collide(geom_a, geom_b, _matrix_of(pose_a), _matrix_of(pose_b), contacts="all", geometry=both)
    pairs = r["contacts"]
    if not pairs:
        return []
    out = []
    if both:
        ia = np.array([p[0] for p in pairs])
        ib = np.array([p[1] for p in pairs])
        ta, tb = _world_triangles(geom_a, pose_a, ia), _world_triangles(geom_b, pose_b, ib)
        na = _unit(np.cross(ta[:, 1] - ta[:, 0], ta[:, 2] - ta[:, 0]))
        nb = _unit(np.cross(tb[:, 1] - tb[:, 0], tb[:, 2] - tb[:, 0]))
        hb = np.einsum("nij,nj->ni", tb - ta[:, :1], na)  # b's vertices over a's plane
        ha = np.einsum("nij,nj->ni", ta - tb[:, :1], nb)
        push_a = np.maximum(0.0, np.minimum(-hb.min(axis=1), hb.max(axis=1)))
        push_b = np.maximum(0.0, np.minimum(-ha.min(axis=1), ha.max(axis=1)))
        depth = np.minimum(push_a, push_b)
        for i, g in enumerate(r["geometry"]):
            n = np.array(g["normal"]) if g["normal"] is not None else na[i]
            out.append(ContactData((name_a, name_b), {name_a: int(ia[i]), name_b: int(ib[i])},
                                   np.array(g["point"], dtype=np.float64), n, depth[i]))
        return out
    # a triangle and a shape
    mesh_first = not sa
    mg, mp, shp, spo = (geom_a, pose_a, geom_b, pose_b) if mesh_first else (geom_b, pose_b, geom_a, pose_a)
    idx = np.array([p[0] if mesh_first else p[1] for p in pairs])
    tris = _world_triangles(mg, mp, idx)
    centre = _matrix_of(spo)[:3, 3]
    for i, t in enumerate(tris):
        n = _unit(np.cross(t[1] - t[0], t[2] - t[0]))
        lo, hi = _shape_extent(shp, spo, n)
        off = float(t[0] @ n)
        depth = _plane_push(t, lo - off, hi - off)
        point = _closest_on_triangle(centre, t[0], t[1], t[2])
        side = 1.0 if (centre - t[0]) @ n >= 0 else -1.0
        normal = n * side if mesh_first else -n * side  # from a toward b
        tri = int(idx[i])
        index = {name_a: tri if mesh_first else _NONE, name_b: _NONE if mesh_first else tri}
        out.append(ContactData((name_a, name_b), index, point, normal, depth))
    return out


def _inside_contact(name_a, geom_a, pose_a, name_b, geom_b, pose_b):
    """The one contact of a pair where one object holds the other inside
    (no surface contact, so no triangle: -1 on both sides, as FCL's
    contact of two convex objects): the pair's depth and direction
    (kcbp_signed_distance), at the midpoint of its deepest points."""
    r = _signed_or_none(geom_a, pose_a, geom_b, pose_b)
    if r is None:
        return ContactData((name_a, name_b), {name_a: _NONE, name_b: _NONE}, _matrix_of(pose_b)[:3, 3],
                           np.zeros(3), 0.0)
    pa, pb = _v(r.point_a), _v(r.point_b)
    return ContactData((name_a, name_b), {name_a: _NONE, name_b: _NONE}, (pa + pb) / 2, _v(r.normal),
                       max(0.0, -r.signed_distance))


# --- distances ----------------------------------------------------------------

def _signed_pair(ga, pa, gb, pb):
    """The signed distance of two posed geometries that touch, as (distance,
    feature_a, feature_b, point_a, point_b); None when the library cannot
    give their depth (an open mesh, whose inside is undefined; a non-convex
    mesh's depth in a libkcbp without the bracket): their distance is then
    0, the surfaces' own."""
    r = _signed_or_none(ga, pa, gb, pb)
    if r is None:
        return None
    return (float(r.signed_distance), _feature(r.feature_a), _feature(r.feature_b), _v(r.point_a), _v(r.point_b))


class CollisionManager:
    """Many posed meshes and the queries of a simulation or planning loop,
    with trimesh.collision.CollisionManager's methods, keywords, defaults,
    return forms and exceptions (trimesh 4 and 5):

    - ``add_object(name, mesh, transform=None)``: adds (or replaces: a name
      already present is replaced, as trimesh does) and returns the
      object (a kcbp.CollisionObject: name, mesh, transform); mesh a
      kcbp.Mesh, a kcbp shape (Sphere, Capsule, Box, Cylinder, Hull) or
      anything with ``vertices`` and ``faces`` arrays (a trimesh.Trimesh:
      copied into a kcbp.Mesh); transform a (4, 4) rigid matrix (None:
      identity) in float64, or float32 (checked within float32's precision
      and orthonormalised), or kcbp's 7 numbers "tx ty tz ax ay az deg";
    - ``remove_object(name)``, ``set_transform(name, transform)``;
    - ``in_collision_internal(return_names=False, return_data=False)``:
      ``bool``; ``(bool, {(name1, name2), ...})`` with each pair sorted;
      ``(bool, [ContactData, ...])``; ``(bool, names, data)``;
    - ``in_collision_single(mesh, transform=None, return_names=False,
      return_data=False)``: the names are a set of str (the mesh itself is
      "__external" in its ContactData);
    - ``in_collision_other(other_manager, return_names=False,
      return_data=False)``: pairs (this manager's name, the other's);
    - ``min_distance_internal(name=None, return_names=False,
      return_data=False)``: the least distance between two objects (with
      name: between that object and the others); ``(distance, (name1,
      name2))`` sorted; ``(distance, DistanceData)``; ``(distance, names,
      data)``;
    - ``min_distance_single(mesh, transform=None, return_name=False,
      return_data=False)``: ``(distance, name)``, ...;
    - ``min_distance_other(other_manager, return_names=False,
      return_data=False)``: names (this manager's, the other's).

    Distances are signed, as trimesh asks FCL for them
    (enable_signed_distance): the distance when apart, minus the
    penetration depth when two objects overlap (kcbp_signed_distance: exact
    to 1e-9 of the scale for shapes, proven bounds for closed meshes);
    0 for objects that only touch, and for overlapping objects whose depth
    is undefined (an open mesh has no inside) or that this libkcbp cannot
    measure. Where trimesh leaves it undefined: with no pair to measure
    (fewer than two objects, an empty manager), the distance is
    ``math.inf``, the names ``(None, None)`` (``None`` for
    min_distance_single) and the data ``None``. Exceptions: ValueError for
    an unknown name, a transform that is not (4, 4) or not rigid, a mesh
    that is not one (kcbp.Error, which is a ValueError).

    The yes/no answers and contacts are exact (kcbp.collide); distances
    are kcbp.distance's. The manager keeps each object's mesh in use (its C
    models cannot be freed, even by Mesh.close(), until the object is
    removed or the manager closed), so no order of calls can crash.
    ``close()`` (or ``with``) frees the C world at once; otherwise it is
    freed with the manager. Calls from several threads take turns (a
    lock)."""

    _world = None  # until made: close() and __del__ then do nothing

    def __init__(self, *, containment: bool = True):
        """containment=False: compare surfaces only (no object counts as
        inside a closed mesh), saving the containment pass of each query
        (see python/README.md)."""
        _, _, hits_t, dist_t = _world_types()
        self._containment = bool(containment)
        self._lock = threading.Lock()
        opts = lib.kcbp_world_options_default()
        world = c_void_p()
        err = _lib.ErrorStruct()
        _lib.check(lib.kcbp_world_new(byref(opts), byref(world), byref(err)), err)
        self._world = world
        self._err = err
        self._hits = hits_t()
        self._dist = dist_t()
        self._objs = {}    # name -> (id, geometry, the geometry's model in use)
        self._names = {}   # id -> name
        self._poses = {}   # name -> its Pose
        self._nclosed = 0  # closed meshes held: containment is looked for only then (_containment.py)
        self._static = None  # (names, geoms, Static) of the objects, until one is added or removed
        # set_transform's fast path: a 4x4 float64 numpy matrix is copied
        # into _buf (through the view _mat) and checked and converted by the
        # library into _pose, as kcbp.pose's checks do (kcbp_poses_from_matrices).
        self._buf = (c_double * 16)()
        self._mat = np.frombuffer(self._buf, dtype=np.float64).reshape(4, 4)
        self._pose = _lib.Pose()
        self._pose_at = ctypes.addressof(self._pose)
        self._buf_addr = ctypes.addressof(self._buf)
        self._fast = _lib.HAS_POSE_FORMS
        self._ferr = _lib.ErrorStruct()

    # --- lifetime ---------------------------------------------------------

    def close(self) -> None:
        """Frees the C world and lets go of the meshes (each is released:
        a mesh closed meanwhile is freed now). Further use raises
        kcbp.Error; closing again does nothing."""
        lock = getattr(self, "_lock", None)
        if lock is None:
            return
        with lock:
            world, self._world = self._world, None
            if world is None:
                return
            lib.kcbp_world_hits_free(byref(self._hits))
            lib.kcbp_world_free(world)
            objs, self._objs, self._names = self._objs, {}, {}
        for _, geom, _ in objs.values():
            geom._release()

    def __del__(self):
        if self._world is not None and lib is not None:
            try:
                self.close()
            except Exception:
                pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    @property
    def closed(self):
        return self._world is None

    def __reduce__(self):
        """pickle, copy.copy and copy.deepcopy: a new manager (its own C
        world) of the same names, geometries and transforms, in the same
        order. copy.copy shares the geometries (read-only; each manager
        holds its own use of them), deepcopy and pickle copy them too
        (Mesh.__reduce__). The default copy shared the C world, which both
        then freed (a crash at exit); trimesh's manager, holding FCL
        objects, cannot be pickled or deep-copied at all."""
        with self._lock:
            self._open_world()
            entries = [(name, geom, _matrix_of(self._poses[name])) for name, (_, geom, _) in self._objs.items()]
        return (_rebuilt, (self._containment, entries))

    def _open_world(self):
        w = self._world
        if w is None:
            raise Error("kcbp.CollisionManager is closed", "closed")
        return w

    def __len__(self):
        return len(self._objs)

    def __contains__(self, name):
        return name in self._objs

    def __repr__(self):
        return "kcbp.CollisionManager(%s)" % ("closed" if self.closed else "%d objects" % len(self._objs))

    # --- objects ------------------------------------------------------------

    def _entry(self, name, what):
        try:
            entry = self._objs.get(name)
        except TypeError:  # unhashable: Python's TypeError, as trimesh's dict lookup raises it
            raise _lib.WrongType("%s: name must be hashable, not %r" % (what, name)) from None
        if entry is None:
            raise Error("%s: %r not in collision manager!" % (what, name))
        return entry

    def add_object(self, name: Hashable, mesh: MeshLike, transform: Transform = None) -> CollisionObject:
        """Adds mesh at transform (None: identity) as the object named name;
        an object of that name already present is replaced (as trimesh
        does). Returns the object (a kcbp.CollisionObject)."""
        if name is None:
            raise Error("add_object: name must not be None")
        try:
            hash(name)
        except TypeError:
            raise _lib.WrongType("add_object: name must be hashable, not %r" % (name,)) from None
        pose = _transform(transform)
        geom = _as_geometry(mesh)
        with self._lock:
            w = self._open_world()
            geom._acquire()  # held until the object is removed or the manager closed
            try:
                model = geom._model()
                _closed(geom)  # its containment facts, read now (the user may close the mesh later)
                oid = c_uint64()
                _lib.check(lib.kcbp_world_add(w, byref(model.s), byref(pose), None, byref(oid), self._err),
                           self._err)
            except BaseException:
                geom._release()
                raise
            old = self._objs.get(name)
            if old is not None:
                self._drop(w, name, old)
            self._objs[name] = (oid.value, geom, model)
            self._names[oid.value] = name
            self._poses[name] = pose
            self._nclosed += _closed(geom)
            self._static = None
        return CollisionObject(name, geom, self)

    def _drop(self, w, name, entry):
        _lib.check(lib.kcbp_world_remove(w, entry[0], self._err), self._err)
        self._nclosed -= _closed(entry[1])
        self._static = None
        del self._objs[name]
        del self._names[entry[0]]
        del self._poses[name]
        entry[1]._release()

    def remove_object(self, name: Hashable) -> None:
        """Removes the object named name (ValueError if there is none)."""
        with self._lock:
            w = self._open_world()
            self._drop(w, name, self._entry(name, "remove_object"))

    def set_transform(self, name: Hashable, transform: Transform) -> None:
        """Moves the object named name to transform (the pairs' caches are
        kept: small moves are cheap to test again). ValueError for an
        unknown name or a transform that is not a (4, 4) rigid matrix."""
        with self._lock:
            w = self._open_world()
            entry = self._objs.get(name) if isinstance(name, str) else None
            if entry is None:
                entry = self._entry(name, "set_transform")
            pose = self._pose
            if not (self._fast and type(transform) is np.ndarray and transform.shape == (4, 4)
                    and transform.dtype == np.float64
                    and lib.kcbp_poses_from_matrices(self._buf_at(transform), 1, 16, self._pose_at, self._ferr) == 0):
                pose = _transform(transform)  # float32, the other forms, and the errors' messages
            _lib.check(lib.kcbp_world_set_pose(w, entry[0], byref(pose), self._err), self._err)
            self._poses[name] = _lib.Pose.from_buffer_copy(pose)

    def _buf_at(self, m):
        """The address of _buf, holding the 4x4 matrix m (as float64)."""
        self._mat[...] = m
        return self._buf_addr

    def _snapshot(self):
        """(name, geometry, pose) of every object, each geometry acquired
        (the caller releases them): what another manager's query reads."""
        with self._lock:
            self._open_world()
            out = []
            try:
                for name, (_, geom, _) in self._objs.items():
                    geom._acquire()
                    out.append((name, geom, self._poses[name]))
            except BaseException:
                for _, g, _ in out:
                    g._release()
                raise
            return out

    # --- collision ------------------------------------------------------------

    def _hit_ids(self, column):
        """The ids of column "a" or "b" of the current answer."""
        return self._hit_columns()[0 if column == "a" else 1]

    def _hit_columns(self):
        """The ids ([a...], [b...]) of the current answer's pairs, read as
        bytes: a ctypes array type made per count (hit_t * n) is kept by
        ctypes for good, so a long simulation grew by one type per count
        of pairs it met."""
        h = self._hits
        n = h.nhits
        if not n:
            return [], []
        dt = _hit_dtype()
        arr = np.frombuffer(ctypes.string_at(h.hits, n * dt.itemsize), dtype=dt)
        return arr["a"].tolist(), arr["b"].tolist()

    def _hit_pairs(self):
        """The (name_a, name_b) of the current answer's pairs."""
        names = self._names
        a, b = self._hit_columns()
        return [(names[i], names[j]) for i, j in zip(a, b)]

    @staticmethod
    def _answer(result, names, data, return_names, return_data):
        if return_names and return_data:
            return result, names, data
        if return_names:
            return result, names
        if return_data:
            return result, data
        return result

    def in_collision_internal(self, return_names: bool = False, return_data: bool = False) -> Any:
        """Whether any two objects touch; with return_names, also the set of
        (name1, name2) pairs (each sorted); with return_data, the list of
        every contact (ContactData) last."""
        with self._lock:
            w = self._open_world()
            _lib.check(lib.kcbp_world_collide(w, byref(self._hits), self._err), self._err)
            n = self._hits.nhits
            if not return_names and not return_data and (n or not self._look()):
                return n > 0
            ordered = self._hit_pairs()
            inside = self._inside_internal(ordered) if self._look() else []
            if not return_names and not return_data:
                return bool(inside)
            pairs = {_sorted_pair(p, q) for p, q in ordered + inside} if return_names else None
            data = []
            if return_data:
                for p, q in ordered:
                    data += _contacts(p, self._objs[p][1], self._poses[p], q, self._objs[q][1], self._poses[q])
                for p, q in inside:
                    data.append(_inside_contact(p, self._objs[p][1], self._poses[p], q, self._objs[q][1],
                                                self._poses[q]))
            return self._answer(n > 0 or bool(inside), pairs, data, return_names, return_data)

    def _look(self, other_closed=False):
        """Whether a query looks for containment: on, and a closed mesh in
        the manager (or other_closed: in the other side of the query)."""
        return self._containment and (self._nclosed > 0 or other_closed)

    def _listing(self):
        return self._listing_static()[0]

    def _listing_static(self):
        """[(name, geometry, pose)] of every object, and their Static."""
        if self._static is None:
            names = list(self._objs)
            geoms = [self._objs[n][1] for n in names]
            self._static = (names, geoms, Static(geoms))
        names, geoms, st = self._static
        poses = self._poses
        return [(n, g, poses[n]) for n, g in zip(names, geoms)], st

    def _inside_internal(self, touching, name=None):
        """The (name1, name2) pairs, in slot order, where one object holds
        the other inside with no surface contact (touching: the pairs of
        the surface hits); with name, only the pairs with that object."""
        objs, st = self._listing_static()
        at = {o[0]: i for i, o in enumerate(objs)}
        exclude = {(min(at[p], at[q]), max(at[p], at[q])) for p, q in touching}
        if name is not None:
            one = [objs[at[name]]]
            rest = [o for o in objs if o[0] != name]
            return [(one[0][0], rest[j][0]) for _, j in contained_pairs(one, rest)]
        return [(objs[i][0], objs[j][0])
                for i, j in contained_pairs(objs, objs, same=True, exclude=exclude, lstat=st)]

    def in_collision_single(self, mesh: MeshLike, transform: Transform = None, return_names: bool = False,
                            return_data: bool = False) -> Any:
        """Whether mesh at transform (None: identity) touches any object;
        with return_names, also the set of the names of those it touches;
        with return_data, the list of the contacts (ContactData, the mesh
        named "__external") last."""
        pose = _transform(transform)
        geom = _as_geometry(mesh)
        with _Using(geom), self._lock:
            w = self._open_world()
            model = geom._model()
            _lib.check(lib.kcbp_world_collide_model(w, byref(model.s), byref(pose), byref(self._hits),
                                                    self._err), self._err)
            n = self._hits.nhits
            look = self._look(_closed(geom))
            if not return_names and not return_data and (n or not look):
                return n > 0
            hit = [self._names[i] for i in self._hit_ids("a")]
            inside = []
            if look:
                objs = self._listing()
                at = {o[0]: i for i, o in enumerate(objs)}
                inside = [objs[i][0] for i, _ in contained_pairs(objs, [("__external", geom, pose)],
                                                                 exclude={(at[q], 0) for q in hit})]
            if not return_names and not return_data:
                return bool(inside)
            data = []
            if return_data:
                for q in hit:
                    data += _contacts(q, self._objs[q][1], self._poses[q], "__external", geom, pose)
                for q in inside:
                    data.append(_inside_contact(q, self._objs[q][1], self._poses[q], "__external", geom, pose))
            return self._answer(n > 0 or bool(inside), set(hit + inside), data, return_names, return_data)

    def in_collision_other(self, other_manager: CollisionManager, return_names: bool = False,
                           return_data: bool = False) -> Any:
        """Whether an object of this manager touches an object of
        other_manager; with return_names, also the set of (this manager's
        name, the other's name) pairs; with return_data, the list of the
        contacts (ContactData) last."""
        if not isinstance(other_manager, CollisionManager):
            raise _lib.WrongType("in_collision_other: other_manager must be a kcbp.CollisionManager, not %s" %
                        type(other_manager).__name__)
        theirs = other_manager._snapshot()
        try:
            with self._lock:
                w = self._open_world()
                result, pairs, data = False, set(), []
                for oname, geom, pose in theirs:
                    _lib.check(lib.kcbp_world_collide_model(w, byref(geom._model().s), byref(pose), byref(self._hits),
                                                            self._err), self._err)
                    if not self._hits.nhits:
                        continue
                    result = True
                    if not return_names and not return_data:
                        break
                    for i in self._hit_ids("a"):
                        mine = self._names[i]
                        pairs.add((mine, oname))
                        if return_data:
                            data += _contacts(mine, self._objs[mine][1], self._poses[mine], oname, geom, pose)
                if self._look(any_closed(g for _, g, _ in theirs)) and (
                        return_names or return_data or not result):
                    objs = self._listing()
                    at = {o[0]: i for i, o in enumerate(objs)}
                    oat = {o[0]: j for j, o in enumerate(theirs)}
                    for i, j in contained_pairs(objs, theirs, exclude={(at[p], oat[q]) for p, q in pairs}):
                        result = True
                        pairs.add((objs[i][0], theirs[j][0]))
                        if return_data:
                            data.append(_inside_contact(*objs[i], *theirs[j]))
                return self._answer(result, pairs, data, return_names, return_data)
        finally:
            for _, g, _ in theirs:
                g._release()

    # --- distance -------------------------------------------------------------

    def _best_signed(self, candidates, best):
        """The least signed distance over touching pairs: candidates are
        (name_a, geom_a, pose_a, name_b, geom_b, pose_b); best is the
        unsigned answer (distance 0, its names and points), kept when no
        pair has a measurable depth."""
        for na, ga, pa, nb, gb, pb in candidates:
            s = _signed_pair(ga, pa, gb, pb)
            if s is not None and s[0] < best[0]:
                best = (s[0], na, nb, s[1], s[2], s[3], s[4])
        return best

    def _world_best(self, r):
        """(distance, name_a, name_b, feature_a, feature_b, point_a, point_b)
        of a kcbp_world_distance_result whose a and b are world ids."""
        return (float(r.distance), self._names[r.a], self._names[r.b], _feature(r.tri_a), _feature(r.tri_b),
                _v(r.point_a), _v(r.point_b))

    @staticmethod
    def _data(best):
        d, na, nb, fa, fb, pa, pb = best
        return DistanceData((na, nb), {na: fa, nb: fb}, {na: pa, nb: pb}, d)

    def min_distance_internal(self, name: Optional[Hashable] = None, return_names: bool = False,
                              return_data: bool = False) -> Any:
        """The least (signed) distance between two objects; with name, the
        least between that object and the others (ValueError if it is not
        in the manager). With return_names, also the pair (name1, name2),
        sorted; with return_data, a DistanceData last. math.inf, (None,
        None) and None when there is no pair."""
        with self._lock:
            w = self._open_world()
            best = None
            if name is None:
                r = self._dist
                _lib.check(lib.kcbp_world_distance(w, byref(r), self._err), self._err)
                if r.found:
                    best = self._world_best(r)
                    if best[0] <= 0:
                        _lib.check(lib.kcbp_world_collide(w, byref(self._hits), self._err), self._err)
                        objs, poses = self._objs, self._poses
                        best = self._best_signed(
                            [(p, objs[p][1], poses[p], q, objs[q][1], poses[q]) for p, q in self._hit_pairs()], best)
            else:
                _, geom, _ = self._entry(name, "min_distance_internal")
                pose = self._poses[name]
                touching = []
                for other, (_, og, _) in self._objs.items():
                    if other == name:
                        continue
                    op = self._poses[other]
                    lim = math.inf if best is None else best[0]
                    r = _distance_raw(geom._model(), pose, og._model(), op, lim)
                    if not r.within:
                        continue
                    if best is None or r.distance < best[0]:
                        best = (float(r.distance), name, other, _feature(r.tri_a), _feature(r.tri_b),
                                _v(r.point_a), _v(r.point_b))
                    if r.distance <= 0:
                        touching.append((name, geom, pose, other, og, op))
                if best is not None and best[0] <= 0:
                    best = self._best_signed(touching, best)
            if best is not None and self._look():
                # an object inside a closed mesh: the surfaces are apart, the solids overlap
                objs = self._objs
                best = self._best_signed([(p, objs[p][1], self._poses[p], q, objs[q][1], self._poses[q])
                                          for p, q in self._inside_internal((), name)], best)
            if best is None:
                return self._answer(math.inf, (None, None), None, return_names, return_data)
            na, nb = best[1], best[2]
            names = _sorted_pair(na, nb)
            return self._answer(best[0], names, self._data(best) if return_data else None, return_names,
                                return_data)

    def min_distance_single(self, mesh: MeshLike, transform: Transform = None, return_name: bool = False,
                            return_data: bool = False) -> Any:
        """The least (signed) distance from mesh at transform (None:
        identity) to an object; with return_name, also that object's name;
        with return_data, a DistanceData (the mesh named "__external")
        last. math.inf, None and None when the manager is empty."""
        pose = _transform(transform)
        geom = _as_geometry(mesh)
        with _Using(geom), self._lock:
            w = self._open_world()
            r = self._dist
            model = geom._model()
            _lib.check(lib.kcbp_world_distance_model(w, byref(model.s), byref(pose), byref(r), self._err),
                       self._err)
            if not r.found:
                return self._answer(math.inf, None, None, return_name, return_data)
            q = self._names[r.a]
            best = (float(r.distance), q, "__external", _feature(r.tri_a), _feature(r.tri_b), _v(r.point_a),
                    _v(r.point_b))
            if best[0] <= 0:
                _lib.check(lib.kcbp_world_collide_model(w, byref(model.s), byref(pose), byref(self._hits),
                                                        self._err), self._err)
                best = self._best_signed([(self._names[i], self._objs[self._names[i]][1],
                                           self._poses[self._names[i]], "__external", geom, pose)
                                          for i in self._hit_ids("a")], best)
            if self._look(_closed(geom)):
                objs = self._listing()
                best = self._best_signed([objs[i] + ("__external", geom, pose)
                                          for i, _ in contained_pairs(objs, [("__external", geom, pose)])], best)
            return self._answer(best[0], best[1], self._data(best) if return_data else None, return_name,
                                return_data)

    def min_distance_other(self, other_manager: CollisionManager, return_names: bool = False,
                           return_data: bool = False) -> Any:
        """The least (signed) distance between an object of this manager
        and one of other_manager; with return_names, also the pair (this
        manager's name, the other's); with return_data, a DistanceData last.
        math.inf, (None, None) and None when either manager is empty."""
        if not isinstance(other_manager, CollisionManager):
            raise _lib.WrongType("min_distance_other: other_manager must be a kcbp.CollisionManager, not %s" %
                        type(other_manager).__name__)
        theirs = other_manager._snapshot()
        try:
            with self._lock:
                w = self._open_world()
                r = self._dist
                best = None
                for oname, geom, pose in theirs:
                    _lib.check(lib.kcbp_world_distance_model(w, byref(geom._model().s), byref(pose), byref(r),
                                                             self._err), self._err)
                    if r.found and (best is None or r.distance < best[0]):
                        best = (float(r.distance), self._names[r.a], oname, _feature(r.tri_a), _feature(r.tri_b),
                                _v(r.point_a), _v(r.point_b))
                if best is not None and best[0] <= 0:
                    touching = []
                    for oname, geom, pose in theirs:
                        _lib.check(lib.kcbp_world_collide_model(w, byref(geom._model().s), byref(pose),
                                                                byref(self._hits), self._err), self._err)
                        for i in self._hit_ids("a"):
                            mine = self._names[i]
                            touching.append((mine, self._objs[mine][1], self._poses[mine], oname, geom, pose))
                    best = self._best_signed(touching, best)
                if best is not None and self._look(any_closed(g for _, g, _ in theirs)):
                    objs = self._listing()
                    best = self._best_signed([objs[i] + theirs[j] for i, j in contained_pairs(objs, theirs)], best)
                if best is None:
                    return self._answer(math.inf, (None, None), None, return_names, return_data)
                return self._answer(best[0], (best[1], best[2]), self._data(best) if return_data else None,
                                    return_names, return_data)
        finally:
            for _, g, _ in theirs:
                g._release()


def _rebuilt(containment, entries):
    """A CollisionManager of (name, geometry, 4x4 transform) entries (what
    CollisionManager.__reduce__ gives pickle and copy)."""
    cm = CollisionManager(containment=containment)
    for name, geom, matrix in entries:
        cm.add_object(name, geom, matrix)
    return cm

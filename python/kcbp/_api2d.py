"""2D geometries, poses and pair queries (include/kcbp/kcbp2d.h).

kcbp.collide and kcbp.distance come here when both geometries are 2D
(a kcbp.Polygon, Circle, Capsule2D, Rect or ConvexPolygon, or a GeoJSON or
SVG file name); a 2D geometry against a 3D one is a kcbp.Error.
"""
from __future__ import annotations

import ctypes
import math
import os
import threading
from ctypes import byref, sizeof
from typing import Any, Dict, Iterable, Optional, Sequence, Tuple, Union

import numpy as np

from . import _lib
from . import _lib2d
from ._arrays import RIGID_TOL, _real_array, c_array
from ._lib import Error, lib
from ._lib2d import Pose2, Vec2
from ._using import _Using

ArrayLike = Union[np.ndarray, Sequence[Any]]
# A 2D pose: None (identity), 3 numbers (tx, ty, degrees counter-clockwise)
# or a 3x3 homogeneous rigid matrix.
Pose2Like = Union[None, np.ndarray, Sequence[float], Sequence[Sequence[float]]]
Report = Dict[str, Any]

_UNSET = 0xFFFFFFFF  # UINT32_MAX: no edge (containment), or a shape's side
_2D_SUFFIXES = (".geojson", ".svg")


def is_2d_path(p) -> bool:
    """A file name the 2D reader takes (as the command line decides: a name
    ending in .geojson, or .svg in any case)."""
    if isinstance(p, os.PathLike):
        p = os.fspath(p)
    if isinstance(p, bytes):
        p = os.fsdecode(p)
    return isinstance(p, str) and (p.endswith(".geojson") or p.lower().endswith(".svg"))


def is_geo_like(g) -> bool:
    """A shapely-like polygon or multipolygon (``exterior`` and
    ``interiors``, or ``geoms``), anything with a ``__geo_interface__``, or
    a GeoJSON dict: what Polygon(g) takes besides rings."""
    if isinstance(g, dict):
        return "type" in g
    return (hasattr(g, "__geo_interface__") or (hasattr(g, "exterior") and hasattr(g, "interiors"))
            or (hasattr(g, "geoms") and not hasattr(g, "faces")))


def is_2d(g) -> bool:
    return isinstance(g, Geometry2D) or is_2d_path(g) or is_geo_like(g)


# --- lifetime (as the 3D shapes': a use count under a lock) --------------------

class Geometry2D:
    """What every 2D geometry shares: close() (and ``with``) frees its C
    data at once, or when the queries running in other threads end; a
    closed geometry raises kcbp.Error (code "closed")."""

    def _init_life(self):
        self._lock = threading.Lock()
        self._users = 0
        self._closed = False

    def _acquire(self):
        try:
            lock = self._lock
        except AttributeError:
            raise Error("kcbp.%s was not initialised" % type(self).__name__, "closed") from None
        with lock:
            if self._closed:
                raise Error("kcbp.%s is closed" % type(self).__name__, "closed")
            self._users += 1

    def _release(self):
        with self._lock:
            self._users -= 1
            free = self._closed and not self._users
        if free:
            self._free()

    def _free(self):
        pass

    def close(self) -> None:
        lock = getattr(self, "_lock", None)
        if lock is None:
            return
        with lock:
            if self._closed:
                return
            self._closed = True
            free = self._users == 0
        if free:
            self._free()

    @property
    def closed(self) -> bool:
        return getattr(self, "_closed", True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        r = self._report()
        return "kcbp.%s(%s%s)" % (type(self).__name__, ", ".join("%s=%r" % kv for kv in r.items() if kv[0] != "shape"),
                                  ", closed" if self.closed else "")


class Shape2D(Geometry2D):
    """A convex 2D shape (include/kcbp/shape2d.h): a core (a point, a
    segment, a rectangle or a convex polygon) inflated by a radius; a closed
    region (a solid). Its side of a contact or closest pair is None in the
    reports and -1 in the manager's data, as the 3D shapes'."""

    is_model = False

    def _init_shape(self, s, keep=None):
        self._init_life()
        err = _lib.ErrorStruct()
        _lib.check(lib.kcbp2d_shape_check(byref(s), byref(err)), err)
        self._s = s
        self._keep = keep  # a polygon's points, which the struct borrows

    def __reduce__(self):
        """pickle and copies: a new shape of the same kind and size."""
        k, r = self.kind, self._s.radius
        if k == "circle":
            return (Circle, (r,))
        if k == "capsule":
            return (Capsule2D, (r, self._s.local[1].x - self._s.local[0].x))
        if k == "box":
            return (Rect, (2 * self._s.local[0].x, 2 * self._s.local[0].y, r))
        return (ConvexPolygon, (self._keep.copy(), r))

    @property
    def kind(self) -> str:
        """"circle", "capsule", "box" or "polygon" (the C layer's names)."""
        return lib.kcbp2d_shape_kind_name(self._s.kind).decode()

    @property
    def radius(self) -> float:
        return self._s.radius

    def _core(self) -> np.ndarray:
        """The core's vertices in the shape's frame ((k, 2) float64)."""
        s = self._s
        k = self.kind
        if k == "circle":
            return np.array([[s.local[0].x, s.local[0].y]])
        if k in ("capsule", "segment"):
            return np.array([[s.local[0].x, s.local[0].y], [s.local[1].x, s.local[1].y]])
        if k == "box":
            hx, hy = s.local[0].x, s.local[0].y
            return np.array([[-hx, -hy], [hx, -hy], [hx, hy], [-hx, hy]])
        return self._keep.copy()

    def _local_box(self):
        box = getattr(self, "_box", None)
        if box is None:
            c = self._core()
            r = self._s.radius
            box = self._box = (float(c[:, 0].min()) - r, float(c[:, 1].min()) - r, float(c[:, 0].max()) + r,
                               float(c[:, 1].max()) + r)
        return box

    def _report(self):
        out = {"shape": self.kind}
        s = self._s
        if self.kind == "box":
            out["size"] = [2 * s.local[0].x, 2 * s.local[0].y]
        elif self.kind == "capsule":
            out["length"] = s.local[1].x - s.local[0].x
        elif self.kind == "polygon":
            out["vertices"] = int(s.npoints)
        out["radius"] = s.radius
        return out


def _number(x, what):
    if isinstance(x, bool):
        raise Error("%s must be a number, not %r" % (what, x))
    try:
        return float(x)
    except (TypeError, ValueError):
        raise Error("%s must be a number, not %r" % (what, x)) from None


class Circle(Shape2D):
    """A disc of the given radius (> 0) centred at the origin of its own
    frame (the command line's circle:R)."""

    def __init__(self, radius: float) -> None:
        _lib2d.types()
        self._init_shape(lib.kcbp2d_shape_circle(_number(radius, "Circle: radius")))


class Capsule2D(Shape2D):
    """A stadium: the points within radius (> 0) of the segment from
    (-length/2, 0) to (length/2, 0) of its own frame (along x; the command
    line's capsule2d:R:L). length is the segment's (the straight part); the
    whole is length + 2 radius long. Named Capsule2D because kcbp.Capsule
    is the 3D one (along z, FCL's)."""

    def __init__(self, radius: float, length: float) -> None:
        _lib2d.types()
        self._init_shape(lib.kcbp2d_shape_capsule(_number(radius, "Capsule2D: radius"),
                                                  _number(length, "Capsule2D: length")))

    @property
    def length(self) -> float:
        return self._s.local[1].x - self._s.local[0].x


class Rect(Shape2D):
    """A width x height rectangle centred at the origin of its own frame,
    axis-aligned in it, rounded by radius >= 0 (the points within radius of
    the rectangle; the command line's rect:W:H[:R]). Its kind is "box", as
    the C layer names it."""

    def __init__(self, width: float, height: float, radius: float = 0.0) -> None:
        _lib2d.types()
        self._init_shape(lib.kcbp2d_shape_box(_number(width, "Rect: width"), _number(height, "Rect: height"),
                                              _number(radius, "Rect: radius")))

    @property
    def size(self) -> Tuple[float, float]:
        return (2 * self._s.local[0].x, 2 * self._s.local[0].y)


def _points2(p, what):
    """p as a C-contiguous (n, 2) float64 array of real numbers."""
    try:
        a = p if isinstance(p, np.ndarray) else np.asarray(p)
    except (TypeError, ValueError):
        raise Error("%s: expected an (n, 2) array of numbers" % what) from None
    if a.dtype.kind not in "iuf":
        raise Error("%s: expected an (n, 2) array of real numbers, not an array of %s" % (what, a.dtype))
    if a.ndim != 2 or a.shape[1] != 2:
        raise Error("%s: expected an (n, 2) array, not shape %s" % (what, a.shape))
    a = np.ascontiguousarray(a, dtype=np.float64)
    if not np.all(np.isfinite(a)):
        raise Error("%s: every coordinate must be finite" % what)
    return a


class ConvexPolygon(Shape2D):
    """The convex hull of points (an (n, 2) array-like; kcbp2d_hull, its
    turns decided exactly), rounded by radius >= 0: a convex shape, answered
    by the exact separating-axis test and GJK, with the exact depth
    (signed=True) rather than a Polygon's bracket. ``vertices``: the hull's
    vertices, counter-clockwise ((h, 2) float64)."""

    def __init__(self, points: ArrayLike, radius: float = 0.0) -> None:
        _lib2d.types()
        p = _points2(points, "ConvexPolygon: points")
        if p.shape[0] < 3:
            raise Error("ConvexPolygon: at least 3 points, not %d" % p.shape[0])
        out = np.zeros_like(p)
        n = ctypes.c_size_t()
        err = _lib.ErrorStruct()
        _lib.check(lib.kcbp2d_hull(p.ctypes.data, p.shape[0], out.ctypes.data, byref(n), byref(err)), err)
        if n.value < 3:
            raise Error("ConvexPolygon: the points are %s: their hull has no area (a Capsule2D or Circle "
                        "with that core is the shape)" % ("all equal" if n.value == 1 else "collinear"))
        hull = np.ascontiguousarray(out[:n.value])
        self._init_shape(lib.kcbp2d_shape_polygon(hull.ctypes.data, n.value, _number(radius, "ConvexPolygon: radius")),
                         hull)

    @property
    def vertices(self) -> np.ndarray:
        return self._keep.copy()


# --- polygons with holes (a kcbp2d_model) --------------------------------------

def _ring(r, what):
    """A ring's vertices, the closing repeat of the first (GeoJSON's,
    shapely's) dropped; x and y of longer positions (an altitude ignored,
    as the GeoJSON reader does)."""
    try:
        a = np.asarray(r if not hasattr(r, "coords") else r.coords)
    except (TypeError, ValueError):
        raise Error("%s: expected an (n, 2) array of numbers" % what) from None
    if a.dtype.kind in "iuf" and a.ndim == 2 and a.shape[1] == 3 and a.shape[0] > 0 and not hasattr(r, "shape"):
        a = a[:, :2]  # coordinates with an altitude (shapely's coords, GeoJSON positions)
    a = _points2(a, what)
    if a.shape[0] >= 2 and np.array_equal(a[0], a[-1]):
        a = a[:-1]
    if a.shape[0] < 3:
        raise Error("%s: a ring needs at least 3 distinct vertices, not %d" % (what, a.shape[0]))
    return a


def _from_geo(g):
    """[(exterior, [holes])] of a shapely-like or __geo_interface__ object,
    or None if g is neither."""
    gi = getattr(g, "__geo_interface__", None)
    if isinstance(g, dict) and "type" in g:
        gi = g
    if gi is not None:
        t = gi.get("type")
        if t == "Feature":
            return _from_geo(gi.get("geometry") or {"type": None})
        if t == "Polygon":
            c = gi["coordinates"]
            if not c:
                raise Error("Polygon: an empty geometry")
            return [(c[0], list(c[1:]))]
        if t == "MultiPolygon":
            if not gi["coordinates"]:
                raise Error("Polygon: an empty geometry")
            return [(c[0], list(c[1:])) for c in gi["coordinates"]]
        raise Error("Polygon: a %s is not a polygon (Polygon, MultiPolygon or a Feature holding one)" % (t,))
    if hasattr(g, "exterior") and hasattr(g, "interiors"):
        return [(g.exterior, list(g.interiors))]
    if hasattr(g, "geoms"):
        out = []
        for p in g.geoms:
            sub = _from_geo(p)
            if sub is None:
                raise Error("Polygon: a %s in a collection is not a polygon" % type(p).__name__)
            out += sub
        return out
    return None


class Polygon(Geometry2D):
    """A region of the plane bounded by polygons, possibly non-convex and
    with holes (a kcbp2d_model, include/kcbp/polygon2d.h).

    ``Polygon(exterior, holes=())``: exterior an (n, 2) array-like of the
    outer ring's vertices, holes a sequence of such rings; either
    orientation, the first vertex repeated at the end or not (shapely's
    ``Polygon(shell=..., holes=None)`` spelling too). Also
    ``Polygon(g)`` for a shapely-like polygon (``.exterior.coords`` and
    ``.interiors``), multipolygon (``.geoms``) or anything with a
    ``__geo_interface__`` / a GeoJSON dict (Polygon, MultiPolygon,
    Feature), without needing shapely; ``Polygon.load(path)`` (or
    ``kcbp.load2d``) reads GeoJSON or SVG, every polygon of the file in one
    region. The rings must bound the region simply, checked exactly
    (kcbp.Error naming the ring otherwise): no self-crossing or touching
    rings, holes inside their polygon, polygons of a set not overlapping.

    Edges: edge i joins vertex i (all rings one after the other, in the
    input's order) to the next vertex of its ring; contacts name edges so.
    ``vertices`` ((n, 2) float64), ``edges`` ((n, 2) int64 vertex pairs),
    ``rings``, ``bounds`` ((2, 2): min and max corners)."""

    is_model = True

    def __init__(self, exterior: Any = None, holes: Optional[Iterable[ArrayLike]] = (), *,
                 shell: Any = None) -> None:
        _lib2d.types()
        self._init_life()
        self._h = None
        self._file = None
        if shell is not None:  # shapely's name: Polygon(shell, holes=None)
            if exterior is not None:
                raise Error("Polygon: give exterior or shell (the same ring), not both")
            exterior = shell
        if exterior is None:
            raise Error("Polygon: an empty geometry (no exterior ring)")
        if holes is None:  # shapely's default
            holes = ()
        polys = _from_geo(exterior)
        if polys is None:
            polys = [(exterior, list(holes))]
        elif holes:
            raise Error("Polygon: holes= goes with an exterior ring, not with a %s" % type(exterior).__name__)
        self._build(polys)

    def _build(self, polys):
        t = _lib2d.types()
        rings, ring_end, poly_end = [], [], []
        n = 0
        for j, (ext, hs) in enumerate(polys):
            for i, r in enumerate([ext] + list(hs)):
                a = _ring(r, "Polygon: polygon %d, %s" % (j, "exterior" if i == 0 else "hole %d" % (i - 1)))
                rings.append(a)
                n += a.shape[0]
                ring_end.append(n)
            poly_end.append(len(ring_end))
        pts = np.ascontiguousarray(np.vstack(rings))
        re = np.array(ring_end, dtype=np.uint32)
        pe = np.array(poly_end, dtype=np.uint32)
        inp = t.Polygons(points=pts.ctypes.data, ring_end=re.ctypes.data, nrings=len(ring_end),
                         polygon_end=pe.ctypes.data, npolygons=len(poly_end))
        h = ctypes.c_void_p()
        err = _lib.ErrorStruct()
        _lib.check(lib.kcbp2d_model_build(byref(inp), byref(h), byref(err)), err)
        self._h = h
        self._rings = [[r.copy() for r in rings[a:b]] for a, b in zip([0] + poly_end[:-1], poly_end)]

    def __reduce__(self):
        """pickle, copy.copy and copy.deepcopy: a new, independent Polygon of
        the same rings (a loaded one: the file read again). The default copy
        shared the C region, which closing either freed under the other."""
        rings = getattr(self, "_rings", None)
        if rings is None:
            return (Polygon.load, (self._file,))
        return (_polygon_of_rings, (rings,))

    @classmethod
    def load(cls, path: Union[str, bytes, "os.PathLike[str]"]) -> "Polygon":
        """Reads a GeoJSON (Polygon, MultiPolygon, Feature,
        FeatureCollection) or SVG file (by its name: .svg; polygon, rect,
        circle flattened to 1e-4 of its radius, paths of straight segments)
        into one region. Errors name the file and the place in it; a missing
        file raises kcbp.FileNotFound (a FileNotFoundError)."""
        _lib2d.types()
        self = cls.__new__(cls)
        self._init_life()
        self._h = None
        h = ctypes.c_void_p()
        err = _lib.ErrorStruct()
        st = lib.kcbp2d_model_load(_lib.fsencode(path), byref(h), byref(err))
        if st != 0 and not os.path.exists(path):
            raise _lib.FileNotFound(err.msg.decode("utf-8", "replace"), os.fsdecode(path))
        _lib.check(st, err)
        self._h = h
        self._file = os.fsdecode(path)
        return self

    def _free(self):
        h, self._h = self._h, None
        if h is not None and h.value and lib is not None:
            lib.kcbp2d_model_free(h)

    def __del__(self):
        if getattr(self, "_h", None) is not None and not self._users:
            self._free()

    def _handle(self):
        return self._h

    @property
    def vertices(self) -> np.ndarray:
        v = getattr(self, "_verts", None)
        if v is None:
            with _Using(self):
                n = lib.kcbp2d_model_vertex_count(self._h)
                v = self._verts = c_array(lib.kcbp2d_model_vertices(self._h), (n, 2))
        return v.copy()

    @property
    def edges(self) -> np.ndarray:
        e = getattr(self, "_edges", None)
        if e is None:
            with _Using(self):
                n = lib.kcbp2d_model_vertex_count(self._h)
                e = self._edges = np.array([[i, lib.kcbp2d_model_edge_end(self._h, i)] for i in range(n)],
                                           dtype=np.int64).reshape(-1, 2)
        return e.copy()

    @property
    def rings(self) -> int:
        with _Using(self):
            return int(lib.kcbp2d_model_ring_count(self._h))

    @property
    def bounds(self) -> np.ndarray:
        with _Using(self):
            lo, hi = Vec2(), Vec2()
            lib.kcbp2d_model_bounds(self._h, byref(lo), byref(hi))
            return np.array([[lo.x, lo.y], [hi.x, hi.y]])

    def _local_box(self):
        box = getattr(self, "_box", None)
        if box is None:
            lo, hi = Vec2(), Vec2()
            lib.kcbp2d_model_bounds(self._h, byref(lo), byref(hi))
            box = self._box = (lo.x, lo.y, hi.x, hi.y)
        return box

    def _report(self):
        if self.closed:
            return {"closed": True}
        out = {"file": self._file} if self._file else {}
        with _Using(self):
            out["vertices"] = int(lib.kcbp2d_model_vertex_count(self._h))
            out["rings"] = int(lib.kcbp2d_model_ring_count(self._h))
        return out


def load2d(path: Union[str, bytes, "os.PathLike[str]"]) -> Polygon:
    """Polygon.load(path): a GeoJSON or SVG file as one region."""
    return Polygon.load(path)


def as_geometry2d(g, what):
    if isinstance(g, Geometry2D):
        return g
    if is_2d_path(g):
        return load2d(g)
    if is_geo_like(g):
        return Polygon(g)  # a shapely polygon, a GeoJSON dict: as kcbp.Polygon(g) reads it
    raise Error("%s must be a 2D geometry (kcbp.Polygon, Circle, Capsule2D, Rect, ConvexPolygon), a shapely-like "
                "polygon or GeoJSON dict, or a GeoJSON or SVG file, not %s" % (what, type(g).__name__))


# --- poses ----------------------------------------------------------------------

def _identity():
    p = Pose2()
    p.c = 1.0
    return p


def pose2d(p: Pose2Like, what: str = "pose") -> Pose2:
    """A kcbp2d_pose from None (identity), (tx, ty, degrees) or a 3x3
    homogeneous rigid matrix [[c, -s, tx], [s, c, ty], [0, 0, 1]]."""
    if p is None:
        _lib2d.types()
        return _identity()
    if type(p) in (tuple, list) and len(p) == 3 and _lib2d._t is not None and \
            all(isinstance(v, (float, int)) and type(v) is not bool for v in p):
        # the common case without numpy (set_transform's loop)
        out = Pose2()
        err = _lib.ErrorStruct()
        if lib.kcbp2d_pose_from_angle(float(p[0]), float(p[1]), float(p[2]), byref(out), byref(err)) != 0:
            raise Error("%s: %s" % (what, err.msg.decode("utf-8", "replace")))
        return out
    _lib2d.types()
    try:
        a, tol = _real_array(p, what, "(tx, ty, degrees) or a 3x3 matrix of real numbers")
    except (TypeError, ValueError) as e:
        if isinstance(e, Error):
            raise
        raise Error("%s: a 2D pose is (tx, ty, degrees) or a 3x3 matrix, not %r" % (what, p)) from None
    out = Pose2()
    err = _lib.ErrorStruct()
    if a.shape == (3,):
        st = lib.kcbp2d_pose_from_angle(float(a[0]), float(a[1]), float(a[2]), byref(out), byref(err))
        if st != 0:
            raise Error("%s: %s" % (what, err.msg.decode("utf-8", "replace")))
        return out
    if a.shape == (3, 3):
        if not np.all(np.isfinite(a)):
            raise Error("%s: a 3x3 pose must hold finite numbers" % what)
        if a[2, 0] != 0 or a[2, 1] != 0 or a[2, 2] != 1:
            raise Error("%s: the last row of a 3x3 pose must be 0 0 1" % what)
        r = a[:2, :2]
        dev = float(np.abs(r.T @ r - np.eye(2)).max())
        det = float(np.linalg.det(r))
        if dev > tol or det <= 0:
            raise Error("%s: not a rigid motion (max |R^T R - I| = %.3g, det R = %.6g; tolerance %g)" %
                        (what, dev, det, tol))
        st = lib.kcbp2d_pose_from_angle(float(a[0, 2]), float(a[1, 2]), 0.0, byref(out), byref(err))
        if st != 0:
            raise Error("%s: %s" % (what, err.msg.decode("utf-8", "replace")))
        if r[1, 1] == r[0, 0] and r[0, 1] == -r[1, 0] and tol <= RIGID_TOL:
            c, s = float(r[0, 0]), float(r[1, 0])  # the usual form: taken exactly
        else:
            c, s = (r[0, 0] + r[1, 1]) / 2, (r[1, 0] - r[0, 1]) / 2  # the nearest rotation
            h = math.hypot(c, s)
            c, s = float(c / h), float(s / h)
        out.c, out.s = c, s
        return out
    if a.shape in ((7,), (4, 4)):
        raise Error("%s: a 2D geometry takes a 2D pose, (tx, ty, degrees) or a 3x3 matrix, not a 3D pose "
                    "(%s)" % (what, "7 numbers" if a.shape == (7,) else "4x4"))
    raise Error("%s: a 2D pose is (tx, ty, degrees) or a 3x3 matrix, not shape %s" % (what, a.shape))


def matrix2d(p: Pose2) -> np.ndarray:
    """The 3x3 float64 matrix of a kcbp2d_pose."""
    return np.array([[p.c, -p.s, p.trans.x], [p.s, p.c, p.trans.y], [0.0, 0.0, 1.0]])


def pose2(translation: ArrayLike = (0.0, 0.0), degrees: float = 0.0) -> np.ndarray:
    """A rigid 2D pose as a 3x3 homogeneous matrix [[c, -s, tx], [s, c,
    ty], [0, 0, 1]], the angle in degrees counter-clockwise: c and s are
    the library's (kcbp2d_pose_from_angle: exact for multiples of 90
    degrees), so the matrix stands for exactly the pose (tx, ty, degrees)."""
    t = np.asarray(translation, dtype=np.float64)
    if t.shape != (2,):
        raise Error("pose2: translation must be 2 numbers, not shape %s" % (t.shape,))
    return matrix2d(pose2d((t[0], t[1], _number(degrees, "pose2: degrees")), "pose2"))


def apply(p: Pose2, pts: np.ndarray) -> np.ndarray:
    """Points moved by a pose with the library's rounding (pose2d.h: each
    operation rounded once, in its order)."""
    x, y = pts[:, 0], pts[:, 1]
    return np.stack([(p.c * x - p.s * y) + p.trans.x, (p.s * x + p.c * y) + p.trans.y], axis=1)


# --- pair queries -----------------------------------------------------------------

def _v2(v):
    return [v.x + 0.0, v.y + 0.0]


def _edge(i):
    return None if i == _UNSET else int(i)


def _swap_pair(a, b, pa, pb):
    """(a, b, pa, pb, swapped): a shape given first against a model is
    taken as B (the library's model-shape calls take the shape second)."""
    if not a.is_model and b.is_model:
        return b, a, pb, pa, True
    return a, b, pa, pb, False


def pair_collide(a, pa, b, pb, margin=0.0, contacts="none"):
    """(collide, [[edge_a, edge_b], ...], contained, decided_by, edge_pairs)
    in the caller's order; edge indices None on a shape's side."""
    t = _lib2d.types()
    err = _lib.ErrorStruct()
    if not a.is_model and not b.is_model:
        o = _lib2d.default_options(t.CollideOptions, "kcbp2d_collide_options_init") if not margin else None
        if o is None:
            o = _lib2d.options(t.CollideOptions, "kcbp2d_collide_options_init")
            o.margin = margin
        r = t.CollideResult()
        _lib.check(lib.kcbp2d_collide_sized(byref(a._s), byref(pa), byref(b._s), byref(pb), byref(o), byref(r),
                                            sizeof(r), byref(err)), err)
        pairs = [[None, None]] if r.collide and contacts != "none" else []
        return bool(r.collide), pairs, None, ("sat", "filter", "exact")[r.decided_by], None
    ma, mb, qa, qb, swap = _swap_pair(a, b, pa, pb)
    if not margin and contacts == "none":  # the manager's common case: shared, read-only defaults
        r = t.ModelCollideResult()
        o = _lib2d.default_options(t.ModelCollideOptions, "kcbp2d_model_collide_options_init")
        if mb.is_model:
            st = lib.kcbp2d_model_collide_sized(ma._h, byref(qa), mb._h, byref(qb), byref(o), byref(r), sizeof(r),
                                                byref(err))
        else:
            st = lib.kcbp2d_model_shape_collide_sized(ma._h, byref(qa), byref(mb._s), byref(qb), byref(o), byref(r),
                                                      sizeof(r), byref(err))
        _lib.check(st, err)
        contained = ("none", "a_in_b", "b_in_a")[r.contained]
        if swap and contained != "none":
            contained = "b_in_a" if contained == "a_in_b" else "a_in_b"
        return bool(r.collide), [], contained, None, int(r.edge_pairs)
    o = _lib2d.options(t.ModelCollideOptions, "kcbp2d_model_collide_options_init")
    o.margin = margin
    cap = {"none": 0, "first": 1}.get(contacts, 64)
    while True:
        buf = (ctypes.c_uint32 * (2 * max(cap, 1)))()
        o.contacts = ctypes.addressof(buf) if cap else None
        o.contacts_capacity = cap
        r = t.ModelCollideResult()
        if mb.is_model:
            st = lib.kcbp2d_model_collide_sized(ma._h, byref(qa), mb._h, byref(qb), byref(o), byref(r), sizeof(r),
                                                byref(err))
        else:
            st = lib.kcbp2d_model_shape_collide_sized(ma._h, byref(qa), byref(mb._s), byref(qb), byref(o), byref(r),
                                                      sizeof(r), byref(err))
        _lib.check(st, err)
        if contacts != "all" or not r.contacts_truncated or cap >= 1 << 30:
            break
        cap *= 8
    pairs = []
    for i in range(r.ncontacts):
        ea, eb = int(buf[2 * i]), (int(buf[2 * i + 1]) if mb.is_model else None)
        pairs.append([eb, ea] if swap else [ea, eb])
    contained = ("none", "a_in_b", "b_in_a")[r.contained]
    if swap and contained != "none":
        contained = "b_in_a" if contained == "a_in_b" else "a_in_b"
    return bool(r.collide), pairs, contained, None, int(r.edge_pairs)


def pair_distance(a, pa, b, pb):
    """Unsigned distance of two posed 2D geometries: (collide, distance,
    point_a, point_b, edge_a, edge_b, iterations-or-edge_pairs) in the
    caller's order; points None when they collide by containment alone."""
    t = _lib2d.types()
    err = _lib.ErrorStruct()
    if not a.is_model and not b.is_model:
        r = t.DistanceResult()
        _lib.check(lib.kcbp2d_distance_sized(byref(a._s), byref(pa), byref(b._s), byref(pb), None, byref(r),
                                             sizeof(r), byref(err)), err)
        return r.status != 0, r.distance, _v2(r.point_a), _v2(r.point_b), None, None, r
    ma, mb, qa, qb, swap = _swap_pair(a, b, pa, pb)
    r = t.ModelDistanceResult()
    if mb.is_model:
        st = lib.kcbp2d_model_distance_sized(ma._h, byref(qa), mb._h, byref(qb), byref(r), sizeof(r), byref(err))
    else:
        st = lib.kcbp2d_model_shape_distance_sized(ma._h, byref(qa), byref(mb._s), byref(qb), byref(r), sizeof(r),
                                                   byref(err))
    _lib.check(st, err)
    pts = (_v2(r.point_a), _v2(r.point_b)) if (not r.collide or r.edge_a != _UNSET) else (None, None)
    ea = _edge(r.edge_a)
    eb = _edge(r.edge_b) if mb.is_model else None
    if swap:
        return bool(r.collide), r.distance, pts[1], pts[0], eb, ea, r
    return bool(r.collide), r.distance, pts[0], pts[1], ea, eb, r


def pair_depth(a, pa, b, pb, directions=None, bisections=None, grid=None):
    """The certified depth bracket of two posed geometries, one a model (the
    library's kcbp2d_model_depth or _shape_depth): (collide, depth_lower,
    depth_upper, normal A toward B, lower_center) in the caller's order."""
    t = _lib2d.types()
    err = _lib.ErrorStruct()
    o = _lib2d.options(t.DepthOptions, "kcbp2d_model_depth_options_init")
    for name, v in (("directions", directions), ("bisections", bisections), ("grid", grid)):
        if v is not None:
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
                raise Error("%s must be a whole number, not %r" % (name, v))
            setattr(o, name, int(v))
    ma, mb, qa, qb, swap = _swap_pair(a, b, pa, pb)
    r = t.DepthResult()
    if mb.is_model:
        st = lib.kcbp2d_model_depth_sized(ma._h, byref(qa), mb._h, byref(qb), byref(o), byref(r), sizeof(r),
                                          byref(err))
    else:
        st = lib.kcbp2d_model_shape_depth_sized(ma._h, byref(qa), byref(mb._s), byref(qb), byref(o), byref(r),
                                                sizeof(r), byref(err))
    _lib.check(st, err)
    n = _v2(r.normal)
    if swap:  # the library moved the other one: the opposite way
        n = [-n[0] + 0.0, -n[1] + 0.0]
    return bool(r.collide), r.depth_lower, r.depth_upper, n, _v2(r.lower_center), r


def pair_signed(a, pa, b, pb):
    """(signed distance, point_a, point_b, edge_a, edge_b, normal, status)
    in the caller's order: for two shapes kcbp2d_distance's exact depth;
    with a model, minus the bracket's upper bound when they collide (the
    points are then where they meet, or None for containment), or 0 and
    "touching" when only their boundaries meet."""
    col, d, p_a, p_b, ea, eb, r = pair_distance(a, pa, b, pb)
    if not a.is_model and not b.is_model:
        status = lib.kcbp2d_distance_status_name(r.status).decode()
        if status == "overlapping":
            status = "penetrating"
        return r.signed_distance, p_a, p_b, ea, eb, _v2(r.normal), status
    if not col:
        dx, dy = p_b[0] - p_a[0], p_b[1] - p_a[1]
        length = math.hypot(dx, dy)
        return d, p_a, p_b, ea, eb, [dx / length, dy / length] if length > 0 else [0.0, 0.0], "apart"
    _, lower, upper, n, centre, r = pair_depth(a, pa, b, pb)
    if r.touching:  # the boundaries meet, the interiors do not: depth 0
        return 0.0, p_a, p_b, ea, eb, n, "touching"
    if p_a is None:  # one inside the other: the bracket's point inside both
        p_a = p_b = centre
    return -upper, p_a, p_b, ea, eb, n, "bracketed"


def _margin(m):
    try:
        m = float(m)
    except (TypeError, ValueError):
        raise Error("margin must be a number >= 0, not %r" % (m,)) from None
    if not (m >= 0 and math.isfinite(m)):
        raise Error("margin must be a finite number >= 0, not %r" % (m,))
    return m


def mixed_error(what, a, b):
    name = lambda g: ("a file" if isinstance(g, (str, bytes, os.PathLike))
                      else type(g).__module__.split(".")[0] + "." + type(g).__name__)
    da, db = ("2D" if is_2d(a) else "3D"), ("2D" if is_2d(b) else "3D")
    return Error("%s: a is %s (%s) but b is %s (%s): 2D and 3D geometries cannot be mixed" %
                 (what, da, name(a), db, name(b)))


def collide(a, b, pose_a=None, pose_b=None, contacts="none", margin=0.0) -> Report:
    """kcbp.collide for two 2D geometries (see kcbp.collide)."""
    if not (is_2d(a) and is_2d(b)):
        raise mixed_error("collide", a, b)
    if contacts not in ("none", "first", "all"):
        raise Error("contacts must be 'none', 'first' or 'all', not %r" % (contacts,))
    a, b = as_geometry2d(a, "a"), as_geometry2d(b, "b")
    pa, pb = pose2d(pose_a, "pose_a"), pose2d(pose_b, "pose_b")
    m = _margin(margin)
    with _Using(a, b):
        col, pairs, contained, how, edge_pairs = pair_collide(a, pa, b, pb, m, contacts)
        out = {"collide": col}
        if how is not None:
            out["decided_by"] = how
        out["contacts"] = pairs
        if contained is not None:
            out["contained"] = contained
        if m > 0:
            out["margin"] = m
        out["a"], out["b"] = a._report(), b._report()
        out["dimensions"] = 2
        if edge_pairs is not None:
            out["stats"] = {"edge_pairs": edge_pairs}
    return out


def distance(a, b, pose_a=None, pose_b=None, max_distance=None, signed=False) -> Report:
    """kcbp.distance for two 2D geometries (see kcbp.distance)."""
    if not (is_2d(a) and is_2d(b)):
        raise mixed_error("distance", a, b)
    a, b = as_geometry2d(a, "a"), as_geometry2d(b, "b")
    pa, pb = pose2d(pose_a, "pose_a"), pose2d(pose_b, "pose_b")
    md = math.inf if max_distance is None else float(max_distance)
    if not md >= 0:
        raise Error("max_distance must be a number >= 0, not %r" % (max_distance,))
    with _Using(a, b):
        col, d, p_a, p_b, ea, eb, r = pair_distance(a, pa, b, pb)
        if d > md:
            return {"within": False, "distance": None, "farther_than": md, "distance_lower": d, "dimensions": 2}
        out = {"within": True, "distance": d, "point_a": p_a, "point_b": p_b, "edges": [ea, eb]}
        shapes = not a.is_model and not b.is_model
        if signed:
            if shapes:
                status = lib.kcbp2d_distance_status_name(r.status).decode()
                out.update(status="penetrating" if status == "overlapping" else status, distance=r.signed_distance,
                           depth=r.depth, depth_lower=r.depth, depth_upper=r.depth, normal=_v2(r.normal),
                           translation=[r.normal.x * r.depth + 0.0, r.normal.y * r.depth + 0.0])
            elif col:
                _, lower, upper, n, centre, dr = pair_depth(a, pa, b, pb)
                depth = 0.0 if dr.touching else upper  # touching: only the boundaries meet (as the CLI)
                out.update(status="touching" if dr.touching else "bracketed", distance=-depth, depth=depth,
                           depth_lower=lower, depth_upper=upper, normal=n,
                           translation=[n[0] * upper + 0.0, n[1] * upper + 0.0])
                if lower > 0:
                    out["lower"] = {"center": centre, "radius_a": dr.lower_radius_a, "radius_b": dr.lower_radius_b}
            else:
                dx, dy = p_b[0] - p_a[0], p_b[1] - p_a[1]
                length = math.hypot(dx, dy)
                out.update(status="apart", depth=0.0, depth_lower=0.0, depth_upper=0.0,
                           normal=[dx / length, dy / length] if length > 0 else [0.0, 0.0], translation=[0.0, 0.0])
        out["dimensions"] = 2
        out["stats"] = {"gjk_iterations": int(r.iterations)} if shapes else {"edge_pairs": int(r.edge_pairs)}
    return out


def collide_many(a, b, poses, pose_a=None) -> np.ndarray:
    """kcbp.collide_many for two 2D geometries: poses an (n, 3) array of
    (tx, ty, degrees) or an (n, 3, 3) array of rigid matrices; an (n,)
    bool array (a loop over the exact pair test, in Python)."""
    if not (is_2d(a) and is_2d(b)):
        raise mixed_error("collide_many", a, b)
    a, b = as_geometry2d(a, "a"), as_geometry2d(b, "b")
    pa = pose2d(pose_a, "pose_a")
    p = np.asarray(poses)
    if p.dtype.kind not in "iuf" or not ((p.ndim == 2 and p.shape[1] == 3) or (p.ndim == 3 and p.shape[1:] == (3, 3))):
        raise Error("poses: expected an (n, 3) array of (tx, ty, degrees) or an (n, 3, 3) array of real numbers, "
                    "not %s of shape %s" % (p.dtype, p.shape))
    out = np.zeros(p.shape[0], dtype=bool)
    with _Using(a, b):
        for i in range(p.shape[0]):
            out[i] = pair_collide(a, pa, b, pose2d(p[i], "poses[%d]" % i))[0]
    return out


def _polygon_of_rings(polys):
    """A Polygon of [[exterior, hole, ...], ...] (Polygon.__reduce__)."""
    return Polygon({"type": "MultiPolygon", "coordinates": [[r.tolist() for r in p] for p in polys]})

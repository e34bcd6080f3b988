"""kcbp.CollisionManager2D: trimesh's CollisionManager methods for 2D
geometries (kcbp.Polygon, Circle, Capsule2D, Rect, ConvexPolygon).

trimesh's own CollisionManager is 3D only (FCL, 4x4 transforms); this class
has its methods, keywords, defaults, return forms and exceptions, with 2D
transforms (3x3 homogeneous rigid matrices, or (tx, ty, degrees)). It is a
class of its own, not kcbp.CollisionManager taking 2D objects too, because
one manager cannot hold both (a 2D and a 3D object have no answer
together), a 4x4 transform means nothing to a polygon, and the broad phase
is another: here the world boxes of the posed objects, swept along x in
numpy, then the exact pair queries of the 2D library (kcbp.collide's and
kcbp.distance's answers, pair by pair).
"""
from __future__ import annotations

import math
import threading
from typing import Any, Hashable, List, Optional, Tuple, Union

import numpy as np

from . import _api2d, _lib
from ._using import _Using
from ._api2d import Geometry2D, apply, matrix2d, pair_collide, pair_distance, pair_signed, pose2d
from ._lib import Error
from ._manager import ContactData, DistanceData

Transform2D = Optional[Union[np.ndarray, List[List[float]], Tuple[float, ...]]]
_NONE = -1  # a shape's side, as FCL's Contact::NONE
# The world box of a posed object is widened by this share of its local
# box's and its translation's magnitudes: far more than the rounding of the
# posed coordinates (a few ulps of those),
# so that the broad phase never drops a pair the exact test would keep.
_BOX_SLACK = 1e-12


def _feature(i):
    return _NONE if i is None else int(i)


def _geometry(g, what):
    if isinstance(g, Geometry2D):
        return g
    if _api2d.is_2d_path(g):
        return _api2d.load2d(g)
    if _api2d.is_geo_like(g):
        return _api2d.Polygon(g)  # a shapely polygon or multipolygon, a GeoJSON dict
    if isinstance(g, (list, tuple, np.ndarray)) and np.ndim(g) == 2 and np.shape(g)[1] == 2:
        return _api2d.Polygon(g)  # an (n, 2) ring of (x, y), as shapely's Polygon(shell) takes it
    raise _lib.WrongType("%s: expected a 2D geometry (kcbp.Polygon, Circle, Capsule2D, Rect, ConvexPolygon, a "
                         "shapely-like polygon, a GeoJSON dict or an (n, 2) ring), not %s%s" %
                         (what, type(g).__name__, " (a 3D geometry: use kcbp.CollisionManager)"
                          if hasattr(g, "_model") or hasattr(g, "faces") else ""))


def _transform(t, what="transform"):
    if t is not None and not isinstance(t, (tuple, list)):
        shape = getattr(t, "shape", None)
        if shape is not None and tuple(shape) not in ((3, 3), (3,)):
            raise Error("%s must be (3,3) (a 2D pose), not shape %s" % (what, tuple(shape)))
    return pose2d(t, what)


def _world_box(geom, pose):
    """(xmin, ymin, xmax, ymax) containing the posed geometry."""
    x0, y0, x1, y1 = geom._local_box()
    c, s, tx, ty = pose.c, pose.s, pose.trans.x, pose.trans.y
    xs = [(c * x - s * y) + tx for x, y in ((x0, y0), (x1, y0), (x1, y1), (x0, y1))]
    ys = [(s * x + c * y) + ty for x, y in ((x0, y0), (x1, y0), (x1, y1), (x0, y1))]
    lo_x, hi_x, lo_y, hi_y = min(xs), max(xs), min(ys), max(ys)
    # the posing's rounding is a few ulps of |local| + |translation|
    slack = _BOX_SLACK * (max(abs(x0), abs(x1), abs(y0), abs(y1)) + abs(tx) + abs(ty) + 1.0)
    return (lo_x - slack, lo_y - slack, hi_x + slack, hi_y + slack)


def _box_gap(b, c):
    """A lower bound of the distance between two boxes' contents."""
    dx = max(0.0, max(b[0], c[0]) - min(b[2], c[2]))
    dy = max(0.0, max(b[1], c[1]) - min(b[3], c[3]))
    return math.hypot(dx, dy)


def _overlap_pairs(boxes):
    """Index pairs (i < j in the input's order) of the boxes (an (n, 4)
    array) that overlap: sorted along x, then each box against those that
    start before it ends."""
    n = len(boxes)
    if n < 2:
        return []
    order = np.argsort(boxes[:, 0], kind="stable")
    b = boxes[order]
    ends = np.searchsorted(b[:, 0], b[:, 2], side="right")
    counts = np.maximum(ends - np.arange(1, n + 1), 0)
    total = int(counts.sum())
    if not total:
        return []
    k = np.repeat(np.arange(n), counts)
    first = np.cumsum(counts) - counts  # where each k's run starts
    j = k + 1 + (np.arange(total) - first[k])
    ok = (b[j, 1] <= b[k, 3]) & (b[j, 3] >= b[k, 1])
    i, jj = order[k[ok]], order[j[ok]]
    lo, hi = np.minimum(i, jj), np.maximum(i, jj)
    return list(zip(lo.tolist(), hi.tolist()))


def _cross_pairs(boxes_a, boxes_b):
    """(i, j) with box i of boxes_a overlapping box j of boxes_b."""
    if not len(boxes_a) or not len(boxes_b):
        return []
    a, b = boxes_a[:, None, :], boxes_b[None, :, :]
    ok = (a[..., 0] <= b[..., 2]) & (b[..., 0] <= a[..., 2]) & (a[..., 1] <= b[..., 3]) & (b[..., 1] <= a[..., 3])
    return [(int(i), int(j)) for i, j in zip(*np.nonzero(ok))]


# --- contact data ----------------------------------------------------------------

def _segments(geom, pose):
    """The posed edges of a geometry as an (m, 2, 2) array and the radius
    to add (a shape's core: a point, a segment, the rectangle's or
    polygon's edges)."""
    if geom.is_model:
        v = apply(pose, geom.vertices)
        e = geom.edges
        return np.stack([v[e[:, 0]], v[e[:, 1]]], axis=1), 0.0
    core = apply(pose, geom._core())
    if len(core) == 1:
        return np.stack([core, core], axis=1), geom.radius
    if len(core) == 2:
        return core[None, :, :], geom.radius
    return np.stack([core, np.roll(core, -1, axis=0)], axis=1), geom.radius


def _closest(p0, p1, q0, q1):
    """Closest points of segments p0p1 and q0q1 (double)."""
    d1, d2, r = p1 - p0, q1 - q0, p0 - q0
    a, e, f = d1 @ d1, d2 @ d2, d2 @ r
    if a <= 0 and e <= 0:
        return p0, q0
    if a <= 0:
        s, t = 0.0, min(max(f / e, 0.0), 1.0)
    else:
        c = d1 @ r
        if e <= 0:
            s, t = min(max(-c / a, 0.0), 1.0), 0.0
        else:
            b = d1 @ d2
            den = a * e - b * b
            s = min(max((b * f - c * e) / den, 0.0), 1.0) if den > 0 else 0.0
            t = (b * s + f) / e
            if t < 0:
                s, t = min(max(-c / a, 0.0), 1.0), 0.0
            elif t > 1:
                s, t = min(max((b - c) / a, 0.0), 1.0), 1.0
    return p0 + d1 * s, q0 + d2 * t


def _contacts(na, ga, pa, nb, gb, pb):
    """Every contact of a colliding pair (na first) as ContactData: per
    edge pair, the point midway between the two edges' closest points
    (where they cross, that point; a shape's side: its core's edge nearest
    the model's edge); normal and depth the pair's (pair_signed: exact for
    two shapes, the bracket's upper bound and direction with a region)."""
    col, pairs, contained, _, _ = pair_collide(ga, pa, gb, pb, 0.0, "all")
    if not col:
        return []
    s, p_a, p_b, _, _, normal, _ = pair_signed(ga, pa, gb, pb)
    depth = max(0.0, -s)
    normal = np.array(normal, dtype=np.float64)
    if not pairs or pairs == [[None, None]]:  # two shapes, or containment
        if p_a is not None and p_b is not None:
            point = (np.array(p_a) + np.array(p_b)) / 2
        else:  # one inside the other: a vertex of the inner one
            inner, ip = (ga, pa) if contained == "a_in_b" else (gb, pb)
            point = apply(ip, inner.vertices[:1] if inner.is_model else inner._core()[:1])[0]
        return [ContactData((na, nb), {na: _NONE, nb: _NONE}, point, normal, depth)]
    sa, _ = _segments(ga, pa)
    sb, _ = _segments(gb, pb)
    out = []
    for ea, eb in pairs:
        if ea is not None and eb is not None:
            x, y = _closest(sa[ea, 0], sa[ea, 1], sb[eb, 0], sb[eb, 1])
            point = (x + y) / 2
        else:  # a region's edge against a shape: the point of the edge nearest the shape's core
            seg, core = (sa[ea], sb) if ea is not None else (sb[eb], sa)
            best = None
            for c in core:
                x, y = _closest(seg[0], seg[1], c[0], c[1])
                d = float(np.hypot(*(x - y)))
                if best is None or d < best[0]:
                    best = (d, x)
            point = best[1]
        out.append(ContactData((na, nb), {na: _feature(ea), nb: _feature(eb)}, point, normal, depth))
    return out


class CollisionObject2D:
    """What add_object returns: ``name``, ``mesh`` (the 2D geometry) and its
    current ``transform`` (a 3x3 float64 copy)."""

    __slots__ = ("name", "mesh", "_manager")

    def __init__(self, name, mesh, manager):
        self.name, self.mesh, self._manager = name, mesh, manager

    @property
    def transform(self) -> np.ndarray:
        return matrix2d(self._manager._objs[self.name][1])

    def __repr__(self):
        return "kcbp.CollisionObject2D(%r, %r)" % (self.name, self.mesh)


class CollisionManager2D:
    """Many posed 2D geometries, with trimesh.collision.CollisionManager's
    methods, keywords, defaults, return forms and exceptions (as
    kcbp.CollisionManager in 3D):

    - ``add_object(name, mesh, transform=None)``: adds (replacing a name
      already present) and returns the object; mesh a kcbp.Polygon,
      Circle, Capsule2D, Rect, ConvexPolygon or a GeoJSON/SVG file name;
      transform a 3x3 homogeneous rigid matrix (None: identity; float64
      checked to 1e-9, float32 within its precision) or (tx, ty, degrees);
    - ``remove_object(name)``, ``set_transform(name, transform)``;
    - ``in_collision_internal(return_names=False, return_data=False)``,
      ``in_collision_single(mesh, transform=None, return_names=False,
      return_data=False)``, ``in_collision_other(other_manager,
      return_names=False, return_data=False)``;
    - ``min_distance_internal(name=None, return_names=False,
      return_data=False)``, ``min_distance_single(mesh, transform=None,
      return_name=False, return_data=False)``, ``min_distance_other(
      other_manager, return_names=False, return_data=False)``.

    Collisions are exact (the 2D library's exact tests on the posed
    coordinates; touching collides). Distances are signed as trimesh asks
    FCL for them: negative when two objects overlap, minus the depth (two
    convex shapes: the exact depth; with a Polygon: the upper bound of the
    certified bracket, a translation proven to separate them). ContactData
    and DistanceData are kcbp.CollisionManager's, with (2,) float64 points
    and normals and edge indices (-1 on a shape's side). With no pair to
    measure: math.inf, (None, None) (None for min_distance_single), None.
    ValueError (kcbp.Error) for unknown names, transforms that are not 2D
    rigid motions and 3D geometries. Calls from several threads take
    turns (a lock); the geometries are kept in use until removed."""

    def __init__(self) -> None:
        _api2d._lib2d.types()
        self._lock = threading.RLock()
        self._objs = {}  # name -> [geometry, Pose2, world box]
        self._closed = False

    # --- lifetime ---------------------------------------------------------------

    def __reduce__(self):
        """pickle and copies: a new manager of the same names, geometries and
        transforms (see CollisionManager.__reduce__); the default copy
        shared the objects' table, and closing the copy released the
        geometries the original still read (a crash)."""
        with self._lock:
            self._check_open()
            entries = [(name, o[0], _api2d.matrix2d(o[1])) for name, o in self._objs.items()]
        return (_rebuilt2d, (entries,))

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
            objs, self._objs = self._objs, {}
        for g, _, _ in objs.values():
            g._release()

    def __del__(self):
        try:
            if not getattr(self, "_closed", True):
                self.close()
        except Exception:
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    @property
    def closed(self) -> bool:
        return self._closed

    def _check_open(self):
        if self._closed:
            raise Error("kcbp.CollisionManager2D is closed", "closed")

    def __len__(self):
        return len(self._objs)

    def __contains__(self, name):
        return name in self._objs

    def __repr__(self):
        return "kcbp.CollisionManager2D(%s)" % ("closed" if self._closed else "%d objects" % len(self._objs))

    # --- objects ------------------------------------------------------------------

    def _entry(self, name, what):
        try:
            e = self._objs.get(name)
        except TypeError:  # unhashable: Python's TypeError, as trimesh's dict lookup raises it
            raise _lib.WrongType("%s: name must be hashable, not %r" % (what, name)) from None
        if e is None:
            raise Error("%s: %r not in collision manager!" % (what, name))
        return e

    def add_object(self, name: Hashable, mesh: Any, transform: Transform2D = None) -> CollisionObject2D:
        """Adds mesh at transform as the object named name (replacing one of
        that name); returns the object."""
        if name is None:
            raise Error("add_object: name must not be None")
        try:
            hash(name)
        except TypeError:
            raise _lib.WrongType("add_object: name must be hashable, not %r" % (name,)) from None
        pose = _transform(transform)
        geom = _geometry(mesh, "add_object")
        with self._lock:
            self._check_open()
            geom._acquire()
            try:
                box = _world_box(geom, pose)
            except BaseException:
                geom._release()
                raise
            old = self._objs.get(name)
            self._objs[name] = [geom, pose, box]
            if old is not None:
                old[0]._release()
        return CollisionObject2D(name, geom, self)

    def remove_object(self, name: Hashable) -> None:
        """Removes the object named name (ValueError if there is none)."""
        with self._lock:
            self._check_open()
            e = self._entry(name, "remove_object")
            del self._objs[name]
        e[0]._release()

    def set_transform(self, name: Hashable, transform: Transform2D) -> None:
        """Moves the object named name to transform."""
        with self._lock:
            self._check_open()
            e = self._entry(name, "set_transform")
            pose = _transform(transform)
            e[1], e[2] = pose, _world_box(e[0], pose)

    def _items(self):
        """[(name, geometry, pose, box)] in insertion order."""
        return [(n, e[0], e[1], e[2]) for n, e in self._objs.items()]

    def _snapshot(self):
        with self._lock:
            self._check_open()
            items = self._items()
            for _, g, _, _ in items:
                g._acquire()
            return items

    @staticmethod
    def _answer(result, names, data, return_names, return_data):
        if return_names and return_data:
            return result, names, data
        if return_names:
            return result, names
        if return_data:
            return result, data
        return result

    # --- collision ----------------------------------------------------------------

    @staticmethod
    def _boxes(items):
        return np.array([it[3] for it in items], dtype=np.float64).reshape(-1, 4)

    def in_collision_internal(self, return_names: bool = False, return_data: bool = False) -> Any:
        """Whether any two objects touch; with return_names the set of the
        (name1, name2) pairs (each sorted), with return_data the list of
        every contact (ContactData) last."""
        with self._lock:
            self._check_open()
            items = self._items()
            hit, names, data = False, set(), []
            for i, j in _overlap_pairs(self._boxes(items)):
                na, ga, pa, _ = items[i]
                nb, gb, pb, _ = items[j]
                if not pair_collide(ga, pa, gb, pb)[0]:
                    continue
                hit = True
                if not return_names and not return_data:
                    return True
                names.add((na, nb) if _le(na, nb) else (nb, na))
                if return_data:
                    data += _contacts(na, ga, pa, nb, gb, pb)
            return self._answer(hit, names, data, return_names, return_data)

    def in_collision_single(self, mesh: Any, transform: Transform2D = None, return_names: bool = False,
                            return_data: bool = False) -> Any:
        """Whether mesh at transform touches any object; with return_names
        the set of their names, with return_data the contacts (the mesh named
        "__external") last."""
        pose = _transform(transform)
        geom = _geometry(mesh, "in_collision_single")
        with _Using(geom), self._lock:
            self._check_open()
            items = self._items()
            box = np.array([_world_box(geom, pose)])
            hit, names, data = False, set(), []
            for i, _ in _cross_pairs(self._boxes(items), box):
                n, g, p, _ = items[i]
                if not pair_collide(g, p, geom, pose)[0]:
                    continue
                hit = True
                if not return_names and not return_data:
                    return True
                names.add(n)
                if return_data:
                    data += _contacts(n, g, p, "__external", geom, pose)
            return self._answer(hit, names, data, return_names, return_data)

    def in_collision_other(self, other_manager: "CollisionManager2D", return_names: bool = False,
                           return_data: bool = False) -> Any:
        """Whether an object of this manager touches one of other_manager;
        pairs (this manager's name, the other's)."""
        if not isinstance(other_manager, CollisionManager2D):
            raise _lib.WrongType("in_collision_other: other_manager must be a kcbp.CollisionManager2D, not %s" %
                        type(other_manager).__name__)
        theirs = other_manager._snapshot()
        try:
            with self._lock:
                self._check_open()
                mine = self._items()
                hit, names, data = False, set(), []
                for i, j in _cross_pairs(self._boxes(mine), self._boxes(theirs)):
                    na, ga, pa, _ = mine[i]
                    nb, gb, pb, _ = theirs[j]
                    if not pair_collide(ga, pa, gb, pb)[0]:
                        continue
                    hit = True
                    if not return_names and not return_data:
                        return True
                    names.add((na, nb))
                    if return_data:
                        data += _contacts(na, ga, pa, nb, gb, pb)
                return self._answer(hit, names, data, return_names, return_data)
        finally:
            for _, g, _, _ in theirs:
                g._release()

    # --- distance -------------------------------------------------------------------

    @staticmethod
    def _least(candidates):
        """The least signed distance over candidate pairs (na, ga, pa, nb,
        gb, pb, box gap): pairs visited by their boxes' gap, stopped once a
        gap exceeds the best distance; those that touch are then measured
        signed. Returns (distance, na, nb, fa, fb, point_a, point_b) or
        None."""
        best = None
        touching = []
        for na, ga, pa, nb, gb, pb, gap in sorted(candidates, key=lambda c: c[6]):
            if best is not None and gap > best[0]:
                break
            col, d, p_a, p_b, ea, eb, _ = pair_distance(ga, pa, gb, pb)
            if col:
                touching.append((na, ga, pa, nb, gb, pb))
                d = 0.0
            if best is None or d < best[0]:
                best = (d, na, nb, _feature(ea), _feature(eb), p_a, p_b)
        for na, ga, pa, nb, gb, pb in touching:
            s, p_a, p_b, ea, eb, _, _ = pair_signed(ga, pa, gb, pb)
            if s < best[0] or (s == best[0] and best[5] is None):
                best = (s, na, nb, _feature(ea), _feature(eb), p_a, p_b)
        return best

    @staticmethod
    def _data(best):
        d, na, nb, fa, fb, pa, pb = best
        pa = np.array(pa if pa is not None else [math.nan, math.nan], dtype=np.float64)
        pb = np.array(pb if pb is not None else pa, dtype=np.float64)
        return DistanceData((na, nb), {na: fa, nb: fb}, {na: pa, nb: pb}, d)

    def min_distance_internal(self, name: Optional[Hashable] = None, return_names: bool = False,
                              return_data: bool = False) -> Any:
        """The least (signed) distance between two objects (with name:
        between that object and the others); names sorted."""
        with self._lock:
            self._check_open()
            items = self._items()
            if name is not None:
                e = self._entry(name, "min_distance_internal")
                cands = [(name, e[0], e[1], n, g, p, _box_gap(e[2], b)) for n, g, p, b in items if n != name]
            else:
                cands = [(items[i][0], items[i][1], items[i][2], items[j][0], items[j][1], items[j][2],
                          _box_gap(items[i][3], items[j][3]))
                         for i in range(len(items)) for j in range(i + 1, len(items))]
            best = self._least(cands)
            if best is None:
                return self._answer(math.inf, (None, None), None, return_names, return_data)
            na, nb = best[1], best[2]
            names = (na, nb) if _le(na, nb) else (nb, na)
            return self._answer(best[0], names, self._data(best) if return_data else None, return_names,
                                return_data)

    def min_distance_single(self, mesh: Any, transform: Transform2D = None, return_name: bool = False,
                            return_data: bool = False) -> Any:
        """The least (signed) distance from mesh at transform to an object;
        with return_name that object's name; the mesh is "__external"."""
        pose = _transform(transform)
        geom = _geometry(mesh, "min_distance_single")
        with _Using(geom), self._lock:
            self._check_open()
            box = _world_box(geom, pose)
            best = self._least([(n, g, p, "__external", geom, pose, _box_gap(b, box)) for n, g, p, b in self._items()])
            if best is None:
                return self._answer(math.inf, None, None, return_name, return_data)
            return self._answer(best[0], best[1], self._data(best) if return_data else None, return_name,
                                return_data)

    def min_distance_other(self, other_manager: "CollisionManager2D", return_names: bool = False,
                           return_data: bool = False) -> Any:
        """The least (signed) distance between an object of this manager and
        one of other_manager; names (this manager's, the other's)."""
        if not isinstance(other_manager, CollisionManager2D):
            raise _lib.WrongType("min_distance_other: other_manager must be a kcbp.CollisionManager2D, not %s" %
                        type(other_manager).__name__)
        theirs = other_manager._snapshot()
        try:
            with self._lock:
                self._check_open()
                best = self._least([(na, ga, pa, nb, gb, pb, _box_gap(ba, bb)) for na, ga, pa, ba in self._items()
                                    for nb, gb, pb, bb in theirs])
                if best is None:
                    return self._answer(math.inf, (None, None), None, return_names, return_data)
                return self._answer(best[0], (best[1], best[2]), self._data(best) if return_data else None,
                                    return_names, return_data)
        finally:
            for _, g, _, _ in theirs:
                g._release()


def _le(a, b):
    """a <= b for names (of mixed types: by their text)."""
    try:
        return a <= b
    except TypeError:
        return str(a) <= str(b)


def _rebuilt2d(entries):
    """A CollisionManager2D of (name, geometry, 3x3 transform) entries."""
    cm = CollisionManager2D()
    for name, geom, matrix in entries:
        cm.add_object(name, geom, matrix)
    return cm

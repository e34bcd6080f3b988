"""Containment for kcbp.CollisionManager: a closed mesh holding another
object wholly inside it, with no surface contact.

trimesh hands FCL every convex mesh as a solid (fcl.Convex), so a small box
inside a big one collides there, with a negative signed distance; kcbp's
world compares surfaces. The manager therefore adds, to the surface hits of
each query, the pairs where one object is a closed mesh (a solid as
include/kcbp/solid.h defines it, vertices identified by their
coordinates: every edge of a triangle with three distinct vertices shared
by exactly two triangles, in opposite directions) holding the other: the
candidates are the pairs whose second object has a point (a mesh's first
vertex, a shape's centre, a hull's first vertex) inside the first's posed
box (a necessary condition), and each candidate is decided exactly by
kcbp.collide(..., solid=True) (kcbp_point_in_solid on a vertex of each).
A mesh that is open (its inside undefined) holds nothing, and an open mesh
inside a closed one is not tested (the solid test needs both closed)."""
from ctypes import byref

import numpy as np

from ._api import Mesh, _collide_in_use, _collide_options
from ._lib import Error, ErrorStruct, lib

_SLACK = 1e-9  # of the box's size: far above the rounding of the posed point


def info(geom):
    """(closed, local box, points) of a geometry, cached on it: closed for a
    closed, consistently oriented Mesh (every directed edge once, its
    reverse present); its box (widened; None unless a mesh); six points of
    the geometry (its extreme vertices along the axes; a shape's extreme
    points), all in its own frame. Read from the C mesh, so a mesh the
    manager holds may be closed by its user meanwhile (the manager calls
    this when the object is added)."""
    got = getattr(geom, "_kcbp_info", None)
    if got is not None:
        return got
    closed, box = False, None
    kind = getattr(geom, "kind", None)
    if isinstance(geom, Mesh):
        v, f = geom._vertices(), geom._faces().astype(np.int64)
        if hasattr(lib, "kcbp_mesh_check_solid"):
            # the library's own test (solid.h), the one its solid queries
            # apply: vertices identified by their coordinates (a triangle
            # soup, as STL files are, is closed when its edges pair up) and
            # triangles with a repeated vertex skipped; the test by index
            # here said "open" to both, and containment missed what the
            # depth queries then measured
            err = ErrorStruct()
            closed = lib.kcbp_mesh_check_solid(geom._mesh(), None, byref(err)) == 0
        else:
            n = np.int64(max(len(v), 1))
            a = np.concatenate([f[:, 0], f[:, 1], f[:, 2]])
            b = np.concatenate([f[:, 1], f[:, 2], f[:, 0]])
            key = a * n + b
            closed = bool(f.size) and np.unique(key).size == key.size and bool(np.all(np.isin(b * n + a, key)))
        # the box and the six points of the vertices the faces use: an
        # unreferenced vertex is no part of the solid (a far one made the
        # part's points fall outside the bin's box, and containment missed)
        v = v[np.unique(f)]
        lo, hi = v.min(axis=0), v.max(axis=0)
        slack = _SLACK * max(1.0, float(np.abs(np.concatenate([lo, hi])).max()))
        box = (lo - slack, hi + slack)
        pts = v[np.concatenate([v.argmin(axis=0), v.argmax(axis=0)])]
    elif kind == "hull":
        v = geom.vertices
        pts = v[np.concatenate([v.argmin(axis=0), v.argmax(axis=0)])] if len(v) else np.zeros((6, 3))
    else:
        if kind == "sphere":
            h = np.full(3, geom.radius)
        elif kind == "box":
            h = np.asarray(geom.size, dtype=np.float64) / 2
        elif kind == "capsule":
            h = np.array([geom.radius, geom.radius, geom.length / 2 + geom.radius])
        elif kind == "cylinder":
            h = np.array([geom.radius, geom.radius, geom.height / 2])
        else:
            h = np.zeros(3)  # unknown: its centre only (a necessary test still)
        pts = np.concatenate([-np.diag(h), np.diag(h)])
    got = (closed, box, np.ascontiguousarray(pts, dtype=np.float64).reshape(6, 3))
    try:
        geom._kcbp_info = got
    except AttributeError:
        pass
    return got


def _closed(geom):
    return info(geom)[0]


def any_closed(geoms):
    return any(_closed(g) for g in geoms)


def _solid_hit(ga, pa, gb, pb):
    """Whether the two collide as solids (kcbp_collide with solid: one
    inside the other counts); False when one cannot be a solid (open)."""
    try:
        return _collide_in_use(ga, gb, pa, pb, _collide_options("none", False, False, True), 0, True, 0.0,
                               False)["collide"]
    except Error as e:
        if e.code in ("geometry", "invalid"):
            return False
        raise


class Static:
    """What contained_pairs needs of a list of geometries that does not move
    (kept by the manager until an object is added or removed): the indices
    of the closed meshes, their local boxes and corners, and every
    geometry's six points."""

    def __init__(self, geoms):
        infos = [info(g) for g in geoms]
        self.cs = np.array([i for i, x in enumerate(infos) if x[0]], dtype=np.int64)
        self.local = np.stack([x[2] for x in infos]) if infos else np.zeros((0, 6, 3))
        if self.cs.size:
            self.lo = np.stack([infos[c][1][0] for c in self.cs])
            self.hi = np.stack([infos[c][1][1] for c in self.cs])
            self.centre = (self.lo + self.hi) / 2
            self.half = (self.hi - self.lo) / 2


def _world(objs, st):
    """Each object's rotation (n, 3, 3), translation (n, 3) and its six
    points in the world (n, 6, 3)."""
    flat = np.frombuffer(b"".join(bytes(p) for _, _, p in objs), dtype=np.float64).reshape(len(objs), 12)
    rot, t = flat[:, :9].reshape(-1, 3, 3), flat[:, 9:]
    return rot, t, np.matmul(st.local, rot.transpose(0, 2, 1)) + t[:, None, :]


def _candidates(st, rot, t, pts):
    """(container, other) index pairs: all six points of the other inside
    the container's posed box (first one point in the box's world bounds,
    then each point in the box, in the container's frame), all containers
    at once: O((m + n) log n) plus the candidates."""
    cs = st.cs
    r = rot[cs]
    mid = np.matmul(r, st.centre[:, :, None])[:, :, 0] + t[cs]
    ext = np.matmul(np.abs(r), st.half[:, :, None])[:, :, 0]
    ext += 1e-12 * (ext + np.abs(mid)).max(axis=1, keepdims=True)  # far above the rounding of the posing
    wlo, whi = mid - ext, mid + ext  # the posed box's bounds
    # one point of each inside the posed box's bounds first: the points
    # in rows of y (as tall as the tallest box), sorted by row then x; each
    # box's x range found by bisection in each row it meets (no m x n table)
    p0 = pts[:, 0, :]
    ylo = float(p0[:, 1].min())
    cell = max(float((whi[:, 1] - wlo[:, 1]).max()), 1e-300)
    xlo, span = float(p0[:, 0].min()), float(p0[:, 0].max() - p0[:, 0].min())
    # rows apart in the keys: a box's x range never reaches another row's keys
    big = span + max(0.0, float((xlo - wlo[:, 0]).max())) + max(0.0, float((whi[:, 0] - xlo).max())) + 1.0
    row = np.floor((p0[:, 1] - ylo) / cell)
    key = row * big + (p0[:, 0] - xlo)
    eps = 1e-12 * (float(row.max()) + 2.0) * big  # the keys' rounding, far over
    order = np.argsort(key, kind="stable")
    keys = key[order]
    r0 = np.floor((wlo[:, 1] - ylo) / cell)
    rows = int(max(1, np.max(np.floor((whi[:, 1] - ylo) / cell) - r0) + 1))
    a_all, j_all = [], []
    for k in range(rows):  # the rows a box meets: two, or three at most
        rk = r0 + k
        start = np.searchsorted(keys, rk * big + (wlo[:, 0] - xlo) - eps, "left")
        count = np.searchsorted(keys, rk * big + (whi[:, 0] - xlo) + eps, "right") - start
        a_all.append(np.repeat(np.arange(cs.size), count))
        j_all.append(order[np.repeat(start - (np.cumsum(count) - count), count) + np.arange(int(count.sum()))])
    a, j = np.concatenate(a_all), np.concatenate(j_all)
    keep = np.all((p0[j] >= wlo[a]) & (p0[j] <= whi[a]), axis=1)
    a, j = a[keep], j[keep]
    if not a.size:
        return []
    c = cs[a]
    q = np.matmul(pts[j] - t[c][:, None, :], rot[c])  # R^T (p - t), each point
    tol = (1e-12 * (np.abs(t[c]).max(axis=1) + np.abs(pts[j]).max(axis=(1, 2)) + 1.0))[:, None, None]
    ok = np.all((q >= st.lo[a][:, None, :] - tol) & (q <= st.hi[a][:, None, :] + tol), axis=(1, 2))
    return list(zip(c[ok].tolist(), j[ok].tolist()))


def contained_pairs(left, right, same=False, exclude=(), lstat=None, rstat=None):
    """The pairs (i, j) of left x right (i < j when same: one list) where one
    object holds the other wholly inside, not counting pairs in exclude
    (index pairs already touching). left and right are lists of (name,
    geom, pose); lstat and rstat their Static (made here when None). A
    closed mesh c can hold o only if o's six points lie in c's posed box;
    those pairs get the exact solid test."""
    if not left or not right:  # an empty manager on either side: nothing to hold
        return []
    lstat = lstat if lstat is not None else Static([g for _, g, _ in left])
    rstat = lstat if same else (rstat if rstat is not None else Static([g for _, g, _ in right]))
    if not lstat.cs.size and (same or not rstat.cs.size):
        return []
    lrot, lt, lpts = _world(left, lstat)
    rrot, rt, rpts = (lrot, lt, lpts) if same else _world(right, rstat)
    out, seen = [], set(exclude)

    def decide(i, j):
        if (i, j) in seen:
            return
        seen.add((i, j))
        if _solid_hit(left[i][1], left[i][2], right[j][1], right[j][2]):
            out.append((i, j))

    if lstat.cs.size:
        for i, j in _candidates(lstat, lrot, lt, rpts):
            if same and j == i:
                continue
            decide(*((i, j) if not same or i < j else (j, i)))
    if not same and rstat.cs.size:
        for j, i in _candidates(rstat, rrot, rt, lpts):
            decide(i, j)
    return out

"""Meshes, poses and pair queries (see the package docstring)."""
from __future__ import annotations

import ctypes
import math
import os
import threading
import time
from ctypes import byref, c_int, sizeof

import numpy as np

from . import _lib
from . import _api2d
from . import _sweep2d
from . import _meshcache
from ._arrays import RIGID_TOL, _real_array, c_array  # noqa: F401 (RIGID_TOL re-exported as kcbp.RIGID_TOL)
from ._using import _Using
from ._lib import Error, lib

from typing import Any, Dict, Optional, Sequence, Tuple, Union

# The types of the public API (PEP 561: the package ships py.typed).
ArrayLike = Union[np.ndarray, Sequence[Any]]
# A pose: None (identity), 7 numbers "tx ty tz ax ay az deg", or a 4x4 rigid
# matrix; for 2D geometries (tx, ty, degrees) or a 3x3 rigid matrix.
PoseLike = Union[None, np.ndarray, Sequence[float], Sequence[Sequence[float]]]
Geometry = Union["Mesh", "_Shape"]
GeometryLike = Union["Mesh", "_Shape", "_api2d.Geometry2D", str, bytes, "os.PathLike[str]"]
Report = Dict[str, Any]

_CONTACTS = {"none": 0, "first": 1, "all": 2}
_STAGES = {i: lib.kcbp_stage_name(i).decode() for i in range(3)}  # aabb, cbp, mesh
_DEFAULT_K = 16
_K_MIN = 4
_K_MAX = 4096  # KCBP_CBP_K_MAX


def _dirs(name):
    dirs = c_int()
    err = _lib.ErrorStruct()
    _lib.check(lib.kcbp_cbp_dirs_parse(str(name).encode(), byref(dirs), byref(err)), err)
    return dirs.value


def _model_options(k, dirs="greedy", solid=False):
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise Error("k must be a whole number (0: no k-CBP), not %r" % (k,))
    k = int(k)
    if k != 0 and not _K_MIN <= k <= _K_MAX:
        raise Error("k must be 0 (no k-CBP) or from %d to %d, not %d" % (_K_MIN, _K_MAX, k))
    o = _lib.ModelOptions()  # zeroed: k_fine 0, and any later member at 0
    o.k = k
    o.dirs = _dirs(dirs)
    if solid:
        if not hasattr(o, "solid"):
            raise Error("solid=True is not supported by this libkcbp (%s)" % _lib.VERSION, "unsupported")
        o.solid = True
    return o


class _Model:
    """Owns one kcbp_model (freed by free(), or with the object)."""

    __slots__ = ("s", "_free")

    def __init__(self):
        self.s = _lib.ModelStruct()
        self._free = False

    def free(self):
        if self._free:
            self._free = False
            lib.kcbp_model_free(byref(self.s))

    def __del__(self):
        if self._free and lib is not None:
            self.free()


class Mesh:
    """A triangle mesh and the models kcbp builds from it (AABB tree, k-CBP).

    ``Mesh(vertices, faces, k=16)``: vertices an (n, 3) array-like of finite
    floats, faces an (m, 3) array-like of 0-based vertex indices. The arrays
    are copied. ``k`` is the number of k-CBP planes of the model built now;
    a query asking for another k builds (and keeps) that model on first use.

    Attributes: ``vertices`` ((n, 3) float64 copy), ``faces`` ((m, 3)
    int64 copy, as trimesh's), ``degenerate`` (zero-area triangles, kept and counted),
    ``cbp_planes`` (of the k-CBP built with k), ``closed``.

    ``close()`` frees the C models now (``with kcbp.load(p) as m:`` closes
    at the end of the block); a closed mesh raises kcbp.Error (code
    "closed") on any use. A mesh may be shared by threads, and closed by any
    of them: queries running meanwhile finish on the models, which are freed
    when the last one ends."""

    def _init_state(self):
        self._lock = threading.Lock()        # guards _users and _closed
        self._build_lock = threading.Lock()  # one model build at a time
        self._users = 0
        self._closed = False
        self._models, self._reports = {}, {}

    def __init__(self, vertices: ArrayLike, faces: ArrayLike, k: int = _DEFAULT_K) -> None:
        self._init_state()
        try:
            v = np.asarray(vertices)
            f = np.asarray(faces)
            if v.dtype.kind not in "iuf":  # complex (the imaginary part would be dropped), objects, text
                raise Error("Mesh: vertices must be real numbers, not %s" % v.dtype)
            v = np.ascontiguousarray(v, dtype=np.float64)
        except (TypeError, ValueError) as e:
            if isinstance(e, Error):
                raise
            raise Error("Mesh: %s" % e) from None
        if v.ndim != 2 or v.shape[1] != 3 or v.shape[0] < 1:
            raise Error("Mesh: vertices must be an (n, 3) array with n >= 1, not shape %s" % (v.shape,))
        if f.ndim != 2 or f.shape[1] != 3 or f.shape[0] < 1:
            raise Error("Mesh: faces must be an (m, 3) array with m >= 1, not shape %s" % (f.shape,))
        if f.dtype.kind not in "iu":
            if f.dtype.kind == "f" and np.all(np.isfinite(f)) and np.all(f == np.floor(f)):
                f = f.astype(np.int64)
            else:
                raise Error("Mesh: faces must hold whole numbers (vertex indices), not %s" % f.dtype)
        if f.size and (f.min() < 0 or f.max() >= v.shape[0]):
            raise Error("Mesh: face indices must be in [0, %d), found %d .. %d" %
                        (v.shape[0], int(f.min()), int(f.max())))
        f = np.ascontiguousarray(f, dtype=np.uint32)  # the library's type; read back as int64
        self._build(k, v, f)

    @classmethod
    def _load(cls, path, k):
        self = cls.__new__(cls)
        self._init_state()
        m = _Model()
        err = _lib.ErrorStruct()
        opts = _model_options(k)
        st = lib.kcbp_model_load(byref(m.s), _lib.fsencode(path), byref(opts), byref(err))
        if st != 0 and not os.path.exists(path):  # kcbp's message ("...: cannot open: No such file ...")
            raise _lib.FileNotFound(err.msg.decode("utf-8", "replace"), os.fsdecode(path))
        _lib.check(st, err)
        m._free = True
        self._models[opts.k] = m
        self._k = opts.k
        return self

    # --- lifetime ---------------------------------------------------------

    def _acquire(self):
        # Explicit acquire/release: half the cost of `with` on this hot path.
        try:
            lock = self._lock
        except AttributeError:
            raise Error("kcbp.Mesh was not initialised (make one with kcbp.Mesh(...) or kcbp.load)",
                        "closed") from None
        lock.acquire()
        if self._closed:
            lock.release()
            raise Error("kcbp.Mesh is closed", "closed")
        self._users += 1
        lock.release()

    def _release(self):
        lock = self._lock
        lock.acquire()
        self._users -= 1
        models = self._take_models() if self._closed and not self._users else None
        lock.release()
        if models:
            _free_models(models)

    def _take_models(self):
        models, self._models = list(self._models.values()), {}
        return models

    def close(self) -> None:
        """Frees the mesh's C models (at once, or when the queries running in
        other threads end). Further use raises kcbp.Error; closing again does
        nothing."""
        lock = getattr(self, "_lock", None)
        if lock is None:
            return
        with lock:
            if self._closed:
                return
            self._closed = True
            models = self._take_models() if self._users == 0 else None
        _free_models(models)

    @property
    def closed(self) -> bool:
        return getattr(self, "_closed", True)

    def __reduce__(self):
        """pickle, copy.copy and copy.deepcopy: a new, independent Mesh of
        the same vertices, faces and k (its own C models, built again). The
        default copy shared the C models with separate use counts, so
        closing the copy freed what the original (or a manager holding it)
        still read. Readable while a query or manager still holds a mesh
        its user closed; a mesh freed already raises kcbp.Error."""
        with self._lock:
            if not self._models:
                raise Error("kcbp.Mesh is closed", "closed")
            self._users += 1
        try:
            v, f = self._vertices(), self._faces().astype(np.int64)
        finally:
            self._release()
        return (Mesh, (v, f, self._k))

    def __enter__(self):
        with _Using(self):
            return self

    def __exit__(self, *exc):
        self.close()

    # --- models -------------------------------------------------------------

    def _build(self, k, v, f, solid=False):
        opts = _model_options(k, solid=solid)
        err = _lib.ErrorStruct()
        mesh = ctypes.c_void_p()
        _lib.check(lib.kcbp_mesh_create(v.ctypes.data, v.shape[0], f.ctypes.data, f.shape[0], byref(mesh),
                                        byref(err)), err)
        m = _Model()
        # kcbp_model_build owns the mesh from here on, on failure too.
        _lib.check(lib.kcbp_model_build(byref(m.s), mesh, byref(opts), byref(err)), err)
        m._free = True
        self._models[(opts.k, True) if solid else opts.k] = m
        if not hasattr(self, "_k"):
            self._k = opts.k
        return m

    def _model(self, k=None, solid=False):
        """The kcbp_model with k planes, checked as a closed solid when solid
        is set (built and kept on first use). Only inside a _Using block."""
        if k is None:
            k = self._k
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
            raise Error("k must be a whole number (0: no k-CBP), not %r" % (k,))
        key = (int(k), True) if solid else int(k)
        m = self._models.get(key)
        if m is None:
            with self._build_lock:
                m = self._models.get(key)
                if m is None:
                    m = self._build(int(k), self._vertices(), self._faces(), solid)
        return m

    def _mesh(self):
        """The kcbp_mesh handle of the first model."""
        return lib.kcbp_model_mesh(byref(self._models[self._k].s))

    def _vertices(self):
        m = self._mesh()
        return c_array(lib.kcbp_mesh_vertices(m), (lib.kcbp_mesh_vertex_count(m), 3))

    def _faces(self):
        m = self._mesh()
        return c_array(lib.kcbp_mesh_triangles(m), (lib.kcbp_mesh_triangle_count(m), 3), np.uint32)

    @property
    def vertices(self) -> np.ndarray:
        with _Using(self):
            return self._vertices()

    @property
    def faces(self) -> np.ndarray:
        with _Using(self):
            return self._faces().astype(np.int64)

    @property
    def degenerate(self) -> int:
        with _Using(self):
            return int(lib.kcbp_mesh_degenerate_count(self._mesh()))

    @property
    def cbp_planes(self) -> int:
        with _Using(self):
            c = lib.kcbp_model_cbp(byref(self._models[self._k].s))
            return int(lib.kcbp_cbp_plane_count(c)) if c else 0

    def __len__(self):
        with _Using(self):
            return int(lib.kcbp_mesh_triangle_count(self._mesh()))

    def __repr__(self):
        try:
            with _Using(self):
                m = self._mesh()
                return "kcbp.Mesh(%d vertices, %d triangles, k=%d)" % (
                    lib.kcbp_mesh_vertex_count(m), lib.kcbp_mesh_triangle_count(m), self._k)
        except Error:
            return "kcbp.Mesh(closed)"

    def _report(self, k):
        """The CLI's "a"/"b" entry (a new dict each time; built once per k)."""
        cached = self._reports.get(k)
        if cached is None:
            cached = self._reports[k] = self._make_report(k)
        return dict(cached)

    def _make_report(self, k):
        s = self._model(k).s
        m, c = lib.kcbp_model_mesh(byref(s)), lib.kcbp_model_cbp(byref(s))
        out = {"vertices": int(lib.kcbp_mesh_vertex_count(m)), "triangles": int(lib.kcbp_mesh_triangle_count(m)),
               "degenerate_triangles": int(lib.kcbp_mesh_degenerate_count(m))}
        if c:
            out["cbp_planes"] = int(lib.kcbp_cbp_plane_count(c))
            out["cbp_vertices"] = int(lib.kcbp_cbp_vertex_count(c))
        return out


def _free_models(models):
    for m in models or ():
        m.free()


_SHAPE_KINDS = {1: "sphere", 2: "capsule", 3: "box", 4: "cylinder", 5: "hull"}


class _Shape:
    """What the four shapes share (see Sphere): one C model, built when made
    (in constant time), used by every pair function as a kcbp.Mesh's models
    are; close() frees it, as Mesh.close() frees a mesh's."""

    _kind = 0

    def _init_shape(self, radius=0.0, length=0.0, size=(0.0, 0.0, 0.0)):
        self._lock = threading.Lock()
        self._users = 0
        self._closed = False
        if not _lib.HAS_SHAPES:
            raise Error("shapes are not supported by this libkcbp (%s)" % _lib.VERSION, "unsupported")
        s = _lib.ShapeStruct()
        s.kind = self._kind
        try:
            s.radius, s.length = float(radius), float(length)
            s.size = _lib.Vec3(*(float(x) for x in size))
        except (TypeError, ValueError):
            raise Error("%s: expected numbers, not %r" % (type(self).__name__, (radius, length, size))) from None
        err = _lib.ErrorStruct()
        m = _Model()
        _lib.check(lib.kcbp_model_build_shape(byref(m.s), byref(s), byref(err)), err)
        m._free = True
        self._m, self._s = m, s

    # --- lifetime (as Mesh's) ---------------------------------------------

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
            m = self._m if self._closed and not self._users else None
        if m is not None:
            m.free()

    def close(self) -> None:
        """Frees the shape's C model (at once, or when the queries running in
        other threads end). Further use raises kcbp.Error; closing again does
        nothing."""
        lock = getattr(self, "_lock", None)
        if lock is None:
            return
        with lock:
            if self._closed:
                return
            self._closed = True
            m = self._m if self._users == 0 else None
        if m is not None:
            m.free()

    @property
    def closed(self) -> bool:
        return getattr(self, "_closed", True)

    def __enter__(self):
        with _Using(self):
            return self

    def __exit__(self, *exc):
        self.close()

    # --- what the pair functions read --------------------------------------

    def _model(self, k=None, solid=False):
        """The shape's model, whatever k (a shape has no k-CBP: it is its own
        convex bound) and solid (a shape is a solid)."""
        if k is not None and (isinstance(k, bool) or not isinstance(k, (int, np.integer))):
            raise Error("k must be a whole number (0: no k-CBP), not %r" % (k,))
        return self._m

    def _report(self, k=None):
        """The CLI's "a"/"b" entry for a shape."""
        out = {"shape": self.kind}
        if self._kind == 3:
            out["size"] = list(self.size)
        else:
            out["radius"] = self._s.radius
            if self._kind in (2, 4):  # capsule, cylinder: as shape.h and the scene files name them
                out["length" if self._kind == 2 else "height"] = self._s.length
        return out

    @property
    def kind(self) -> str:
        """"sphere", "capsule", "box" or "cylinder"."""
        return _SHAPE_KINDS[self._kind]

    def tessellate(self, segments: int = 48) -> Tuple[np.ndarray, np.ndarray]:
        """The shape's surface as triangles, for display only (the queries
        use the exact shape): (vertices, faces), an (n, 3) float64 array on
        the surface and an (m, 3) int64 array, ready for kcbp.Mesh or a
        viewer. segments: the sides of a circle (3 to 1024)."""
        if isinstance(segments, bool) or not isinstance(segments, (int, np.integer)) or not 3 <= segments <= 1024:
            raise Error("segments must be a whole number from 3 to 1024, not %r" % (segments,))
        out = ctypes.c_void_p()
        err = _lib.ErrorStruct()
        _lib.check(lib.kcbp_shape_tessellate(byref(self._s), int(segments), byref(out), byref(err)), err)
        try:
            v = c_array(lib.kcbp_mesh_vertices(out), (lib.kcbp_mesh_vertex_count(out), 3))
            f = c_array(lib.kcbp_mesh_triangles(out), (lib.kcbp_mesh_triangle_count(out), 3),
                        np.uint32).astype(np.int64)
        finally:
            lib.kcbp_mesh_free(out)
        return v, f

    def __repr__(self):
        r = self._report()
        state = "" if not self.closed else ", closed"
        return "kcbp.%s(%s%s)" % (type(self).__name__, ", ".join("%s=%r" % kv for kv in r.items() if kv[0] != "shape"),
                                  state)


class Sphere(_Shape):
    """A sphere of the given radius, centred at the origin of its own frame
    (FCL's Sphere). Like every shape, a solid: a mesh whose triangles meet it
    collides with it (a mesh wholly inside it included), while a shape wholly
    inside a closed mesh does not unless tested as solids (solid=True, the
    mesh closed). Decided exactly: its centre within radius of a triangle.
    Accepted wherever a kcbp.Mesh is by collide, collide_many, distance and
    sweep; the shape's side of a contact or of a closest-point pair is None."""

    _kind = 1

    def __reduce__(self):  # pickle and copies: a new shape of the same size (see Mesh.__reduce__)
        return (Sphere, (self.radius,))

    def __init__(self, radius: float) -> None:
        self._init_shape(radius=radius)

    @property
    def radius(self) -> float:
        return self._s.radius


class Capsule(_Shape):
    """A capsule: the points within radius of the segment from (0, 0,
    -length/2) to (0, 0, length/2) of its own frame (FCL's Capsule: length is
    the cylindrical part's; the total length is length + 2 radius). Decided
    exactly: its segment within radius of a triangle. See Sphere."""

    _kind = 2

    def __reduce__(self):  # pickle and copies: a new shape of the same size (see Mesh.__reduce__)
        return (Capsule, (self.radius, self.length))

    def __init__(self, radius: float, length: float) -> None:
        self._init_shape(radius=radius, length=length)

    @property
    def radius(self) -> float:
        return self._s.radius

    @property
    def length(self) -> float:
        return self._s.length


class Box(_Shape):
    """A box of full side lengths x, y, z, centred at the origin of its own
    frame, axis-aligned in it (FCL's Box). Decided exactly (the mesh's
    triangles carried into the box's frame). See Sphere."""

    _kind = 3

    def __reduce__(self):  # pickle and copies: a new shape of the same size (see Mesh.__reduce__)
        return (Box, tuple(self.size))

    def __init__(self, x: float, y: float, z: float) -> None:
        self._init_shape(size=(x, y, z))

    @property
    def size(self) -> Tuple[float, float, float]:
        return (self._s.size.x, self._s.size.y, self._s.size.z)


class Cylinder(_Shape):
    """A cylinder of the given radius and height along z, centred at the
    origin of its own frame (FCL's Cylinder). Decided by GJK on its support
    function: a gap within 1e-9 of the pair's scale counts as touching
    (KCBP_SHAPE_GJK_BAND). See Sphere."""

    _kind = 4

    def __reduce__(self):  # pickle and copies: a new shape of the same size (see Mesh.__reduce__)
        return (Cylinder, (self.radius, self.height))

    def __init__(self, radius: float, height: float) -> None:
        self._init_shape(radius=radius, length=height)

    @property
    def radius(self) -> float:
        return self._s.radius

    @property
    def height(self) -> float:
        return self._s.length

    length = height


class Hull(_Shape):
    """The convex hull of points (an (n, 3) array-like of finite numbers,
    n >= 4 not all in a plane), in the points' own frame: a convex solid
    built by qhull (kcbp_model_build_hull), tested by GJK on its vertices
    within 1e-9 of the pair's scale, as Cylinder. ``vertices``: the hull's
    vertices ((h, 3) float64). Taken wherever a shape is; trimesh's
    CollisionManager hands FCL a convex mesh as such a hull."""

    _kind = 5

    def __reduce__(self):  # pickle and copies: a new shape of the same size (see Mesh.__reduce__)
        return (Hull, (self.vertices,))

    def __init__(self, points: ArrayLike) -> None:
        self._lock = threading.Lock()
        self._users = 0
        self._closed = False
        if not _lib.HAS_HULL:
            raise Error("Hull is not supported by this libkcbp (%s)" % _lib.VERSION, "unsupported")
        try:
            p, _ = _real_array(points, "Hull: points")
        except (TypeError, ValueError) as e:
            if isinstance(e, Error):
                raise
            raise Error("Hull: points must be an (n, 3) array of numbers") from None
        if p.ndim != 2 or p.shape[1] != 3 or p.shape[0] < 1:
            raise Error("Hull: points must be an (n, 3) array, not shape %s" % (p.shape,))
        p = np.ascontiguousarray(p)
        err = _lib.ErrorStruct()
        m = _Model()
        _lib.check(lib.kcbp_model_build_hull(byref(m.s), p.ctypes.data, p.shape[0], byref(err)), err)
        m._free = True
        self._m, self._s = m, None

    @property
    def vertices(self) -> np.ndarray:
        with _Using(self):
            n = ctypes.c_uint32()
            ptr = lib.kcbp_model_hull_vertices(byref(self._m.s), byref(n))
            if not n.value:
                return np.zeros((0, 3))
            return c_array(ptr, (n.value, 3))

    def _report(self, k=None):
        return {"shape": "hull", "vertices": int(len(self.vertices))}

    def tessellate(self, segments: int = 48) -> Tuple[np.ndarray, np.ndarray]:
        """The hull's facets as triangles: (vertices, faces), float64 and
        int64 arrays (segments is ignored: a hull has no curved side)."""
        with _Using(self):
            mesh = lib.kcbp_model_display_mesh(byref(self._m.s))
            if not mesh:
                raise Error("Hull.tessellate: out of memory", "nomem")
            v = c_array(lib.kcbp_mesh_vertices(mesh), (lib.kcbp_mesh_vertex_count(mesh), 3))
            f = c_array(lib.kcbp_mesh_triangles(mesh), (lib.kcbp_mesh_triangle_count(mesh), 3),
                        np.uint32).astype(np.int64)
        return v, f


def load(path: Union[str, bytes, "os.PathLike[str]"], k: int = _DEFAULT_K) -> Mesh:
    """Reads a mesh file (every format libkcbp reads: OBJ, STL, PLY, OFF,
    glTF) and builds its model with a k-CBP of k planes (0: none). Errors
    are kcbp.Error (a ValueError) with the reader's "file:line: problem"
    message; a file that does not exist raises kcbp.FileNotFound, which is
    also the built-in FileNotFoundError. A .geojson or .svg file is 2D:
    kcbp.Error names kcbp.load2d, which reads it."""
    if _api2d.is_2d_path(path):
        raise Error("%s: a 2D file (GeoJSON or SVG): kcbp.load reads 3D meshes; kcbp.load2d (or kcbp.Polygon.load) "
                    "reads it" % os.fsdecode(os.fspath(path)))
    return Mesh._load(path, k)


def _as_mesh(m, what):
    if isinstance(m, (Mesh, _Shape)):
        return m
    if _api2d.is_2d(m):
        raise Error("%s is 2D (%s): this function takes 3D geometries (kcbp.collide and kcbp.distance take 2D "
                    "ones, both 2D)" % (what, "kcbp." + type(m).__name__ if isinstance(m, _api2d.Geometry2D)
                                        else "a GeoJSON or SVG file"))
    if isinstance(m, (str, bytes, os.PathLike)):
        return load(m)
    v, f = getattr(m, "vertices", None), getattr(m, "faces", None)
    if v is not None and f is not None:
        # a trimesh.Trimesh (or anything with vertices and faces arrays), as
        # kcbp.CollisionManager takes it: copied into a kcbp.Mesh (kept for
        # the next call with the same arrays)
        return _meshcache.mesh_of(v, f, Mesh)
    raise _lib.WrongType("%s must be a kcbp.Mesh, a shape (kcbp.Sphere, Capsule, Box, Cylinder), a mesh file path "
                         "or have vertices and faces arrays (a trimesh.Trimesh), not %s" % (what, type(m).__name__))


def _index(i):
    """A triangle index of a report: None for a shape's side."""
    return None if i == _lib.SHAPE_FEATURE else int(i)


def _poses7_into(values, out):
    """Fills the Pose array `out` from an (n, 7) float64 array, in C (the
    rounding of kcbp_pose_from_axis_angle, as the CLI's pose files)."""
    err = _lib.ErrorStruct()
    values = np.ascontiguousarray(values, dtype=np.float64)
    _lib.check(lib.kcbp_poses_from_axis_angle(values.ctypes.data, values.shape[0], ctypes.addressof(out),
                                              byref(err)), err)


def _orthonormalise(m, tol):
    """For matrices given in less than double precision (tol > RIGID_TOL):
    each 4x4 whose rotation is within tol of a rotation (and has the last
    row 0 0 0 1, finite numbers, det R > 0) gets the nearest rotation (the
    polar factor U V^T of R's SVD), so that the library's exact check
    passes; the others are left for it to refuse with its message."""
    m = np.array(m, dtype=np.float64)
    r = m[:, :3, :3]
    if not np.all(np.isfinite(m)):
        return m
    dev = np.abs(np.einsum("nji,njk->nik", r, r) - np.eye(3)).max(axis=(1, 2))
    fix = (dev > RIGID_TOL) & (dev <= tol) & (np.linalg.det(r) > 0)
    if np.any(fix):
        u, _, vt = np.linalg.svd(r[fix])
        m[fix, :3, :3] = u @ vt
    return m


def _matrices_into(m, out, what, tol=RIGID_TOL):
    """Fills `out` from an (n, 4, 4) array of rigid matrices, checked as the
    command line's "matrix" poses are (kcbp_poses_from_matrices: the same
    test, the same tolerance, the numbers taken exactly). tol above
    RIGID_TOL (float32 input): rotations within tol are orthonormalised
    first."""
    m = np.ascontiguousarray(m, dtype=np.float64)
    room = ctypes.sizeof(out) // ctypes.sizeof(_lib.Pose)
    if m.ndim != 3 or m.shape[1:] != (4, 4) or m.shape[0] > room:
        # never hand the library a count beyond out's room or the data
        raise Error("%s: expected up to %d 4x4 matrices, not shape %s" % (what, room, m.shape))
    if tol > RIGID_TOL:
        m = _orthonormalise(m, tol)
    if _lib.HAS_POSE_FORMS:
        err = _lib.ErrorStruct()
        if lib.kcbp_poses_from_matrices(m.ctypes.data, m.shape[0], 16, ctypes.addressof(out), byref(err)) != 0:
            msg = err.msg.decode("utf-8", "replace")
            if m.shape[0] == 1 and msg.startswith("pose 0: "):
                msg = msg[len("pose 0: "):]
            raise Error("%s: %s" % (what, msg), lib.kcbp_status_name(err.code).decode())
        return
    # An older libkcbp without kcbp_poses_from_matrices: the same test in numpy.
    if not np.all(np.isfinite(m)):
        raise Error("%s: a 4x4 pose must hold finite numbers" % what)
    if np.any(m[:, 3, :] != np.array([0.0, 0.0, 0.0, 1.0])):
        raise Error("%s: the last row of a 4x4 pose must be 0 0 0 1" % what)
    r = m[:, :3, :3]
    dev = np.abs(np.einsum("nji,njk->nik", r, r) - np.eye(3)).max(axis=(1, 2))
    bad = np.nonzero((dev > RIGID_TOL) | (np.linalg.det(r) <= 0))[0]
    if bad.size:
        i = int(bad[0])
        raise Error("%s: pose %d is not a rigid motion (max |R^T R - I| = %.3g, det R = %.6g; tolerance %g)" %
                    (what, i, dev[i], np.linalg.det(r[i]), RIGID_TOL))
    flat = np.frombuffer(out, dtype=np.float64).reshape(m.shape[0], 12)
    flat[:, :9] = r.reshape(-1, 9)
    flat[:, 9:] = m[:, :3, 3]


def _pose(p, what):
    """A Pose from None (identity), 7 numbers or a 4x4 rigid matrix."""
    out = _lib.Pose()
    if p is None:
        out.rot[0] = out.rot[4] = out.rot[8] = 1.0
        return out
    if type(p) in (tuple, list) and len(p) == 7:
        # The common case without numpy (a few microseconds less per call).
        try:
            vals = (ctypes.c_double * 7)(*p)
        except TypeError:
            vals = None
        if vals is not None:
            err = _lib.ErrorStruct()
            if lib.kcbp_poses_from_axis_angle(ctypes.addressof(vals), 1, ctypes.addressof(out), byref(err)) != 0:
                raise Error(what + err.msg.decode("utf-8", "replace")[len("pose 0"):])
            return out
    try:
        a, tol = _real_array(p, what, "7 numbers (tx ty tz ax ay az deg) or a 4x4 matrix of real numbers")
    except (TypeError, ValueError) as e:
        if isinstance(e, Error):
            raise
        raise Error("%s: expected 7 numbers (tx ty tz ax ay az deg) or a 4x4 matrix (kcbp.pose makes one), "
                    "not %r" % (what, p)) from None
    if a.shape == (7,):
        try:
            _poses7_into(a.reshape(1, 7), out)
        except Error as e:
            raise Error(what + str(e)[len("pose 0"):], e.code) from None
    elif a.shape == (4, 4):
        _matrices_into(a.reshape(1, 4, 4), out, what, tol)
    else:
        raise Error("%s: expected 7 numbers (tx ty tz ax ay az deg) or a 4x4 matrix (kcbp.pose makes one), "
                    "not shape %s" % (what, a.shape))
    return out


def _matrix_of(p):
    """The 4x4 float64 matrix of a Pose."""
    m = np.eye(4)
    m[:3, :3] = np.frombuffer(p.rot, dtype=np.float64).reshape(3, 3)
    m[:3, 3] = (p.trans.x, p.trans.y, p.trans.z)
    return m


def _numbers(x, n, what):
    try:
        a = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError):
        raise Error("%s: expected %d numbers, not %r" % (what, n, x)) from None
    if a.shape != (n,):
        raise Error("%s: expected %d numbers, not shape %s" % (what, n, a.shape))
    return [float(v) for v in a]


def pose(translation: ArrayLike = (0.0, 0.0, 0.0), quaternion: Optional[ArrayLike] = None,
         rotation: Optional[ArrayLike] = None, axis: Optional[ArrayLike] = None,
         degrees: Optional[float] = None) -> np.ndarray:
    """A rigid pose as a 4x4 matrix (world = R @ local + t), the form every
    pose argument of kcbp takes (and trimesh's transforms are). The rotation
    is one of:

    - ``quaternion=(w, x, y, z)``: w first (as Eigen, FCL and trimesh write
      it), unit to within 1e-6, else kcbp.Error (never normalised silently);
      R is that of q/|q| by the formula of include/kcbp/pose.h, computed by
      the library: the same matrix as the command line's "quat tx ty tz qw qx
      qy qz", to the bit;
    - ``rotation=R``: a 3x3 rotation, checked (max |R^T R - I| <= 1e-9, det R
      > 0) and taken exactly, as a "matrix" pose;
    - ``axis=(x, y, z), degrees=a``: a turn of a degrees about the axis
      (normalised), the plain "tx ty tz ax ay az deg" pose;
    - none of them: no rotation.
    """
    t = _numbers(translation, 3, "pose: translation")
    forms = (quaternion is not None) + (rotation is not None) + (axis is not None or degrees is not None)
    if forms > 1:
        raise Error("pose: give one rotation: quaternion=(w, x, y, z), rotation=3x3, or axis= with degrees=")
    out = _lib.Pose()
    err = _lib.ErrorStruct()
    if (quaternion is not None or rotation is not None) and not _lib.HAS_POSE_FORMS:
        raise Error("pose: quaternions and rotation matrices need a newer libkcbp than %s" % _lib.VERSION,
                    "unsupported")
    if quaternion is not None:
        q = _numbers(quaternion, 4, "pose: quaternion (w, x, y, z)")
        st = lib.kcbp_pose_from_quat(_lib.Vec3(*t), q[0], q[1], q[2], q[3], byref(out), byref(err))
    elif rotation is not None:
        try:
            r = np.asarray(rotation, dtype=np.float64)
        except (TypeError, ValueError):
            raise Error("pose: rotation must be a 3x3 matrix, not %r" % (rotation,)) from None
        if r.shape != (3, 3):
            raise Error("pose: rotation must be a 3x3 matrix, not shape %s" % (r.shape,))
        m = np.ascontiguousarray(np.hstack([r, np.array(t).reshape(3, 1)]))
        st = lib.kcbp_pose_from_matrix(m.ctypes.data, 12, byref(out), byref(err))
    elif axis is not None or degrees is not None:
        if axis is None or degrees is None:
            raise Error("pose: axis= and degrees= go together")
        v = (ctypes.c_double * 7)(*(t + _numbers(axis, 3, "pose: axis") + _numbers([degrees], 1, "pose: degrees")))
        st = lib.kcbp_poses_from_axis_angle(ctypes.addressof(v), 1, ctypes.addressof(out), byref(err))
        if st != 0:
            msg = err.msg.decode("utf-8", "replace")
            raise Error("pose: " + (msg[len("pose 0: "):] if msg.startswith("pose 0: ") else msg))
    else:
        m = np.eye(4)
        m[:3, 3] = t
        _matrices_into(m.reshape(1, 4, 4), out, "pose")
        st = 0
    if st != 0:
        raise Error("pose: " + err.msg.decode("utf-8", "replace"), lib.kcbp_status_name(st).decode())
    return _matrix_of(out)


def _vec(v):
    return [v.x, v.y, v.z]


def _collide_options(contacts, use_cbp, measure, solid):
    if contacts not in _CONTACTS:
        raise Error("contacts must be 'none', 'first' or 'all', not %r" % (contacts,))
    o = _lib.CollideOptions()
    o.contacts = _CONTACTS[contacts]
    o.use_cbp = use_cbp
    o.cbp_measure = measure
    if solid:
        if not hasattr(o, "solid"):
            raise Error("solid=True is not supported by this libkcbp (%s)" % _lib.VERSION, "unsupported")
        o.solid = True
    return o


def _check_margin(margin):
    try:
        margin = float(margin)
    except (TypeError, ValueError):
        raise Error("margin must be a number >= 0, not %r" % (margin,)) from None
    if not (margin >= 0 and math.isfinite(margin)):
        raise Error("margin must be a finite number >= 0, not %r" % (margin,))
    if margin > 0 and not _lib.has_member("kcbp_collide_options.margin") and not hasattr(lib, "kcbp_distance"):
        raise Error("margin is not supported by this libkcbp (%s): it needs kcbp_distance" % _lib.VERSION,
                    "unsupported")
    return margin


def collide(a: GeometryLike, b: GeometryLike, pose_a: PoseLike = None, pose_b: PoseLike = None,
            contacts: str = "first", k: int = _DEFAULT_K, solid: bool = False, margin: float = 0.0,
            measure_cbp: bool = True, geometry: bool = False) -> Report:
    """Whether meshes a and b touch, as `kcbp collide` answers it.

    a, b: kcbp.Mesh (or file paths, loaded each call). pose_a, pose_b: None
    (identity), a 4x4 rigid matrix (kcbp.pose makes one from a quaternion,
    a rotation matrix or an axis and angle) or 7 numbers (tx, ty, tz, ax,
    ay, az, deg: world = R(axis, deg) * local + t). contacts: "none" (the
    answer only), "first" (the default, as the CLI's) or "all" (every pair
    of intersecting triangles).
    k: the k-CBP's planes (0: no k-CBP stage). measure_cbp: measure the
    k-CBPs' distance or depth for the "cbp" entry, as the CLI's single-pose
    report does (False: only whether they are apart; a little faster).
    solid: both meshes are closed solids (kcbp.Error naming the open edges
    otherwise) and a mesh wholly inside the other collides ("contained":
    "a_in_b" or "b_in_a", as `kcbp collide --solid`). margin > 0: meshes
    within that distance count as colliding ("decided_by": "margin"), as
    `kcbp collide --margin` does; needs kcbp_distance in libkcbp.

    geometry=True (with contacts "first" or "all"), as `kcbp collide
    --geometry`: "intersections", per contact the world points where its two
    triangles meet (1: a point, 2: a segment, 3 to 6: the polygon of
    coplanar triangles), "contact": {"point", "normal"} for the pair (the
    weighted centroid, and the unit normal from A toward B; no "normal" when
    it vanishes), and "geometry", per contact {"triangles": [tri_a, tri_b],
    "points": its intersection, "point": their centroid, "normal": that
    contact's own normal (A's unit triangle normal minus B's, normalised;
    None when it vanishes)}. Constructed in double (include/kcbp/
    contact_geom.h), unlike the exact yes/no answer.

    Returns the CLI's report fields: {"collide", "decided_by", "contacts":
    [[tri_a, tri_b], ...], "cbp" (when the k-CBP stage ran), "a", "b" (mesh
    sizes), "stats": {"box_pairs", "triangle_pairs", "query_ms"}} (plus
    "margin" with a margin). Triangles that touch count as colliding.

    Two 2D geometries (kcbp.Polygon, Circle, Capsule2D, Rect,
    ConvexPolygon, or GeoJSON/SVG file names): poses (tx, ty, degrees) or
    3x3 rigid matrices, the command line's 2D report ("contacts" are edge
    pairs, "contained"; k, solid and measure_cbp do not apply); a 2D
    geometry with a 3D one raises kcbp.Error. See python/README.md, 2D."""
    if _api2d.is_2d(a) or _api2d.is_2d(b):
        if geometry:
            raise Error("geometry=True is for 3D meshes; 2D contacts are edge pairs")
        return _api2d.collide(a, b, pose_a, pose_b, contacts, margin)
    a, b = _as_mesh(a, "a"), _as_mesh(b, "b")
    pa, pb = _pose(pose_a, "pose_a"), _pose(pose_b, "pose_b")
    margin = _check_margin(margin)
    opts = _collide_options(contacts, k != 0, bool(measure_cbp), solid)
    if geometry:
        if contacts == "none":
            raise Error("geometry=True needs contacts='first' or 'all'")
        if _lib.ContactGeom is None:
            raise Error("geometry=True is not supported by this libkcbp (%s)" % _lib.VERSION, "unsupported")
        if isinstance(a, _Shape) or isinstance(b, _Shape):
            raise Error("geometry=True intersects triangle pairs: it takes two meshes, not a shape")
    a._acquire()
    try:
        b._acquire()
        try:
            return _collide_in_use(a, b, pa, pb, opts, k, solid, margin, geometry)
        finally:
            b._release()
    finally:
        a._release()


def _collide_in_use(a, b, pa, pb, opts, k, solid, margin, geometry):
    """collide() with a and b in use."""
    ma, mb = a._model(k, solid), b._model(k, solid)
    res = _lib.CollideResult()
    err = _lib.ErrorStruct()
    try:
        t0 = time.perf_counter()
        st = lib.kcbp_collide(byref(ma.s), byref(pa), byref(mb.s), byref(pb), byref(opts), byref(res),
                              byref(err))
        query_ms = (time.perf_counter() - t0) * 1e3
        _lib.check(st, err)
        n = res.ncontacts
        # read as bytes: as_array makes (and ctypes keeps for good) a type per count
        pairs = (np.frombuffer(ctypes.string_at(res.contacts, n * 8), dtype=np.uint32).reshape(n, 2).tolist()
                 if n else [])
        if isinstance(a, _Shape) or isinstance(b, _Shape):  # a shape's side: None
            pairs = [[_index(x), _index(y)] for x, y in pairs]
        stage = _STAGES.get(res.decided_by) or lib.kcbp_stage_name(res.decided_by).decode()
        out = {"collide": bool(res.collide), "decided_by": stage}
        if solid:
            out["contained"] = lib.kcbp_containment_name(res.contained).decode()
        out["contacts"] = pairs
        if geometry:
            _add_geometry(out, ma, pa, mb, pb, res)
        if res.cbp_tested:
            out["cbp"] = _cbp_report(res)
        out["a"] = a._report(k)
        out["b"] = b._report(k)
        out["stats"] = {"box_pairs": int(res.tree_box_pairs), "triangle_pairs": int(res.tree_tri_pairs),
                        "query_ms": query_ms}
    finally:
        lib.kcbp_collide_result_free(byref(res))
    if margin > 0:
        _apply_margin(out, margin, ma, pa, mb, pb)
    return out


def _add_geometry(out, ma, pa, mb, pb, res):
    """collide(geometry=True): kcbp_contact_geometry over all the contacts
    (the CLI's "intersections" and "contact"), then over each alone (its
    own point and normal)."""
    n = res.ncontacts
    geoms = (_lib.ContactGeom * max(n, 1))()
    summary = _lib.ContactSummary()
    base = ctypes.cast(res.contacts, ctypes.c_void_p).value
    lib.kcbp_contact_geometry(byref(ma.s), byref(pa), byref(mb.s), byref(pb), base, n, ctypes.addressof(geoms),
                              byref(summary))
    inter, per = [], []
    one = _lib.ContactGeom()
    mine = _lib.ContactSummary()
    csize = _lib.layout("kcbp_contact")[1]
    for i in range(n):
        g = geoms[i]
        pts = [_vec(g.points[k]) for k in range(g.npoints)]
        inter.append(pts)
        lib.kcbp_contact_geometry(byref(ma.s), byref(pa), byref(mb.s), byref(pb), base + i * csize, 1,
                                  ctypes.addressof(one), byref(mine))
        per.append({"triangles": [int(g.a), int(g.b)], "points": pts, "point": _vec(mine.point),
                    "normal": _vec(mine.normal) if mine.has_normal else None})
    out["intersections"] = inter
    if n:
        out["contact"] = {"point": _vec(summary.point)}
        if summary.has_normal:
            out["contact"]["normal"] = _vec(summary.normal)
    out["geometry"] = per


def _cbp_report(res):
    c = {"separated": bool(res.cbp_separated)}
    if not res.cbp_measured:
        c["measured"] = False
        if res.cbp_separated:
            c["distance_lower"] = res.cbp_distance_lower
        c["gjk_iterations"] = res.cbp_gjk_iterations
        return c
    c["distance"] = res.cbp_distance
    if res.cbp_distance > 0:
        c["point_a"], c["point_b"] = _vec(res.cbp_point_a), _vec(res.cbp_point_b)
    else:
        c["overlap_depth"] = res.cbp_depth  # the k-CBPs', named as the CLI names it
        c["direction"] = _vec(res.cbp_direction)
        c["depth_exact"] = bool(res.cbp_depth_exact)
    c["gjk_iterations"] = res.cbp_gjk_iterations
    c["epa_iterations"] = res.cbp_epa_iterations
    return c


def _apply_margin(out, margin, ma, pa, mb, pb):
    """`kcbp collide --margin`: a pair within margin collides too."""
    m = {"d": margin, "distance": 0.0 if out["collide"] else None}
    if not out["collide"]:
        d = _distance_raw(ma, pa, mb, pb, margin)
        if d.within:
            m["distance"] = d.distance
            m["triangles"] = [_index(d.tri_a), _index(d.tri_b)]
            out["collide"] = True
            out["decided_by"] = "margin"
    out["margin"] = m


def _poses_array(poses, what="poses"):
    """An (n,) Pose array from (n, 7) or (n, 4, 4) poses."""
    try:
        p, tol = _real_array(poses, what, "an (n, 7) or (n, 4, 4) array of real numbers")
    except (TypeError, ValueError) as e:
        if isinstance(e, Error):
            raise
        raise Error("%s: expected an (n, 7) or (n, 4, 4) array of numbers" % what) from None
    if p.ndim == 2 and p.shape[1] == 7:
        n = p.shape[0]
        out = (_lib.Pose * n)()
        if n:
            _poses7_into(p, out)
    elif p.ndim == 3 and p.shape[1:] == (4, 4):
        n = p.shape[0]
        out = (_lib.Pose * n)()
        if n:
            _matrices_into(p, out, what, tol)
    else:
        raise Error("%s: expected an (n, 7) or (n, 4, 4) array, not shape %s" % (what, p.shape))
    return out


def collide_many(a: GeometryLike, b: GeometryLike, poses: ArrayLike, pose_a: PoseLike = None,
                 k: int = _DEFAULT_K) -> np.ndarray:
    """Whether a (at pose_a) and b collide at each of the poses of b: an
    (n, 7) or (n, 4, 4) array. Returns an (n,) numpy bool array.

    The loop runs in C (kcbp_collide_poses) with one pair cache carried from
    pose to pose, as `kcbp collide A B --poses FILE --contacts none` does: the
    same answers, at the CLI's speed. Two 2D geometries: poses (n, 3)
    (tx, ty, degrees) or (n, 3, 3), the exact 2D test in a Python loop."""
    if _api2d.is_2d(a) or _api2d.is_2d(b):
        return _api2d.collide_many(a, b, poses, pose_a)
    a, b = _as_mesh(a, "a"), _as_mesh(b, "b")
    pa = _pose(pose_a, "pose_a")
    arr = _poses_array(poses)
    n = len(arr)
    out = np.zeros(n, dtype=np.uint8)
    opts = _collide_options("none", k != 0, False, False)
    err = _lib.ErrorStruct()
    with _Using(a, b):
        ma, mb = a._model(k), b._model(k)
        _lib.check(lib.kcbp_collide_poses(byref(ma.s), byref(pa), byref(mb.s), ctypes.addressof(arr), n,
                                          byref(opts), out.ctypes.data, byref(err)), err)
    return out.view(np.bool_)


def cbp(mesh: GeometryLike, k: int = _DEFAULT_K, dirs: str = "greedy") -> Tuple[np.ndarray, np.ndarray]:
    """The k-CBP (k-direction convex bounding polytope) of a mesh's vertices,
    as `kcbp cbp` builds it: returns (vertices, faces), an (n, 3) float64
    array and an (m, 3) int64 array of triangles (each polygonal face fanned
    from its first vertex, counter-clockwise seen from outside), ready for
    kcbp.Mesh. dirs: "greedy" (default), "thesis", "fixed" or "kdop"."""
    mesh = _as_mesh(mesh, "mesh")
    if isinstance(mesh, _Shape):
        raise Error("cbp: a shape is its own convex bound and has no k-CBP (kcbp.%s)" % type(mesh).__name__)
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise Error("k must be a whole number from %d to 100000, not %r" % (_K_MIN, k))
    d = _dirs(dirs)
    out = ctypes.c_void_p()
    err = _lib.ErrorStruct()
    with _Using(mesh):
        src = mesh._mesh()
        _lib.check(lib.kcbp_cbp_build(ctypes.cast(lib.kcbp_mesh_vertices(src), ctypes.c_void_p),
                                      lib.kcbp_mesh_vertex_count(src), int(k), d, byref(out), byref(err)), err)
    try:
        verts = c_array(lib.kcbp_cbp_vertices(out), (lib.kcbp_cbp_vertex_count(out), 3))
        tris = []
        n = ctypes.c_uint32()
        for f in range(lib.kcbp_cbp_plane_count(out)):
            ptr = lib.kcbp_cbp_face(out, f, byref(n))
            loop = c_array(ptr, (n.value,), np.uint32)
            for i in range(1, len(loop) - 1):
                tris.append((loop[0], loop[i], loop[i + 1]))
        faces = np.array(tris, dtype=np.int64).reshape(-1, 3)
    finally:
        lib.kcbp_cbp_free(out)
    return verts, faces


# --- distance, signed distance and sweep -------------------------------------

class _DistanceOptions(ctypes.Structure):
    # include/kcbp/distance.h: checked against kcbp_layout (the sizes; the
    # library describes the members too).
    _fields_ = [("max_distance", ctypes.c_double), ("use_cbp", ctypes.c_bool)]


class _DistanceResult(ctypes.Structure):
    _fields_ = [("within", ctypes.c_bool), ("distance", ctypes.c_double), ("distance_lower", ctypes.c_double),
                ("point_a", _lib.Vec3), ("point_b", _lib.Vec3), ("tri_a", ctypes.c_uint32),
                ("tri_b", ctypes.c_uint32), ("decided_by", ctypes.c_int), ("cbp_tested", ctypes.c_bool),
                ("cbp_distance", ctypes.c_double), ("gjk_iterations", ctypes.c_int),
                ("box_pairs", ctypes.c_uint64), ("tri_pairs", ctypes.c_uint64)]


def _distance_fn():
    if not hasattr(lib, "kcbp_distance"):
        raise Error("distance is not available in this libkcbp (%s)" % _lib.VERSION, "unsupported")
    for name, cls in (("kcbp_distance_options", _DistanceOptions), ("kcbp_distance_result", _DistanceResult)):
        where = _lib.layout(name)
        if where is not None and where[1] != sizeof(cls):
            raise Error("%s has another layout in this libkcbp (%s)" % (name, _lib.VERSION), "unsupported")
    f = lib.kcbp_distance
    P = ctypes.POINTER
    f.restype = ctypes.c_int
    f.argtypes = [P(_lib.ModelStruct), P(_lib.Pose), P(_lib.ModelStruct), P(_lib.Pose), P(_DistanceOptions),
                  P(_DistanceResult), P(_lib.ErrorStruct)]
    return f


def _distance_raw(ma, pa, mb, pb, max_distance):
    f = _distance_fn()
    o = _DistanceOptions(max_distance=max_distance, use_cbp=True)
    r = _DistanceResult()
    err = _lib.ErrorStruct()
    _lib.check(f(byref(ma.s), byref(pa), byref(mb.s), byref(pb), byref(o), byref(r), byref(err)), err)
    return r


def _depth_model(geom, k):
    """The model to ask a depth of: a mesh's solid model (built once, when
    the mesh is closed; an open mesh's plain model, which the library
    refuses only when the pair overlaps), a shape's own."""
    if isinstance(geom, _Shape):
        return geom._model(k)
    if getattr(geom, "_open_reason", None) is None:
        try:
            return geom._model(k, solid=True)
        except Error as e:
            if e.code not in ("geometry", "invalid"):
                raise
            geom._open_reason = str(e)
    return geom._model(k)


def _signed_raw(ma, pa, mb, pb, max_distance=math.inf, use_cbp=True, depth_tolerance=None, max_steps=None):
    """kcbp_signed_distance_sized on two models (the SignedDistanceResult);
    depth_tolerance and max_steps: the bracket's (None: the library's
    defaults)."""
    if not _lib.HAS_SIGNED_DISTANCE:
        raise Error("signed distance is not available in this libkcbp (%s)" % _lib.VERSION, "unsupported")
    o = _lib.SignedDistanceOptions()
    lib.kcbp_signed_distance_options_init(byref(o), sizeof(o))
    o.max_distance = max_distance
    o.use_cbp = use_cbp
    if depth_tolerance is not None:
        o.depth_tolerance = depth_tolerance
    if max_steps is not None:
        o.max_steps = max_steps
    r = _lib.SignedDistanceResult()
    err = _lib.ErrorStruct()
    _lib.check(lib.kcbp_signed_distance_sized(byref(ma.s), byref(pa), byref(mb.s), byref(pb), byref(o), byref(r),
                                              sizeof(r), byref(err)), err)
    return r


def _signed_report(r, md):
    status = lib.kcbp_sdist_status_name(r.status).decode()
    stage = _STAGES.get(r.decided_by) or lib.kcbp_stage_name(r.decided_by).decode()
    if status == "beyond":
        return {"within": False, "status": status, "distance": None, "farther_than": md,
                "distance_lower": r.distance_lower, "decided_by": stage}
    return {"within": True, "status": status, "distance": r.signed_distance, "depth": r.depth,
            "depth_lower": r.depth_lower, "depth_upper": r.depth_upper, "normal": _vec(r.normal),
            "point_a": _vec(r.point_a), "point_b": _vec(r.point_b),
            "triangles": [_index(r.feature_a), _index(r.feature_b)], "decided_by": stage,
            "stats": {"steps": int(r.steps), "ms": r.ms}}


def distance(a: GeometryLike, b: GeometryLike, pose_a: PoseLike = None, pose_b: PoseLike = None,
             max_distance: Optional[float] = None, k: int = _DEFAULT_K, signed: bool = False,
             margin: Optional[float] = None, depth_tolerance: Optional[float] = None,
             max_steps: Optional[int] = None) -> Report:
    """The distance between the surfaces of a and b and a closest pair of
    points (world frame), as `kcbp distance` reports it: {"within",
    "distance", "point_a", "point_b", "triangles": [tri_a, tri_b],
    "decided_by", "cbp": {"distance"} (when the k-CBP stage ran), "stats"}.
    With max_distance, a pair proven farther apart gives {"within": False,
    "distance": None, "farther_than": max_distance, "distance_lower",
    "decided_by", ...}. A shape's side of "triangles" is None. margin is
    the same clearance under collide's name (the CLI's `--margin`); give
    one of the two.

    signed=True: the signed distance (kcbp_signed_distance,
    include/kcbp/signed_distance.h), the solids' distance when apart and
    minus the penetration depth when they overlap: {"within", "status"
    ("apart", "touching", "penetrating" for two convex solids, "bracketed"
    for a non-convex mesh), "distance" (signed), "depth" (>= 0),
    "depth_lower", "depth_upper" (proven bounds; equal for convex pairs),
    "normal" (unit, from a toward b), "point_a", "point_b" (on each
    surface: point_b - point_a == distance * normal), "triangles",
    "decided_by", "stats": {"steps", "ms"}}. Shapes and hulls are solids;
    a mesh is one when closed (its solid model is built on first use): an
    open mesh overlapping the other raises kcbp.Error naming its open
    edges. A closed non-convex mesh's depth is a proven bracket
    (depth_lower <= depth <= depth_upper; "distance" is -depth_upper),
    refined until depth_upper <= (1 + depth_tolerance) * depth_lower or
    max_steps steps (None: the library's defaults, 0.10 and 64;
    kcbp.CollisionManager asks 1e-3 and 256).

    Two 2D geometries: poses (tx, ty, degrees) or 3x3 matrices, the
    command line's 2D report ("edges" instead of "triangles"; signed: two
    convex shapes' exact depth, a Polygon's certified bracket, status
    "bracketed"); a 2D geometry with a 3D one raises kcbp.Error."""
    if _api2d.is_2d(a) or _api2d.is_2d(b):
        return _api2d.distance(a, b, pose_a, pose_b, max_distance, signed)
    a, b = _as_mesh(a, "a"), _as_mesh(b, "b")
    pa, pb = _pose(pose_a, "pose_a"), _pose(pose_b, "pose_b")
    if margin is not None:
        if max_distance is not None:
            raise Error("give margin or max_distance (the same clearance), not both")
        max_distance = margin
    md = math.inf if max_distance is None else float(max_distance)
    if depth_tolerance is not None and not (isinstance(depth_tolerance, (int, float, np.floating))
                                            and math.isfinite(depth_tolerance) and depth_tolerance > 0):
        raise Error("depth_tolerance must be a finite number > 0, not %r" % (depth_tolerance,))
    if max_steps is not None and (isinstance(max_steps, bool) or not isinstance(max_steps, (int, np.integer))
                                  or max_steps < 1):
        raise Error("max_steps must be a whole number >= 1, not %r" % (max_steps,))
    if signed:
        with _Using(a, b):
            r = _signed_raw(_depth_model(a, k), pa, _depth_model(b, k), pb, md, k != 0,
                            None if depth_tolerance is None else float(depth_tolerance),
                            None if max_steps is None else int(max_steps))
        return _signed_report(r, md)
    _distance_fn()
    with _Using(a, b):
        r = _distance_raw(a._model(k), pa, b._model(k), pb, md)
    stage = _STAGES.get(r.decided_by) or lib.kcbp_stage_name(r.decided_by).decode()
    if not r.within:
        out = {"within": False, "distance": None, "farther_than": md, "distance_lower": r.distance_lower,
               "decided_by": stage}
    else:
        out = {"within": True, "distance": r.distance, "point_a": _vec(r.point_a), "point_b": _vec(r.point_b),
               "triangles": [_index(r.tri_a), _index(r.tri_b)], "decided_by": stage}
    if r.cbp_tested:
        out["cbp"] = {"distance": r.cbp_distance}
    out["stats"] = {"box_pairs": int(r.box_pairs), "triangle_pairs": int(r.tri_pairs),
                    "gjk_iterations": int(r.gjk_iterations)}
    return out


_sweep_types = None


def _sweep_structs():
    """The ctypes mirrors of kcbp_motion, kcbp_sweep_options and
    kcbp_sweep_result, at the library's offsets (kcbp_layout)."""
    global _sweep_types
    if _sweep_types is None:
        if not hasattr(lib, "kcbp_sweep") or _lib.layout("kcbp_sweep_result") is None:
            raise Error("sweep is not available in this libkcbp (%s)" % _lib.VERSION, "unsupported")
        motion = _lib.struct("kcbp_motion", [])
        opts = _lib.struct("kcbp_sweep_options", [("t_tolerance", ctypes.c_double), ("max_iterations", ctypes.c_int),
                                                  ("use_cbp", ctypes.c_bool)])
        res = _lib.struct("kcbp_sweep_result", [
            ("hit", ctypes.c_bool), ("undecided", ctypes.c_bool), ("toi", ctypes.c_double),
            ("free_until", ctypes.c_double), ("distance", ctypes.c_double), ("point_a", _lib.Vec3),
            ("point_b", _lib.Vec3), ("tri_a", ctypes.c_uint32), ("tri_b", ctypes.c_uint32),
            ("motion_bound", ctypes.c_double), ("iterations", ctypes.c_int), ("cbp_steps", ctypes.c_int),
            ("distance_queries", ctypes.c_int), ("tree", ctypes.c_uint64 * 2)])
        P = ctypes.POINTER
        lib.kcbp_motion_make.restype = motion
        lib.kcbp_motion_make.argtypes = [P(_lib.Pose), P(_lib.Pose)]
        lib.kcbp_sweep.restype = ctypes.c_int
        lib.kcbp_sweep.argtypes = [P(_lib.ModelStruct), P(motion), P(_lib.ModelStruct), P(motion), P(opts), P(res),
                                   P(_lib.ErrorStruct)]
        _sweep_types = (motion, opts, res)
    return _sweep_types


def sweep(a: GeometryLike, b: GeometryLike, pose_from: PoseLike, pose_to: PoseLike, pose_a: PoseLike = None,
          tolerance: float = 1e-9, max_iterations: int = 10000, k: int = _DEFAULT_K) -> Report:
    """The time of impact of b moving from pose_from (t = 0) to pose_to
    (t = 1) against a at pose_a, as `kcbp sweep` reports it: {"toi": the
    first t at which the surfaces touch, or None, "contacts": [[tri_a,
    tri_b]], "point", "point_a", "point_b" (world, at toi), "distance" (at
    toi), "stats"}; a sweep that reaches max_iterations steps gives "toi":
    None, "undecided": True and "free_until". b's translation moves linearly
    and its rotation along the shorter arc (slerp) about its own origin.
    Poses: None (identity), 7 numbers "tx ty tz ax ay az deg" or a 4x4 rigid
    matrix. Guarantee (include/kcbp/sweep.h): no contact before toi, and at
    toi the distance is at most tolerance * stats["motion_bound"].

    Two 2D geometries (kcbp.Polygon, Circle, Capsule2D, Rect,
    ConvexPolygon): poses (tx, ty, degrees) or 3x3 rigid matrices, b's angle
    turning linearly from pose_from's to pose_to's as written (a matrix's
    angle taken the shorter way), the command line's 2D report ("contacts"
    an edge pair, "normal", "confirmed"; k does not apply); see
    python/README.md, 2D."""
    if _api2d.is_2d(a) or _api2d.is_2d(b):
        return _sweep2d.sweep(a, b, pose_from, pose_to, pose_a, tolerance, max_iterations)
    motion_t, opts_t, res_t = _sweep_structs()
    if not (isinstance(tolerance, (int, float)) and 0 < tolerance <= 0.5):
        raise Error("tolerance must be a number in (0, 0.5], not %r" % (tolerance,))
    if isinstance(max_iterations, bool) or not isinstance(max_iterations, int) or max_iterations < 1:
        raise Error("max_iterations must be a whole number >= 1, not %r" % (max_iterations,))
    a, b = _as_mesh(a, "a"), _as_mesh(b, "b")
    pa = _pose(pose_a, "pose_a")
    p0, p1 = _pose(pose_from, "pose_from"), _pose(pose_to, "pose_to")
    ma = lib.kcbp_motion_make(byref(pa), byref(pa))
    mb = lib.kcbp_motion_make(byref(p0), byref(p1))
    o = opts_t(t_tolerance=float(tolerance), max_iterations=min(max_iterations, 2**31 - 1), use_cbp=k != 0)
    r = res_t()
    err = _lib.ErrorStruct()
    with _Using(a, b):
        _lib.check(lib.kcbp_sweep(byref(a._model(k).s), byref(ma), byref(b._model(k).s), byref(mb), byref(o),
                                  byref(r), byref(err)), err)
    if r.hit:
        pa_, pb_ = _vec(r.point_a), _vec(r.point_b)
        out = {"toi": r.toi, "contacts": [[_index(r.tri_a), _index(r.tri_b)]],
               "point": [(x + y) / 2 for x, y in zip(pa_, pb_)], "point_a": pa_, "point_b": pb_,
               "distance": r.distance}
    else:
        out = {"toi": None}
        if r.undecided:
            out["undecided"] = True
            out["free_until"] = r.free_until
    out["stats"] = {"motion_bound": r.motion_bound, "iterations": int(r.iterations), "cbp_steps": int(r.cbp_steps),
                    "distance_queries": int(r.distance_queries), "box_pairs": int(r.tree[0]),
                    "triangle_pairs": int(r.tree[1])}
    return out

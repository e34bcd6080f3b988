"""kcbp.CollisionManager: trimesh's CollisionManager over kcbp_world.

The names, arguments and return shapes are trimesh.collision.
CollisionManager's, so code written for it ports by changing the import;
underneath is the C world of include/kcbp/world.h (a box-tree broad phase
refitted after moves, and per-pair caches kept from one query to the next),
so a loop of small set_transform moves and in_collision_internal calls runs
at the speed of a moving scene.
"""
import ctypes
import math
import threading
from ctypes import POINTER, byref, c_bool, c_double, c_int, c_size_t, c_uint32, c_uint64, c_void_p

import numpy as np

from . import _lib
from ._api import Mesh, _matrix_of, _Shape, _pose, collide
from ._lib import Error, Vec3, lib

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


def _as_geometry(mesh):
    """A kcbp.Mesh or shape as given; anything with vertices (n, 3) and
    faces (m, 3) arrays (a trimesh.Trimesh) as a new kcbp.Mesh of them."""
    if isinstance(mesh, (Mesh, _Shape)):
        return mesh
    v, f = getattr(mesh, "vertices", None), getattr(mesh, "faces", None)
    if v is None or f is None:
        raise Error("mesh must be a kcbp.Mesh, a kcbp shape, or have vertices and faces arrays (a "
                    "trimesh.Trimesh), not %s" % type(mesh).__name__)
    return Mesh(v, f)


class ContactData:
    """One contact of a manager's answer with return_data=True, as
    trimesh's ContactData: ``names``, the set of the two objects' names
    ("__external" for the mesh of a *_single query); ``index(name)``, the
    triangle of that object (None for a shape); ``point``, a point where
    the two triangles meet, and ``normal``, that contact's unit normal from
    the first name's triangle toward the other's (None when it vanishes, and
    both None when a side is a shape), as kcbp.collide(..., geometry=True)
    constructs them in double. No ``depth``: kcbp answers whether meshes
    touch and how far apart they are, not how deep they are."""

    __slots__ = ("names", "_index", "point", "normal")

    def __init__(self, names, index, point, normal):
        self.names = set(names)
        self._index = index
        self.point = point
        self.normal = normal

    def index(self, name):
        return self._index[name]

    def __repr__(self):
        return "kcbp.ContactData(names=%r, index=%r, point=%r)" % (sorted(self.names), self._index, self.point)


def _contacts(name_a, geom_a, pose_a, name_b, geom_b, pose_b):
    """Every contact of the pair, as ContactData."""
    shapes = isinstance(geom_a, _Shape) or isinstance(geom_b, _Shape)
    r = collide(geom_a, geom_b, _matrix_of(pose_a), _matrix_of(pose_b), contacts="all", geometry=not shapes)
    out = []
    for i, (ta, tb) in enumerate(r["contacts"]):
        g = None if shapes else r["geometry"][i]
        out.append(ContactData((name_a, name_b), {name_a: ta, name_b: tb}, None if g is None else g["point"],
                               None if g is None else g["normal"]))
    return out


class CollisionManager:
    """Many posed meshes and the queries of a simulation or planning loop,
    with trimesh.collision.CollisionManager's names and answers:

    - ``add_object(name, mesh, transform=None)``: mesh a kcbp.Mesh, a kcbp
      shape (Sphere, Capsule, Box, Cylinder) or anything with ``vertices``
      and ``faces`` arrays (a trimesh.Trimesh: copied into a kcbp.Mesh);
      transform a 4x4 rigid matrix (None: identity) or anything kcbp.pose
      and the pair functions take (7 numbers "tx ty tz ax ay az deg");
    - ``remove_object(name)``, ``set_transform(name, transform)``;
    - ``in_collision_internal(return_names=False, return_data=False)``:
      whether any two objects touch; with return_names, ``(bool, {(name1,
      name2), ...})``, each pair in sorted order; with return_data, also
      the list of every contact (ContactData: names, triangles, point,
      normal), last: ``(bool, data)`` or ``(bool, names, data)``;
    - ``in_collision_single(mesh, transform=None, return_names=False,
      return_data=False)``: whether mesh at transform touches an object;
      ``(bool, {name, ...})``; data likewise (the mesh named "__external");
    - ``min_distance_internal(return_names=False)``: the least distance
      between two objects (0 when some touch); ``(distance, (name1,
      name2))``, sorted; ``math.inf`` (and ``(None, None)``) with fewer
      than two objects;
    - ``min_distance_single(mesh, transform=None, return_name=False)``: the
      least distance from mesh at transform to an object; ``(distance,
      name)`` (``math.inf`` and None when the manager is empty).

    The answers are kcbp.collide's and kcbp.distance's over every pair
    (exact contacts; distances within kcbp_distance's accuracy). Unlike
    trimesh: a name already in the manager raises kcbp.Error (remove it
    first), as do an unknown name, a closed mesh and a matrix that is not a
    rigid motion; names must be non-empty strings.

    The manager keeps each object's mesh in use (its C models cannot be
    freed, even by Mesh.close(), until the object is removed or the manager
    closed), so no order of calls can crash. ``close()`` (or ``with``) frees
    the C world at once; otherwise it is freed with the manager. Calls from
    several threads take turns (a lock)."""

    _world = None  # until made: close() and __del__ then do nothing

    def __init__(self):
        _, _, hits_t, dist_t = _world_types()
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
        self._poses = {}   # name -> its Pose (for return_data)
        # set_transform's fast path: a 4x4 numpy matrix is copied into
        # _buf (through the view _mat) and checked and converted by the
        # library into _pose, as kcbp.pose's checks do (kcbp_poses_from_matrices).
        self._buf = (c_double * 16)()
        self._mat = np.frombuffer(self._buf, dtype=np.float64).reshape(4, 4)
        self._pose = _lib.Pose()
        self._pose_at = ctypes.addressof(self._pose)
        self._buf_addr = ctypes.addressof(self._buf)
        self._fast = _lib.HAS_POSE_FORMS
        self._ferr = _lib.ErrorStruct()

    # --- lifetime ---------------------------------------------------------

    def close(self):
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

    def add_object(self, name, mesh, transform=None):
        """Adds mesh at transform (None: identity) as the object named name
        (kcbp.Error if the name is taken). Returns None (trimesh returns its
        FCL object)."""
        if not isinstance(name, str) or not name:
            raise Error("add_object: name must be a non-empty string, not %r" % (name,))
        pose = _pose(transform, "transform")
        geom = _as_geometry(mesh)
        with self._lock:
            w = self._open_world()
            if name in self._objs:
                raise Error("add_object: %r is already in the manager (remove_object it first)" % name)
            geom._acquire()  # held until the object is removed or the manager closed
            try:
                model = geom._model()
                oid = c_uint64()
                _lib.check(lib.kcbp_world_add(w, byref(model.s), byref(pose), None, byref(oid), self._err),
                           self._err)
            except BaseException:
                geom._release()
                raise
            self._objs[name] = (oid.value, geom, model)
            self._names[oid.value] = name
            self._poses[name] = pose

    def remove_object(self, name):
        """Removes the object named name (kcbp.Error if there is none)."""
        with self._lock:
            w = self._open_world()
            entry = self._objs.get(name) if isinstance(name, str) else None
            if entry is None:
                raise Error("remove_object: %r is not in the manager" % (name,))
            _lib.check(lib.kcbp_world_remove(w, entry[0], self._err), self._err)
            del self._objs[name]
            del self._names[entry[0]]
            del self._poses[name]
        entry[1]._release()

    def set_transform(self, name, transform):
        """Moves the object named name to transform (the pairs' caches are
        kept: small moves are cheap to test again)."""
        with self._lock:
            w = self._open_world()
            entry = self._objs.get(name) if isinstance(name, str) else None
            if entry is None:
                raise Error("set_transform: %r is not in the manager" % (name,))
            pose = self._pose
            if not (self._fast and type(transform) is np.ndarray and transform.shape == (4, 4)
                    and transform.dtype == np.float64
                    and lib.kcbp_poses_from_matrices(self._buf_at(transform), 1, 16, self._pose_at, self._ferr) == 0):
                pose = _pose(transform, "transform")  # the other forms, and the errors' messages
            _lib.check(lib.kcbp_world_set_pose(w, entry[0], byref(pose), self._err), self._err)
            self._poses[name] = _lib.Pose.from_buffer_copy(pose)

    def _buf_at(self, m):
        """The address of _buf, holding the 4x4 matrix m (as float64)."""
        self._mat[...] = m
        return self._buf_addr

    # --- queries --------------------------------------------------------------

    def _hit_ids(self, column):
        """The ids of column "a" or "b" of the current answer."""
        h = self._hits
        n = h.nhits
        if not n:
            return []
        arr = (_world_types()[1] * n).from_address(h.hits)
        return [getattr(x, column) for x in arr]

    def in_collision_internal(self, return_names=False, return_data=False):
        """Whether any two objects touch; with return_names, (bool, set of
        (name1, name2) pairs in sorted order); with return_data, the list of
        their contacts (ContactData) last."""
        with self._lock:
            w = self._open_world()
            _lib.check(lib.kcbp_world_collide(w, byref(self._hits), self._err), self._err)
            n = self._hits.nhits
            if not return_names and not return_data:
                return n > 0
            names = self._names
            arr = (_world_types()[1] * n).from_address(self._hits.hits) if n else ()
            pairs = set()
            for x in arr:
                p, q = names[x.a], names[x.b]
                pairs.add((p, q) if p <= q else (q, p))
            data = []
            if return_data:
                for p, q in sorted(pairs):
                    data += _contacts(p, self._objs[p][1], self._poses[p], q, self._objs[q][1], self._poses[q])
            out = (n > 0,) + ((pairs,) if return_names else ()) + ((data,) if return_data else ())
            return out

    def in_collision_single(self, mesh, transform=None, return_names=False, return_data=False):
        """Whether mesh at transform (None: identity) touches any object;
        with return_names, (bool, set of the names of those it touches);
        with return_data, the list of the contacts (ContactData, the mesh
        named "__external") last."""
        pose = _pose(transform, "transform")
        geom = _as_geometry(mesh)
        geom._acquire()
        try:
            with self._lock:
                w = self._open_world()
                model = geom._model()
                _lib.check(lib.kcbp_world_collide_model(w, byref(model.s), byref(pose), byref(self._hits),
                                                        self._err), self._err)
                n = self._hits.nhits
                if not return_names and not return_data:
                    return n > 0
                names = self._names
                hit = {names[i] for i in self._hit_ids("a")}
                data = []
                if return_data:
                    for q in sorted(hit):
                        data += _contacts("__external", geom, pose, q, self._objs[q][1], self._poses[q])
                return (n > 0,) + ((hit,) if return_names else ()) + ((data,) if return_data else ())
        finally:
            geom._release()

    def min_distance_internal(self, return_names=False):
        """The least distance between two objects (0 when some touch;
        math.inf with fewer than two); with return_names, (distance, (name1,
        name2)) in sorted order ((None, None) with fewer than two)."""
        with self._lock:
            w = self._open_world()
            r = self._dist
            _lib.check(lib.kcbp_world_distance(w, byref(r), self._err), self._err)
            if not r.found:
                return (math.inf, (None, None)) if return_names else math.inf
            d = float(r.distance)
            if not return_names:
                return d
            p, q = self._names[r.a], self._names[r.b]
            return d, ((p, q) if p <= q else (q, p))

    def min_distance_single(self, mesh, transform=None, return_name=False):
        """The least distance from mesh at transform (None: identity) to an
        object (0 when it touches one; math.inf when the manager is empty);
        with return_name, (distance, the name of that object, or None)."""
        pose = _pose(transform, "transform")
        geom = _as_geometry(mesh)
        geom._acquire()
        try:
            with self._lock:
                w = self._open_world()
                r = self._dist
                model = geom._model()
                _lib.check(lib.kcbp_world_distance_model(w, byref(model.s), byref(pose), byref(r), self._err),
                           self._err)
                if not r.found:
                    return (math.inf, None) if return_name else math.inf
                d = float(r.distance)
                return (d, self._names[r.a]) if return_name else d
        finally:
            geom._release()

"""2D scenes (include/kcbp/scene2d.h) from Python: kcbp.Scene on a scene
file of 2D objects (its first object 2D, as `kcbp scene` decides) is a
Scene2D, with the reports `kcbp scene` prints for it."""
import ctypes
import os
import threading
import time
from ctypes import POINTER as P
from ctypes import byref, c_bool, c_char_p, c_double, c_int, c_size_t, c_uint32, c_uint64, c_void_p, sizeof

from . import _api2d
from . import _lib
from . import _lib2d
from ._lib import Error, lib
from ._scene import Scene

_types = None
_NO_EDGE = 0xFFFFFFFF
_CONTAINED = ("none", "a_in_b", "b_in_a")


def _scene_types():
    global _types
    if _types is not None:
        return _types
    _lib2d.types()
    if not hasattr(lib, "kcbp2d_scene_eval_frame_sized") or _lib.layout("kcbp2d_scene_frame") is None:
        raise Error("2D scenes are not supported by this libkcbp (%s)" % _lib.VERSION, "unsupported")
    s = _lib.struct
    t = type("Scene2DTypes", (), {})()
    t.Options = s("kcbp2d_scene_eval_options", [("size", c_uint32), ("margin", c_double), ("max_contacts", c_uint32),
                                                ("jobs", ctypes.c_uint), ("shard_index", c_uint32),
                                                ("shard_count", c_uint32)])
    t.Pair = s("kcbp2d_scene_pair", [("a", c_uint32), ("b", c_uint32), ("contacts", c_void_p),
                                     ("ncontacts", c_uint32), ("contacts_truncated", c_bool), ("contained", c_int)])
    t.Frame = s("kcbp2d_scene_frame", [("frame", c_uint32), ("pairs", c_uint64), ("broadphase", c_uint64),
                                       ("colliding", c_uint64), ("stopped", c_bool), ("threaded", c_bool),
                                       ("bounds_ms", c_double), ("broadphase_ms", c_double),
                                       ("pairs_ms", c_double)])
    E = P(_lib.ErrorStruct)
    t.PairFn = ctypes.CFUNCTYPE(c_int, c_void_p, P(t.Pair), E)
    protos = [
        ("kcbp2d_scene_read_in", c_int, [c_char_p, c_char_p, P(c_void_p), E]),
        ("kcbp2d_scene_free", None, [c_void_p]),
        ("kcbp2d_scene_name", c_char_p, [c_void_p]),
        ("kcbp2d_scene_object_count", c_uint32, [c_void_p]),
        ("kcbp2d_scene_object_name", c_char_p, [c_void_p, c_uint32]),
        ("kcbp2d_scene_frame_count", c_uint32, [c_void_p]),
        ("kcbp2d_scene_dt", c_double, [c_void_p]),
        ("kcbp2d_scene_model_count", c_uint32, [c_void_p]),
        ("kcbp2d_scene_object_pose", _lib2d.Pose2, [c_void_p, c_uint32, c_uint32]),
        ("kcbp2d_scene_eval_options_init", None, [P(t.Options), c_uint32]),
        ("kcbp2d_scene_eval_new", c_int, [c_void_p, P(t.Options), P(c_void_p), E]),
        ("kcbp2d_scene_eval_free", None, [c_void_p]),
        ("kcbp2d_scene_eval_frame_sized", c_int, [c_void_p, c_uint32, t.PairFn, c_void_p, P(t.Frame), c_size_t, E]),
    ]
    for name, restype, args in protos:
        if not hasattr(lib, name):
            raise Error("2D: %s is missing from this libkcbp (%s)" % (name, _lib.VERSION), "unsupported")
        f = getattr(lib, name)
        f.restype, f.argtypes = restype, args
    _types = t
    return t


def is_2d_scene(path):
    """Whether `kcbp scene` takes the file as a 2D scene (kcbp2d_scene_sniff:
    its first object is 2D); False when this libkcbp has no 2D scenes."""
    f = getattr(lib, "kcbp2d_scene_sniff", None)
    if f is None or isinstance(path, int):
        return False
    try:
        p = _lib.fsencode(path)
    except TypeError:
        return False
    f.restype, f.argtypes = c_bool, [c_char_p]
    return bool(f(p))


class Scene2D(Scene):
    """A 2D scene file (include/kcbp/scene2d.h, docs/2d.md "Scenes"): what
    kcbp.Scene(path) is when the file's first object is 2D.

    ``Scene2D(path, k=16, contacts="first", margin=0.0, mesh_root=None,
    jobs=1)``: k does not apply (no k-CBPs in 2D); margin counts pairs
    within it as colliding (`--margin`); polygon files are read only inside
    mesh_root (default: the scene file's folder, as `kcbp scene`'s
    --mesh-root); jobs threads per frame (the same answers for any number).
    ``len(scene)`` frames, ``scene.objects`` the names, ``scene.frame(f)``
    the report `kcbp scene` prints for frame f ("colliding": [{"a", "b"[,
    "contained"][, "contacts": [[edge_a, edge_b], ...]]}] in the scene's
    fixed order, a shape's side None; "passed", "hit_rate" with "cbp":
    None, "time_ms"); ``scene.pose(obj, f)`` a 3x3 list."""

    @classmethod
    def _takes(cls, path):
        return is_2d_scene(path)

    def __init__(self, path, k=16, contacts="first", margin=0.0, mesh_root=None, jobs=1):
        t = _scene_types()
        self._lock = threading.RLock()
        if contacts not in ("none", "first", "all"):
            raise Error("contacts must be 'none', 'first' or 'all', not %r" % (contacts,))
        m = _api2d._margin(margin)
        if isinstance(jobs, bool) or not isinstance(jobs, int) or not 1 <= jobs <= 1024:
            raise Error("jobs must be a whole number from 1 to 1024, not %r" % (jobs,))
        self._contacts = contacts
        self._s = c_void_p()
        self._ev = c_void_p()
        err = _lib.ErrorStruct()
        root = None if mesh_root is None else _lib.fsencode(mesh_root)
        t0 = time.perf_counter()
        _lib.check(lib.kcbp2d_scene_read_in(_lib.fsencode(path), root, byref(self._s), byref(err)), err)
        o = _lib2d.options(t.Options, "kcbp2d_scene_eval_options_init")
        o.margin = m
        o.max_contacts = {"none": 0, "first": 1}.get(contacts, 1000000)  # the CLI's cap for "all"
        o.jobs = jobs
        st = lib.kcbp2d_scene_eval_new(self._s, byref(o), byref(self._ev), byref(err))
        if st != 0:
            lib.kcbp2d_scene_free(self._s)
            _lib.check(st, err)
        self._load_ms = (time.perf_counter() - t0) * 1e3
        self._open = True
        s = self._s
        self.objects = [lib.kcbp2d_scene_object_name(s, i).decode() for i in range(lib.kcbp2d_scene_object_count(s))]
        self.name = lib.kcbp2d_scene_name(s).decode()
        self._frames = int(lib.kcbp2d_scene_frame_count(s))
        self.dt = lib.kcbp2d_scene_dt(s)
        self.moving = self._frames > 1
        self.margin = m
        self.dimensions = 2
        self._models = int(lib.kcbp2d_scene_model_count(s))

    def close(self):
        lock = getattr(self, "_lock", None)
        if lock is None:
            return
        with lock:
            if self._open:
                self._open = False
                lib.kcbp2d_scene_eval_free(self._ev)
                lib.kcbp2d_scene_free(self._s)

    def pose(self, obj, frame=0):
        """Object obj's (index or name) pose at a frame, as a 3x3 list."""
        with self._lock:
            self._check_open()
            i = self._index(obj)
            self._frame_index(frame)
            p = lib.kcbp2d_scene_object_pose(self._s, i, frame)
        return _api2d.matrix2d(p).tolist()

    def _frame(self, f):
        self._frame_index(f)
        t = _scene_types()
        hits = []
        names = self.objects
        with_contacts = self._contacts != "none"
        failure = []

        def on_pair(ctx, pp, err):
            try:
                p = pp.contents
                hit = {"a": names[p.a], "b": names[p.b]}
                if p.contained:
                    hit["contained"] = _CONTAINED[p.contained]
                if with_contacts:
                    n = int(p.ncontacts)
                    e = (c_uint32 * (2 * n)).from_address(p.contacts) if n else ()
                    hit["contacts"] = [[None if e[2 * j] == _NO_EDGE else int(e[2 * j]),
                                        None if e[2 * j + 1] == _NO_EDGE else int(e[2 * j + 1])] for j in range(n)]
                hits.append(hit)
                return 0
            except BaseException as exc:  # stop the frame: raised again below
                failure.append(exc)
                return 1

        cb = t.PairFn(on_pair)
        fr = t.Frame()
        err = _lib.ErrorStruct()
        st = lib.kcbp2d_scene_eval_frame_sized(self._ev, f, cb, None, byref(fr), sizeof(fr), byref(err))
        if failure:
            raise failure[0]
        _lib.check(st, err)
        n = len(names)
        bc = int(fr.broadphase)
        return {
            "scene": self.name, "frame": int(fr.frame), "frames": self._frames, "objects": n,
            "models": self._models, "pairs": n * (n - 1) // 2, "colliding": hits,
            "passed": {"broadphase": bc, "cbp": None, "mesh": int(fr.colliding)},
            "hit_rate": {"broadphase": int(fr.colliding) / bc if bc else 1.0, "cbp": None},
            "time_ms": {"load": self._load_ms, "bounds": fr.bounds_ms, "broadphase": fr.broadphase_ms, "pairs": fr.pairs_ms,
                        "detect": fr.bounds_ms + fr.broadphase_ms + fr.pairs_ms},
        }

    def __repr__(self):
        return "kcbp.Scene2D(%r, %d objects, %d frames)" % (self.name, len(self.objects), len(self))


Scene._kinds.append(Scene2D)  # kcbp.Scene(path) of a 2D scene file is a Scene2D

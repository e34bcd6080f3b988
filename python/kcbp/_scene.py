"""Scenes: many posed meshes from a scene file, evaluated frame by frame."""
import ctypes
import os
import threading
from ctypes import byref

from . import _lib
from ._api import _CONTACTS, _DEFAULT_K, _index, _model_options
from ._lib import Error, lib


class Scene:
    """A scene file (the JSON of `kcbp scene`, include/kcbp/scene.h), read
    and built once: every distinct (mesh file, scale) gets one model, and
    every distinct (shape, scale) of its "shape" objects one.

    ``Scene(path, k=16, contacts="first")``; ``len(scene)`` is its number of
    frames (1 for a static scene), ``scene.objects`` the object names,
    ``scene.frame(f)`` the report of frame f as a dict with the fields of
    `kcbp scene`'s lines ("frame", "pairs", "passed", "colliding": [{"a",
    "b"[, "contacts"]}]: a shape's side of a contact is None, as the CLI's
    null), "cache", "time_ms", ...), and iterating the scene
    gives every frame's report in order. Consecutive frames share the pairs'
    caches (temporal coherence), as the CLI's do. ``close()`` (or ``with``)
    frees it at once; otherwise it is freed with the object. A closed scene
    raises kcbp.Error on use. One evaluation state serves all frames, so
    calls on one Scene from several threads take turns (a lock), and close()
    waits for the call in progress.

    A file of 2D objects (its first object 2D, as `kcbp scene` decides)
    gives a kcbp.Scene2D (a subclass, _scene2d.py): the same frames and
    iteration, the reports `kcbp scene` prints for a 2D scene."""

    _open = False  # until built: close() and __del__ then do nothing
    # Subclasses for other kinds of scene file, each with a classmethod
    # _takes(path); _scene2d.py adds Scene2D (registered by the subclass, so
    # that this module imports none of them).
    _kinds = []

    def __new__(cls, path=None, *args, **kwargs):
        # A scene file of 2D objects (its first object 2D, as `kcbp scene`
        # decides) is a kcbp.Scene2D: the same frames and reports.
        if cls is Scene and path is not None:
            for kind in Scene._kinds:
                if kind._takes(path):
                    return super().__new__(kind)
        return super().__new__(cls)

    def __init__(self, path, k=_DEFAULT_K, contacts="first"):
        self._lock = threading.RLock()
        if contacts not in _CONTACTS:
            raise Error("contacts must be 'none', 'first' or 'all', not %r" % (contacts,))
        self._s = ctypes.c_void_p()
        self._ev = ctypes.c_void_p()
        self._fr = _lib.SceneFrame()
        self._contacts = contacts
        err = _lib.ErrorStruct()
        _lib.check(lib.kcbp_scene_read(_lib.fsencode(path), byref(self._s), byref(err)), err)
        # As `kcbp scene`: the fine k-CBPs only serve a moving scene.
        opts = _model_options(k)
        opts.k_fine = 64 if lib.kcbp_scene_frame_count(self._s) >= 2 and k != 0 else 0
        st = lib.kcbp_scene_build(self._s, byref(opts), byref(err))
        if st != 0:
            lib.kcbp_scene_free(self._s)
            _lib.check(st, err)
        eo = _lib.EvalOptions()
        eo.collide.contacts = _CONTACTS[contacts]
        eo.collide.use_cbp = k != 0
        eo.coherent = True
        eo.margin = 0.0
        st = lib.kcbp_scene_eval_new(self._s, byref(eo), byref(self._ev), byref(err))
        if st != 0:
            lib.kcbp_scene_free(self._s)
            _lib.check(st, err)
        self._open = True
        self.objects = [lib.kcbp_scene_object_at(self._s, i).name.decode()
                        for i in range(lib.kcbp_scene_object_count(self._s))]
        self.name = lib.kcbp_scene_name(self._s).decode()
        self.moving = bool(lib.kcbp_scene_is_moving(self._s))
        self.dt = lib.kcbp_scene_dt(self._s)
        self._frames = int(lib.kcbp_scene_frame_count(self._s))

    def close(self):
        """Frees the scene's models and evaluation state (after the call in
        progress in another thread, if any); closing again does nothing."""
        lock = getattr(self, "_lock", None)
        if lock is None:
            return
        with lock:
            if self._open:
                self._open = False
                lib.kcbp_scene_frame_free(byref(self._fr))
                lib.kcbp_scene_eval_free(self._ev)
                lib.kcbp_scene_free(self._s)

    @property
    def closed(self):
        return not self._open

    def _check_open(self):
        if not self._open:
            raise Error("the scene is closed", "closed")

    def __del__(self):
        if lib is not None:
            self.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __len__(self):
        return self._frames

    def __iter__(self):
        for f in range(len(self)):
            yield self.frame(f)

    def pose(self, obj, frame=0):
        """Object obj's (index or name) pose at a frame, as a 4x4 list (the
        scale is in its model, not in the pose)."""
        with self._lock:
            self._check_open()
            i = self._index(obj)
            self._frame_index(frame)
            p = lib.kcbp_scene_object_pose(self._s, i, frame)
        r = list(p.rot)
        t = p.trans
        return [r[0:3] + [t.x], r[3:6] + [t.y], r[6:9] + [t.z], [0.0, 0.0, 0.0, 1.0]]

    def _index(self, obj):
        if isinstance(obj, str):
            try:
                return self.objects.index(obj)
            except ValueError:
                raise Error("no object named %r in %s" % (obj, self.name)) from None
        if not 0 <= int(obj) < len(self.objects):
            raise Error("object index %d out of range [0, %d)" % (int(obj), len(self.objects)))
        return int(obj)

    def _frame_index(self, f):
        if isinstance(f, bool) or not isinstance(f, int) or not 0 <= f < len(self):
            raise Error("frame must be a whole number in [0, %d), not %r" % (len(self), f))

    def frame(self, f):
        """The report of frame f (a dict, the fields of a `kcbp scene` line)."""
        with self._lock:
            self._check_open()
            return self._frame(f)

    def _frame(self, f):
        self._frame_index(f)
        err = _lib.ErrorStruct()
        _lib.check(lib.kcbp_scene_eval_frame(self._ev, f, byref(self._fr), byref(err)), err)
        fr, s = self._fr, self._s
        hits = []
        hs = _lib.sizeof(_lib.SceneHit)
        if fr.colliding:
            raw = (ctypes.c_uint8 * (hs * fr.colliding)).from_address(fr.hits)
        for i in range(fr.colliding):
            h = _lib.SceneHit.from_buffer(raw, i * hs)
            hit = {"a": self.objects[h.a], "b": self.objects[h.b]}
            if self._contacts != "none":
                hit["contacts"] = [[_index(fr.contacts[2 * j]), _index(fr.contacts[2 * j + 1])]
                                   for j in range(h.first, h.first + h.count)]
            hits.append(hit)

        def rate(n, d):
            return n / d if d else 1.0

        cbp_used = bool(fr.cbp_used)
        bt = lib.kcbp_scene_build_time(s)
        t = (fr.time_ms_bounds, fr.time_ms_broadphase, fr.time_ms_filter, fr.time_ms_mesh)
        return {
            "scene": self.name, "frame": int(fr.frame), "frames": self._frames, "objects": len(self.objects),
            "models": int(lib.kcbp_scene_model_count(s)), "pairs": int(fr.pairs),
            "passed": {"broadphase": int(fr.broadphase), "cbp": int(fr.mesh_tested) if cbp_used else None,
                       "mesh": int(fr.colliding)},
            "hit_rate": {"broadphase": rate(fr.colliding, fr.broadphase),
                         "cbp": rate(fr.colliding, fr.mesh_tested) if cbp_used else None},
            "colliding": hits,
            "cache": {"axis": int(fr.cache_axis), "contact": int(fr.cache_contact), "near": int(fr.cache_near),
                      "cbp_skipped": int(fr.cbp_skipped)},
            "time_ms": {"load": bt.load_ms, "build": bt.build_ms, "bounds": t[0], "broadphase": t[1], "cbp": t[2],
                        "mesh": t[3], "detect": t[0] + t[1] + t[2] + t[3]},
        }

    def __repr__(self):
        return "kcbp.Scene(%r, %d objects, %d frames)" % (self.name, len(self.objects), len(self))

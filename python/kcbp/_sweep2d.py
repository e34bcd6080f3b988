"""2D time of impact (include/kcbp/sweep2d.h) from Python.

kcbp.sweep comes here when both geometries are 2D. B moves from pose_from
(t = 0) to pose_to (t = 1), A stands at pose_a; the report is the one of
`kcbp sweep A B --from "tx ty deg" --to "tx ty deg"` on 2D inputs.

Angles. The library's motion turns B's angle linearly from from_deg to
to_deg as written (kcbp2d_motion: 0 to 720 is two turns counter-clockwise).
A pose given as (tx, ty, degrees) gives its angle as written. A 3x3 matrix
holds no number of turns: its angle is atan2(s, c) in degrees, taken (plus
a multiple of 360) nearest to the other end's angle, so that a matrix
motion turns the shorter way (as the 3D sweep's slerp; exactly half a turn:
counter-clockwise). The motion's poses are then the library's for those
angles (kcbp2d_pose_from_angle), within a few ulps of the matrix's c and s.
"""
from __future__ import annotations

import ctypes
import math
import time
from ctypes import POINTER as P
from ctypes import byref, c_bool, c_double, c_int, c_size_t, c_uint32, sizeof

import numpy as np

from . import _api2d
from ._using import _Using
from . import _lib
from . import _lib2d
from ._lib import Error, lib
from ._lib2d import Vec2

_types = None


def _sweep_types():
    """(Motion, Options, Result) at the library's offsets, and the
    prototypes, made once; kcbp.Error "unsupported" for a libkcbp without
    the 2D time of impact."""
    global _types
    if _types is not None:
        return _types
    t = _lib2d.types()
    if not hasattr(lib, "kcbp2d_sweep_sized") or _lib.layout("kcbp2d_sweep_result") is None:
        raise Error("2D time of impact is not supported by this libkcbp (%s)" % _lib.VERSION, "unsupported")
    s = _lib.struct
    motion = s("kcbp2d_motion", [("from", Vec2), ("to", Vec2), ("from_deg", c_double), ("to_deg", c_double)])
    opts = s("kcbp2d_sweep_options", [("size", c_uint32), ("t_tolerance", c_double), ("max_iterations", c_int)])
    res = s("kcbp2d_sweep_result", [
        ("hit", c_bool), ("undecided", c_bool), ("confirmed", c_bool), ("toi", c_double), ("free_until", c_double),
        ("distance", c_double), ("point_a", Vec2), ("point_b", Vec2), ("normal", Vec2), ("edge_a", c_uint32),
        ("edge_b", c_uint32), ("motion_bound", c_double), ("iterations", c_int), ("distance_queries", c_int)])
    E = P(_lib.ErrorStruct)
    M, O, R = P(motion), P(opts), P(res)
    Sh = P(t.Shape)
    protos = [
        ("kcbp2d_sweep_options_init", None, [O, c_uint32]),
        ("kcbp2d_sweep_sized", c_int, [Sh, M, Sh, M, O, R, c_size_t, E]),
        ("kcbp2d_model_sweep_sized", c_int, [ctypes.c_void_p, M, ctypes.c_void_p, M, O, R, c_size_t, E]),
        ("kcbp2d_model_shape_sweep_sized", c_int, [ctypes.c_void_p, M, Sh, M, O, R, c_size_t, E]),
    ]
    for name, restype, args in protos:
        if not hasattr(lib, name):
            raise Error("2D: %s is missing from this libkcbp (%s)" % (name, _lib.VERSION), "unsupported")
        f = getattr(lib, name)
        f.restype, f.argtypes = restype, args
    _types = (motion, opts, res)
    return _types


def _end(p, what):
    """(tx, ty, degrees or None for a matrix's angle, the matrix's angle)
    of a 2D pose, checked as every 2D pose is (pose2d)."""
    q = _api2d.pose2d(p, what)  # the checks and messages of every 2D pose
    if p is None:
        return 0.0, 0.0, 0.0, None
    a = np.asarray(p, dtype=np.float64)
    if a.shape == (3,):
        return float(a[0]), float(a[1]), float(a[2]), None
    return q.trans.x, q.trans.y, None, math.degrees(math.atan2(q.s, q.c))


def _nearest(deg, to):
    """deg plus the multiple of 360 nearest to `to` (ties: the larger)."""
    return deg + 360.0 * math.floor((to - deg) / 360.0 + 0.5)


def motion_angles(f, t):
    """The motion's (from_deg, to_deg) for two ends of _end."""
    fd, td = f[2], t[2]
    if fd is None and td is None:
        fd = f[3]
        td = _nearest(t[3], fd)
    elif fd is None:
        fd = _nearest(f[3], td)
    elif td is None:
        td = _nearest(t[3], fd)
    return fd, td


def _edge(e):
    return None if e == _api2d._UNSET else int(e)


def _v2(v):
    return [v.x + 0.0, v.y + 0.0]


def sweep(a, b, pose_from, pose_to, pose_a=None, tolerance=1e-9, max_iterations=10000):
    """kcbp.sweep for two 2D geometries (see kcbp.sweep)."""
    motion_t, opts_t, res_t = _sweep_types()
    if not (_api2d.is_2d(a) and _api2d.is_2d(b)):
        raise _api2d.mixed_error("sweep", a, b)
    if isinstance(tolerance, bool) or not isinstance(tolerance, (int, float)) or not 0 < tolerance <= 0.5:
        raise Error("tolerance must be a number in (0, 0.5], not %r" % (tolerance,))
    if isinstance(max_iterations, bool) or not isinstance(max_iterations, int) or max_iterations < 1:
        raise Error("max_iterations must be a whole number >= 1, not %r" % (max_iterations,))
    a, b = _api2d.as_geometry2d(a, "a"), _api2d.as_geometry2d(b, "b")
    ea = _end(pose_a, "pose_a")
    f, t = _end(pose_from, "pose_from"), _end(pose_to, "pose_to")
    da = ea[2] if ea[2] is not None else ea[3]
    fd, td = motion_angles(f, t)
    ma = motion_t(**{"from": Vec2(ea[0], ea[1]), "to": Vec2(ea[0], ea[1]), "from_deg": da, "to_deg": da})
    mb = motion_t(**{"from": Vec2(f[0], f[1]), "to": Vec2(t[0], t[1]), "from_deg": fd, "to_deg": td})
    o = _lib2d.options(opts_t, "kcbp2d_sweep_options_init")
    o.t_tolerance = float(tolerance)
    o.max_iterations = min(max_iterations, 2 ** 31 - 1)
    r = res_t()
    err = _lib.ErrorStruct()
    swap = not a.is_model and b.is_model
    with _Using(a, b):
        t0 = time.perf_counter()
        if not a.is_model and not b.is_model:
            st = lib.kcbp2d_sweep_sized(byref(a._s), byref(ma), byref(b._s), byref(mb), byref(o), byref(r),
                                        sizeof(r), byref(err))
        elif a.is_model and b.is_model:
            st = lib.kcbp2d_model_sweep_sized(a._h, byref(ma), b._h, byref(mb), byref(o), byref(r), sizeof(r),
                                              byref(err))
        elif a.is_model:
            st = lib.kcbp2d_model_shape_sweep_sized(a._h, byref(ma), byref(b._s), byref(mb), byref(o), byref(r),
                                                    sizeof(r), byref(err))
        else:  # a shape as A: the library takes the model first; the answer swapped back (as the CLI)
            st = lib.kcbp2d_model_shape_sweep_sized(b._h, byref(mb), byref(a._s), byref(ma), byref(o), byref(r),
                                                    sizeof(r), byref(err))
        ms = (time.perf_counter() - t0) * 1e3
        _lib.check(st, err)
        out = {}
        if r.hit:
            pa, pb, n = _v2(r.point_a), _v2(r.point_b), _v2(r.normal)
            e_a, e_b = _edge(r.edge_a), _edge(r.edge_b)
            if swap:
                pa, pb, e_a, e_b = pb, pa, e_b, e_a
                n = [-n[0] + 0.0, -n[1] + 0.0]
            out["toi"] = r.toi
            out["contacts"] = [[e_a, e_b]]
            out["point"] = [(pa[0] + pb[0]) * 0.5, (pa[1] + pb[1]) * 0.5]
            out["point_a"], out["point_b"], out["normal"] = pa, pb, n
            out["distance"] = r.distance
            out["confirmed"] = bool(r.confirmed)
        else:
            out["toi"] = None
            if r.undecided:
                out["undecided"] = True
                out["free_until"] = r.free_until
        out["a"], out["b"] = a._report(), b._report()
    out["dimensions"] = 2
    out["stats"] = {"motion_bound": r.motion_bound, "iterations": int(r.iterations),
                    "distance_queries": int(r.distance_queries), "query_ms": ms}
    return out

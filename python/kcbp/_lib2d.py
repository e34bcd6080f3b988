"""The 2D layer of libkcbp (include/kcbp/kcbp2d.h) described to ctypes.

As in _lib.py, every struct is laid out at the offsets the library reports
(kcbp_layout); the growable option structs are made by their _init
functions with the library's own size, and results are passed with their
size (the _sized entry points). Set up on first use: a libkcbp without the
2D layer makes the 2D classes raise kcbp.Error (code "unsupported"), and
leaves the 3D package working.
"""
import ctypes
from ctypes import POINTER as P
from ctypes import Structure, c_bool, c_char_p, c_double, c_int, c_size_t, c_uint32, c_uint64, c_void_p, sizeof

from . import _lib
from ._lib import Error, lib


class Vec2(Structure):
    _fields_ = [("x", c_double), ("y", c_double)]


class Pose2(Structure):
    """kcbp2d_pose: cos, sin of the angle, then the translation."""
    _fields_ = [("c", c_double), ("s", c_double), ("trans", Vec2)]


class _Types:
    pass


_t = None


def types():
    """The 2D structs and prototypes (a namespace), made once."""
    global _t
    if _t is not None:
        return _t
    if not hasattr(lib, "kcbp2d_model_collide_sized") or _lib.layout("kcbp2d_model_depth_result") is None:
        raise Error("2D is not supported by this libkcbp (%s)" % _lib.VERSION, "unsupported")
    for name, cls in (("kcbp_vec2", Vec2), ("kcbp2d_pose", Pose2)):
        if _lib.layout(name) != (0, sizeof(cls)):
            raise Error("%s has an unexpected layout in libkcbp %s" % (name, _lib.VERSION), "unsupported")
    if _lib.layout("kcbp2d_pose.trans") != (16, 16) or _lib.layout("kcbp2d_pose.s") != (8, 8):
        raise Error("kcbp2d_pose has an unexpected layout in libkcbp %s" % _lib.VERSION, "unsupported")
    s = _lib.struct
    t = _Types()
    t.Shape = s("kcbp2d_shape", [("kind", c_int), ("radius", c_double), ("local", Vec2 * 2), ("points", c_void_p),
                                 ("npoints", c_uint32)])
    t.CollideOptions = s("kcbp2d_collide_options", [("size", c_uint32), ("margin", c_double)])
    t.CollideResult = s("kcbp2d_collide_result", [("collide", c_bool), ("cores_intersect", c_bool),
                                                  ("decided_by", c_int), ("separating_shape", c_int),
                                                  ("separating_edge", c_uint32)])
    t.DistanceOptions = s("kcbp2d_distance_options", [("size", c_uint32), ("max_iterations", c_int)])
    t.DistanceResult = s("kcbp2d_distance_result", [
        ("status", c_int), ("distance", c_double), ("depth", c_double), ("signed_distance", c_double),
        ("normal", Vec2), ("point_a", Vec2), ("point_b", Vec2), ("scale", c_double), ("iterations", c_int)])
    t.Polygons = s("kcbp2d_polygons", [("points", c_void_p), ("ring_end", c_void_p), ("nrings", c_uint32),
                                       ("polygon_end", c_void_p), ("npolygons", c_uint32)])
    # member entries where the library has them (1.1.0 listed only the sizes)
    if _lib.layout("kcbp2d_edge_pair") != (0, 8) or _lib.layout("kcbp2d_edge_pair.b") not in (None, (4, 4)) \
            or _lib.layout("kcbp_vec2.y") not in (None, (8, 8)):
        raise Error("kcbp2d_edge_pair has an unexpected layout in libkcbp %s" % _lib.VERSION, "unsupported")
    t.ModelCollideOptions = s("kcbp2d_model_collide_options", [("size", c_uint32), ("margin", c_double),
                                                               ("contacts", c_void_p),
                                                               ("contacts_capacity", c_uint32)])
    t.ModelCollideResult = s("kcbp2d_model_collide_result", [
        ("collide", c_bool), ("contained", c_int), ("ncontacts", c_uint32), ("contacts_truncated", c_bool),
        ("edge_pairs", c_uint64)])
    t.ModelDistanceResult = s("kcbp2d_model_distance_result", [
        ("collide", c_bool), ("distance", c_double), ("point_a", Vec2), ("point_b", Vec2), ("edge_a", c_uint32),
        ("edge_b", c_uint32), ("edge_pairs", c_uint64)])
    t.DepthOptions = s("kcbp2d_model_depth_options", [("size", c_uint32), ("directions", c_int),
                                                      ("bisections", c_int), ("grid", c_int)])
    t.DepthResult = s("kcbp2d_model_depth_result", [
        ("collide", c_bool), ("depth_lower", c_double), ("depth_upper", c_double), ("translation", Vec2),
        ("normal", Vec2), ("lower_center", Vec2), ("lower_radius_a", c_double), ("lower_radius_b", c_double),
        ("steps", c_int), ("scale", c_double), ("touching", c_bool)])
    E = P(_lib.ErrorStruct)
    St = c_int
    Po = P(Pose2)
    Sh = P(t.Shape)
    protos = [
        ("kcbp2d_pose_from_angle", St, [c_double, c_double, c_double, Po, E]),
        ("kcbp2d_shape_circle", t.Shape, [c_double]),
        ("kcbp2d_shape_capsule", t.Shape, [c_double, c_double]),
        ("kcbp2d_shape_box", t.Shape, [c_double, c_double, c_double]),
        ("kcbp2d_shape_polygon", t.Shape, [c_void_p, c_uint32, c_double]),
        ("kcbp2d_shape_check", St, [Sh, E]),
        ("kcbp2d_shape_kind_name", c_char_p, [c_int]),
        ("kcbp2d_hull", St, [c_void_p, c_size_t, c_void_p, P(c_size_t), E]),
        ("kcbp2d_collide_options_init", None, [P(t.CollideOptions), c_uint32]),
        ("kcbp2d_collide_sized", St, [Sh, Po, Sh, Po, P(t.CollideOptions), P(t.CollideResult), c_size_t, E]),
        ("kcbp2d_distance_options_init", None, [P(t.DistanceOptions), c_uint32]),
        ("kcbp2d_distance_sized", St, [Sh, Po, Sh, Po, P(t.DistanceOptions), P(t.DistanceResult), c_size_t, E]),
        ("kcbp2d_distance_status_name", c_char_p, [c_int]),
        ("kcbp2d_model_build", St, [P(t.Polygons), P(c_void_p), E]),
        ("kcbp2d_model_free", None, [c_void_p]),
        ("kcbp2d_model_load", St, [c_char_p, P(c_void_p), E]),
        ("kcbp2d_model_vertex_count", c_uint32, [c_void_p]),
        ("kcbp2d_model_ring_count", c_uint32, [c_void_p]),
        ("kcbp2d_model_vertices", P(c_double), [c_void_p]),
        ("kcbp2d_model_edge_end", c_uint32, [c_void_p, c_uint32]),
        ("kcbp2d_model_bounds", None, [c_void_p, P(Vec2), P(Vec2)]),
        ("kcbp2d_model_collide_options_init", None, [P(t.ModelCollideOptions), c_uint32]),
        ("kcbp2d_model_collide_sized", St, [c_void_p, Po, c_void_p, Po, P(t.ModelCollideOptions),
                                            P(t.ModelCollideResult), c_size_t, E]),
        ("kcbp2d_model_shape_collide_sized", St, [c_void_p, Po, Sh, Po, P(t.ModelCollideOptions),
                                                  P(t.ModelCollideResult), c_size_t, E]),
        ("kcbp2d_model_distance_sized", St, [c_void_p, Po, c_void_p, Po, P(t.ModelDistanceResult), c_size_t, E]),
        ("kcbp2d_model_shape_distance_sized", St, [c_void_p, Po, Sh, Po, P(t.ModelDistanceResult), c_size_t, E]),
        ("kcbp2d_model_depth_options_init", None, [P(t.DepthOptions), c_uint32]),
        ("kcbp2d_model_depth_sized", St, [c_void_p, Po, c_void_p, Po, P(t.DepthOptions), P(t.DepthResult),
                                          c_size_t, E]),
        ("kcbp2d_model_shape_depth_sized", St, [c_void_p, Po, Sh, Po, P(t.DepthOptions), P(t.DepthResult),
                                                c_size_t, E]),
    ]
    for name, res, args in protos:
        if not hasattr(lib, name):
            raise Error("2D: %s is missing from this libkcbp (%s)" % (name, _lib.VERSION), "unsupported")
        f = getattr(lib, name)
        f.restype, f.argtypes = res, args
    _t = t
    return t


def options(cls, init):
    """A growable options struct made by the library's _init with its size."""
    o = cls()
    getattr(lib, init)(ctypes.byref(o), sizeof(o))
    return o


_defaults = {}


def default_options(cls, init):
    """One options struct of the defaults per type, shared: the library
    only reads it, so no call may change it."""
    o = _defaults.get(init)
    if o is None:
        o = _defaults.setdefault(init, options(cls, init))
    return o

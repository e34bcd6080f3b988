"""Loading libkcbp.so and describing its structs to ctypes.

The structs are never copied from the headers by hand: their sizes and the
offsets of the members used here come from the library itself
(kcbp_layout, include/kcbp/layout.h), so a struct that grows a field on
another branch changes nothing here, and a member this package needs but the
library lacks is a clean kcbp.Error, never a wrong read.
"""
import ctypes
import ctypes.util
import errno
import glob
import os
from ctypes import (POINTER, Structure, c_bool, c_char, c_char_p, c_double, c_int, c_size_t, c_uint8, c_uint32,
                    c_uint64, c_void_p, sizeof)


class Error(ValueError):
    """A kcbp failure: the library's message (kcbp_error.msg), or a bad argument.

    A ValueError (as trimesh and numpy raise for bad input), so that
    ``except ValueError`` catches it. ``code`` is kcbp's status name ("io",
    "parse", "invalid", ...; see include/kcbp/error.h) or "unsupported"
    when the loaded libkcbp lacks a feature."""

    def __init__(self, message, code="invalid"):
        super().__init__(message)
        self.code = code


class WrongType(Error, TypeError):
    """An argument of the wrong kind (not a mesh, not a manager, an
    unhashable name): a kcbp.Error, so a ValueError, and also the TypeError
    that trimesh and FCL raise (or Python, for an unhashable key) for
    it, so that code catching either keeps working."""


class FileNotFound(Error, FileNotFoundError):
    """A mesh file that does not exist: both a kcbp.Error (code "io") and
    the built-in FileNotFoundError (errno ENOENT, filename)."""

    def __init__(self, message, filename=None):
        Error.__init__(self, message, "io")
        self.errno = errno.ENOENT
        self.strerror = os.strerror(errno.ENOENT)
        self.filename = filename

    def __str__(self):
        return self.args[0]


def _candidates():
    """Where libkcbp is looked for, in order: the copy bundled in the
    installed package (pip), KCBP_LIBRARY, the build tree (python/kcbp/ beside
    build/), the prefix `make install` put the package under, then wherever
    the dynamic loader looks. Any SONAME version: the structs' layouts come
    from the library itself."""
    here = os.path.dirname(os.path.abspath(__file__))
    out = sorted(glob.glob(os.path.join(here, "libkcbp.so*")))
    env = os.environ.get("KCBP_LIBRARY")
    if env:
        out.append(env)
    root = os.path.join(here, os.pardir, os.pardir)
    for d in (os.path.join(root, "build"), os.path.join(root, "build", "lib")):
        out += sorted(glob.glob(os.path.join(d, "libkcbp.so.[0-9]*")), key=len)
    # Installed: $(PREFIX)/lib/python3/dist-packages/kcbp -> $(PREFIX)/lib.
    prefix_lib = os.path.join(here, os.pardir, os.pardir, os.pardir)
    out += sorted(glob.glob(os.path.join(prefix_lib, "libkcbp.so.[0-9]*")), key=len)
    found = ctypes.util.find_library("kcbp")
    if found:
        out.append(found)
    out += ["libkcbp.so.1", "libkcbp.so.0"]
    return out


def _open():
    tried = []
    for path in _candidates():
        if os.sep in path and not os.path.exists(path):
            tried.append(path)
            continue
        try:
            return ctypes.CDLL(os.path.normpath(path) if os.sep in path else path)
        except OSError as e:
            tried.append("%s (%s)" % (path, e))
    raise ImportError("kcbp: cannot load libkcbp.so (pip install the package, run `make`, or set KCBP_LIBRARY); "
                      "tried: " + "; ".join(tried))


lib = _open()

lib.kcbp_version.restype = c_char_p
lib.kcbp_version.argtypes = []
VERSION = lib.kcbp_version().decode()

if not hasattr(lib, "kcbp_layout"):
    raise ImportError("kcbp: libkcbp %s has no kcbp_layout (too old for this package)" % VERSION)
lib.kcbp_layout.restype = c_bool
lib.kcbp_layout.argtypes = [c_char_p, POINTER(c_size_t), POINTER(c_size_t)]


def layout(name):
    """(offset, size) of a struct ("kcbp_model") or member ("kcbp_model.mesh"), or None."""
    off, size = c_size_t(), c_size_t()
    if not lib.kcbp_layout(name.encode(), ctypes.byref(off), ctypes.byref(size)):
        return None
    return off.value, size.value


def has_member(name):
    """True when the loaded libkcbp has that struct member (a feature probe)."""
    return layout(name) is not None


def struct(cname, members):
    """A ctypes Structure for C struct cname with the given (member, ctype)
    members at the library's offsets, padded to the library's size. A dotted
    member ("cbp.distance") is stored as "cbp_distance"."""
    total = layout(cname)
    if total is None:
        raise ImportError("kcbp: libkcbp %s does not describe %s" % (VERSION, cname))
    placed = []
    for member, ctype in members:
        where = layout(cname + "." + member)
        if where is None:
            raise ImportError("kcbp: libkcbp %s has no %s.%s" % (VERSION, cname, member))
        if where[1] != sizeof(ctype):
            raise ImportError("kcbp: %s.%s is %d bytes in libkcbp %s, expected %d" %
                              (cname, member, where[1], VERSION, sizeof(ctype)))
        placed.append((where[0], member.replace(".", "_"), ctype))
    placed.sort(key=lambda p: p[0])
    fields, pos = [], 0
    for off, name, ctype in placed:
        if off < pos:
            raise ImportError("kcbp: overlapping members in %s" % cname)
        if off > pos:
            fields.append(("_pad%d" % pos, c_uint8 * (off - pos)))
        fields.append((name, ctype))
        pos = off + sizeof(ctype)
    if total[1] > pos:
        fields.append(("_pad%d" % pos, c_uint8 * (total[1] - pos)))
    cls = type(cname, (Structure,), {"_pack_": 1, "_fields_": fields})
    if sizeof(cls) != total[1]:
        raise ImportError("kcbp: %s laid out in %d bytes, libkcbp says %d" % (cname, sizeof(cls), total[1]))
    return cls


# The small structs whose layout is part of the API's meaning (a vector is
# three doubles, a pose a row-major 3x3 rotation then a translation) are
# checked against the library rather than built from it.
class Vec3(Structure):
    _fields_ = [("x", c_double), ("y", c_double), ("z", c_double)]


class Pose(Structure):
    _fields_ = [("rot", c_double * 9), ("trans", Vec3)]


for _name, _cls in (("kcbp_vec3", Vec3), ("kcbp_pose", Pose)):
    if layout(_name) != (0, sizeof(_cls)):
        raise ImportError("kcbp: %s has an unexpected layout in libkcbp %s" % (_name, VERSION))
if layout("kcbp_pose.trans") != (72, 24):
    raise ImportError("kcbp: kcbp_pose has an unexpected layout in libkcbp %s" % VERSION)

ErrorStruct = struct("kcbp_error", [("code", c_int), ("msg", c_char * 512)])
_model_option_members = [("k", c_int), ("dirs", c_int), ("k_fine", c_int)]
if has_member("kcbp_model_options.solid"):
    _model_option_members.append(("solid", c_bool))
ModelOptions = struct("kcbp_model_options", _model_option_members)
# A model is a small struct around a handle; meshes, k-CBPs, scenes and
# scene evaluations are handles (void pointers here) read through accessors.
ModelStruct = struct("kcbp_model", [("impl", c_void_p)])
_collide_option_members = [("contacts", c_int), ("use_cbp", c_bool), ("cbp_measure", c_bool),
                           ("skip_bounds", c_bool)]
# Later features, used when the library has them (feature probes).
if has_member("kcbp_collide_options.margin"):
    _collide_option_members.append(("margin", c_double))
if has_member("kcbp_collide_options.solid"):
    _collide_option_members.append(("solid", c_bool))
CollideOptions = struct("kcbp_collide_options", _collide_option_members)
CollideResult = struct("kcbp_collide_result", [
    ("collide", c_bool), ("decided_by", c_int), ("contacts", POINTER(c_uint32)), ("ncontacts", c_size_t),
    ("cbp.tested", c_bool), ("cbp.separated", c_bool), ("cbp.measured", c_bool), ("cbp.distance_lower", c_double),
    ("cbp.distance", c_double), ("cbp.point_a", Vec3), ("cbp.point_b", Vec3), ("cbp.depth", c_double),
    ("cbp.direction", Vec3), ("cbp.depth_exact", c_bool), ("cbp.gjk_iterations", c_int),
    ("cbp.epa_iterations", c_int), ("tree.box_pairs", c_uint64), ("tree.tri_pairs", c_uint64)]
    + ([("contained", c_int)] if has_member("kcbp_collide_result.contained") else []))
if layout("kcbp_contact") != (0, 8) or layout("kcbp_contact.b") != (4, 4):
    raise ImportError("kcbp: kcbp_contact has an unexpected layout in libkcbp %s" % VERSION)
SceneObject = struct("kcbp_scene_object", [("name", c_char_p), ("mesh", c_char_p), ("scale", c_double),
                                           ("position", Vec3), ("axis", Vec3), ("angle_deg", c_double),
                                           ("velocity", Vec3), ("spin_axis", Vec3), ("spin_deg_per_s", c_double)])
BuildTimes = struct("kcbp_scene_build_times", [("load_ms", c_double), ("build_ms", c_double)])
SceneHit = struct("kcbp_scene_hit", [("a", c_uint32), ("b", c_uint32), ("first", c_size_t), ("count", c_size_t)])
SceneFrame = struct("kcbp_scene_frame", [
    ("frame", c_uint32), ("pairs", c_uint64), ("broadphase", c_uint64), ("mesh_tested", c_uint64),
    ("colliding", c_uint64), ("cbp_used", c_bool), ("hits", c_void_p), ("contacts", POINTER(c_uint32)),
    ("time_ms.bounds", c_double), ("time_ms.broadphase", c_double), ("time_ms.filter", c_double),
    ("time_ms.mesh", c_double),
    ("cache_axis", c_uint64), ("cache_contact", c_uint64), ("cache_near", c_uint64), ("cbp_skipped", c_uint64)])
EvalOptions = struct("kcbp_scene_eval_options", [("collide", CollideOptions), ("coherent", c_bool),
                                                 ("margin", c_double)])

# Shapes (include/kcbp/shape.h), when the library has them.
if layout("kcbp_shape") is not None:
    ShapeStruct = struct("kcbp_shape", [("kind", c_int), ("radius", c_double), ("length", c_double),
                                        ("size", Vec3)])
else:
    ShapeStruct = None

P = POINTER
_status = c_int


def _proto(name, restype, *argtypes):
    f = getattr(lib, name)
    f.restype = restype
    f.argtypes = list(argtypes)


_proto("kcbp_status_name", c_char_p, c_int)
_proto("kcbp_stage_name", c_char_p, c_int)
_proto("kcbp_containment_name", c_char_p, c_int)
_proto("kcbp_mesh_create", _status, c_void_p, c_size_t, c_void_p, c_size_t, P(c_void_p), P(ErrorStruct))
_proto("kcbp_mesh_free", None, c_void_p)
_proto("kcbp_mesh_vertex_count", c_uint32, c_void_p)
_proto("kcbp_mesh_vertices", P(c_double), c_void_p)
_proto("kcbp_mesh_triangle_count", c_uint32, c_void_p)
_proto("kcbp_mesh_triangles", P(c_uint32), c_void_p)
_proto("kcbp_mesh_degenerate_count", c_uint32, c_void_p)
if hasattr(lib, "kcbp_mesh_check_solid"):  # solid.h (kcbp_solid_check * may be NULL)
    _proto("kcbp_mesh_check_solid", _status, c_void_p, c_void_p, P(ErrorStruct))
_proto("kcbp_model_build", _status, P(ModelStruct), c_void_p, P(ModelOptions), P(ErrorStruct))
_proto("kcbp_model_mesh", c_void_p, P(ModelStruct))
_proto("kcbp_model_cbp", c_void_p, P(ModelStruct))
_proto("kcbp_model_load", _status, P(ModelStruct), c_char_p, P(ModelOptions), P(ErrorStruct))
_proto("kcbp_model_free", None, P(ModelStruct))
_proto("kcbp_collide", _status, P(ModelStruct), P(Pose), P(ModelStruct), P(Pose), P(CollideOptions),
       P(CollideResult), P(ErrorStruct))
_proto("kcbp_collide_result_free", None, P(CollideResult))
_proto("kcbp_collide_poses", _status, P(ModelStruct), P(Pose), P(ModelStruct), c_void_p, c_size_t,
       P(CollideOptions), c_void_p, P(ErrorStruct))
_proto("kcbp_poses_from_axis_angle", _status, c_void_p, c_size_t, c_void_p, P(ErrorStruct))
_proto("kcbp_cbp_build", _status, c_void_p, c_size_t, c_int, c_int, P(c_void_p), P(ErrorStruct))
_proto("kcbp_cbp_free", None, c_void_p)
_proto("kcbp_cbp_plane_count", c_uint32, c_void_p)
_proto("kcbp_cbp_vertex_count", c_uint32, c_void_p)
_proto("kcbp_cbp_vertices", P(c_double), c_void_p)
_proto("kcbp_cbp_face", P(c_uint32), c_void_p, c_uint32, P(c_uint32))
_proto("kcbp_cbp_dirs_parse", _status, c_char_p, P(c_int), P(ErrorStruct))
_proto("kcbp_scene_read", _status, c_char_p, P(c_void_p), P(ErrorStruct))
_proto("kcbp_scene_build", _status, c_void_p, P(ModelOptions), P(ErrorStruct))
_proto("kcbp_scene_free", None, c_void_p)
_proto("kcbp_scene_name", c_char_p, c_void_p)
_proto("kcbp_scene_object_count", c_uint32, c_void_p)
_proto("kcbp_scene_object_at", SceneObject, c_void_p, c_uint32)
_proto("kcbp_scene_frame_count", c_uint32, c_void_p)
_proto("kcbp_scene_dt", c_double, c_void_p)
_proto("kcbp_scene_is_moving", c_bool, c_void_p)
_proto("kcbp_scene_model_count", c_uint32, c_void_p)
_proto("kcbp_scene_build_time", BuildTimes, c_void_p)
_proto("kcbp_scene_eval_new", _status, c_void_p, P(EvalOptions), P(c_void_p), P(ErrorStruct))
_proto("kcbp_scene_eval_frame", _status, c_void_p, c_uint32, P(SceneFrame), P(ErrorStruct))
_proto("kcbp_scene_eval_free", None, c_void_p)
_proto("kcbp_scene_frame_free", None, P(SceneFrame))
_proto("kcbp_scene_object_pose", Pose, c_void_p, c_uint32, c_uint32)


def _optional(name, restype, *argtypes):
    """A function of newer libraries: prototyped when present (callers raise
    Error "unsupported" otherwise)."""
    if hasattr(lib, name):
        _proto(name, restype, *argtypes)
        return True
    return False


HAS_SHAPES = ShapeStruct is not None and (
    _optional("kcbp_model_build_shape", _status, P(ModelStruct), P(ShapeStruct), P(ErrorStruct))
    & _optional("kcbp_shape_check", _status, P(ShapeStruct), P(ErrorStruct))
    & _optional("kcbp_shape_tessellate", _status, P(ShapeStruct), c_uint32, P(c_void_p), P(ErrorStruct)))
# In a contact or a closest-point pair, a shape's side (no triangle).
SHAPE_FEATURE = 0xFFFFFFFF

HAS_POSE_FORMS = (_optional("kcbp_pose_from_quat", _status, Vec3, c_double, c_double, c_double, c_double, P(Pose),
                            P(ErrorStruct))
                  & _optional("kcbp_pose_from_matrix", _status, c_void_p, c_int, P(Pose), P(ErrorStruct))
                  & _optional("kcbp_poses_from_matrices", _status, c_void_p, c_size_t, c_int, c_void_p,
                              P(ErrorStruct)))
_proto("kcbp_pose_parse", _status, c_char_p, P(Pose), P(ErrorStruct))

# Contact geometry (include/kcbp/contact_geom.h), when the library describes it.
if layout("kcbp_contact_geom") is not None and hasattr(lib, "kcbp_contact_geometry"):
    CONTACT_POINTS_MAX = layout("kcbp_contact_geom.points")[1] // sizeof(Vec3)
    ContactGeom = struct("kcbp_contact_geom", [("a", c_uint32), ("b", c_uint32), ("npoints", c_uint32),
                                               ("points", Vec3 * CONTACT_POINTS_MAX)])
    ContactSummary = struct("kcbp_contact_summary", [("point", Vec3), ("normal", Vec3), ("has_normal", c_bool)])
    _proto("kcbp_contact_geometry", None, P(ModelStruct), P(Pose), P(ModelStruct), P(Pose), c_void_p, c_size_t,
           c_void_p, P(ContactSummary))
else:
    ContactGeom = ContactSummary = None


def fsencode(path):
    """os.fsencode, refusing a NUL byte: the C library would read the path
    only up to it ("good.obj\\0x" loaded good.obj), where Python's own
    open() raises ValueError."""
    p = os.fsencode(path)
    if b"\0" in p:
        raise Error("%r: a path with a NUL byte (embedded null byte)" % (path,), "invalid")
    return p


def check(status, err):
    """Raises Error with the library's message when status is not KCBP_OK."""
    if status != 0:
        name = lib.kcbp_status_name(status)
        raise Error(err.msg.decode("utf-8", "replace"), name.decode() if name else str(status))


# Signed distance and depth (include/kcbp/signed_distance.h), when the
# library has it. The options struct grows: it is made by
# kcbp_signed_distance_options_init with this struct's size (the library's
# own, from kcbp_layout), and the result is written within the size passed.
if layout("kcbp_signed_distance_result") is not None and hasattr(lib, "kcbp_signed_distance_sized"):
    SignedDistanceOptions = struct("kcbp_signed_distance_options", [
        ("size", c_uint32), ("max_distance", c_double), ("depth_tolerance", c_double), ("max_steps", c_int),
        ("use_cbp", c_bool)])
    SignedDistanceResult = struct("kcbp_signed_distance_result", [
        ("status", c_int), ("signed_distance", c_double), ("distance_lower", c_double), ("depth", c_double),
        ("depth_lower", c_double), ("depth_upper", c_double), ("normal", Vec3), ("translation", Vec3),
        ("point_a", Vec3), ("point_b", Vec3), ("feature_a", c_uint32), ("feature_b", c_uint32),
        ("decided_by", c_int), ("steps", c_int), ("ms", c_double)])
    _proto("kcbp_signed_distance_options_init", None, P(SignedDistanceOptions), c_uint32)
    _proto("kcbp_signed_distance_sized", _status, P(ModelStruct), P(Pose), P(ModelStruct), P(Pose),
           P(SignedDistanceOptions), P(SignedDistanceResult), c_size_t, P(ErrorStruct))
    _proto("kcbp_sdist_status_name", c_char_p, c_int)
    HAS_SIGNED_DISTANCE = True
else:
    SignedDistanceOptions = SignedDistanceResult = None
    HAS_SIGNED_DISTANCE = False

HAS_HULL = (_optional("kcbp_model_build_hull", _status, P(ModelStruct), c_void_p, c_size_t, P(ErrorStruct))
            & _optional("kcbp_model_hull_vertices", P(Vec3), P(ModelStruct), P(c_uint32))
            & _optional("kcbp_model_display_mesh", c_void_p, P(ModelStruct)))

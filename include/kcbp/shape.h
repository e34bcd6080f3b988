/* Shapes: spheres, capsules, boxes and cylinders (and convex hulls of
 * points, model.h), the solids robots, characters, fixtures and shafts are
 * checked as, beside triangle meshes.
 *
 * Conventions (FCL's, so that a user's numbers carry over): a shape is
 * centred at the origin of its own frame with its axis along z, and placed
 * in the world by a pose like a mesh (world = pose * local):
 *   - sphere:   radius r: the points within r of the origin;
 *   - capsule:  radius r and length L of its segment (the cylindrical part):
 *               the points within r of the segment from (0, 0, -L/2) to
 *               (0, 0, L/2), so its total length is L + 2r;
 *   - box:      full side lengths (x, y, z): [-x/2, x/2] x [-y/2, y/2] x [-z/2, z/2];
 *   - cylinder: radius r and height L: x^2 + y^2 <= r^2, |z| <= L/2.
 *
 * Shapes are solids; meshes are triangle surfaces (as in FCL). A shape
 * collides with a mesh when a triangle of the mesh meets the solid, so a
 * mesh wholly inside a shape collides with it, while a shape wholly inside
 * a closed mesh without touching a triangle does not, unless the pair is
 * tested as solids (kcbp_collide_options.solid with the mesh's model built
 * as a solid: then "contained": the shape is inside the mesh). Two shapes
 * collide when the solids share a point.
 *
 * A shape becomes a model (kcbp_model_build_shape, model.h), and every query
 * that takes models takes it (collide.h, distance.h, sweep.h, batch.h).
 * Contacts and closest points name the mesh's triangle and, for a shape,
 * KCBP_SHAPE_FEATURE (no triangle: the shape as a whole).
 *
 * Exactness (see collide.h): a sphere is its centre at distance <= r from a
 * triangle, a capsule its segment at distance <= r; these decisions, and the
 * box's, are exact for the coordinates they are computed on; cylinders and
 * hulls are decided by GJK within a stated bound (KCBP_SHAPE_GJK_BAND). */
#ifndef KCBP_SHAPE_H
#define KCBP_SHAPE_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "mesh.h"
#include "vec3.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    KCBP_SHAPE_NONE = 0, /* not a shape (a mesh model) */
    KCBP_SHAPE_SPHERE,
    KCBP_SHAPE_CAPSULE,
    KCBP_SHAPE_BOX,
    KCBP_SHAPE_CYLINDER,
    KCBP_SHAPE_HULL, /* the convex hull of points (kcbp_model_build_hull) */
} kcbp_shape_kind;

/* A shape's parameters, in its own frame (see the top of this file). The
 * numbers must be finite, > 0 and at most KCBP_SHAPE_MAX (lengths may be 0
 * for a capsule, whose segment is then a point: a sphere). */
typedef struct {
    kcbp_shape_kind kind;
    double radius; /* sphere, capsule, cylinder */
    double length; /* capsule: its segment's length; cylinder: its height */
    kcbp_vec3 size; /* box: full side lengths x, y, z */
} kcbp_shape;

/* The largest number a shape takes (a radius, a length, a side), and the
 * smallest positive one: far inside the range where the squared distances
 * of its exact tests cannot overflow or underflow in double. */
#define KCBP_SHAPE_MAX 1e60
#define KCBP_SHAPE_MIN 1e-60

/* In a contact (model.h's kcbp_contact) or a closest point's triangle: the
 * shape side, which has no triangles. */
#define KCBP_SHAPE_FEATURE UINT32_MAX

/* GJK's touching band, relative to the pair's scale (the largest coordinate
 * magnitude in the pair's frame): cylinders and hulls against anything, and
 * boxes against boxes, are decided by GJK on their support functions, and a
 * pair whose gap is within KCBP_SHAPE_GJK_BAND times the scale of zero is
 * answered "collide" (conservative: never a missed contact, and a false
 * contact only within that band). Outside the band the answer is exact
 * for the coordinates computed on. */
#define KCBP_SHAPE_GJK_BAND 1e-9

/* Makers: the struct filled in (not checked: see kcbp_shape_check). */
KCBP_API kcbp_shape kcbp_shape_sphere(double radius);
KCBP_API kcbp_shape kcbp_shape_capsule(double radius, double length);
KCBP_API kcbp_shape kcbp_shape_box(double x, double y, double z);
KCBP_API kcbp_shape kcbp_shape_cylinder(double radius, double height);

/* KCBP_ERR_INVALID, with a message naming the number, when a parameter is
 * not finite, not > 0 (a capsule's length: not >= 0), above KCBP_SHAPE_MAX
 * or below KCBP_SHAPE_MIN, or the kind is not one of the four above. */
KCBP_API kcbp_status kcbp_shape_check(const kcbp_shape *shape, kcbp_error *err);

/* "sphere", "capsule", "box", "cylinder", "hull" ("mesh" for KCBP_SHAPE_NONE). */
KCBP_API const char *kcbp_shape_kind_name(kcbp_shape_kind kind);

/* Parses the command line's form of a shape: "sphere:R", "capsule:R:L",
 * "box:X:Y:Z" or "cylinder:R:L", each number a whole decimal number (no
 * trailing characters), checked as kcbp_shape_check does. Returns
 * KCBP_ERR_PARSE when text does not start with one of the four names and a
 * colon (it is then not a shape: a file name), KCBP_ERR_INVALID with a
 * message naming the number when it does but a number is bad. */
KCBP_API kcbp_status kcbp_shape_parse(const char *text, kcbp_shape *shape, kcbp_error *err);

/* Whether text starts with a shape's name and a colon ("sphere:..."), the
 * test kcbp_shape_parse starts with: such an argument is never a file name
 * on the command line ("./sphere:1" names the file). */
KCBP_API int kcbp_shape_spelled(const char *text);

/* The shape's axis-aligned box in its own frame. */
KCBP_API kcbp_aabb kcbp_shape_bounds(const kcbp_shape *shape);

/* A triangle mesh of the shape's surface, for display only (a viewer, an
 * exported file): never used by a query, which takes the shape itself.
 * segments (>= 3, at most 1024) is the number of sides of a circle; the
 * vertices lie on the surface (so the mesh is inside the solid). Not for
 * KCBP_SHAPE_HULL (kcbp_model_display_mesh tessellates a hull model). */
KCBP_API kcbp_status kcbp_shape_tessellate(const kcbp_shape *shape, uint32_t segments, kcbp_mesh **out,
                                           kcbp_error *err);

#ifdef __cplusplus
}
#endif
#endif

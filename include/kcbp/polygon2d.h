/* Non-convex 2D regions: polygons with holes (and sets of them), built
 * into an opaque kcbp2d_model, and exact collision and distance between
 * two posed models.
 *
 * Input. A kcbp2d_polygons lists rings, each a closed curve given by its
 * vertices once (the first is not repeated at the end), grouped into
 * polygons: a polygon's first ring is its outer boundary, the others its
 * holes. Either orientation is accepted for any ring. The rings must bound
 * a region simply, decided exactly (src/mesh/polygon.c's sweep,
 * kcbp_polygon_rings_check, with every ring oriented counter-clockwise
 * round what it encloses): no two vertices at one point, no two edges
 * meeting other than consecutive ones at their shared vertex, every point
 * of the plane inside at most one polygon and no hole outside its
 * polygon. A polygon that fails this check is still accepted when it is
 * valid in OGC Simple Features' sense, its holes touching the outer ring
 * or each other at single points (parcel data has these), decided
 * exactly: every ring is simple alone; each hole lies in the outer ring
 * (the interiors of the hole and of the outer ring's outside do not meet,
 * as the depth's touching test below decides) and no two holes' interiors
 * meet; no two rings share a segment; and the interior is connected (no
 * loop in the graph of rings and the points where they touch: a hole
 * touching the outer ring at two points, or a chain of holes touching in
 * a loop, is refused). Refused with the reason: rings that cross, a ring
 * touching itself (an "inverted" hole drawn as part of the outer ring), a
 * hole outside, rings sharing a segment, a disconnected interior. A set
 * that fails the check as a whole is still accepted when its polygons
 * only touch (a map's parcels: shared edges and corners, a corner on
 * another's edge): each polygon is accepted alone and every two have
 * disjoint interiors (decided exactly, as the depth's touching test
 * below). KCBP_ERR_GEOMETRY names the ring at fault when the check
 * fails; KCBP_ERR_INVALID for a ring of fewer than 3 vertices, a non-finite
 * coordinate or one beyond KCBP_COORD_MAX; KCBP_ERR_LIMIT beyond
 * KCBP2D_MODEL_MAX_VERTICES vertices.
 *
 * Edges. Edge i joins vertex i (in the input's order, all rings one after
 * the other) to the next vertex of its ring; contacts name edges so.
 *
 * Frames and exactness (as the 3D kcbp_collide's): A's vertices are taken
 * as stored, B's are carried into A's frame by the relative pose (computed
 * in double from pose_a and pose_b: c = ca cb + sa sb, s = ca sb - sa cb,
 * t = R(a)^T (t_b - t_a), then kcbp2d_pose_apply); with pose_a the
 * identity, B's coordinates are exactly those kcbp2d_pose_apply gives in
 * the world, as for the convex shapes. For those coordinates:
 *   - collide (margin 0) is exact: an edge of A and an edge of B share a
 *     point (the exact segment test on orient2d signs and exact coordinate
 *     comparisons), or, when no edges meet, one region holds a vertex of
 *     the other (exact point in polygon: a ray's crossings, each decided by
 *     orient2d; parity over all rings);
 *   - with a margin, edges within the margin of each other
 *     (src/geom/closest.h's exact decision at z = 0) or containment;
 *   - distance: the smallest edge-to-edge distance, computed in double
 *     (accurate to a few ulps of the scale), by a branch-and-bound descent
 *     of both models' edge trees; 0 when they collide.
 * Penetration depth of non-convex pairs: a certified bracket,
 * kcbp2d_model_depth below.
 *
 * A model is read-only after building: it may be shared between threads.
 * Growable options and results (style §4.3), as collide2d.h. */
#ifndef KCBP_POLYGON2D_H
#define KCBP_POLYGON2D_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "pose2d.h"
#include "shape2d.h"
#include "vec2.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KCBP2D_MODEL_MAX_VERTICES 100000000u

typedef struct {
    const kcbp_vec2 *points;     /* every ring's vertices, ring after ring */
    const uint32_t *ring_end;    /* ring i is points[ring_end[i - 1] .. ring_end[i]) (ring_end[-1] = 0) */
    uint32_t nrings;
    const uint32_t *polygon_end; /* polygon j is rings [polygon_end[j - 1] .. polygon_end[j]) */
    uint32_t npolygons;
} kcbp2d_polygons;

typedef struct kcbp2d_model kcbp2d_model;

/* Copies the input (which may be freed afterwards), checks it and builds
 * the edge tree. *out is NULL on failure. */
KCBP_API kcbp_status kcbp2d_model_build(const kcbp2d_polygons *in, kcbp2d_model **out, kcbp_error *err);
/* A model of one convex polygon (points counter-clockwise or clockwise). */
KCBP_API kcbp_status kcbp2d_model_build_polygon(const kcbp_vec2 *points, uint32_t n, kcbp2d_model **out,
                                                kcbp_error *err);
KCBP_API void kcbp2d_model_free(kcbp2d_model *model);

KCBP_API uint32_t kcbp2d_model_vertex_count(const kcbp2d_model *model);
KCBP_API uint32_t kcbp2d_model_ring_count(const kcbp2d_model *model);
/* The vertices as given (edge i from vertex i to kcbp2d_model_edge_end(i)). */
KCBP_API const kcbp_vec2 *kcbp2d_model_vertices(const kcbp2d_model *model);
KCBP_API uint32_t kcbp2d_model_edge_end(const kcbp2d_model *model, uint32_t edge);
/* The model's box in its own frame. */
KCBP_API void kcbp2d_model_bounds(const kcbp2d_model *model, kcbp_vec2 *lo, kcbp_vec2 *hi);

/* ---- GeoJSON ----------------------------------------------------------
 *
 * kcbp2d_model_load reads a GeoJSON file (RFC 7946): a Polygon, a
 * MultiPolygon, a Feature holding one, or a FeatureCollection of such
 * Features; every polygon of the file goes into one model, in the file's
 * order (polygon p, ring r as kcbp2d_polygons numbers them). Positions
 * are [x, y] (a third number, an altitude, is ignored); a ring's last
 * position must equal its first exactly (a closed ring) and is dropped;
 * consecutive equal positions are merged. Refused, with the file name and
 * the position in the document as a JSON path (e.g.
 * "parcels.geojson: features[3].geometry.coordinates[0]: ..."):
 * invalid JSON (file:line:col), another geometry type (named), a null or
 * empty geometry, a ring of fewer than 4 positions or not closed, a number
 * that is not finite or beyond KCBP_COORD_MAX, and rings that do not bound
 * a region simply (as kcbp2d_model_build; the message names the first
 * ring that crosses or touches itself, else the first polygon whose rings
 * meet other than as OGC allows, with the reason and the hole's number
 * (its index in the polygon's coordinates), else says that polygons
 * overlap). Holes touching the outer ring or each other at single points
 * are read (OGC-valid; kcbp2d_model_build above).
 * Files up to KCBP2D_GEOJSON_MAX_BYTES. "-" reads standard input. */
#define KCBP2D_GEOJSON_MAX_BYTES (1024u * 1024u * 1024u)

KCBP_API kcbp_status kcbp2d_model_load(const char *path, kcbp2d_model **out, kcbp_error *err);

/* ---- SVG ----------------------------------------------------------------
 *
 * kcbp2d_model_load reads a file whose name ends in ".svg" as SVG:
 * <polygon points>, <rect x y width height>, <circle cx cy r> and <path d>
 * with straight segments (M, L, H, V, Z, absolute or relative; each
 * subpath a ring, closed whether or not it ends with Z), in user units as
 * written (SVG's y axis points down: the plane is mirrored, which changes
 * no collision or distance). A circle becomes the inscribed regular polygon
 * whose edges are within KCBP2D_SVG_FLATTEN (relative to its radius) of
 * the circle (vertices on it). Rings inside an odd number of others are
 * holes (even-odd nesting, decided exactly), so a path with a subpath
 * inside another is a polygon with a hole. Refused by name, with
 * file:line:col: curve commands (C, S, Q, T, A), rounded rects, ellipses,
 * open lines (line, polyline), any transform attribute or a transform in
 * a style (not applied), <use> (not expanded), a length with a unit other
 * than px ("5cm", "50%": not converted), and, as for GeoJSON, rings that
 * do not bound a region simply. Shapes inside <defs>, <symbol>,
 * <clipPath>, <mask>, <marker> and <pattern> are not drawn where they
 * stand, and not read. Other elements (groups without transforms, styles,
 * text) are skipped. */
#define KCBP2D_SVG_FLATTEN 1e-4
/* The same from text[0..len) (name for messages), circles flattened to
 * flatten (in (0, 1), relative to the radius). */
KCBP_API kcbp_status kcbp2d_model_parse_svg(const char *text, size_t len, const char *name, double flatten,
                                            kcbp2d_model **out, kcbp_error *err);
/* The same from text[0..len) (name for messages). */
KCBP_API kcbp_status kcbp2d_model_parse_geojson(const char *text, size_t len, const char *name, kcbp2d_model **out,
                                                kcbp_error *err);

typedef struct {
    uint32_t a, b; /* edge indices */
} kcbp2d_edge_pair;

typedef struct {
    uint32_t size;  /* set by kcbp2d_model_collide_options_default */
    double margin;  /* >= 0, finite: collide when closer than or at margin; default 0 */
    /* Where to write meeting edge pairs (NULL: none); at most
     * contacts_capacity of them. With none, the test stops at the first. */
    kcbp2d_edge_pair *contacts;
    uint32_t contacts_capacity;
} kcbp2d_model_collide_options;

KCBP_API void kcbp2d_model_collide_options_init(kcbp2d_model_collide_options *o, uint32_t size);

static inline kcbp2d_model_collide_options kcbp2d_model_collide_options_default(void)
{
    kcbp2d_model_collide_options o;
    kcbp2d_model_collide_options_init(&o, (uint32_t)sizeof o);
    return o;
}

typedef enum {
    KCBP2D_CONTAINED_NONE = 0, /* edges meet, or apart */
    KCBP2D_CONTAINED_A_IN_B,   /* no edges meet; A lies inside B */
    KCBP2D_CONTAINED_B_IN_A,
} kcbp2d_containment;

typedef struct {
    bool collide;
    kcbp2d_containment contained;
    uint32_t ncontacts;       /* pairs written to options.contacts */
    bool contacts_truncated;  /* more pairs meet than the capacity */
    uint64_t edge_pairs;      /* edge pairs tested */
} kcbp2d_model_collide_result;

KCBP_API kcbp_status kcbp2d_model_collide_sized(const kcbp2d_model *a, const kcbp2d_pose *pose_a,
                                                const kcbp2d_model *b, const kcbp2d_pose *pose_b,
                                                const kcbp2d_model_collide_options *options,
                                                kcbp2d_model_collide_result *result, size_t result_size,
                                                kcbp_error *err);

static inline kcbp_status kcbp2d_model_collide(const kcbp2d_model *a, const kcbp2d_pose *pose_a,
                                               const kcbp2d_model *b, const kcbp2d_pose *pose_b,
                                               const kcbp2d_model_collide_options *options,
                                               kcbp2d_model_collide_result *result, kcbp_error *err)
{
    return kcbp2d_model_collide_sized(a, pose_a, b, pose_b, options, result, sizeof *result, err);
}

typedef struct {
    bool collide;             /* exact (margin 0); distance 0 then */
    double distance;          /* >= 0 */
    kcbp_vec2 point_a, point_b; /* world frame: closest points (apart) */
    uint32_t edge_a, edge_b;  /* the edges they lie on (UINT32_MAX when colliding by containment) */
    uint64_t edge_pairs;      /* edge pairs measured */
} kcbp2d_model_distance_result;

KCBP_API kcbp_status kcbp2d_model_distance_sized(const kcbp2d_model *a, const kcbp2d_pose *pose_a,
                                                 const kcbp2d_model *b, const kcbp2d_pose *pose_b,
                                                 kcbp2d_model_distance_result *result, size_t result_size,
                                                 kcbp_error *err);

static inline kcbp_status kcbp2d_model_distance(const kcbp2d_model *a, const kcbp2d_pose *pose_a,
                                                const kcbp2d_model *b, const kcbp2d_pose *pose_b,
                                                kcbp2d_model_distance_result *result, kcbp_error *err)
{
    return kcbp2d_model_distance_sized(a, pose_a, b, pose_b, result, sizeof *result, err);
}

/* ---- penetration depth of two models: a certified bracket ---------------
 *
 * For models that collide, the depth (the length of the shortest
 * translation of B after which the regions' interiors are disjoint) is
 * bracketed, each bound proven (as the 3D signed distance's bracket):
 *   depth_upper: B moved by `translation` (world frame, |translation| ==
 *     depth_upper, added to pose_b's translation in double) is apart, by
 *     the exact kcbp2d_model_collide of that pose: found along
 *     `directions` evenly spread unit directions, each by scanning 64
 *     lengths up to one that clears both models' reach for the first apart
 *     one (farther may collide again: the regions are not convex), then
 *     `bisections` bisection steps below it;
 *   depth_lower: a point c inside both regions (exact point in polygon),
 *     with r_a and r_b its distances to their boundaries less a bound on
 *     their rounding, proves depth >= r_a + r_b (a disc of radius r_a
 *     inside A and one of r_b inside B around c: no shorter translation
 *     makes them disjoint); c is the best of a grid x grid lattice over
 *     the overlap of the boxes. 0 when no lattice point proves anything.
 * The directions tried first are the edge normals, both ways, of every
 * edge when the models have at most 128 edges together (two convex
 * polygons' depth is then found along its own direction, to the
 * bisections' width), else of the first 16 meeting edge pairs; then the
 * evenly spread ones. A direction apart at every length its bisections
 * tried is bisected on to a width of KCBP2D_TOUCH_REL_TOL / 4 times the
 * scale.
 *   touching: a model and a model, or a polygon shape of radius 0, whose
 *     boundaries meet but whose interiors do not (a shared edge, a region
 *     filling another's hole, a tip on an edge) are touching, exactly
 *     (orient2d signs of the regions' wedges round each point where a
 *     vertex of one lies on the other's boundary, every ring's edges
 *     through it counted, no proper crossing, no ring inside the other):
 *     depth 0, everything else 0; whose interiors meet, however thinly,
 *     are not touching (depth_upper > 0). Against any other shape (a radius, a
 *     segment or point core), touching when depth_upper <=
 *     KCBP2D_TOUCH_REL_TOL times the scale (then depth_lower is 0).
 * Coordinates are those of collide (B carried into A's frame). Not
 * colliding: collide false and everything 0. The bracket narrows with
 * more directions, bisections and grid points. */
typedef struct {
    uint32_t size;  /* set by kcbp2d_model_depth_options_default */
    int directions; /* 4 .. 4096, default 32 */
    int bisections; /* 1 .. 100, default 24 */
    int grid;       /* 1 .. 1024, default 24 */
} kcbp2d_model_depth_options;

KCBP_API void kcbp2d_model_depth_options_init(kcbp2d_model_depth_options *o, uint32_t size);

static inline kcbp2d_model_depth_options kcbp2d_model_depth_options_default(void)
{
    kcbp2d_model_depth_options o;
    kcbp2d_model_depth_options_init(&o, (uint32_t)sizeof o);
    return o;
}

typedef struct {
    bool collide;
    double depth_lower, depth_upper;
    kcbp_vec2 translation;  /* world frame: moving B by it separates them (proven) */
    kcbp_vec2 normal;       /* its unit direction, A toward B */
    kcbp_vec2 lower_center; /* world frame, when depth_lower > 0 */
    double lower_radius_a, lower_radius_b;
    int steps;              /* collide tests and lattice points */
    double scale;           /* the pair's scale: the models' and the radius's extents plus the pose gap */
    bool touching;          /* the interiors do not meet (above): depth 0 (KCBP2D_TOUCH_REL_TOL: distance2d.h) */
} kcbp2d_model_depth_result;

KCBP_API kcbp_status kcbp2d_model_depth_sized(const kcbp2d_model *a, const kcbp2d_pose *pose_a,
                                              const kcbp2d_model *b, const kcbp2d_pose *pose_b,
                                              const kcbp2d_model_depth_options *options,
                                              kcbp2d_model_depth_result *result, size_t result_size, kcbp_error *err);

static inline kcbp_status kcbp2d_model_depth(const kcbp2d_model *a, const kcbp2d_pose *pose_a, const kcbp2d_model *b,
                                             const kcbp2d_pose *pose_b, const kcbp2d_model_depth_options *options,
                                             kcbp2d_model_depth_result *result, kcbp_error *err)
{
    return kcbp2d_model_depth_sized(a, pose_a, b, pose_b, options, result, sizeof *result, err);
}

/* A model against a convex shape (shape2d.h; circles, capsules, rounded
 * polygons): the same contracts with the shape as B, its core carried into
 * A's frame as a model's vertices are, its radius added exactly (collide:
 * closest.h's exact decision with the radius and the margin as its two
 * radii, then containment: the core's first vertex inside A, or a vertex
 * of A inside a polygon core; distance: the edges' distance minus the
 * radius, point_b on the shape's surface). Contacts name A's edge and the
 * core's edge (a polygon's edge i; 0 for a point, 0 or 1 for a segment's
 * two directions). */
KCBP_API kcbp_status kcbp2d_model_shape_collide_sized(const kcbp2d_model *a, const kcbp2d_pose *pose_a,
                                                      const kcbp2d_shape *b, const kcbp2d_pose *pose_b,
                                                      const kcbp2d_model_collide_options *options,
                                                      kcbp2d_model_collide_result *result, size_t result_size,
                                                      kcbp_error *err);

static inline kcbp_status kcbp2d_model_shape_collide(const kcbp2d_model *a, const kcbp2d_pose *pose_a,
                                                     const kcbp2d_shape *b, const kcbp2d_pose *pose_b,
                                                     const kcbp2d_model_collide_options *options,
                                                     kcbp2d_model_collide_result *result, kcbp_error *err)
{
    return kcbp2d_model_shape_collide_sized(a, pose_a, b, pose_b, options, result, sizeof *result, err);
}

KCBP_API kcbp_status kcbp2d_model_shape_distance_sized(const kcbp2d_model *a, const kcbp2d_pose *pose_a,
                                                       const kcbp2d_shape *b, const kcbp2d_pose *pose_b,
                                                       kcbp2d_model_distance_result *result, size_t result_size,
                                                       kcbp_error *err);

static inline kcbp_status kcbp2d_model_shape_distance(const kcbp2d_model *a, const kcbp2d_pose *pose_a,
                                                      const kcbp2d_shape *b, const kcbp2d_pose *pose_b,
                                                      kcbp2d_model_distance_result *result, kcbp_error *err)
{
    return kcbp2d_model_shape_distance_sized(a, pose_a, b, pose_b, result, sizeof *result, err);
}

/* The depth bracket of a model and a convex shape (the shape as B, its
 * radius in the collide tests and in the lower bound's disc: inside a
 * polygon core the disc reaches the core's boundary plus the radius,
 * outside it the radius less the distance to the core). */
KCBP_API kcbp_status kcbp2d_model_shape_depth_sized(const kcbp2d_model *a, const kcbp2d_pose *pose_a,
                                                    const kcbp2d_shape *b, const kcbp2d_pose *pose_b,
                                                    const kcbp2d_model_depth_options *options,
                                                    kcbp2d_model_depth_result *result, size_t result_size,
                                                    kcbp_error *err);

static inline kcbp_status kcbp2d_model_shape_depth(const kcbp2d_model *a, const kcbp2d_pose *pose_a,
                                                   const kcbp2d_shape *b, const kcbp2d_pose *pose_b,
                                                   const kcbp2d_model_depth_options *options,
                                                   kcbp2d_model_depth_result *result, kcbp_error *err)
{
    return kcbp2d_model_shape_depth_sized(a, pose_a, b, pose_b, options, result, sizeof *result, err);
}

#ifdef __cplusplus
}
#endif
#endif

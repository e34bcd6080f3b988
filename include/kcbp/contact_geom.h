/* Contact geometry: where two intersecting triangles meet, and a contact
 * point and normal for a pair of meshes, from the contacts kcbp_collide
 * found. These are constructions, in double: estimates for display and
 * response, not exact like the yes/no answer (which stays
 * kcbp_tri_intersect's). Which case applies (the triangles in one plane or
 * not, a vertex on the other's plane) is decided exactly.
 *
 * Not to be confused with kcbp_cbp_result's depth and direction, which are
 * about the k-CBPs (the convex polytopes around the meshes), not about the
 * meshes. */
#ifndef KCBP_CONTACT_GEOM_H
#define KCBP_CONTACT_GEOM_H

#include <stddef.h>
#include <stdint.h>

#include "collide.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { KCBP_CONTACT_POINTS_MAX = 6 };

/* The intersection of one pair of triangles, in the world frame: one point
 * (they touch at a point), two (the segment where they cross), or 3 to 6
 * (the convex polygon where they overlap in one plane). */
typedef struct {
    uint32_t a, b; /* the triangles, as in kcbp_contact */
    uint32_t npoints;
    kcbp_vec3 points[KCBP_CONTACT_POINTS_MAX];
} kcbp_contact_geom;

/* For the pair of meshes: the centroid of the intersections (segments
 * weighted by their length, polygons by their area; plain mean when all
 * are points), and an estimated contact normal, unit, from A toward B: the
 * sum over the triangle pairs of A's unit triangle normal minus B's, each
 * weighted as above (unweighted when all are points), normalised; for
 * meshes oriented outward it points out of A into B, so that moving B
 * along it tends to part them. has_normal is false when that sum vanishes
 * (e.g. coplanar triangles of the same orientation). */
typedef struct {
    kcbp_vec3 point;
    kcbp_vec3 normal;
    bool has_normal;
} kcbp_contact_summary;

/* The intersection of triangles a and b (one frame; they must intersect,
 * kcbp_tri_intersect true) into out; returns the number of points (1 to
 * KCBP_CONTACT_POINTS_MAX). */
KCBP_API uint32_t kcbp_tri_intersection(const kcbp_vec3 a[3], const kcbp_vec3 b[3],
                                        kcbp_vec3 out[KCBP_CONTACT_POINTS_MAX]);

/* The geometry of the n contacts (as kcbp_collide gave them for models a at
 * pose_a and b at pose_b) into out[0 .. n), and, when summary is not NULL
 * and n > 0, their summary. Computed where the triangle test works: A's
 * vertices as stored, B's carried into A's frame (kcbp_pose_apply of the
 * relative pose), the results then moved by pose_a. */
KCBP_API void kcbp_contact_geometry(const kcbp_model *a, const kcbp_pose *pose_a, const kcbp_model *b,
                                    const kcbp_pose *pose_b, const kcbp_contact *contacts, size_t n,
                                    kcbp_contact_geom *out, kcbp_contact_summary *summary);

#ifdef __cplusplus
}
#endif
#endif

/* Closest points between points, segments and triangles, and the exact
 * decisions "within distance r" that spheres (a point inflated by r) and
 * capsules (a segment inflated by r) are tested with (internal).
 *
 * Distances. kcbp_cp_* return the squared distance between the two closed
 * sets and a closest pair of points, computed in double. Each is the
 * smallest of candidate distances that are each the distance to a point of
 * the sets (up to rounding): so a misjudged region costs only the rounding
 * of the region test, never a wrong feature's distance. Segment pairs take
 * the interior candidate from cross products (s = n.(d2 x r) / |n|^2, n =
 * d1 x d2), whose error does not grow as the segments turn parallel, and
 * the four endpoint candidates, which hold the minimum of parallel segments.
 *
 * Decisions. kcbp_within_* answer whether dist(X, Y) <= ra + rb exactly, for
 * the double coordinates given and the exact sum of the two radii (rb = 0
 * for a single radius), and never construct anything they rely on. A
 * floating-point filter first: with the coordinates taken relative to a
 * point o of X (each difference rounded once), a computed closest pair x on
 * X and y on Y gives
 *   an upper bound: dist <= |y - x| (x and y are points of the sets, up to
 *     the rounding of making them), and
 *   a lower bound: dist >= (min over Y's vertices of a.v - max over X's of
 *     a.w) / |a| for any a != 0 (projection on a line is 1-Lipschitz), here
 *     a = y - x, which for the true closest pair is exactly the distance;
 * each computed with an error below KCBP_WITHIN_ERR * u * D (u = 2^-53, D
 * the largest |coordinate| of the differences from o; see closest.c for the
 * proof). The filter decides when the radius sum is outside [lower - err,
 * upper + err]; otherwise (within about 1e-14 D of touching) the squared
 * distance is computed exactly in rational arithmetic (GMP mpq) and compared
 * with (ra + rb)^2. So the answer is exact whatever the filter's accuracy:
 * its bounds only decide how often the exact path runs.
 *
 * Coordinates must be finite (meshes and poses are checked when made); a
 * non-finite one makes the answer "within" (conservative, never a crash). */
#ifndef KCBP_CLOSEST_H
#define KCBP_CLOSEST_H

#include <stdbool.h>

#include <kcbp/vec3.h>

/* ---- distances in double ---------------------------------------------- */

/* Point p and segment [a, b] (b may equal a): *q the closest point. */
double kcbp_cp_point_seg(kcbp_vec3 p, kcbp_vec3 a, kcbp_vec3 b, kcbp_vec3 *q);
/* Point p and the closed triangle t (degenerate ones are their edges). */
double kcbp_cp_point_tri(kcbp_vec3 p, const kcbp_vec3 t[3], kcbp_vec3 *q);
/* Segments [p0, p1] and [q0, q1]: *c1 on the first, *c2 on the second. */
double kcbp_cp_seg_seg(kcbp_vec3 p0, kcbp_vec3 p1, kcbp_vec3 q0, kcbp_vec3 q1, kcbp_vec3 *c1, kcbp_vec3 *c2);
/* Segment [s0, s1] and the closed triangle t: *cs on the segment, *ct on
 * the triangle (one shared point when they meet). */
double kcbp_cp_seg_tri(kcbp_vec3 s0, kcbp_vec3 s1, const kcbp_vec3 t[3], kcbp_vec3 *cs, kcbp_vec3 *ct);

/* ---- exact decisions --------------------------------------------------- */

/* The filter's error factor: every bound it uses is within
 * KCBP_WITHIN_ERR * u * D of the quantity it bounds (closest.c proves a
 * factor below 40; the tests show that a factor of 0 gives wrong answers). */
#define KCBP_WITHIN_ERR 64.0

/* How a decision was reached, for the tests (and the filter's rate). */
typedef enum {
    KCBP_WITHIN_FILTER_IN,  /* the upper bound is within the radius */
    KCBP_WITHIN_FILTER_OUT, /* the lower bound is beyond it */
    KCBP_WITHIN_EXACT,      /* the exact rational comparison */
} kcbp_within_path;

/* dist(p, q) <= ra + rb. */
bool kcbp_within_point_point(kcbp_vec3 p, kcbp_vec3 q, double ra, double rb);
/* dist(p, [a, b]) <= ra + rb. */
bool kcbp_within_point_seg(kcbp_vec3 p, kcbp_vec3 a, kcbp_vec3 b, double ra, double rb);
/* dist([p0, p1], [q0, q1]) <= ra + rb. */
bool kcbp_within_seg_seg(kcbp_vec3 p0, kcbp_vec3 p1, kcbp_vec3 q0, kcbp_vec3 q1, double ra, double rb);
/* dist(p, triangle t) <= r. */
bool kcbp_within_point_tri(kcbp_vec3 p, const kcbp_vec3 t[3], double r);
/* dist([s0, s1], triangle t) <= r. */
bool kcbp_within_seg_tri(kcbp_vec3 s0, kcbp_vec3 s1, const kcbp_vec3 t[3], double r);

/* The same for the tests: the filter's error factor given (KCBP_WITHIN_ERR
 * normally; 0 shows that the bound matters), the path taken in *path (may
 * be NULL), and exact_only to skip the filter. The segment forms take a
 * point as a zero-length segment (s0 == s1). */
bool kcbp_within_seg_tri_ex(kcbp_vec3 s0, kcbp_vec3 s1, const kcbp_vec3 t[3], double r, double err_factor,
                            bool exact_only, kcbp_within_path *path);
bool kcbp_within_seg_seg_ex(kcbp_vec3 p0, kcbp_vec3 p1, kcbp_vec3 q0, kcbp_vec3 q1, double ra, double rb,
                            double err_factor, bool exact_only, kcbp_within_path *path);

/* The sign of dist([p0, p1], [q0, q1])^2 - r^2, exactly (points as
 * zero-length segments). */
int kcbp_cmp_seg_seg_radius(kcbp_vec3 p0, kcbp_vec3 p1, kcbp_vec3 q0, kcbp_vec3 q1, double r);

/* The exact squared distances as doubles rounded once from their rational
 * values (for the tests' checks of the double ones). */
double kcbp_exact_dist2_seg_tri(kcbp_vec3 s0, kcbp_vec3 s1, const kcbp_vec3 t[3]);
double kcbp_exact_dist2_seg_seg(kcbp_vec3 p0, kcbp_vec3 p1, kcbp_vec3 q0, kcbp_vec3 q1);

/* ---- boxes --------------------------------------------------------------- */

/* Whether the closed triangle t meets the closed box [-h, h] (h > 0 the
 * half sides; the triangle in the box's frame), exactly: a separating-axis
 * filter with proven bounds on each axis's rounding (the 3 box axes are
 * exact comparisons; the triangle's normal and the 9 edge-cross-axis
 * products carry their error bounds), and when some axis is within its
 * bound of touching, the exact test: a vertex inside the box (exact
 * comparisons) or the triangle meeting one of the 12 triangles of the
 * box's faces (kcbp_tri_intersect, exact). */
bool kcbp_box_tri_intersect(kcbp_vec3 h, const kcbp_vec3 t[3]);
bool kcbp_box_tri_intersect_ex(kcbp_vec3 h, const kcbp_vec3 t[3], double err_factor, bool exact_only,
                               kcbp_within_path *path);
/* The 12 triangles of the surface of the box [-h, h] (outward, two per
 * face), as box_tri's exact path uses them. */
void kcbp_box_face_triangles(kcbp_vec3 h, kcbp_vec3 out[12][3]);
/* dist(p, box [-h, h]) <= ra + rb, exactly (p in the box's frame). */
bool kcbp_within_point_box(kcbp_vec3 p, kcbp_vec3 h, double ra, double rb);
/* dist([s0, s1], box [-h, h]) <= r, exactly (an end inside the box, or the
 * segment within r of one of the faces' triangles). */
bool kcbp_within_seg_box(kcbp_vec3 s0, kcbp_vec3 s1, kcbp_vec3 h, double r);

#endif

/* Internals of the k-CBP module shared between its files (and its tests). */
#ifndef KCBP_CBP_INTERNAL_H
#define KCBP_CBP_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <kcbp/cbp.h>
#include <kcbp/error.h>
#include <kcbp/pose.h>
#include <kcbp/vec3.h>
#include "hull.h"

/* A k-CBP's fields (include/kcbp/cbp.h describes them). The model holds
 * one by value; public code gets them as handles. */
struct kcbp_cbp {
    uint32_t nplanes;        /* one face per plane */
    kcbp_cbp_plane *planes;
    uint32_t nvertices;
    kcbp_vec3 *vertices;
    uint32_t *adj_start;     /* nvertices + 1 entries: vertex i's neighbours are */
    uint32_t *adj;           /* adj[adj_start[i] .. adj_start[i+1]) */
    uint32_t *face_start;    /* nplanes + 1 entries: face f (on planes[f]) is the loop */
    uint32_t *face_verts;    /* face_verts[face_start[f] .. face_start[f+1]), CCW seen from outside */
    double volume;
    int k;                   /* k requested */
    kcbp_cbp_dirs dirs;
    double thickness;        /* > 0 when flat input was thickened by +-thickness */
    double push;             /* how far the planes were pushed out beyond the points */
};

/* kcbp_cbp_build and kcbp_cbp_build_dirs into the caller's storage (zeroed
 * first; holds nothing on failure), and freeing what it holds. */
kcbp_status kcbp_cbp_build_into(const kcbp_vec3 *points, size_t npoints, int k, kcbp_cbp_dirs dirs, kcbp_cbp *out,
                                kcbp_error *err);
kcbp_status kcbp_cbp_build_dirs_into(const kcbp_vec3 *points, size_t npoints, const kcbp_vec3 *dirs, size_t ndirs,
                                     kcbp_cbp *out, kcbp_error *err);
void kcbp_cbp_clear(kcbp_cbp *cbp);

/* Greedy successive plane removal on the planes of hull (a hull of points,
 * in coordinates where the points are within `size` of the origin). Removes
 * the plane whose removal adds the least volume until k planes remain or
 * every removal would leave the polytope unbounded. Returns the indices of
 * the kept facets in *keep (malloc'ed, *nkeep entries) and the volume the
 * removals added, as the greedy computed it, in *added. */
kcbp_status kcbp_greedy_select(const kcbp_hull *hull, const kcbp_vec3 *points, size_t k, double size,
                               uint32_t **keep, size_t *nkeep, double *added, kcbp_error *err);

/* The gap between two k-CBPs along the unit axis n (A's frame, from A
 * toward B; B placed by b_in_a), from every vertex of both: a positive gap
 * along any axis is a lower bound on their distance whatever produced the
 * axis (src/collide.c). */
double kcbp_cbp_gap(const kcbp_cbp *ca, const kcbp_cbp *cb, const kcbp_pose *b_in_a, kcbp_vec3 n);

#endif

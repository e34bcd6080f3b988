/* Convex hulls in 3D: a thin wrapper around qhull's reentrant library.
 *
 * Internal to the library (not included by kcbp.h): the k-CBP module uses it
 * both for the hull of a point set and, through polar duality, for the
 * intersection of half-spaces. Every call owns its own qhT, so the wrapper
 * is thread safe and keeps no global state; qhull's messages are captured and
 * turned into kcbp_error text, never printed. */
#ifndef KCBP_HULL_H
#define KCBP_HULL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <kcbp/error.h>
#include <kcbp/vec3.h>

/* The hull of a point set. Facets are qhull's merged facets: coplanar
 * triangles (within qhull's roundoff) are one facet, so each supporting plane
 * appears once. */
typedef struct {
    size_t nfacets;
    kcbp_vec3 *normal;      /* unit outward normal of each facet */
    double *offset;         /* facet f is normal[f]·x <= offset[f] */
    double *area;           /* area of each facet */
    uint32_t *facet_start;  /* nfacets + 1 entries: CSR into facet_verts */
    uint32_t *facet_verts;  /* input point indices of each facet's vertices (unordered) */
    size_t nverts;
    uint32_t *verts;        /* input point indices of the hull's vertices */
    double volume, total_area;
    size_t nedges;          /* kcbp_hull_compute_edges only: the hull's edges, */
    uint32_t *edges;        /* input point indices edges[2e], edges[2e + 1]; some twice */
} kcbp_hull;

/* Computes the hull of n points. Fails with KCBP_ERR_FLAT when the points do
 * not span 3D (fewer than 4 points, coplanar or collinear input: qhull's
 * "initial simplex is flat"), KCBP_ERR_GEOMETRY for other qhull failures. */
kcbp_status kcbp_hull_compute(const kcbp_vec3 *points, size_t n, kcbp_hull *hull, kcbp_error *err);

/* Did a hull computation fail because its points do not span 3D? */
static inline bool kcbp_hull_failed_flat(const kcbp_error *err) { return err->code == KCBP_ERR_FLAT; }

/* The same, with the hull's edges (the sides of its merged facets). Input
 * points that are not in verts are inside the hull or within qhull's
 * roundoff of its surface: of two points closer than that qhull keeps one,
 * and a point in the middle of a merged facet is not a vertex. */
kcbp_status kcbp_hull_compute_edges(const kcbp_vec3 *points, size_t n, kcbp_hull *hull, kcbp_error *err);

void kcbp_hull_free(kcbp_hull *hull);

#endif

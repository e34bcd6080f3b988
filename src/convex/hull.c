#include "hull.h"

#include <setjmp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libqhull_r/qhull_ra.h>

void kcbp_hull_free(kcbp_hull *hull)
{
    if (!hull)
        return;
    free(hull->normal);
    free(hull->offset);
    free(hull->area);
    free(hull->facet_start);
    free(hull->facet_verts);
    free(hull->verts);
    free(hull->edges);
    memset(hull, 0, sizeof *hull);
}

/* Copies qhull's result into hull. Runs under qhull's error trap. */
static kcbp_status extract(qhT *qh, bool want_edges, kcbp_hull *hull, kcbp_error *err)
{
    qh_getarea(qh, qh->facet_list);
    size_t nf = 0, nfv = 0, nv = 0;
    facetT *facet;
    vertexT *vertex, **vertexp;
    FORALLfacets {
        nf++;
        nfv += (size_t)qh_setsize(qh, facet->vertices);
    }
    FORALLvertices nv++;
    hull->normal = malloc((nf ? nf : 1) * sizeof *hull->normal);
    hull->offset = malloc((nf ? nf : 1) * sizeof *hull->offset);
    hull->area = malloc((nf ? nf : 1) * sizeof *hull->area);
    hull->facet_start = malloc((nf + 1) * sizeof *hull->facet_start);
    hull->facet_verts = malloc((nfv ? nfv : 1) * sizeof *hull->facet_verts);
    hull->verts = malloc((nv ? nv : 1) * sizeof *hull->verts);
    if (!hull->normal || !hull->offset || !hull->area || !hull->facet_start || !hull->facet_verts || !hull->verts)
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for a convex hull of %zu facets", nf);
    size_t f = 0, at = 0;
    FORALLfacets {
        /* qhull: normal·x + offset <= 0 inside, normal outward and unit. */
        hull->normal[f] = kcbp_v3(facet->normal[0], facet->normal[1], facet->normal[2]);
        hull->offset[f] = -facet->offset;
        hull->area[f] = facet->f.area;
        hull->facet_start[f] = (uint32_t)at;
        FOREACHvertex_(facet->vertices) hull->facet_verts[at++] = (uint32_t)qh_pointid(qh, vertex->point);
        f++;
    }
    hull->facet_start[f] = (uint32_t)at;
    size_t v = 0;
    FORALLvertices hull->verts[v++] = (uint32_t)qh_pointid(qh, vertex->point);
    hull->nfacets = nf;
    hull->nverts = nv;
    if (want_edges) {
        /* A simplicial facet's three sides; a merged facet's ridges (qhull
         * keeps them explicit for non-simplicial facets and their
         * neighbours). An edge between two facets may be listed twice. */
        size_t ne = 0;
        ridgeT *ridge, **ridgep;
        FORALLfacets ne += facet->simplicial ? 3 : (size_t)qh_setsize(qh, facet->ridges);
        hull->edges = malloc((2 * ne + 1) * sizeof *hull->edges);
        if (!hull->edges)
            return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for a convex hull of %zu edges", ne);
        size_t e = 0;
        FORALLfacets {
            if (facet->simplicial) {
                uint32_t t[3];
                int i = 0;
                FOREACHvertex_(facet->vertices) t[i++] = (uint32_t)qh_pointid(qh, vertex->point);
                for (int a = 0; a < 3; a++) {
                    hull->edges[2 * e] = t[a];
                    hull->edges[2 * e++ + 1] = t[(a + 1) % 3];
                }
            } else {
                FOREACHridge_(facet->ridges) {
                    int i = 0;
                    FOREACHvertex_(ridge->vertices) {
                        if (i < 2)
                            hull->edges[2 * e + i] = (uint32_t)qh_pointid(qh, vertex->point);
                        i++;
                    }
                    if (i == 2) /* in 3D, a ridge is an edge */
                        e++;
                }
            }
        }
        hull->nedges = e;
    }
    hull->volume = qh->totvol;
    hull->total_area = qh->totarea;
    return KCBP_OK;
}

/* Copies the first line of qhull's error text (e.g. "QH6154 qhull precision
 * error: initial simplex is flat ...") into msg. */
static void first_line(const char *text, char *msg, size_t size)
{
    size_t n = 0;
    if (text)
        while (text[n] && text[n] != '\n' && n + 1 < size) {
            msg[n] = text[n];
            n++;
        }
    msg[n] = '\0';
}

/* The hull of n points, with its edges when want_edges; allow_wide: qhull's
 * option Q12. *exitcode: qhull's (qh_ERRwide, ...), 0 if it did not run. */
static kcbp_status compute(const kcbp_vec3 *points, size_t n, bool want_edges, bool allow_wide, kcbp_hull *hull,
                           kcbp_error *err, int *exitcode_out)
{
    memset(hull, 0, sizeof *hull);
    *exitcode_out = 0;
    if (n < 4)
        return kcbp_error_set(err, KCBP_ERR_FLAT, "%zu points do not span 3D", n);
    if (n > (size_t)INT32_MAX / 3)
        return kcbp_error_set(err, KCBP_ERR_LIMIT, "too many points for a convex hull (%zu)", n);
    coordT *coords = malloc(n * 3 * sizeof *coords);
    char *errtext = NULL;
    size_t errlen = 0;
    FILE *errfile = open_memstream(&errtext, &errlen);
    qhT *qh = calloc(1, sizeof *qh);
    if (!coords || !errfile || !qh) {
        free(coords);
        free(qh);
        if (errfile)
            fclose(errfile);
        free(errtext);
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for a convex hull of %zu points", n);
    }
    for (size_t i = 0; i < n; i++) {
        coords[3 * i] = points[i].x;
        coords[3 * i + 1] = points[i].y;
        coords[3 * i + 2] = points[i].z;
    }
    kcbp_status st = KCBP_OK;
    qh_zero(qh, errfile);
    char cmd[16]; /* qh_new_qhull takes a writable string */
    snprintf(cmd, sizeof cmd, "qhull%s", allow_wide ? " Q12" : "");
    int exitcode = qh_new_qhull(qh, 3, (int)n, coords, False, cmd, NULL, errfile);
    if (exitcode == 0) {
        qh->NOerrexit = False;
        exitcode = setjmp(qh->errexit);
        if (exitcode == 0)
            st = extract(qh, want_edges, hull, err);
        qh->NOerrexit = True;
    }
    int curlong, totlong;
    qh_freeqhull(qh, !qh_ALL);
    qh_memfreeshort(qh, &curlong, &totlong);
    free(qh);
    free(coords);
    fclose(errfile);
    *exitcode_out = exitcode;
    if (exitcode != 0) {
        char line[KCBP_ERROR_MSG_MAX - 64];
        first_line(errtext, line, sizeof line);
        /* Flat input: qhull's "initial simplex is flat" (a precision error),
         * or QH6013, an input error it gives when every point has the same
         * value of one coordinate (a mesh in the plane x = 1). */
        bool flat = exitcode == qh_ERRsingular || !strncmp(line, "QH6013", 6);
        st = kcbp_error_set(err, flat ? KCBP_ERR_FLAT : KCBP_ERR_GEOMETRY, "convex hull failed%s: %s",
                            flat ? " (the points do not span 3D)" : "", line[0] ? line : "qhull error");
    }
    free(errtext);
    if (st != KCBP_OK)
        kcbp_hull_free(hull);
    return st;
}

kcbp_status kcbp_hull_compute(const kcbp_vec3 *points, size_t n, kcbp_hull *hull, kcbp_error *err)
{
    int exitcode;
    return compute(points, n, false, false, hull, err, &exitcode);
}

kcbp_status kcbp_hull_compute_edges(const kcbp_vec3 *points, size_t n, kcbp_hull *hull, kcbp_error *err)
{
    int exitcode;
    kcbp_status st = compute(points, n, true, false, hull, err, &exitcode);
    /* Clusters of nearly coincident points (a k-CBP's vertices where many
     * planes nearly meet) can make qhull's merges widen a facet beyond
     * what its post-processing check accepts (QH6297, "allow with Q12"):
     * a wide facet still has the right vertices and edges, so accept it. */
    if (st != KCBP_OK && exitcode == qh_ERRwide)
        st = compute(points, n, true, true, hull, err, &exitcode);
    return st;
}

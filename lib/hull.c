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
    memset(hull, 0, sizeof *hull);
}

/* Copies qhull's result into hull. Runs under qhull's error trap. */
static kcbp_status extract(qhT *qh, kcbp_hull *hull, kcbp_error *err)
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

kcbp_status kcbp_hull_compute(const kcbp_vec3 *points, size_t n, kcbp_hull *hull, kcbp_error *err)
{
    memset(hull, 0, sizeof *hull);
    if (n < 4)
        return kcbp_error_set(err, KCBP_ERR_GEOMETRY, "flat: %zu points do not span 3D", n);
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
    char cmd[] = "qhull";
    int exitcode = qh_new_qhull(qh, 3, (int)n, coords, False, cmd, NULL, errfile);
    if (exitcode == 0) {
        qh->NOerrexit = False;
        exitcode = setjmp(qh->errexit);
        if (exitcode == 0)
            st = extract(qh, hull, err);
        qh->NOerrexit = True;
    }
    int curlong, totlong;
    qh_freeqhull(qh, !qh_ALL);
    qh_memfreeshort(qh, &curlong, &totlong);
    free(qh);
    free(coords);
    fclose(errfile);
    if (exitcode != 0) {
        char line[KCBP_ERROR_MSG_MAX - 64];
        first_line(errtext, line, sizeof line);
        /* Flat input: qhull's "initial simplex is flat" (a precision error),
         * or QH6013, an input error it gives when every point has the same
         * value of one coordinate (a mesh in the plane x = 1). */
        bool flat = exitcode == qh_ERRsingular || !strncmp(line, "QH6013", 6);
        st = kcbp_error_set(err, KCBP_ERR_GEOMETRY, "%sconvex hull failed: %s", flat ? "flat: " : "",
                            line[0] ? line : "qhull error");
    }
    free(errtext);
    if (st != KCBP_OK)
        kcbp_hull_free(hull);
    return st;
}

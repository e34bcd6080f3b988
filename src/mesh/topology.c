/* The topology of a mesh's surface (topology.h): which vertices coincide,
 * whether the surface is closed and consistently oriented (a solid), and
 * its connected pieces. */
#include "topology.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kcbp/solid.h>

/* ------------------------------------------------ vertex identification --- */

static int cmp_coords(const kcbp_vec3 *p, const kcbp_vec3 *q)
{
    if (p->x != q->x)
        return p->x < q->x ? -1 : 1;
    if (p->y != q->y)
        return p->y < q->y ? -1 : 1;
    return (p->z > q->z) - (p->z < q->z);
}

typedef struct {
    const kcbp_vec3 *v;
    uint32_t i;
} vref;

static int cmp_vref(const void *x, const void *y)
{
    const vref *p = x, *q = y;
    int c = cmp_coords(&p->v[p->i], &q->v[q->i]);
    return c ? c : (p->i > q->i) - (p->i < q->i);
}

uint32_t *kcbp_mesh_weld_map(const kcbp_mesh *mesh)
{
    uint32_t n = mesh->nvertices;
    uint32_t *canon = malloc((n ? n : 1) * sizeof *canon);
    vref *order = malloc((n ? n : 1) * sizeof *order);
    if (!canon || !order) {
        free(canon);
        free(order);
        return NULL;
    }
    for (uint32_t i = 0; i < n; i++)
        order[i] = (vref){mesh->vertices, i};
    qsort(order, n, sizeof *order, cmp_vref);
    for (uint32_t k = 0; k < n; k++) {
        bool same = k > 0 && cmp_coords(&mesh->vertices[order[k].i], &mesh->vertices[order[k - 1].i]) == 0;
        canon[order[k].i] = same ? canon[order[k - 1].i] : order[k].i;
    }
    free(order);
    return canon;
}

/* ------------------------------------------------------- closedness --- */

typedef struct {
    uint32_t lo, hi; /* canonical vertices, lo < hi */
    uint32_t tri;    /* triangle, and which of its edges (k: v[k] -> v[k+1]) */
    uint8_t k, fwd;  /* fwd: the triangle runs it lo -> hi */
} edge_use;

static int cmp_edge(const void *x, const void *y)
{
    const edge_use *p = x, *q = y;
    if (p->lo != q->lo)
        return p->lo < q->lo ? -1 : 1;
    if (p->hi != q->hi)
        return p->hi < q->hi ? -1 : 1;
    return (p->tri > q->tri) - (p->tri < q->tri);
}

enum { SHOW_MAX = 5 };

/* Appends " (3-7, 7-9, ...)" for the edges shown. */
static void append_edges(char *buf, size_t size, const uint32_t (*shown)[2], uint32_t nshown, uint32_t count)
{
    size_t len = strlen(buf);
    for (uint32_t i = 0; i < nshown && len < size; i++)
        len += (size_t)snprintf(buf + len, size - len, "%s%u-%u", i ? ", " : " (", shown[i][0], shown[i][1]);
    if (nshown && len < size)
        snprintf(buf + len, size - len, "%s)", count > nshown ? ", ..." : "");
}

kcbp_status kcbp_mesh_check_solid(const kcbp_mesh *mesh, kcbp_solid_check *check, kcbp_error *err)
{
    kcbp_solid_check c = {0, 0, 0, 0};
    if (check)
        *check = c;
    uint32_t *canon = kcbp_mesh_weld_map(mesh);
    edge_use *e = malloc(((size_t)mesh->ntriangles * 3 + 1) * sizeof *e);
    if (!canon || !e) {
        free(canon);
        free(e);
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory checking a solid");
    }
    size_t ne = 0;
    for (uint32_t t = 0; t < mesh->ntriangles; t++) {
        const uint32_t *v = mesh->triangles[t].v;
        uint32_t cv[3] = {canon[v[0]], canon[v[1]], canon[v[2]]};
        /* A triangle with a repeated vertex is a segment or a point: its
         * edges cancel out, and no ray crosses it. */
        if (cv[0] == cv[1] || cv[1] == cv[2] || cv[2] == cv[0])
            continue;
        for (int k = 0; k < 3; k++) {
            uint32_t u = cv[k], w = cv[(k + 1) % 3];
            e[ne++] = (edge_use){u < w ? u : w, u < w ? w : u, t, (uint8_t)k, (uint8_t)(u < w)};
        }
    }
    qsort(e, ne, sizeof *e, cmp_edge);
    uint32_t shown[3][SHOW_MAX][2], nshown[3] = {0, 0, 0};
    for (size_t i = 0; i < ne;) {
        size_t j = i;
        uint32_t fwd = 0;
        while (j < ne && e[j].lo == e[i].lo && e[j].hi == e[i].hi)
            fwd += e[j++].fwd;
        size_t uses = j - i;
        int kind = uses == 1 ? 0 : uses > 2 ? 1 : fwd != 1 ? 2 : -1;
        if (kind >= 0) {
            uint32_t *count = kind == 0 ? &c.open : kind == 1 ? &c.nonmanifold : &c.misoriented;
            (*count)++;
            if (nshown[kind] < SHOW_MAX) {
                const uint32_t *v = mesh->triangles[e[i].tri].v;
                shown[kind][nshown[kind]][0] = v[e[i].k] + 1;
                shown[kind][nshown[kind]++][1] = v[(e[i].k + 1) % 3] + 1;
            }
        }
        i = j;
    }
    free(e);
    free(canon);
    uint32_t *reps = NULL;
    kcbp_status st = kcbp_mesh_components(mesh, &reps, &c.components, err);
    free(reps);
    if (st != KCBP_OK)
        return st;
    if (check)
        *check = c;
    if (c.open == 0 && c.nonmanifold == 0 && c.misoriented == 0)
        return KCBP_OK;
    char msg[KCBP_ERROR_MSG_MAX - 64];
    snprintf(msg, sizeof msg, "not a closed solid:");
    static const char *const what[3] = {"open", "non-manifold", "inconsistently oriented"};
    const uint32_t counts[3] = {c.open, c.nonmanifold, c.misoriented};
    bool first = true;
    for (int kind = 0; kind < 3; kind++) {
        if (!counts[kind])
            continue;
        size_t len = strlen(msg);
        snprintf(msg + len, sizeof msg - len, "%s %u %s edge%s", first ? "" : ";", counts[kind], what[kind],
                 counts[kind] == 1 ? "" : "s");
        append_edges(msg, sizeof msg, (const uint32_t(*)[2])shown[kind], nshown[kind], counts[kind]);
        first = false;
    }
    return kcbp_error_set(err, KCBP_ERR_GEOMETRY, "%s", msg);
}

/* ------------------------------------------------------- components --- */

static uint32_t uf_find(uint32_t *parent, uint32_t x)
{
    while (parent[x] != x) {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    return x;
}

kcbp_status kcbp_mesh_components(const kcbp_mesh *mesh, uint32_t **reps, uint32_t *n, kcbp_error *err)
{
    *reps = NULL;
    *n = 0;
    uint32_t nv = mesh->nvertices;
    uint32_t *canon = kcbp_mesh_weld_map(mesh);
    uint32_t *parent = malloc((nv ? nv : 1) * sizeof *parent);
    unsigned char *seen = calloc(nv ? nv : 1, 1);
    uint32_t *out = NULL;
    if (!canon || !parent || !seen)
        goto nomem;
    for (uint32_t i = 0; i < nv; i++)
        parent[i] = i;
    for (uint32_t t = 0; t < mesh->ntriangles; t++) {
        const uint32_t *v = mesh->triangles[t].v;
        uint32_t r0 = uf_find(parent, canon[v[0]]);
        for (int k = 1; k < 3; k++) {
            uint32_t r = uf_find(parent, canon[v[k]]);
            if (r != r0)
                parent[r > r0 ? r : r0] = r > r0 ? r0 : r;
            r0 = r < r0 ? r : r0;
        }
    }
    uint32_t count = 0;
    for (uint32_t t = 0; t < mesh->ntriangles; t++) {
        uint32_t v0 = mesh->triangles[t].v[0], r = uf_find(parent, canon[v0]);
        count += !seen[r];
        seen[r] = 1;
    }
    out = malloc((count ? count : 1) * sizeof *out);
    if (!out)
        goto nomem;
    memset(seen, 0, nv ? nv : 1);
    count = 0;
    for (uint32_t t = 0; t < mesh->ntriangles; t++) {
        uint32_t v0 = mesh->triangles[t].v[0], r = uf_find(parent, canon[v0]);
        if (!seen[r])
            out[count++] = v0;
        seen[r] = 1;
    }
    free(canon);
    free(parent);
    free(seen);
    *reps = out;
    *n = count;
    return KCBP_OK;
nomem:
    free(canon);
    free(parent);
    free(seen);
    return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory finding a mesh's pieces");
}

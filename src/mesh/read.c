/* What the mesh readers share (read.h). */
#include "read.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

kcbp_status kcbp_read_failv(kcbp_error *err, kcbp_status code, const char *name, bool binary, size_t at,
                            const char *fmt, va_list ap)
{
    char msg[KCBP_ERROR_MSG_MAX];
    vsnprintf(msg, sizeof msg, fmt, ap);
    if (binary)
        return kcbp_error_set(err, code, "%s: byte %zu: %s", name, at, msg);
    if (at)
        return kcbp_error_set(err, code, "%s:%zu: %s", name, at, msg);
    return kcbp_error_set(err, code, "%s: %s", name, msg);
}

kcbp_status kcbp_coord_check(double c)
{
    if (!isfinite(c))
        return KCBP_ERR_PARSE;
    if (fabs(c) > KCBP_COORD_MAX)
        return KCBP_ERR_LIMIT;
    return KCBP_OK;
}

static uint64_t mix(uint64_t h)
{
    h ^= h >> 33;
    h *= UINT64_C(0xff51afd7ed558ccd);
    h ^= h >> 33;
    h *= UINT64_C(0xc4ceb9fe1a85ec53);
    h ^= h >> 33;
    return h;
}

static uint64_t hash_point(kcbp_vec3 p)
{
    uint64_t a, b, c;
    memcpy(&a, &p.x, 8);
    memcpy(&b, &p.y, 8);
    memcpy(&c, &p.z, 8);
    return mix(a ^ mix(b ^ mix(c)));
}

static bool rehash(kcbp_welder *w, size_t nslot)
{
    uint32_t *s = calloc(nslot, sizeof *s);
    if (!s)
        return false;
    for (size_t i = 0; i < w->nv; i++) {
        size_t h = (size_t)hash_point(w->v[i]) & (nslot - 1);
        while (s[h])
            h = (h + 1) & (nslot - 1);
        s[h] = (uint32_t)(i + 1);
    }
    free(w->slot);
    w->slot = s;
    w->nslot = nslot;
    return true;
}

kcbp_status kcbp_weld(kcbp_welder *w, kcbp_vec3 p, uint32_t *index)
{
    /* -0 + 0 is +0: both zeros weld. */
    p.x += 0.0;
    p.y += 0.0;
    p.z += 0.0;
    if (2 * (w->nv + 1) > w->nslot && !rehash(w, w->nslot ? 2 * w->nslot : 1024))
        return KCBP_ERR_NOMEM;
    size_t h = (size_t)hash_point(p) & (w->nslot - 1);
    for (; w->slot[h]; h = (h + 1) & (w->nslot - 1)) {
        kcbp_vec3 q = w->v[w->slot[h] - 1];
        if (q.x == p.x && q.y == p.y && q.z == p.z) {
            *index = w->slot[h] - 1;
            return KCBP_OK;
        }
    }
    if (w->nv >= KCBP_MESH_MAX_ELEMENTS)
        return KCBP_ERR_LIMIT;
    if (!kcbp_grow(&w->v, &w->cap_v, w->nv + 1, sizeof *w->v, 1024))
        return KCBP_ERR_NOMEM;
    w->v[w->nv] = p;
    w->slot[h] = (uint32_t)(w->nv + 1);
    *index = (uint32_t)w->nv++;
    return KCBP_OK;
}

void kcbp_weld_reserve(kcbp_welder *w, size_t n)
{
    size_t slots = 1024;
    while (slots < 2 * n && slots < ((size_t)1 << 27))
        slots *= 2;
    if (slots > w->nslot)
        (void)rehash(w, slots);
    (void)kcbp_grow(&w->v, &w->cap_v, n < 1024 ? 1024 : n, sizeof *w->v, 1024);
}

void kcbp_welder_free(kcbp_welder *w)
{
    free(w->v);
    free(w->slot);
    memset(w, 0, sizeof *w);
}

static kcbp_status builder_fail(kcbp_error *err, kcbp_status code, const char *name, size_t line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

static kcbp_status builder_fail(kcbp_error *err, kcbp_status code, const char *name, size_t line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    kcbp_status st = kcbp_read_failv(err, code, name, false, line, fmt, ap);
    va_end(ap);
    return st;
}

kcbp_status kcbp_tri_builder_face(kcbp_tri_builder *b, const char *name, size_t line, const kcbp_vec3 *v,
                                  const uint32_t *poly, size_t n, kcbp_error *err)
{
    if (n < 3)
        return builder_fail(err, KCBP_ERR_PARSE, name, line, "face has %zu vertex index%s, needs at least 3", n,
                            n == 1 ? "" : "es");
    if (n - 2 > KCBP_MESH_MAX_ELEMENTS - b->nt)
        return builder_fail(err, KCBP_ERR_LIMIT, name, line, "more than %u triangles", KCBP_MESH_MAX_ELEMENTS);
    if (!kcbp_grow(&b->t, &b->cap_t, b->nt + n - 2, sizeof *b->t, 256))
        return builder_fail(err, KCBP_ERR_NOMEM, name, line, "out of memory for %zu triangles", b->nt + n - 2);
    if (kcbp_polygon_triangulate(&b->scratch, v, poly, n, b->t + b->nt) != KCBP_OK)
        return builder_fail(err, KCBP_ERR_NOMEM, name, line, "out of memory for a face of %zu vertices", n);
    size_t start = b->nt;
    b->nt += n - 2;
    /* Which face each triangle came from. */
    if (!kcbp_grow(&b->faces, &b->cap_faces, b->nt, sizeof *b->faces, 256))
        return builder_fail(err, KCBP_ERR_NOMEM, name, line, "out of memory for %zu triangles", b->nt);
    for (size_t i = start; i < b->nt; i++)
        b->faces[i] = (uint32_t)b->nf;
    b->nf++;
    return KCBP_OK;
}

void kcbp_tri_builder_free(kcbp_tri_builder *b)
{
    free(b->t);
    free(b->faces);
    kcbp_polygon_scratch_free(&b->scratch);
    memset(b, 0, sizeof *b);
}

kcbp_status kcbp_tri_builder_adopt(kcbp_tri_builder *b, kcbp_mesh *mesh, kcbp_vec3 *v, size_t nv, const char *name,
                                   kcbp_error *err)
{
    kcbp_status st = kcbp_mesh_adopt(mesh, v, nv, b->t, b->nt, err);
    b->t = NULL;
    if (st != KCBP_OK)
        kcbp_error_prefix(err, name);
    else if (b->nf != b->nt) {
        mesh->faces = b->faces;
        b->faces = NULL;
    }
    kcbp_tri_builder_free(b);
    return st;
}

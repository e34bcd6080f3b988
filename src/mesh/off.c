/* OFF reader (rules in kcbp/mesh_io.h): line by line, '#' comments. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kcbp/mesh_io.h>

#include "read.h"
#include "base/numparse.h"
#include "base/util.h"
#include "base/text_scan.h"

typedef struct {
    const char *name;
    size_t line;
    kcbp_error *err;
    kcbp_numparse np;
    const char *p, *end; /* the rest of the text */
    const char *c, *e;   /* the rest of the current line */
} off;

static kcbp_status fail(off *o, kcbp_status code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static kcbp_status fail(off *o, kcbp_status code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    kcbp_status st = kcbp_read_failv(o->err, code, o->name, false, o->line, fmt, ap);
    va_end(ap);
    return st;
}


/* Moves to the next line holding something other than a comment. */
static bool next_line(off *o)
{
    while (o->p < o->end) {
        const char *nl = memchr(o->p, '\n', (size_t)(o->end - o->p));
        const char *e = nl ? nl : o->end;
        const char *h = memchr(o->p, '#', (size_t)(e - o->p));
        o->c = o->p;
        o->e = h ? h : e;
        o->p = nl ? nl + 1 : o->end;
        o->line++;
        while (o->c < o->e && kcbp_is_blank(*o->c))
            o->c++;
        if (o->c < o->e)
            return true;
    }
    return false;
}

static bool token(off *o, const char **w, size_t *n) { return kcbp_next_word(&o->c, o->e, w, n); }

static const char *quote(char *buf, const char *w, size_t n)
{
    size_t k = 0;
    for (; k < n && k < 40; k++)
        buf[k] = ((unsigned char)w[k] >= 0x20 && (unsigned char)w[k] < 0x7f) ? w[k] : '?';
    buf[k] = '\0';
    return buf;
}

/* A non-negative integer token below 2^32; what names it in messages. */
static kcbp_status count(off *o, const char *what, uint64_t *out)
{
    const char *w;
    size_t n;
    char q[48];
    if (!token(o, &w, &n))
        return fail(o, KCBP_ERR_PARSE, "missing %s", what);
    uint64_t x = 0;
    for (size_t k = 0; k < n; k++) {
        if (w[k] < '0' || w[k] > '9')
            return fail(o, KCBP_ERR_PARSE, "malformed %s '%s' (expected a non-negative integer)", what,
                        quote(q, w, n));
        if (x < UINT64_C(1) << 40)
            x = x * 10 + (uint64_t)(w[k] - '0');
    }
    *out = x;
    return KCBP_OK;
}

kcbp_status kcbp_off_parse(const char *name, const char *data, size_t len, kcbp_mesh *mesh, kcbp_error *err)
{
    memset(mesh, 0, sizeof *mesh);
    off o = {.name = name, .err = err, .p = data, .end = data + len};
    if (len == 0)
        return fail(&o, KCBP_ERR_PARSE, "empty file");
    const char *nul = memchr(data, '\0', len);
    if (nul) {
        o.line = 1;
        for (const char *p = data; (p = memchr(p, '\n', (size_t)(nul - p))) != NULL; p++)
            o.line++;
        return fail(&o, KCBP_ERR_PARSE, "binary file (NUL byte at offset %zu), not OFF text", (size_t)(nul - data));
    }
    kcbp_vec3 *v = NULL;
    uint32_t *poly = NULL;
    size_t cap_poly = 0;
    kcbp_tri_builder tb = {0};
    kcbp_status st = KCBP_OK;
    uint64_t nv = 0, nf = 0, ne = 0;
    const char *w;
    size_t n;
    char q[48];
    if (!next_line(&o) || !token(&o, &w, &n)) {
        st = fail(&o, KCBP_ERR_PARSE, "no OFF header");
        goto done;
    }
    {
        size_t k = n >= 3 && !memcmp(w + n - 3, "OFF", 3) ? n - 3 : n;
        bool ok = n >= 3 && k == n - 3;
        size_t i = 0;
        if (ok && k >= 2 && w[0] == 'S' && w[1] == 'T')
            i = 2;
        if (ok && i < k && w[i] == 'C')
            i++;
        if (ok && i < k && w[i] == 'N')
            i++;
        if (!ok || i != k) {
            st = fail(&o, KCBP_ERR_PARSE, "'%s' is not an OFF header (OFF, COFF, NOFF, CNOFF, STOFF, ...)",
                      quote(q, w, n));
            goto done;
        }
    }
    {
        const char *save = o.c;
        if (token(&o, &w, &n) && n == 6 && !memcmp(w, "BINARY", 6)) {
            st = fail(&o, KCBP_ERR_PARSE, "binary OFF is not supported");
            goto done;
        }
        o.c = save;
        while (o.c < o.e && kcbp_is_blank(*o.c))
            o.c++;
        if (o.c >= o.e && !next_line(&o)) {
            st = fail(&o, KCBP_ERR_PARSE, "missing the counts line (vertices faces edges)");
            goto done;
        }
    }
    if ((st = count(&o, "vertex count", &nv)) || (st = count(&o, "face count", &nf)))
        goto done;
    if (token(&o, &w, &n)) { /* the edge count, ignored */
        o.c = w;
        if ((st = count(&o, "edge count", &ne)))
            goto done;
    }
    if (token(&o, &w, &n)) {
        st = fail(&o, KCBP_ERR_PARSE, "extra '%s' after the counts", quote(q, w, n));
        goto done;
    }
    if (nv > KCBP_MESH_MAX_ELEMENTS || nf > KCBP_MESH_MAX_ELEMENTS) {
        st = fail(&o, KCBP_ERR_LIMIT, "more than %u %s", KCBP_MESH_MAX_ELEMENTS,
                  nv > KCBP_MESH_MAX_ELEMENTS ? "vertices" : "faces");
        goto done;
    }
    if (nf == 0) {
        st = fail(&o, KCBP_ERR_PARSE, "no faces (%" PRIu64 " vertices)", nv);
        goto done;
    }
    /* Each vertex line takes at least 6 bytes: do not trust a count the file
     * cannot hold. */
    if (nv > len / 6 + 1) {
        st = fail(&o, KCBP_ERR_PARSE, "%" PRIu64 " vertices announced in a file of %zu bytes", nv, len);
        goto done;
    }
    v = malloc((nv ? nv : 1) * sizeof *v);
    if (!v) {
        st = fail(&o, KCBP_ERR_NOMEM, "out of memory for %" PRIu64 " vertices", nv);
        goto done;
    }
    for (uint64_t i = 0; i < nv; i++) {
        if (!next_line(&o)) {
            st = fail(&o, KCBP_ERR_PARSE, "file ends after %" PRIu64 " of %" PRIu64 " vertices", i, nv);
            goto done;
        }
        double x[3];
        for (int k = 0; k < 3; k++) {
            if (!token(&o, &w, &n)) {
                st = fail(&o, KCBP_ERR_PARSE, "vertex has %d coordinate%s, needs 3", k, k == 1 ? "" : "s");
                goto done;
            }
            const char *stop;
            kcbp_num_result r = kcbp_parse_double(&o.np, w, w + n, &stop, &x[k]);
            if (r == KCBP_NUM_NONFINITE) {
                st = fail(&o, KCBP_ERR_PARSE, "vertex coordinate '%s' is not a finite number", quote(q, w, n));
                goto done;
            }
            if (r != KCBP_NUM_OK || stop != w + n) {
                st = fail(&o, KCBP_ERR_PARSE, "malformed number '%s' in a vertex", quote(q, w, n));
                goto done;
            }
            if (kcbp_coord_check(x[k]) != KCBP_OK) {
                st = fail(&o, KCBP_ERR_LIMIT, "vertex coordinate %g is beyond the limit of %g", x[k],
                          KCBP_COORD_MAX);
                goto done;
            }
        }
        v[i] = kcbp_v3(x[0], x[1], x[2]);
    }
    for (uint64_t f = 0; f < nf; f++) {
        if (!next_line(&o)) {
            st = fail(&o, KCBP_ERR_PARSE, "file ends after %" PRIu64 " of %" PRIu64 " faces", f, nf);
            goto done;
        }
        uint64_t k;
        if ((st = count(&o, "face vertex count", &k)))
            goto done;
        if (k < 3) {
            st = fail(&o, KCBP_ERR_PARSE, "face has %" PRIu64 " vertex index%s, needs at least 3", k,
                      k == 1 ? "" : "es");
            goto done;
        }
        if (k > (uint64_t)(o.e - o.c)) {
            st = fail(&o, KCBP_ERR_PARSE, "face announces %" PRIu64 " vertices but its line is shorter", k);
            goto done;
        }
        if (!kcbp_grow(&poly, &cap_poly, (size_t)k, sizeof *poly, 64)) {
            st = fail(&o, KCBP_ERR_NOMEM, "out of memory for a face of %" PRIu64 " vertices", k);
            goto done;
        }
        for (uint64_t j = 0; j < k; j++) {
            uint64_t idx;
            if (!token(&o, &w, &n)) {
                st = fail(&o, KCBP_ERR_PARSE, "face has %" PRIu64 " of its %" PRIu64 " vertex indices", j, k);
                goto done;
            }
            o.c = w;
            if ((st = count(&o, "vertex index", &idx)))
                goto done;
            if (idx >= nv) {
                st = fail(&o, KCBP_ERR_PARSE, "vertex index %.*s out of range (%" PRIu64 " vertices, from 0)",
                          (int)(n > 20 ? 20 : n), w, nv);
                goto done;
            }
            poly[j] = (uint32_t)idx;
        }
        /* Anything after the indices (a colour) is ignored. */
        if ((st = kcbp_tri_builder_face(&tb, o.name, o.line, v, poly, (size_t)k, err)))
            goto done;
        if (tb.nt > KCBP_MESH_MAX_ELEMENTS) {
            st = fail(&o, KCBP_ERR_LIMIT, "more than %u triangles", KCBP_MESH_MAX_ELEMENTS);
            goto done;
        }
    }
done:
    kcbp_numparse_done(&o.np);
    free(poly);
    if (st != KCBP_OK) {
        free(v);
        kcbp_tri_builder_free(&tb);
        return st;
    }
    return kcbp_tri_builder_adopt(&tb, mesh, v, (size_t)nv, name, err);
}

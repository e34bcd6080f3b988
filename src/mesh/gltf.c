/* glTF 2.0 reader (rules in kcbp/mesh_io.h): binary .glb (a 12-byte header,
 * a JSON chunk, an optional BIN chunk) and JSON .gltf (buffers in data:
 * URIs or in files beside it). The scene's node tree is walked depth first,
 * each node before its children, and every triangle primitive of every
 * node's mesh is added with the node's world transform applied.
 *
 * Nothing is allocated from a count the file states before the count has
 * been checked against the bytes that actually hold it: an accessor's
 * count × stride must lie inside its buffer view, the view inside its
 * buffer, the buffer inside the data read. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include <kcbp/mesh_io.h>

#include "base/input.h"
#include "base/json_lock.h"
#include "base/util.h"
#include "mesh_internal.h"
#include "read.h"

#define GLB_MAGIC 0x46546C67u      /* "glTF" */
#define GLB_CHUNK_JSON 0x4E4F534Au /* "JSON" */
#define GLB_CHUNK_BIN 0x004E4942u  /* "BIN\0" */
/* JSON values (objects, arrays, numbers, ...) a glTF's JSON may hold:
 * cJSON takes about 64 bytes for each, and real files hold thousands (the
 * geometry is in binary buffers). */
#define GLTF_MAX_JSON_VALUES 4000000u
/* Nodes nested deeper than this are refused (real hierarchies are a few
 * levels deep). */
#define GLTF_MAX_DEPTH 1000
#define GLTF_MAX_BUFFER_BYTES ((size_t)1 << 31)

enum { CT_U8 = 5121, CT_U16 = 5123, CT_U32 = 5125, CT_F32 = 5126 };

typedef struct {
    unsigned char *data; /* owned when external or a data: URI */
    size_t len;
    bool loaded, owned;
    size_t file_at;   /* GLB BIN chunk: its offset in the file */
    char *label;      /* the file named in binary errors (malloc'ed) */
} gbuffer;

/* An accessor's elements, checked to lie inside the data. */
typedef struct {
    const unsigned char *p;
    size_t count, stride;
    int ctype;
    const char *label; /* file for binary errors */
    size_t at;         /* offset of element 0 in that file */
} gview;

typedef struct {
    const char *name;
    kcbp_error *err;
    bool glb;
    const char *dir; /* the file's folder for external buffers, NULL: none */
    cJSON *doc;
    /* The top-level arrays, each indexed once (cJSON's arrays are linked
     * lists: reaching element i walks i links, which made the reader
     * quadratic in nodes, meshes and accessors). */
    const cJSON **buffers, **views, **accessors, **meshes, **nodes;
    int nbuffers, nviews, naccessors, nmeshes, nnodes;
    /* add_mesh's calls so far, and per accessor the call that last placed
     * it (acc_mark) and its first vertex then (acc_base): each POSITION
     * accessor placed once per node in O(1). */
    uint32_t mesh_calls;
    uint32_t *acc_mark, *acc_base;
    gbuffer *bufs;
    const unsigned char *bin;
    size_t bin_len, bin_at;
    kcbp_vec3 *v;
    size_t nv, cap_v;
    kcbp_tri *t;
    size_t nt, cap_t;
} gltf;

static kcbp_status fail(gltf *g, kcbp_status code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static kcbp_status fail(gltf *g, kcbp_status code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    kcbp_status st = kcbp_read_failv(g->err, code, g->name, false, 0, fmt, ap);
    va_end(ap);
    return st;
}

/* An error in binary data: "label: byte N: ...". */
static kcbp_status fail_at(gltf *g, kcbp_status code, const char *label, size_t at, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;
static kcbp_status fail_at(gltf *g, kcbp_status code, const char *label, size_t at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    kcbp_status st = kcbp_read_failv(g->err, code, label ? label : g->name, true, at, fmt, ap);
    va_end(ap);
    return st;
}

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* ---- JSON helpers ---- */

/* A whole number in [lo, hi] at o[key] into *out; absent: dflt, or an error
 * when required. path names o in messages. */
static kcbp_status get_uint(gltf *g, const cJSON *o, const char *path, const char *key, bool required,
                            uint64_t dflt, uint64_t lo, uint64_t hi, uint64_t *out)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!it) {
        if (required)
            return fail(g, KCBP_ERR_PARSE, "%s: \"%s\" is missing", path, key);
        *out = dflt;
        return KCBP_OK;
    }
    double d = cJSON_IsNumber(it) ? it->valuedouble : -1;
    if (!cJSON_IsNumber(it) || !(d >= (double)lo && d <= (double)hi) || d != floor(d))
        return fail(g, KCBP_ERR_PARSE, "%s.%s: expected a whole number from %llu to %llu", path, key,
                    (unsigned long long)lo, (unsigned long long)hi);
    *out = (uint64_t)d;
    return KCBP_OK;
}

/* The array o[key] (NULL and n = 0 when absent); an error when it is
 * something else. */
static kcbp_status get_array(gltf *g, const cJSON *o, const char *path, const char *key, const cJSON **arr, int *n)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);
    *arr = NULL;
    *n = 0;
    if (!it)
        return KCBP_OK;
    if (!cJSON_IsArray(it))
        return fail(g, KCBP_ERR_PARSE, "%s%s%s: expected an array", path, *path ? "." : "", key);
    *arr = it;
    *n = cJSON_GetArraySize(it);
    return KCBP_OK;
}

/* The top-level array doc[key] indexed: (*ix)[i] its element i (NULL and
 * n = 0 when absent). */
static kcbp_status get_indexed(gltf *g, const char *key, const cJSON ***ix, int *n)
{
    const cJSON *arr, *e;
    kcbp_status st = get_array(g, g->doc, "", key, &arr, n);
    *ix = NULL;
    if (st != KCBP_OK || !arr)
        return st;
    *ix = malloc(((size_t)*n + 1) * sizeof **ix);
    if (!*ix)
        return fail(g, KCBP_ERR_NOMEM, "out of memory for the %d elements of %s", *n, key);
    int i = 0;
    cJSON_ArrayForEach(e, arr) (*ix)[i++] = e;
    return KCBP_OK;
}

/* Element i of a top-level array (indexed by get_indexed) that must hold
 * objects. */
static kcbp_status get_object(gltf *g, const cJSON *const *ix, int n, const char *what, uint64_t i, const char *from,
                              const cJSON **out)
{
    if (i >= (uint64_t)n)
        return fail(g, KCBP_ERR_PARSE, "%s: %s %llu does not exist (the file has %d)", from, what,
                    (unsigned long long)i, n);
    const cJSON *o = ix[i];
    if (!cJSON_IsObject(o))
        return fail(g, KCBP_ERR_PARSE, "%s[%llu]: expected an object", what, (unsigned long long)i);
    *out = o;
    return KCBP_OK;
}

/* n finite numbers at o[key] into out; absent: false with out untouched. */
static kcbp_status get_numbers(gltf *g, const cJSON *o, const char *path, const char *key, int n, double *out,
                               bool *present)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);
    *present = it != NULL;
    if (!it)
        return KCBP_OK;
    if (!cJSON_IsArray(it) || cJSON_GetArraySize(it) != n)
        return fail(g, KCBP_ERR_PARSE, "%s.%s: expected %d numbers", path, key, n);
    int i = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, it) {
        if (!cJSON_IsNumber(e) || !isfinite(e->valuedouble))
            return fail(g, KCBP_ERR_PARSE, "%s.%s: expected %d finite numbers", path, key, n);
        out[i++] = e->valuedouble;
    }
    return KCBP_OK;
}

/* ---- buffers ---- */

static int b64_value(unsigned char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '+' || c == '-')
        return 62;
    if (c == '/' || c == '_')
        return 63;
    return -1;
}

/* Decodes base64 text (padding optional); false on a character that is
 * not base64 (*bad: its offset in s) or memory. */
static bool b64_decode(const char *s, size_t n, unsigned char **out, size_t *len, size_t *bad)
{
    while (n > 0 && s[n - 1] == '=')
        n--;
    unsigned char *d = malloc(n / 4 * 3 + 3);
    *bad = SIZE_MAX;
    if (!d)
        return false;
    size_t o = 0;
    uint32_t acc = 0;
    int bits = 0;
    for (size_t i = 0; i < n; i++) {
        int v = b64_value((unsigned char)s[i]);
        if (v < 0) {
            free(d);
            *bad = i;
            return false;
        }
        acc = acc << 6 | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            d[o++] = (unsigned char)(acc >> bits);
        }
    }
    *out = d;
    *len = o;
    return true;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Binary data is read, NUL bytes and all, until it holds more than its
 * byteLength (ctx). */
static bool read_to_length(void *ctx, const kcbp_input *in, const char *buf, size_t n, bool seen_nul)
{
    (void)in, (void)buf, (void)seen_nul;
    return n > *(const uint64_t *)ctx;
}

/* An external buffer's file: the URI percent-decoded, relative, with no
 * ".." segment, and, with links resolved, inside the glTF file's folder. */
static kcbp_status load_external(gltf *g, gbuffer *b, int i, const char *uri, uint64_t blen)
{
    size_t n = strlen(uri);
    char *rel = malloc(n + 1);
    if (!rel)
        return fail(g, KCBP_ERR_NOMEM, "buffers[%d]: out of memory", i);
    size_t k = 0;
    bool ok = true;
    for (size_t j = 0; j < n; j++) {
        if (uri[j] == '%') {
            int hi = j + 2 < n + 1 ? hexval(uri[j + 1]) : -1, lo = hi >= 0 ? hexval(uri[j + 2]) : -1;
            if (hi < 0 || lo < 0 || (hi == 0 && lo == 0)) {
                ok = false;
                break;
            }
            rel[k++] = (char)(hi * 16 + lo);
            j += 2;
        } else {
            rel[k++] = uri[j];
        }
    }
    rel[k] = '\0';
    if (!ok) {
        free(rel);
        return fail(g, KCBP_ERR_PARSE, "buffers[%d].uri: bad percent escape in \"%s\"", i, uri);
    }
    /* Only a plain relative path: no scheme, not absolute, no "..". */
    bool leaves = rel[0] == '/' || rel[0] == '\0' || strchr(rel, ':') || strchr(rel, '\\');
    for (const char *s = rel; !leaves && *s;) {
        const char *e = strchr(s, '/');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        leaves = len == 2 && s[0] == '.' && s[1] == '.';
        s += len + (e != NULL);
    }
    if (leaves) {
        kcbp_status st = fail(g, KCBP_ERR_INVALID,
                              "buffers[%d].uri \"%s\": refused: only a relative path inside the file's folder "
                              "(or a data: URI) is read",
                              i, uri);
        free(rel);
        return st;
    }
    if (!g->dir) {
        free(rel);
        return fail(g, KCBP_ERR_INVALID, "buffers[%d].uri \"%s\": an external buffer is read from the glTF file's "
                    "folder, and this input has none (standard input): embed it (.glb or a data: URI)", i, uri);
    }
    size_t plen = strlen(g->dir) + strlen(rel) + 2;
    char *path = malloc(plen);
    if (!path) {
        free(rel);
        return fail(g, KCBP_ERR_NOMEM, "buffers[%d]: out of memory", i);
    }
    snprintf(path, plen, "%s/%s", g->dir, rel);
    free(rel);
    b->label = path;
    /* Links must not lead out of the folder. */
    char *real_dir = realpath(g->dir, NULL), *real = realpath(path, NULL);
    kcbp_status st = KCBP_OK;
    if (!real_dir || !real) {
        st = kcbp_error_set(g->err, KCBP_ERR_IO, "%s: buffers[%d]: %s: cannot open: %s", g->name, i, path,
                            strerror(errno));
    } else {
        size_t dl = strlen(real_dir);
        bool inside = !strncmp(real, real_dir, dl) && (real[dl] == '/' || (dl == 1 && real_dir[0] == '/'));
        if (!inside)
            st = fail(g, KCBP_ERR_INVALID, "buffers[%d].uri \"%s\": refused: it leads out of the file's folder", i,
                      uri);
    }
    free(real_dir);
    free(real);
    if (st != KCBP_OK)
        return st;
    /* A stream (a FIFO, a link to a device is refused above) is read only
     * to the buffer's byteLength: bytes past it are never used, and an
     * endless writer would otherwise fill the 2 GiB limit. Errors name the
     * glTF file and the buffer. */
    kcbp_input in;
    char *data;
    size_t len;
    if ((st = kcbp_input_open(&in, path, "a glTF buffer", g->err)) == KCBP_OK) {
        st = kcbp_input_read_all(&in, GLTF_MAX_BUFFER_BYTES, "2147483648 bytes", read_to_length, &blen, &data, &len,
                                 g->err);
        kcbp_input_close(&in);
    }
    if (st != KCBP_OK) {
        char prefix[96];
        snprintf(prefix, sizeof prefix, "%s: buffers[%d]", g->name, i);
        kcbp_error_prefix(g->err, prefix);
        return st;
    }
    b->data = (unsigned char *)data;
    b->len = len;
    b->owned = true;
    return KCBP_OK;
}

/* buffers[i], loaded on first use, checked to hold byteLength bytes. */
static kcbp_status get_buffer(gltf *g, uint64_t i, const char *from, gbuffer **out)
{
    const cJSON *o;
    kcbp_status st = get_object(g, g->buffers, g->nbuffers, "buffers", i, from, &o);
    if (st != KCBP_OK)
        return st;
    gbuffer *b = &g->bufs[i];
    *out = b;
    if (b->loaded)
        return KCBP_OK;
    char path[48];
    snprintf(path, sizeof path, "buffers[%d]", (int)i);
    uint64_t blen;
    if ((st = get_uint(g, o, path, "byteLength", true, 0, 1, (uint64_t)1 << 53, &blen)) != KCBP_OK)
        return st;
    const cJSON *uri = cJSON_GetObjectItemCaseSensitive(o, "uri");
    if (uri && !cJSON_IsString(uri))
        return fail(g, KCBP_ERR_PARSE, "%s.uri: expected a string", path);
    if (!uri) {
        if (!g->glb || i != 0)
            return fail(g, KCBP_ERR_PARSE, "%s: no uri (only the first buffer of a .glb is its BIN chunk)", path);
        if (!g->bin)
            return fail(g, KCBP_ERR_PARSE, "%s: the .glb has no BIN chunk to hold it", path);
        b->data = (unsigned char *)g->bin;
        b->len = g->bin_len;
        b->file_at = g->bin_at;
    } else if (!strncmp(uri->valuestring, "data:", 5)) {
        const char *s = uri->valuestring, *comma = strchr(s, ',');
        if (!comma || comma - s < 7 || strncmp(comma - 7, ";base64", 7))
            return fail(g, KCBP_ERR_PARSE, "%s.uri: a data: URI must be base64 (\"data:...;base64,...\")", path);
        size_t bad;
        if (!b64_decode(comma + 1, strlen(comma + 1), &b->data, &b->len, &bad)) {
            if (bad == SIZE_MAX)
                return fail(g, KCBP_ERR_NOMEM, "%s: out of memory for the data: URI", path);
            return fail(g, KCBP_ERR_PARSE, "%s.uri: character %zu of the base64 data is not base64", path,
                        (size_t)(comma + 1 - s) + bad);
        }
        b->owned = true;
        char label[96];
        snprintf(label, sizeof label, "%s: %s (data: URI)", g->name, path);
        b->label = kcbp_strdup(label);
        if (!b->label)
            return fail(g, KCBP_ERR_NOMEM, "%s: out of memory", path);
    } else if ((st = load_external(g, b, (int)i, uri->valuestring, blen)) != KCBP_OK) {
        return st;
    }
    b->loaded = true;
    if (blen > b->len)
        return fail(g, KCBP_ERR_PARSE, "%s: byteLength %llu, but its data holds only %zu bytes", path,
                    (unsigned long long)blen, b->len);
    b->len = (size_t)blen; /* a BIN chunk may be padded beyond it */
    return KCBP_OK;
}

/* accessors[i] as elements of ncomp components of an allowed type (ctypes,
 * 0-ended), checked to lie inside its view and buffer. */
static kcbp_status get_accessor(gltf *g, uint64_t i, const char *from, const char *want_type, int ncomp,
                                const int *ctypes, gview *out)
{
    const cJSON *a;
    kcbp_status st = get_object(g, g->accessors, g->naccessors, "accessors", i, from, &a);
    if (st != KCBP_OK)
        return st;
    char path[48];
    snprintf(path, sizeof path, "accessors[%d]", (int)i);
    if (cJSON_GetObjectItemCaseSensitive(a, "sparse"))
        return fail(g, KCBP_ERR_PARSE, "%s: sparse accessors are not read", path);
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(a, "type");
    if (!cJSON_IsString(type))
        return fail(g, KCBP_ERR_PARSE, "%s.type: expected a string", path);
    if (strcmp(type->valuestring, want_type) != 0)
        return fail(g, KCBP_ERR_PARSE, "%s: type %s, but %s needs %s", path, type->valuestring, from, want_type);
    uint64_t ct, count, off, vi;
    if ((st = get_uint(g, a, path, "componentType", true, 0, 5120, 5126, &ct)) != KCBP_OK ||
        (st = get_uint(g, a, path, "count", true, 0, 1, UINT32_MAX, &count)) != KCBP_OK ||
        (st = get_uint(g, a, path, "byteOffset", false, 0, 0, (uint64_t)1 << 53, &off)) != KCBP_OK)
        return st;
    bool allowed = false;
    for (const int *c = ctypes; *c; c++)
        allowed |= (uint64_t)*c == ct;
    if (!allowed)
        return fail(g, KCBP_ERR_PARSE, "%s: componentType %llu is not one %s takes (%s)", path,
                    (unsigned long long)ct, from,
                    ctypes[0] == CT_F32 ? "5126, float" : "5121, 5123 or 5125: unsigned byte, short or int");
    if (!cJSON_GetObjectItemCaseSensitive(a, "bufferView"))
        return fail(g, KCBP_ERR_PARSE, "%s: no bufferView (an accessor of zeros): not read", path);
    if ((st = get_uint(g, a, path, "bufferView", true, 0, 0, INT_MAX, &vi)) != KCBP_OK)
        return st;
    const cJSON *v;
    if ((st = get_object(g, g->views, g->nviews, "bufferViews", vi, path, &v)) != KCBP_OK)
        return st;
    char vpath[48];
    snprintf(vpath, sizeof vpath, "bufferViews[%d]", (int)vi);
    uint64_t bi, voff, vlen, stride;
    if ((st = get_uint(g, v, vpath, "buffer", true, 0, 0, INT_MAX, &bi)) != KCBP_OK ||
        (st = get_uint(g, v, vpath, "byteOffset", false, 0, 0, (uint64_t)1 << 53, &voff)) != KCBP_OK ||
        (st = get_uint(g, v, vpath, "byteLength", true, 0, 1, (uint64_t)1 << 53, &vlen)) != KCBP_OK ||
        (st = get_uint(g, v, vpath, "byteStride", false, 0, 4, 252, &stride)) != KCBP_OK)
        return st;
    uint64_t csize = ct == CT_U8 ? 1 : ct == CT_U16 ? 2 : 4;
    uint64_t elem = csize * (uint64_t)ncomp;
    if (!stride)
        stride = elem;
    else if (stride % 4 || stride < elem)
        return fail(g, KCBP_ERR_PARSE, "%s.byteStride %llu: must be a multiple of 4 and at least the element's %llu bytes",
                    vpath, (unsigned long long)stride, (unsigned long long)elem);
    gbuffer *b;
    if ((st = get_buffer(g, bi, vpath, &b)) != KCBP_OK)
        return st;
    /* Every term is below 2^53, and count * stride below 2^40: no overflow. */
    if (voff + vlen > b->len)
        return fail(g, KCBP_ERR_PARSE, "%s: bytes %llu to %llu, past the end of buffers[%d] (%zu bytes)", vpath,
                    (unsigned long long)voff, (unsigned long long)(voff + vlen), (int)bi, b->len);
    uint64_t need = off + (count - 1) * stride + elem;
    if (need > vlen)
        return fail(g, KCBP_ERR_PARSE,
                    "%s: %llu elements of %llu bytes every %llu from byte %llu need %llu bytes, past the end of %s "
                    "(%llu bytes)",
                    path, (unsigned long long)count, (unsigned long long)elem, (unsigned long long)stride,
                    (unsigned long long)off, (unsigned long long)need, vpath, (unsigned long long)vlen);
    out->p = b->data + voff + off;
    out->count = (size_t)count;
    out->stride = (size_t)stride;
    out->ctype = (int)ct;
    out->label = b->label;
    out->at = b->file_at + (size_t)(voff + off);
    return KCBP_OK;
}

static uint32_t read_index(const gview *v, size_t k)
{
    const unsigned char *p = v->p + k * v->stride;
    if (v->ctype == CT_U8)
        return p[0];
    if (v->ctype == CT_U16)
        return (uint32_t)p[0] | (uint32_t)p[1] << 8;
    return le32(p);
}

static float read_f32(const unsigned char *p)
{
    uint32_t u = le32(p);
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* ---- transforms: column-major 4x4, as glTF writes them ---- */

static void mat_mul(const double *a, const double *b, double *out)
{
    double r[16];
    for (int c = 0; c < 4; c++)
        for (int row = 0; row < 4; row++) {
            double s = 0;
            for (int k = 0; k < 4; k++)
                s += a[k * 4 + row] * b[c * 4 + k];
            r[c * 4 + row] = s;
        }
    memcpy(out, r, sizeof r);
}

static bool mat_is_identity(const double *m)
{
    for (int i = 0; i < 16; i++)
        if (m[i] != (i % 5 == 0 ? 1.0 : 0.0))
            return false;
    return true;
}

static double mat_det3(const double *m)
{
    return m[0] * (m[5] * m[10] - m[9] * m[6]) - m[4] * (m[1] * m[10] - m[9] * m[2]) +
           m[8] * (m[1] * m[6] - m[5] * m[2]);
}

/* A node's local transform: matrix, or T * R * S. */
static kcbp_status node_local(gltf *g, const cJSON *node, const char *path, double *m)
{
    double mat[16], t[3] = {0, 0, 0}, q[4] = {0, 0, 0, 1}, s[3] = {1, 1, 1};
    bool has_m, has_t, has_r, has_s;
    kcbp_status st;
    if ((st = get_numbers(g, node, path, "matrix", 16, mat, &has_m)) != KCBP_OK ||
        (st = get_numbers(g, node, path, "translation", 3, t, &has_t)) != KCBP_OK ||
        (st = get_numbers(g, node, path, "rotation", 4, q, &has_r)) != KCBP_OK ||
        (st = get_numbers(g, node, path, "scale", 3, s, &has_s)) != KCBP_OK)
        return st;
    if (has_m) {
        if (has_t || has_r || has_s)
            return fail(g, KCBP_ERR_PARSE, "%s: both a matrix and translation, rotation or scale", path);
        if (mat[3] != 0 || mat[7] != 0 || mat[11] != 0 || mat[15] != 1)
            return fail(g, KCBP_ERR_PARSE, "%s.matrix: not affine (its last row must be 0 0 0 1)", path);
        memcpy(m, mat, sizeof mat);
        return KCBP_OK;
    }
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (!(n > 0) || !isfinite(n))
        return fail(g, KCBP_ERR_PARSE, "%s.rotation: not a unit quaternion", path);
    double x = q[0] / n, y = q[1] / n, z = q[2] / n, w = q[3] / n;
    double r[9] = {1 - 2 * (y * y + z * z), 2 * (x * y + z * w),     2 * (x * z - y * w),
                   2 * (x * y - z * w),     1 - 2 * (x * x + z * z), 2 * (y * z + x * w),
                   2 * (x * z + y * w),     2 * (y * z - x * w),     1 - 2 * (x * x + y * y)};
    if (!has_r) { /* exactly the identity */
        memset(r, 0, sizeof r);
        r[0] = r[4] = r[8] = 1;
    }
    for (int c = 0; c < 3; c++)
        for (int row = 0; row < 3; row++)
            m[c * 4 + row] = r[c * 3 + row] * s[c];
    m[3] = m[7] = m[11] = 0;
    m[12] = t[0];
    m[13] = t[1];
    m[14] = t[2];
    m[15] = 1;
    return KCBP_OK;
}

/* ---- geometry ---- */

/* Appends accessor pos's vertices moved by m; *base: the first one's index. */
static kcbp_status add_vertices(gltf *g, const gview *pos, const double *m, uint32_t acc, uint32_t *base)
{
    if (pos->count > KCBP_MESH_MAX_ELEMENTS - g->nv)
        return fail(g, KCBP_ERR_LIMIT, "more than %u vertices (nodes place accessors[%u] once more)",
                    KCBP_MESH_MAX_ELEMENTS, acc);
    if (!kcbp_grow(&g->v, &g->cap_v, g->nv + pos->count, sizeof *g->v, 1024))
        return fail(g, KCBP_ERR_NOMEM, "out of memory for %zu vertices", g->nv + pos->count);
    bool identity = mat_is_identity(m);
    for (size_t k = 0; k < pos->count; k++) {
        const unsigned char *p = pos->p + k * pos->stride;
        double x = read_f32(p), y = read_f32(p + 4), z = read_f32(p + 8);
        if (!isfinite(x) || !isfinite(y) || !isfinite(z))
            return fail_at(g, KCBP_ERR_PARSE, pos->label, pos->at + k * pos->stride,
                           "accessors[%u]: vertex %zu has a coordinate that is not finite", acc, k);
        kcbp_vec3 w = {x, y, z};
        if (!identity) {
            w.x = m[0] * x + m[4] * y + m[8] * z + m[12];
            w.y = m[1] * x + m[5] * y + m[9] * z + m[13];
            w.z = m[2] * x + m[6] * y + m[10] * z + m[14];
        }
        kcbp_status c = kcbp_coord_check(w.x);
        if (c == KCBP_OK)
            c = kcbp_coord_check(w.y);
        if (c == KCBP_OK)
            c = kcbp_coord_check(w.z);
        if (c != KCBP_OK)
            return fail_at(g, c, pos->label, pos->at + k * pos->stride,
                           "accessors[%u]: vertex %zu, placed by its node, has a coordinate %s", acc, k,
                           c == KCBP_ERR_LIMIT ? "beyond 1e60" : "that is not finite");
        g->v[g->nv + k] = w;
    }
    *base = (uint32_t)g->nv;
    g->nv += pos->count;
    return KCBP_OK;
}

static kcbp_status add_triangle(gltf *g, uint32_t a, uint32_t b, uint32_t c, bool flip)
{
    if (g->nt >= KCBP_MESH_MAX_ELEMENTS)
        return fail(g, KCBP_ERR_LIMIT, "more than %u triangles", KCBP_MESH_MAX_ELEMENTS);
    if (!kcbp_grow(&g->t, &g->cap_t, g->nt + 1, sizeof *g->t, 1024))
        return fail(g, KCBP_ERR_NOMEM, "out of memory for %zu triangles", g->nt + 1);
    g->t[g->nt++] = flip ? (kcbp_tri){{a, c, b}} : (kcbp_tri){{a, b, c}};
    return KCBP_OK;
}

/* A node's mesh: each primitive's triangles, its vertices moved by m (each
 * POSITION accessor once per node, so primitives sharing one share their
 * vertices). */
static kcbp_status add_mesh(gltf *g, uint64_t mi, const char *from, const double *m)
{
    static const int f32[] = {CT_F32, 0}, idx[] = {CT_U8, CT_U16, CT_U32, 0};
    const cJSON *mesh;
    kcbp_status st = get_object(g, g->meshes, g->nmeshes, "meshes", mi, from, &mesh);
    if (st != KCBP_OK)
        return st;
    char mpath[48];
    snprintf(mpath, sizeof mpath, "meshes[%d]", (int)mi);
    const cJSON *prims;
    int np;
    if ((st = get_array(g, mesh, mpath, "primitives", &prims, &np)) != KCBP_OK)
        return st;
    if (!prims || np == 0)
        return fail(g, KCBP_ERR_PARSE, "%s: no primitives", mpath);
    uint32_t call = ++g->mesh_calls; /* below the 2^32 - 1 nodes a file can hold */
    bool flip = mat_det3(m) < 0; /* a mirroring transform reverses the winding */
    const cJSON *prim = prims->child;
    for (int p = 0; p < np && st == KCBP_OK; p++, prim = prim->next) {
        char ppath[80];
        snprintf(ppath, sizeof ppath, "%s.primitives[%d]", mpath, p);
        if (!cJSON_IsObject(prim)) {
            st = fail(g, KCBP_ERR_PARSE, "%s: expected an object", ppath);
            break;
        }
        uint64_t mode, pi, ii;
        if ((st = get_uint(g, prim, ppath, "mode", false, 4, 0, 6, &mode)) != KCBP_OK)
            break;
        if (mode < 4) {
            static const char *const names[] = {"POINTS", "LINES", "LINE_LOOP", "LINE_STRIP"};
            st = fail(g, KCBP_ERR_PARSE, "%s: mode %d (%s): only triangles are read (modes 4, 5 and 6: "
                      "TRIANGLES, TRIANGLE_STRIP, TRIANGLE_FAN)", ppath, (int)mode, names[mode]);
            break;
        }
        const cJSON *attrs = cJSON_GetObjectItemCaseSensitive(prim, "attributes");
        if (!cJSON_IsObject(attrs)) {
            st = fail(g, KCBP_ERR_PARSE, "%s.attributes: expected an object", ppath);
            break;
        }
        char apath[128];
        snprintf(apath, sizeof apath, "%s.attributes", ppath);
        if ((st = get_uint(g, attrs, apath, "POSITION", true, 0, 0, INT_MAX, &pi)) != KCBP_OK)
            break;
        snprintf(apath, sizeof apath, "%s.attributes.POSITION", ppath);
        gview pos, ind;
        if ((st = get_accessor(g, pi, apath, "VEC3", 3, f32, &pos)) != KCBP_OK)
            break;
        uint32_t base = 0;
        if (g->acc_mark[pi] == call) {
            base = g->acc_base[pi];
        } else {
            if ((st = add_vertices(g, &pos, m, (uint32_t)pi, &base)) != KCBP_OK)
                break;
            g->acc_mark[pi] = call;
            g->acc_base[pi] = base;
        }
        bool indexed = cJSON_GetObjectItemCaseSensitive(prim, "indices") != NULL;
        size_t n = pos.count;
        if (indexed) {
            if ((st = get_uint(g, prim, ppath, "indices", true, 0, 0, INT_MAX, &ii)) != KCBP_OK)
                break;
            snprintf(apath, sizeof apath, "%s.indices", ppath);
            if ((st = get_accessor(g, ii, apath, "SCALAR", 1, idx, &ind)) != KCBP_OK)
                break;
            n = ind.count;
            for (size_t k = 0; k < n; k++) {
                uint32_t x = read_index(&ind, k);
                if (x >= pos.count) {
                    st = fail_at(g, KCBP_ERR_PARSE, ind.label, ind.at + k * ind.stride,
                                 "accessors[%d]: index %u (element %zu) past the %zu vertices of accessors[%d]",
                                 (int)ii, x, k, pos.count, (int)pi);
                    break;
                }
            }
            if (st != KCBP_OK)
                break;
        }
        if (mode == 4 && n % 3 != 0) {
            st = fail(g, KCBP_ERR_PARSE, "%s: %zu %s: not a whole number of triangles", ppath, n,
                      indexed ? "indices" : "vertices");
            break;
        }
        size_t ntri = mode == 4 ? n / 3 : n >= 3 ? n - 2 : 0;
        for (size_t k = 0; k < ntri && st == KCBP_OK; k++) {
            size_t i0, i1, i2;
            if (mode == 4) {
                i0 = 3 * k, i1 = 3 * k + 1, i2 = 3 * k + 2;
            } else if (mode == 5) { /* strip: every other triangle turned to keep the winding */
                i0 = k, i1 = k + 1 + k % 2, i2 = k + 2 - k % 2;
            } else { /* fan: (v[k+1], v[k+2], v[0]) */
                i0 = k + 1, i1 = k + 2, i2 = 0;
            }
            uint32_t a = indexed ? read_index(&ind, i0) : (uint32_t)i0;
            uint32_t b = indexed ? read_index(&ind, i1) : (uint32_t)i1;
            uint32_t c = indexed ? read_index(&ind, i2) : (uint32_t)i2;
            st = add_triangle(g, base + a, base + b, base + c, flip);
        }
    }
    return st;
}

/* Required extensions kcbp may ignore: they change how a mesh looks, not
 * where its triangles are. Any other is refused (Draco or meshopt
 * compression, quantized positions, GPU instancing would all be misread). */
static bool ignorable_extension(const char *name)
{
    return !strncmp(name, "KHR_materials_", 14) || !strncmp(name, "KHR_texture_", 12) ||
           !strcmp(name, "KHR_lights_punctual");
}

typedef struct {
    int node;
    int next_child;       /* the index of child in the node's "children" */
    const cJSON *child;   /* the next child to enter, NULL: none left */
    double m[16];
} frame;

/* Depth first from each root, each node before its children. A node
 * reached twice (a cycle, or two parents) is an error: glTF's nodes form
 * trees. */
static kcbp_status walk(gltf *g, const int *roots, int nroots, const char *roots_path)
{
    uint8_t *state = calloc((size_t)g->nnodes + 1, 1); /* 1: on the path, 2: done */
    frame *stack = malloc(GLTF_MAX_DEPTH * sizeof *stack);
    if (!state || !stack) {
        free(state);
        free(stack);
        return fail(g, KCBP_ERR_NOMEM, "out of memory for the node tree");
    }
    static const double identity[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    kcbp_status st = KCBP_OK;
    for (int r = 0; r < nroots && st == KCBP_OK; r++) {
        int depth = 0;
        int start = roots[r];
        /* enter(start) */
        int enter = start;
        const double *parent = identity;
        char from[96];
        snprintf(from, sizeof from, "%s[%d]", roots_path, r);
        for (;;) {
            if (enter >= 0) {
                const cJSON *node;
                char path[48];
                snprintf(path, sizeof path, "nodes[%d]", enter);
                if ((st = get_object(g, g->nodes, g->nnodes, "nodes", (uint64_t)enter, from, &node)) != KCBP_OK)
                    break;
                if (state[enter] == 1) {
                    st = fail(g, KCBP_ERR_PARSE, "%s: a cycle in the node tree (the node is its own ancestor)", path);
                    break;
                }
                if (state[enter] == 2) {
                    st = fail(g, KCBP_ERR_PARSE, "%s: reached twice (a node has one parent at most, and a scene "
                              "lists roots only)", path);
                    break;
                }
                if (depth >= GLTF_MAX_DEPTH) {
                    st = fail(g, KCBP_ERR_LIMIT, "%s: nodes nested more than %d deep", path, GLTF_MAX_DEPTH);
                    break;
                }
                frame *f = &stack[depth++];
                f->node = enter;
                f->next_child = 0;
                double local[16];
                if ((st = node_local(g, node, path, local)) != KCBP_OK)
                    break;
                mat_mul(parent, local, f->m);
                state[enter] = 1;
                const cJSON *mesh = cJSON_GetObjectItemCaseSensitive(node, "mesh");
                if (mesh) {
                    uint64_t mi;
                    if ((st = get_uint(g, node, path, "mesh", true, 0, 0, INT_MAX, &mi)) != KCBP_OK ||
                        (st = add_mesh(g, mi, path, f->m)) != KCBP_OK)
                        break;
                }
                const cJSON *children;
                int nc;
                if ((st = get_array(g, node, path, "children", &children, &nc)) != KCBP_OK)
                    break;
                f->child = children ? children->child : NULL;
                enter = -1;
            }
            if (depth == 0)
                break;
            frame *f = &stack[depth - 1];
            char path[48];
            snprintf(path, sizeof path, "nodes[%d]", f->node);
            if (f->child) {
                const cJSON *c = f->child;
                f->child = c->next;
                double d = cJSON_IsNumber(c) ? c->valuedouble : -1;
                if (!(d >= 0 && d < g->nnodes) || d != floor(d)) {
                    st = fail(g, KCBP_ERR_PARSE, "%s.children[%d]: expected the index of a node (0 to %d)", path,
                              f->next_child, g->nnodes - 1);
                    break;
                }
                snprintf(from, sizeof from, "%s.children[%d]", path, f->next_child);
                f->next_child++;
                enter = (int)d;
                parent = f->m;
            } else {
                state[f->node] = 2;
                depth--;
            }
        }
    }
    free(state);
    free(stack);
    return st;
}

/* The roots to draw: the scene's ("scene", else the first), or, with no
 * scenes, every node that is no other's child; with no nodes, every mesh
 * as it is. */
static kcbp_status read_scene(gltf *g)
{
    const cJSON **scenes;
    int nscenes;
    kcbp_status st = get_indexed(g, "scenes", &scenes, &nscenes);
    if (st != KCBP_OK)
        return st;
    if (!g->nodes) {
        static const double identity[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
        for (int i = 0; i < g->nmeshes && st == KCBP_OK; i++)
            st = add_mesh(g, (uint64_t)i, "meshes", identity);
        free(scenes);
        return st;
    }
    int *roots = malloc(((size_t)g->nnodes + 1) * sizeof *roots);
    if (!roots) {
        free(scenes);
        return fail(g, KCBP_ERR_NOMEM, "out of memory");
    }
    int nroots = 0;
    char rpath[48] = "nodes";
    if (nscenes > 0) {
        uint64_t si;
        if ((st = get_uint(g, g->doc, "(top level)", "scene", false, 0, 0, INT_MAX, &si)) == KCBP_OK) {
            const cJSON *scene, *list;
            int n;
            if ((st = get_object(g, scenes, nscenes, "scenes", si, "scene", &scene)) == KCBP_OK) {
                snprintf(rpath, sizeof rpath, "scenes[%d]", (int)si);
                if ((st = get_array(g, scene, rpath, "nodes", &list, &n)) == KCBP_OK && list) {
                    snprintf(rpath, sizeof rpath, "scenes[%d].nodes", (int)si);
                    const cJSON *c = list->child;
                    for (int i = 0; i < n && st == KCBP_OK; i++, c = c->next) {
                        double d = cJSON_IsNumber(c) ? c->valuedouble : -1;
                        if (!(d >= 0 && d < g->nnodes) || d != floor(d) || i >= g->nnodes)
                            st = fail(g, KCBP_ERR_PARSE, "%s[%d]: expected the index of a node (0 to %d), once", rpath,
                                      i, g->nnodes - 1);
                        else
                            roots[nroots++] = (int)d;
                    }
                }
            }
        }
    } else {
        /* Nodes no other node lists as a child. */
        uint8_t *child = calloc((size_t)g->nnodes + 1, 1);
        if (!child)
            st = fail(g, KCBP_ERR_NOMEM, "out of memory");
        for (int i = 0; i < g->nnodes && st == KCBP_OK; i++) {
            const cJSON *node = g->nodes[i], *children, *c;
            int nc;
            char path[48];
            snprintf(path, sizeof path, "nodes[%d]", i);
            if (!cJSON_IsObject(node)) {
                st = fail(g, KCBP_ERR_PARSE, "%s: expected an object", path);
                break;
            }
            if ((st = get_array(g, node, path, "children", &children, &nc)) != KCBP_OK)
                break;
            cJSON_ArrayForEach(c, children) if (cJSON_IsNumber(c) && c->valuedouble >= 0 &&
                                                c->valuedouble < g->nnodes) child[(int)c->valuedouble] = 1;
        }
        for (int i = 0; i < g->nnodes && st == KCBP_OK; i++)
            if (!child[i])
                roots[nroots++] = i;
        free(child);
    }
    if (st == KCBP_OK)
        st = walk(g, roots, nroots, rpath);
    free(roots);
    free(scenes);
    return st;
}

/* "name:line:col: invalid JSON near '...'" (.gltf) or "name: byte N: ..."
 * (.glb), with cJSON under the library's lock (json_lock.h). */
static kcbp_status parse_json(gltf *g, const char *text, size_t len, size_t file_at)
{
    /* Count the values before cJSON allocates for them. */
    size_t values = 0;
    bool in_string = false;
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        if (in_string) {
            if (c == '\\')
                i++;
            else if (c == '"')
                in_string = false;
        } else if (c == '"') {
            in_string = true;
        } else {
            values += c == ',' || c == '[' || c == '{';
        }
    }
    if (values > GLTF_MAX_JSON_VALUES)
        return fail(g, KCBP_ERR_LIMIT, "the JSON holds more than %u values", GLTF_MAX_JSON_VALUES);
    char *buf = malloc(len + 1);
    if (!buf)
        return fail(g, KCBP_ERR_NOMEM, "out of memory for %zu bytes of JSON", len);
    memcpy(buf, text, len);
    buf[len] = '\0';
    const char *end = NULL;
    g->doc = kcbp_json_parse_locked(buf, len + 1, &end);
    kcbp_status st = KCBP_OK;
    if (!g->doc) {
        size_t at = end && end >= buf && end <= buf + len ? (size_t)(end - buf) : len;
        int show = 0;
        while (at + (size_t)show < len && show < 20 && buf[at + show] != '\n' && buf[at + show] != '\r' &&
               buf[at + show] != '\0')
            show++;
        if (g->glb) {
            st = fail_at(g, KCBP_ERR_PARSE, NULL, file_at + at, "invalid JSON in the JSON chunk%s%.*s%s",
                         show ? " near '" : "", show, buf + at, show ? "'" : "");
        } else {
            size_t line = 1, col = 1;
            for (size_t i = 0; i < at; i++) {
                if (buf[i] == '\n')
                    line++, col = 1;
                else
                    col++;
            }
            if (at >= len)
                st = kcbp_error_set(g->err, KCBP_ERR_PARSE, "%s:%zu:%zu: invalid JSON: unexpected end of text",
                                    g->name, line, col);
            else
                st = kcbp_error_set(g->err, KCBP_ERR_PARSE, "%s:%zu:%zu: invalid JSON near '%.*s'", g->name, line,
                                    col, show, buf + at);
        }
    } else if (!cJSON_IsObject(g->doc)) {
        st = fail(g, KCBP_ERR_PARSE, "the JSON is not an object");
    }
    free(buf);
    return st;
}

static kcbp_status read_document(gltf *g)
{
    const cJSON *asset = cJSON_GetObjectItemCaseSensitive(g->doc, "asset");
    if (!cJSON_IsObject(asset))
        return fail(g, KCBP_ERR_PARSE, "no \"asset\" object: not a glTF file");
    const cJSON *ver = cJSON_GetObjectItemCaseSensitive(asset, "version");
    if (!cJSON_IsString(ver))
        return fail(g, KCBP_ERR_PARSE, "asset.version: expected a string");
    if (strncmp(ver->valuestring, "2.", 2) != 0)
        return fail(g, KCBP_ERR_PARSE, "asset.version \"%.16s\": only glTF 2.x is read", ver->valuestring);
    const cJSON *req, *e;
    int nreq;
    kcbp_status st = get_array(g, g->doc, "", "extensionsRequired", &req, &nreq);
    if (st != KCBP_OK)
        return st;
    cJSON_ArrayForEach(e, req) {
        if (!cJSON_IsString(e))
            return fail(g, KCBP_ERR_PARSE, "extensionsRequired: expected strings");
        if (!ignorable_extension(e->valuestring))
            return fail(g, KCBP_ERR_PARSE, "requires the extension %.64s, which kcbp does not read",
                        e->valuestring);
    }
    if ((st = get_indexed(g, "buffers", &g->buffers, &g->nbuffers)) != KCBP_OK ||
        (st = get_indexed(g, "bufferViews", &g->views, &g->nviews)) != KCBP_OK ||
        (st = get_indexed(g, "accessors", &g->accessors, &g->naccessors)) != KCBP_OK ||
        (st = get_indexed(g, "meshes", &g->meshes, &g->nmeshes)) != KCBP_OK ||
        (st = get_indexed(g, "nodes", &g->nodes, &g->nnodes)) != KCBP_OK)
        return st;
    g->bufs = calloc((size_t)g->nbuffers + 1, sizeof *g->bufs);
    g->acc_mark = calloc((size_t)g->naccessors + 1, sizeof *g->acc_mark);
    g->acc_base = calloc((size_t)g->naccessors + 1, sizeof *g->acc_base);
    if (!g->bufs || !g->acc_mark || !g->acc_base)
        return fail(g, KCBP_ERR_NOMEM, "out of memory");
    if ((st = read_scene(g)) != KCBP_OK)
        return st;
    if (g->nt == 0)
        return fail(g, KCBP_ERR_PARSE, "no triangles: the scene places no mesh with a triangle primitive");
    return KCBP_OK;
}

/* The .glb container: header, JSON chunk, optional BIN chunk (others
 * skipped). */
static kcbp_status read_glb(gltf *g, const unsigned char *d, size_t len)
{
    if (len < 12)
        return fail_at(g, KCBP_ERR_PARSE, NULL, len, "truncated: a .glb header is 12 bytes");
    uint32_t version = le32(d + 4), total = le32(d + 8);
    if (version != 2)
        return fail_at(g, KCBP_ERR_PARSE, NULL, 4, "glTF container version %u: only version 2 is read", version);
    if (total != len)
        return fail_at(g, KCBP_ERR_PARSE, NULL, 8, "the header says %u bytes, the file has %zu%s", total, len,
                       total > len ? " (truncated)" : "");
    size_t at = 12;
    const char *json = NULL;
    size_t json_len = 0, json_at = 0;
    for (int chunk = 0; at < len; chunk++) {
        if (len - at < 8)
            return fail_at(g, KCBP_ERR_PARSE, NULL, at, "truncated chunk header (%zu bytes left, 8 needed)", len - at);
        uint32_t clen = le32(d + at), type = le32(d + at + 4);
        if (clen > len - at - 8)
            return fail_at(g, KCBP_ERR_PARSE, NULL, at, "chunk %d of %u bytes runs past the end of the file (%zu "
                           "bytes left)", chunk, clen, len - at - 8);
        if (chunk == 0 && type != GLB_CHUNK_JSON)
            return fail_at(g, KCBP_ERR_PARSE, NULL, at + 4, "the first chunk must be JSON");
        if (chunk == 0) {
            json = (const char *)d + at + 8;
            json_len = clen;
            json_at = at + 8;
        } else if (type == GLB_CHUNK_BIN) {
            if (g->bin)
                return fail_at(g, KCBP_ERR_PARSE, NULL, at + 4, "a second BIN chunk");
            g->bin = d + at + 8;
            g->bin_len = clen;
            g->bin_at = at + 8;
        }
        at += 8 + (size_t)clen;
        /* Chunks are 4-byte aligned; tolerate a writer that forgot the
         * padding of the last one. */
        if (at % 4 && at < len) {
            size_t pad = 4 - at % 4;
            at = pad <= len - at ? at + pad : len;
        }
    }
    if (!json)
        return fail_at(g, KCBP_ERR_PARSE, NULL, 12, "no JSON chunk");
    /* The JSON chunk may be padded with spaces; it is plain JSON text. */
    kcbp_status st = parse_json(g, json, json_len, json_at);
    return st != KCBP_OK ? st : read_document(g);
}

kcbp_status kcbp_gltf_parse(const char *name, const char *data, size_t len, kcbp_mesh *mesh, kcbp_error *err)
{
    memset(mesh, 0, sizeof *mesh);
    gltf g;
    memset(&g, 0, sizeof g);
    g.name = name;
    g.err = err;
    g.glb = len >= 4 && le32((const unsigned char *)data) == GLB_MAGIC;
    /* External buffers are read from the file's folder; standard input has
     * none. */
    char *dir = NULL;
    if (strcmp(name, "-") != 0 && strcmp(name, "(mesh)") != 0) {
        const char *slash = strrchr(name, '/');
        dir = slash ? malloc((size_t)(slash - name) + 2) : kcbp_strdup(".");
        if (dir && slash) {
            size_t n = slash == name ? 1 : (size_t)(slash - name);
            memcpy(dir, name, n);
            dir[n] = '\0';
        }
        if (!dir)
            return fail(&g, KCBP_ERR_NOMEM, "out of memory");
    }
    g.dir = dir;
    kcbp_status st;
    if (g.glb) {
        st = read_glb(&g, (const unsigned char *)data, len);
    } else {
        if (memchr(data, '\0', len))
            st = fail_at(&g, KCBP_ERR_PARSE, NULL, (size_t)((const char *)memchr(data, '\0', len) - data),
                         "NUL byte: neither .glb (which starts with \"glTF\") nor .gltf JSON text");
        else
            st = parse_json(&g, data, len, 0);
        if (st == KCBP_OK)
            st = read_document(&g);
    }
    if (st == KCBP_OK) {
        st = kcbp_mesh_adopt(mesh, g.v, g.nv, g.t, g.nt, err);
        if (st != KCBP_OK)
            kcbp_error_prefix(err, name);
        g.v = NULL;
        g.t = NULL;
    }
    free(g.v);
    free(g.t);
    for (int i = 0; g.bufs && i < g.nbuffers; i++) {
        if (g.bufs[i].owned)
            free(g.bufs[i].data);
        free(g.bufs[i].label);
    }
    free(g.bufs);
    free(g.acc_mark);
    free(g.acc_base);
    free(g.buffers);
    free(g.views);
    free(g.accessors);
    free(g.meshes);
    free(g.nodes);
    cJSON_Delete(g.doc);
    free(dir);
    return st;
}

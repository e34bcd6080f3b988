/* kcbp_mesh_load and kcbp_mesh_parse: choosing the reader (by content,
 * then extension) and reading binary-safe input. The readers themselves are
 * obj.c, stl.c, ply.c and off.c, over the shared pieces of read.c. */
#include <kcbp/mesh_io.h>

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include <kcbp/obj.h>

#include "base/input.h"
#include "mesh_internal.h"
#include "read.h"
#include "base/util.h"

#define MESH_MAX_FILE_BYTES ((size_t)1 << 31)

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The first line (without CR), up to 64 bytes, after leading white space. */
static size_t first_line(const char *d, size_t len, char *out, size_t size)
{
    size_t i = 0, n = 0;
    while (i < len && (d[i] == ' ' || d[i] == '\t' || d[i] == '\r' || d[i] == '\n'))
        i++;
    for (; i < len && d[i] != '\n' && n + 1 < size; i++)
        out[n++] = d[i];
    while (n && (out[n - 1] == '\r' || out[n - 1] == ' ' || out[n - 1] == '\t'))
        n--;
    out[n] = '\0';
    return n;
}

static bool starts_solid(const char *d, size_t len)
{
    size_t i = 0;
    while (i < len && (d[i] == ' ' || d[i] == '\t' || d[i] == '\r' || d[i] == '\n'))
        i++;
    return len - i >= 5 && !strncasecmp(d + i, "solid", 5) && (len - i == 5 || !((unsigned char)d[i + 5] > ' '));
}

static bool is_off_keyword(const char *w, size_t n)
{
    /* [ST][C][N]OFF */
    size_t i = 0;
    if (n >= 2 && w[0] == 'S' && w[1] == 'T')
        i = 2;
    if (i < n && w[i] == 'C')
        i++;
    if (i < n && w[i] == 'N')
        i++;
    return n - i == 3 && !memcmp(w + i, "OFF", 3);
}

static bool binary_stl_size(const char *d, size_t len)
{
    if (len < 84)
        return false;
    uint64_t n = le32((const unsigned char *)d + 80);
    return 84 + 50 * n == (uint64_t)len;
}

static bool has_control(const char *d, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)d[i];
        if (c < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != '\v' && c != '\f')
            return true;
    }
    return false;
}

static const char *extension(const char *name)
{
    const char *slash = strrchr(name, '/'), *dot = strrchr(name, '.');
    if (!dot || (slash && dot < slash))
        return "";
    return dot + 1;
}

kcbp_mesh_format kcbp_mesh_detect(const char *name, const void *data, size_t len)
{
    const char *d = data;
    char line[64];
    (void)first_line(d, len, line, sizeof line);
    if (len >= 4 && !memcmp(d, "glTF", 4))
        return KCBP_FORMAT_GLTF;
    if (len >= 4 && (!memcmp(d, "ply\n", 4) || (len >= 5 && !memcmp(d, "ply\r\n", 5))))
        return KCBP_FORMAT_PLY;
    if (binary_stl_size(d, len) && !(starts_solid(d, len) && !has_control(d, len)))
        return KCBP_FORMAT_STL;
    size_t w = strcspn(line, " \t");
    if (is_off_keyword(line, w))
        return KCBP_FORMAT_OFF;
    const char *ext = extension(name ? name : "");
    if (!strcasecmp(ext, "stl"))
        return KCBP_FORMAT_STL;
    if (!strcasecmp(ext, "ply"))
        return KCBP_FORMAT_PLY;
    if (!strcasecmp(ext, "off"))
        return KCBP_FORMAT_OFF;
    if (!strcasecmp(ext, "obj"))
        return KCBP_FORMAT_OBJ;
    if (!strcasecmp(ext, "gltf") || !strcasecmp(ext, "glb"))
        return KCBP_FORMAT_GLTF;
    if (starts_solid(d, len))
        return KCBP_FORMAT_STL;
    return KCBP_FORMAT_OBJ;
}

kcbp_status kcbp_mesh_parse_into(const char *name, const void *data, size_t len, kcbp_mesh *mesh, kcbp_error *err)
{
    memset(mesh, 0, sizeof *mesh);
    if (!name)
        name = "(mesh)";
    switch (kcbp_mesh_detect(name, data, len)) {
    case KCBP_FORMAT_STL:
        return kcbp_stl_parse(name, data, len, mesh, err);
    case KCBP_FORMAT_PLY:
        return kcbp_ply_parse(name, data, len, mesh, err);
    case KCBP_FORMAT_OFF:
        return kcbp_off_parse(name, data, len, mesh, err);
    case KCBP_FORMAT_GLTF:
        return kcbp_gltf_parse(name, data, len, mesh, err);
    case KCBP_FORMAT_OBJ:
    default:
        return kcbp_obj_parse_into(name, data, len, mesh, err);
    }
}

/* When to stop reading a mesh: binary data is read whole. A device
 * (/dev/zero, /dev/urandom) holds no mesh, so its first chunk with a NUL
 * byte ends it (as for OBJ); a pipe or FIFO goes on while it may be a PLY,
 * or, past 84 bytes, the binary STL its count at byte 80 announces. */
static bool mesh_read_stop(void *ctx, const kcbp_input *in, const char *b, size_t n, bool seen_nul)
{
    const bool *chardev = ctx;
    if (!seen_nul || in->regular)
        return false;
    uint64_t count = n >= 84 ? le32((const unsigned char *)b + 80) : 0;
    bool ply = n >= 3 && !memcmp(b, "ply", 3);
    if (n >= 12 && !memcmp(b, "glTF", 4)) /* a .glb: to the length its header gives */
        return *chardev || (uint64_t)n >= le32((const unsigned char *)b + 8);
    return *chardev || (!ply && n >= 84 && (count > KCBP_MESH_MAX_ELEMENTS || (uint64_t)n > 84 + 50 * count));
}

kcbp_status kcbp_mesh_load_into(const char *path, kcbp_mesh *mesh, kcbp_error *err)
{
    memset(mesh, 0, sizeof *mesh);
    kcbp_input in;
    kcbp_status st = kcbp_input_open(&in, path, "a mesh file", err);
    if (st != KCBP_OK)
        return st;
    char *buf;
    size_t len;
    struct stat sb;
    bool chardev = fstat(in.fd, &sb) == 0 && (S_ISCHR(sb.st_mode) || S_ISSOCK(sb.st_mode));
    st = kcbp_input_read_all(&in, MESH_MAX_FILE_BYTES, "2147483648 bytes", mesh_read_stop, &chardev, &buf, &len, err);
    kcbp_input_close(&in);
    if (st == KCBP_OK)
        st = kcbp_mesh_parse_into(path, buf, len, mesh, err);
    free(buf);
    return st;
}

kcbp_status kcbp_mesh_load(const char *path, kcbp_mesh **out, kcbp_error *err)
{
    kcbp_mesh m;
    *out = NULL;
    kcbp_status st = kcbp_mesh_load_into(path, &m, err);
    return st == KCBP_OK ? kcbp_mesh_to_handle(&m, out, err) : st;
}

kcbp_status kcbp_mesh_parse(const char *name, const void *data, size_t len, kcbp_mesh **out, kcbp_error *err)
{
    kcbp_mesh m;
    *out = NULL;
    kcbp_status st = kcbp_mesh_parse_into(name, data, len, &m, err);
    return st == KCBP_OK ? kcbp_mesh_to_handle(&m, out, err) : st;
}

/* --export DIR (kcbp collide, kcbp scene): posed meshes and k-CBPs written
 * for a viewer. Each object becomes two files in DIR:
 *   STEM.ply      the mesh's triangles in the world frame, ASCII PLY with
 *                 double coordinates (exact: kcbp reads them back bit for
 *                 bit) and a colour per face: contact triangles red, the
 *                 rest grey; the vertices of contact triangles are red too
 *                 (assimp, and so Blender's importer, drop face colours and
 *                 keep vertex colours: the contacts then show, shaded into
 *                 their neighbours);
 *   STEM_cbp.obj  its k-CBP in the world frame (as kcbp cbp -o writes it),
 *                 when the model has one.
 * MeshLab and Blender open both. The library never writes files of its
 * own accord: this is the program's. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "json_line.h"

/* The face colours (sRGB): contact triangles, the others. */
static const unsigned char contact_rgb[3] = {230, 0, 0};
static const unsigned char plain_rgb[3] = {190, 190, 190};

kcbp_status kcbp_cli_export_prepare(const char *dir, kcbp_error *err)
{
    struct stat sb;
    if (stat(dir, &sb) == 0) {
        if (!S_ISDIR(sb.st_mode))
            return kcbp_error_set(err, KCBP_ERR_INVALID, "--export %s: exists and is not a directory", dir);
        return KCBP_OK;
    }
    if (errno == ENOTDIR)
        return kcbp_error_set(err, KCBP_ERR_INVALID, "--export %s: a part of the path is not a directory", dir);
    if (errno != ENOENT)
        return kcbp_error_set(err, KCBP_ERR_IO, "--export %s: %s", dir, strerror(errno));
    if (mkdir(dir, 0777) != 0)
        return kcbp_error_set(err, KCBP_ERR_IO, "--export %s: cannot create the directory: %s", dir,
                              strerror(errno));
    return KCBP_OK;
}

int kcbp_cli_export_fail(const kcbp_error *err)
{
    fprintf(stderr, "kcbp: %s\n", err->msg);
    return err->code == KCBP_ERR_INVALID ? KCBP_EXIT_USAGE : KCBP_EXIT_NOMEM;
}

size_t kcbp_cli_export_mark(uint8_t *marked, const kcbp_contact *contacts, size_t ncontacts, bool side_b)
{
    size_t n = 0;
    for (size_t i = 0; i < ncontacts; i++) {
        uint32_t t = side_b ? contacts[i].b : contacts[i].a;
        if (t == KCBP_SHAPE_FEATURE) /* a shape's side: no triangle */
            continue;
        n += !marked[t];
        marked[t] = 1;
    }
    return n;
}

/* DIR/STEM SUFFIX, malloc'ed (NULL when memory ran out). */
static char *file_path(const char *dir, const char *stem, const char *suffix)
{
    size_t n = strlen(dir) + strlen(stem) + strlen(suffix) + 2;
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s/%s%s", dir, stem, suffix);
    return p;
}

/* Closes f, and says why when it or an earlier write failed. */
static kcbp_status close_file(FILE *f, const char *path, kcbp_error *err)
{
    errno = 0;
    bool bad = ferror(f) != 0;
    int e = errno;
    if (fclose(f) != 0 && !bad) {
        bad = true;
        e = errno;
    }
    if (bad)
        return kcbp_error_set(err, KCBP_ERR_IO, "--export: %s: cannot write: %s", path,
                              e ? strerror(e) : "write error");
    return KCBP_OK;
}

static void put_coord(FILE *f, double v, char sep)
{
    char buf[32];
    int n = kcbp_format_double(buf, v);
    fwrite(buf, 1, (size_t)n, f);
    fputc(sep, f);
}

static kcbp_status write_ply(const char *path, const kcbp_cli_export_object *o, kcbp_error *err)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return kcbp_error_set(err, KCBP_ERR_IO, "--export: %s: cannot open for writing: %s", path, strerror(errno));
    /* a shape's surface, tessellated for display only (said in the file) */
    const kcbp_mesh *m = kcbp_model_display_mesh(o->model);
    if (!m) {
        fclose(f);
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "--export: out of memory");
    }
    kcbp_cli_partial_begin(path); /* removed if interrupted (interrupt.h) */
    const kcbp_vec3 *mv = kcbp_mesh_vertices(m);
    const kcbp_tri *mt = kcbp_mesh_triangles(m);
    uint32_t nv = kcbp_mesh_vertex_count(m), nt = kcbp_mesh_triangle_count(m);
    fprintf(f,
            "ply\nformat ascii 1.0\ncomment kcbp: posed in the world frame; contact triangles red\n%s"
            "element vertex %u\nproperty double x\nproperty double y\nproperty double z\n"
            "property uchar red\nproperty uchar green\nproperty uchar blue\n"
            "element face %u\nproperty list uchar int vertex_indices\n"
            "property uchar red\nproperty uchar green\nproperty uchar blue\nend_header\n",
            kcbp_model_shape(o->model, NULL) ? "comment kcbp: a shape, tessellated for display only (queries use the "
                                               "exact shape)\n"
                                             : "",
            nv, nt);
    uint8_t *red = o->marked ? calloc(nv ? nv : 1, 1) : NULL;
    if (o->marked && !red) {
        fclose(f);
        kcbp_cli_partial_end(path);
        remove(path);
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "--export: out of memory");
    }
    for (uint32_t t = 0; red && t < nt; t++)
        if (o->marked[t])
            red[mt[t].v[0]] = red[mt[t].v[1]] = red[mt[t].v[2]] = 1;
    for (uint32_t i = 0; i < nv; i++) {
        kcbp_vec3 v = kcbp_pose_apply(o->pose, mv[i]);
        const unsigned char *c = red && red[i] ? contact_rgb : plain_rgb;
        put_coord(f, v.x, ' ');
        put_coord(f, v.y, ' ');
        put_coord(f, v.z, ' ');
        fprintf(f, "%u %u %u\n", c[0], c[1], c[2]);
    }
    free(red);
    for (uint32_t t = 0; t < nt; t++) {
        const unsigned char *c = o->marked && o->marked[t] ? contact_rgb : plain_rgb;
        const uint32_t *v = mt[t].v;
        fprintf(f, "3 %u %u %u %u %u %u\n", v[0], v[1], v[2], c[0], c[1], c[2]);
    }
    kcbp_status st = close_file(f, path, err);
    kcbp_cli_partial_end(path);
    return st;
}

static kcbp_status write_cbp(const char *path, const kcbp_cli_export_object *o, kcbp_error *err)
{
    kcbp_cli_partial_begin(path);
    kcbp_status st = kcbp_cbp_write_obj(kcbp_model_cbp(o->model), o->pose, path, err);
    kcbp_cli_partial_end(path);
    if (st != KCBP_OK)
        kcbp_error_prefix(err, "--export");
    return st;
}

kcbp_status kcbp_cli_export_write(const char *dir, const kcbp_cli_export_object *o, kcbp_error *err)
{
    char *ply = file_path(dir, o->stem, ".ply");
    char *obj = file_path(dir, o->stem, "_cbp.obj");
    kcbp_status st = ply && obj ? write_ply(ply, o, err)
                                : kcbp_error_set(err, KCBP_ERR_NOMEM, "--export: out of memory");
    if (st == KCBP_OK && kcbp_model_has_cbp(o->model))
        st = write_cbp(obj, o, err);
    free(ply);
    free(obj);
    return st;
}

void kcbp_cli_export_stem(char *out, size_t size, uint32_t index, const char *name)
{
    int n = snprintf(out, size, "%u-", index);
    size_t i = n > 0 ? (size_t)n : 0;
    /* Only characters every file system and viewer takes; the index keeps
     * names that differ only in the others apart. */
    for (const char *s = name; *s && i + 1 < size; s++) {
        char c = *s;
        bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
                    c == '_' || (c == '.' && s != name);
        out[i++] = keep ? c : '_';
    }
    out[i < size ? i : size - 1] = '\0';
}

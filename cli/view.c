/* kcbp_view's accessors (view.h): the one place where the writers of
 * --html and --export FILE.glb read the library's structs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "view.h"

uint32_t kcbp_view_color(uint32_t index)
{
    /* Okabe-Ito's blue, bluish green, sky blue, yellow, orange and reddish
     * purple, then greys: safe for colour-blind readers, and none of them
     * is taken for the contact red. */
    static const uint32_t palette[] = {0x0072b2, 0x009e73, 0x56b4e9, 0xf0e442, 0xe69f00, 0xcc79a7, 0x8c8c8c, 0x5a6e7f};
    const uint32_t np = sizeof palette / sizeof palette[0];
    if (index < np)
        return palette[index];
    /* Past them (a scene's objects): hues a golden angle apart, so that
     * neighbours in the list differ, kept out of the reds (hue 35 to 325
     * degrees), at three lightnesses in turn. */
    uint32_t k = index - np;
    double h = 35 + fmod(k * 137.50776405, 290.0), l = (k % 3 == 0) ? 0.45 : (k % 3 == 1) ? 0.6 : 0.35, sat = 0.55;
    double c = (1 - fabs(2 * l - 1)) * sat, hp = h / 60, x = c * (1 - fabs(fmod(hp, 2) - 1)), m = l - c / 2;
    double r = 0, g = 0, b = 0;
    if (hp < 1)
        r = c, g = x;
    else if (hp < 2)
        r = x, g = c;
    else if (hp < 3)
        g = c, b = x;
    else if (hp < 4)
        g = x, b = c;
    else if (hp < 5)
        r = x, b = c;
    else
        r = c, b = x;
    uint32_t R = (uint32_t)lround((r + m) * 255), G = (uint32_t)lround((g + m) * 255), B = (uint32_t)lround((b + m) * 255);
    return R << 16 | G << 8 | B;
}

/* What is drawn of a model: its mesh, or a shape's surface tessellated for
 * display only (kcbp_model_display_mesh; an empty mesh when memory ran out). */
static const kcbp_mesh *shown(const kcbp_model *m)
{
    const kcbp_mesh *d = kcbp_model_display_mesh(m);
    return d ? d : kcbp_model_mesh(m);
}
uint32_t kcbp_view_nvertices(const kcbp_model *m) { return kcbp_mesh_vertex_count(shown(m)); }
uint32_t kcbp_view_ntriangles(const kcbp_model *m) { return kcbp_mesh_triangle_count(shown(m)); }
kcbp_vec3 kcbp_view_vertex(const kcbp_model *m, uint32_t i) { return kcbp_mesh_vertices(shown(m))[i]; }
const uint32_t *kcbp_view_triangle(const kcbp_model *m, uint32_t t) { return kcbp_mesh_triangles(shown(m))[t].v; }
kcbp_aabb kcbp_view_bounds(const kcbp_model *m) { return kcbp_mesh_bounds(kcbp_model_mesh(m)); }
bool kcbp_view_is_shape(const kcbp_model *m) { return kcbp_model_shape(m, NULL); }

bool kcbp_view_cbp_triangles(const kcbp_model *m, kcbp_vec3 **v, uint32_t *nv, uint32_t **tri, uint32_t *nt)
{
    *v = NULL;
    *tri = NULL;
    *nv = *nt = 0;
    if (!kcbp_model_has_cbp(m))
        return true;
    const kcbp_cbp *c = kcbp_model_cbp(m);
    uint32_t nplanes = kcbp_cbp_plane_count(c), nverts = kcbp_cbp_vertex_count(c);
    size_t n = 0;
    for (uint32_t f = 0; f < nplanes; f++) {
        uint32_t k;
        kcbp_cbp_face(c, f, &k);
        n += k >= 3 ? k - 2 : 0;
    }
    *v = malloc((nverts ? nverts : 1) * sizeof **v);
    *tri = malloc((n ? n : 1) * 3 * sizeof **tri);
    if (!*v || !*tri) {
        free(*v);
        free(*tri);
        *v = NULL;
        *tri = NULL;
        return false;
    }
    memcpy(*v, kcbp_cbp_vertices(c), nverts * sizeof **v);
    size_t t = 0;
    for (uint32_t f = 0; f < nplanes; f++) {
        uint32_t k;
        const uint32_t *loop = kcbp_cbp_face(c, f, &k);
        for (uint32_t j = 1; j + 1 < k; j++) {
            (*tri)[3 * t] = loop[0];
            (*tri)[3 * t + 1] = loop[j];
            (*tri)[3 * t + 2] = loop[j + 1];
            t++;
        }
    }
    *nv = nverts;
    *nt = (uint32_t)t;
    return true;
}

uint32_t kcbp_view_scene_nobjects(const kcbp_scene *s) { return kcbp_scene_object_count(s); }
uint32_t kcbp_view_scene_nmodels(const kcbp_scene *s) { return kcbp_scene_model_count(s); }
const kcbp_model *kcbp_view_scene_model(const kcbp_scene *s, uint32_t m) { return kcbp_scene_model(s, m); }
uint32_t kcbp_view_scene_object_model(const kcbp_scene *s, uint32_t i) { return kcbp_scene_object_model(s, i); }
const char *kcbp_view_scene_object_name(const kcbp_scene *s, uint32_t i) { return kcbp_scene_object_at(s, i).name; }
uint32_t kcbp_view_scene_frames(const kcbp_scene *s) { return kcbp_scene_frame_count(s); }
double kcbp_view_scene_dt(const kcbp_scene *s) { return kcbp_scene_dt(s); }

static void grow_box(kcbp_aabb *b, const kcbp_pose *p, kcbp_aabb local)
{
    for (int c = 0; c < 8; c++) {
        kcbp_vec3 x = {c & 1 ? local.max.x : local.min.x, c & 2 ? local.max.y : local.min.y,
                       c & 4 ? local.max.z : local.min.z};
        kcbp_vec3 w = kcbp_pose_apply(p, x);
        b->min = kcbp_v3_min(b->min, w);
        b->max = kcbp_v3_max(b->max, w);
    }
}

kcbp_aabb kcbp_view_world_bounds(const kcbp_view *v)
{
    kcbp_aabb b = {{1e300, 1e300, 1e300}, {-1e300, -1e300, -1e300}};
    for (uint32_t i = 0; i < v->nobjects; i++) {
        kcbp_aabb local = kcbp_view_bounds(v->models[v->objects[i].model]);
        grow_box(&b, &v->objects[i].pose, local);
        for (uint32_t f = 0; v->poses && f < v->frames; f++)
            grow_box(&b, &v->poses[(size_t)f * v->nobjects + i], local);
    }
    if (v->has_points) {
        b.min = kcbp_v3_min(kcbp_v3_min(b.min, v->point_a), v->point_b);
        b.max = kcbp_v3_max(kcbp_v3_max(b.max, v->point_a), v->point_b);
    }
    if (b.min.x > b.max.x)
        b.min = b.max = (kcbp_vec3){0, 0, 0};
    return b;
}

kcbp_view_export_kind kcbp_view_export_kind_of(const char *path)
{
    size_t n = strlen(path);
    struct stat sb;
    if (n == 0)
        return KCBP_VIEW_EXPORT_BAD;
    if (path[n - 1] == '/' || (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)))
        return KCBP_VIEW_EXPORT_DIR;
    static const char *const other[] = {".ply", ".obj", ".stl", ".off", ".gltf", ".html", ".json"};
    const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');
    if (dot && (!slash || dot > slash))
        for (size_t i = 0; i < sizeof other / sizeof other[0]; i++)
            if (!strcasecmp(dot, other[i]))
                return KCBP_VIEW_EXPORT_BAD;
    return KCBP_VIEW_EXPORT_GLB;
}

int kcbp_view_export_usage(const char *cmd, const char *path, bool dir_ok)
{
    return kcbp_cli_usage_error(cmd,
                                dir_ok ? "--export '%s': writes binary glTF (FILE.glb) or, for a path ending in '/' "
                                         "or an existing folder, PLY files there; not another format"
                                       : "--export '%s': writes one binary glTF file (FILE.glb), not a folder or "
                                         "another format",
                                path);
}

int kcbp_view_fail(const kcbp_error *err)
{
    fprintf(stderr, "kcbp: %s\n", err->msg);
    return err->code == KCBP_ERR_INVALID ? KCBP_EXIT_USAGE : KCBP_EXIT_NOMEM;
}

void kcbp_view_pair_init(kcbp_view_pair *vp, const char *kind, const char *path_a, const char *path_b,
                         const kcbp_model *a, const kcbp_model *b)
{
    memset(vp, 0, sizeof *vp);
    vp->models[0] = a;
    vp->models[1] = b;
    vp->view.kind = kind;
    vp->view.models = vp->models;
    vp->view.nmodels = a == b ? 1 : 2;
    vp->view.objects = vp->objects;
    snprintf(vp->title, sizeof vp->title, "kcbp %s: %s and %s", kind, path_a, path_b);
    vp->view.title = vp->title;
}

bool kcbp_view_pair_add(kcbp_view_pair *vp, const char *name, int side, const kcbp_pose *pose, kcbp_view_style style,
                        uint32_t color)
{
    uint32_t i = vp->view.nobjects;
    uint32_t model = side == 1 && vp->view.nmodels == 2 ? 1 : 0;
    vp->marked[i] = calloc(kcbp_view_ntriangles(vp->models[model]) + 1, 1);
    if (!vp->marked[i])
        return false;
    if (kcbp_view_is_shape(vp->models[model])) {
        kcbp_shape s;
        kcbp_model_shape(vp->models[model], &s);
        snprintf(vp->names[i], sizeof vp->names[i], "%s (%s, tessellated for display)", name,
                 kcbp_shape_kind_name(s.kind));
        name = vp->names[i];
    }
    vp->objects[i] = (kcbp_view_object){.name = name, .model = model, .pose = *pose, .marked = vp->marked[i],
                                        .style = style, .color = color};
    vp->view.nobjects++;
    return true;
}

void kcbp_view_pair_mark(kcbp_view_pair *vp, int oa, int ob, const kcbp_contact *contacts, size_t n)
{
    for (size_t i = 0; i < n; i++) { /* a shape's side (KCBP_SHAPE_FEATURE) has no triangle to mark */
        if (oa >= 0 && contacts[i].a != KCBP_SHAPE_FEATURE)
            vp->marked[oa][contacts[i].a] = 1;
        if (ob >= 0 && contacts[i].b != KCBP_SHAPE_FEATURE)
            vp->marked[ob][contacts[i].b] = 1;
    }
}

void kcbp_view_pair_free(kcbp_view_pair *vp)
{
    for (int i = 0; i < 4; i++)
        free(vp->marked[i]);
    memset(vp, 0, sizeof *vp);
}

void kcbp_view_remove_partial(const char *path)
{
    /* Only a regular file: never a device such as /dev/full, a FIFO or a
     * link's target. */
    struct stat sb;
    if (lstat(path, &sb) == 0 && S_ISREG(sb.st_mode))
        unlink(path);
}

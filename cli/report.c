#include "report.h"

#include "json_line.h"
#include "cli.h"

/* cJSON's add functions return NULL on failure and leave the parent intact,
 * so building a report is a chain of adds whose failures are collected in
 * one flag and checked once at the end. */
typedef struct {
    bool failed;
} build_state;

static cJSON *add_number(build_state *s, cJSON *obj, const char *key, double v)
{
    cJSON *n = cJSON_AddNumberToObject(obj, key, v);
    s->failed |= n == NULL;
    return n;
}

static cJSON *finish(build_state *s, cJSON *obj)
{
    if (s->failed) {
        cJSON_Delete(obj);
        return NULL;
    }
    return obj;
}

cJSON *kcbp_report_mesh(const kcbp_model *model)
{
    if (kcbp_model_shape(model, NULL)) /* a shape: its kind and numbers (shape_cli.c) */
        return kcbp_cli_json_shape(model);
    build_state s = {false};
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    const kcbp_mesh *mesh = kcbp_model_mesh(model);
    const kcbp_cbp *cbp = kcbp_model_cbp(model);
    add_number(&s, o, "vertices", kcbp_mesh_vertex_count(mesh));
    add_number(&s, o, "triangles", kcbp_mesh_triangle_count(mesh));
    add_number(&s, o, "degenerate_triangles", kcbp_mesh_degenerate_count(mesh));
    if (cbp) {
        add_number(&s, o, "cbp_planes", kcbp_cbp_plane_count(cbp));
        add_number(&s, o, "cbp_vertices", kcbp_cbp_vertex_count(cbp));
    }
    return finish(&s, o);
}

static void line_mesh(kcbp_jl *w, const char *key, const kcbp_model *model)
{
    kcbp_jl_key(w, key);
    kcbp_jl_open(w, '{');
    if (kcbp_model_shape(model, NULL)) { /* a shape: its kind and numbers (shape_cli.c) */
        kcbp_cli_jl_shape(w, model);
        kcbp_jl_close(w, '}');
        return;
    }
    const kcbp_mesh *mesh = kcbp_model_mesh(model);
    const kcbp_cbp *cbp = kcbp_model_cbp(model);
    kcbp_jl_key(w, "vertices");
    kcbp_jl_uint(w, kcbp_mesh_vertex_count(mesh));
    kcbp_jl_key(w, "triangles");
    kcbp_jl_uint(w, kcbp_mesh_triangle_count(mesh));
    kcbp_jl_key(w, "degenerate_triangles");
    kcbp_jl_uint(w, kcbp_mesh_degenerate_count(mesh));
    if (cbp) {
        kcbp_jl_key(w, "cbp_planes");
        kcbp_jl_uint(w, kcbp_cbp_plane_count(cbp));
        kcbp_jl_key(w, "cbp_vertices");
        kcbp_jl_uint(w, kcbp_cbp_vertex_count(cbp));
    }
    kcbp_jl_close(w, '}');
}

static void line_number(kcbp_jl *w, const char *key, double v)
{
    kcbp_jl_key(w, key);
    kcbp_jl_double(w, v);
}

static void line_vec3(kcbp_jl *w, const char *key, kcbp_vec3 v)
{
    kcbp_jl_key(w, key);
    kcbp_jl_open(w, '[');
    kcbp_jl_double(w, v.x);
    kcbp_jl_double(w, v.y);
    kcbp_jl_double(w, v.z);
    kcbp_jl_close(w, ']');
}

static void line_cbp(kcbp_jl *w, const kcbp_cbp_result *c)
{
    kcbp_jl_key(w, "cbp");
    kcbp_jl_open(w, '{');
    kcbp_jl_key(w, "separated");
    kcbp_jl_bool(w, c->separated);
    if (!c->measured) {
        /* Only the filter's verdict was computed: no distance, witnesses or
         * depth to report, only the bound that proved the separation. */
        kcbp_jl_key(w, "measured");
        kcbp_jl_bool(w, false);
        if (c->separated)
            line_number(w, "distance_lower", c->distance_lower);
    } else {
        line_number(w, "distance", c->distance);
        if (c->distance > 0) {
            line_vec3(w, "point_a", c->point_a);
            line_vec3(w, "point_b", c->point_b);
        } else {
            line_number(w, "depth", c->depth);
            line_vec3(w, "direction", c->direction);
            kcbp_jl_key(w, "depth_exact");
            kcbp_jl_bool(w, c->depth_exact);
        }
    }
    kcbp_jl_key(w, "gjk_iterations");
    kcbp_jl_uint(w, (uint64_t)c->gjk_iterations);
    if (c->measured) {
        kcbp_jl_key(w, "epa_iterations");
        kcbp_jl_uint(w, (uint64_t)c->epa_iterations);
    }
    kcbp_jl_close(w, '}');
}

/* Triangle t's place among the triangles its file face was cut into
 * (0-based, in the order the reader made them: the fan (v0 v1 v2), (v0 v2
 * v3), ... of a convex polygon). The readers append a face's triangles
 * together and the faces in file order, so faces[] does not decrease and
 * the face's first triangle is found by bisection. faces NULL: 0. */
static uint32_t tri_in_face(const uint32_t *faces, uint32_t t)
{
    if (!faces)
        return 0;
    uint32_t lo = 0, hi = t; /* the first index in [lo, hi] whose face is faces[t] */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (faces[mid] < faces[t])
            lo = mid + 1;
        else
            hi = mid;
    }
    return t - lo;
}

/* "key": [[x(a), y(b)], ...] for the first n contacts. */
static void line_contact_pairs(kcbp_jl *w, const char *key, const kcbp_contact *c, size_t n, const uint32_t *fa,
                               const uint32_t *fb, uint32_t (*map)(const uint32_t *, uint32_t))
{
    kcbp_jl_key(w, key);
    kcbp_jl_open(w, '[');
    for (size_t i = 0; i < n; i++) {
        kcbp_jl_open(w, '[');
        kcbp_jl_uint(w, map(fa, c[i].a));
        kcbp_jl_uint(w, map(fb, c[i].b));
        kcbp_jl_close(w, ']');
    }
    kcbp_jl_close(w, ']');
}

/* The file's face of triangle t (t itself without a face map). */
static uint32_t face_of(const uint32_t *faces, uint32_t t) { return faces ? faces[t] : t; }
static uint32_t same_index(const uint32_t *faces, uint32_t t) { return (void)faces, t; }

char *kcbp_report_collide_line(const kcbp_collide_result *result, const kcbp_model *a, const kcbp_model *b,
                               const kcbp_timings *times, const kcbp_report_collide_options *o)
{
    kcbp_jl w;
    kcbp_jl_init(&w);
    kcbp_jl_open(&w, '{');
    bool by_margin = o->margin && o->margin->within && !result->collide;
    kcbp_jl_key(&w, "collide");
    kcbp_jl_bool(&w, result->collide || by_margin);
    kcbp_jl_key(&w, "decided_by");
    kcbp_jl_string(&w, by_margin ? "margin" : kcbp_stage_name(result->decided_by));
    if (o->solid) {
        kcbp_jl_key(&w, "contained");
        kcbp_jl_string(&w, kcbp_containment_name(result->contained));
    }
    if (o->contacts) {
        size_t n = result->ncontacts < o->max_contacts ? result->ncontacts : o->max_contacts;
        line_contact_pairs(&w, "contacts", result->contacts, n, NULL, NULL, same_index);
        /* Meshes read from polygons: the file's faces of the contacts, and
         * which triangle of each face. */
        const uint32_t *fa = a ? kcbp_mesh_faces(kcbp_model_mesh(a)) : NULL, *fb = b ? kcbp_mesh_faces(kcbp_model_mesh(b)) : NULL;
        if (fa || fb) {
            line_contact_pairs(&w, "faces", result->contacts, n, fa, fb, face_of);
            line_contact_pairs(&w, "face_tris", result->contacts, n, fa, fb, tri_in_face);
        }
        if (n < result->ncontacts) {
            kcbp_jl_key(&w, "truncated");
            kcbp_jl_bool(&w, true);
            kcbp_jl_key(&w, "contacts_found");
            kcbp_jl_uint(&w, result->ncontacts);
        }
    }
    if (o->contacts && o->geometry) {
        kcbp_jl_key(&w, "intersections");
        kcbp_jl_open(&w, '[');
        size_t n = result->ncontacts < o->max_contacts ? result->ncontacts : o->max_contacts;
        for (size_t i = 0; i < n; i++) {
            kcbp_jl_open(&w, '[');
            for (uint32_t k = 0; k < o->geometry[i].npoints; k++) {
                kcbp_jl_open(&w, '[');
                kcbp_jl_double(&w, o->geometry[i].points[k].x);
                kcbp_jl_double(&w, o->geometry[i].points[k].y);
                kcbp_jl_double(&w, o->geometry[i].points[k].z);
                kcbp_jl_close(&w, ']');
            }
            kcbp_jl_close(&w, ']');
        }
        kcbp_jl_close(&w, ']');
        if (result->ncontacts > 0 && o->summary) {
            kcbp_jl_key(&w, "contact");
            kcbp_jl_open(&w, '{');
            line_vec3(&w, "point", o->summary->point);
            if (o->summary->has_normal)
                line_vec3(&w, "normal", o->summary->normal);
            kcbp_jl_close(&w, '}');
        }
    }
    if (result->cbp.tested)
        line_cbp(&w, &result->cbp);
    if (o->models) {
        line_mesh(&w, "a", a);
        line_mesh(&w, "b", b);
    }
    kcbp_jl_key(&w, "stats");
    kcbp_jl_open(&w, '{');
    kcbp_jl_key(&w, "box_pairs");
    kcbp_jl_uint(&w, result->tree.box_pairs);
    kcbp_jl_key(&w, "triangle_pairs");
    kcbp_jl_uint(&w, result->tree.tri_pairs);
    if (o->models) {
        line_number(&w, "load_ms", times->load_ms);
        line_number(&w, "build_ms", times->build_ms);
    }
    line_number(&w, "query_ms", times->query_ms);
    kcbp_jl_close(&w, '}');
    if (o->margin) {
        kcbp_jl_key(&w, "margin");
        kcbp_jl_open(&w, '{');
        kcbp_jl_key(&w, "d");
        kcbp_jl_double(&w, o->margin->d);
        kcbp_jl_key(&w, "distance");
        if (o->margin->within)
            kcbp_jl_double(&w, o->margin->distance);
        else
            kcbp_jl_null(&w);
        if (by_margin) {
            kcbp_jl_key(&w, "triangles");
            kcbp_jl_open(&w, '[');
            kcbp_jl_uint(&w, o->margin->tri[0]);
            kcbp_jl_uint(&w, o->margin->tri[1]);
            kcbp_jl_close(&w, ']');
        }
        kcbp_jl_close(&w, '}');
    }
    if (o->pose >= 0) {
        kcbp_jl_key(&w, "pose");
        kcbp_jl_uint(&w, (uint64_t)o->pose);
    }
    kcbp_jl_close(&w, '}');
    return kcbp_jl_finish(&w);
}

static double hit_rate(uint64_t hits, uint64_t passed) { return passed ? (double)hits / (double)passed : 1.0; }

static void add_number_or_null(build_state *s, cJSON *obj, const char *key, bool present, double v)
{
    cJSON *item = present ? cJSON_AddNumberToObject(obj, key, v) : cJSON_AddNullToObject(obj, key);
    s->failed |= item == NULL;
}

cJSON *kcbp_report_scene_frame(const kcbp_scene *scene, const kcbp_scene_frame *f, bool with_contacts)
{
    build_state s = {false};
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    s.failed |= kcbp_cli_add_string(o, "scene", kcbp_scene_name(scene)) == NULL;
    add_number(&s, o, "frame", f->frame);
    add_number(&s, o, "frames", kcbp_scene_frame_count(scene));
    add_number(&s, o, "objects", kcbp_scene_object_count(scene));
    add_number(&s, o, "models", kcbp_scene_model_count(scene));
    add_number(&s, o, "pairs", (double)f->pairs);
    cJSON *passed = cJSON_AddObjectToObject(o, "passed");
    cJSON *rate = cJSON_AddObjectToObject(o, "hit_rate");
    cJSON *hits = cJSON_AddArrayToObject(o, "colliding");
    cJSON *cache = cJSON_AddObjectToObject(o, "cache");
    cJSON *time = cJSON_AddObjectToObject(o, "time_ms");
    if (!passed || !rate || !hits || !cache || !time) {
        cJSON_Delete(o);
        return NULL;
    }
    add_number(&s, passed, "broadphase", (double)f->broadphase);
    add_number_or_null(&s, passed, "cbp", f->cbp_used, (double)f->mesh_tested);
    add_number(&s, passed, "mesh", (double)f->colliding);
    add_number(&s, rate, "broadphase", hit_rate(f->colliding, f->broadphase));
    add_number_or_null(&s, rate, "cbp", f->cbp_used, hit_rate(f->colliding, f->mesh_tested));
    for (size_t i = 0; i < f->colliding && !s.failed; i++) {
        const kcbp_scene_hit *h = &f->hits[i];
        cJSON *p = cJSON_CreateObject();
        s.failed |= !p || !cJSON_AddItemToArray(hits, p);
        if (s.failed) {
            cJSON_Delete(p);
            break;
        }
        s.failed |= !kcbp_cli_add_string(p, "a", kcbp_scene_object_at(scene, h->a).name);
        s.failed |= !kcbp_cli_add_string(p, "b", kcbp_scene_object_at(scene, h->b).name);
        if (h->contained != KCBP_CONTAINED_NONE)
            s.failed |= !kcbp_cli_add_string(p, "contained", kcbp_containment_name(h->contained));
        if (!with_contacts)
            continue;
        cJSON *contacts = cJSON_AddArrayToObject(p, "contacts");
        s.failed |= contacts == NULL;
        for (size_t k = 0; contacts && k < h->count && !s.failed; k++) {
            const kcbp_contact *c = &f->contacts[h->first + k];
            int pair[2] = {(int)c->a, (int)c->b};
            cJSON *q = cJSON_CreateIntArray(pair, 2);
            s.failed |= !q || !cJSON_AddItemToArray(contacts, q);
        }
    }
    add_number(&s, cache, "axis", (double)f->cache_axis);
    add_number(&s, cache, "contact", (double)f->cache_contact);
    add_number(&s, cache, "near", (double)f->cache_near);
    add_number(&s, cache, "cbp_skipped", (double)f->cbp_skipped);
    kcbp_scene_build_times bt = kcbp_scene_build_time(scene);
    add_number(&s, time, "load", bt.load_ms);
    add_number(&s, time, "build", bt.build_ms);
    add_number(&s, time, "bounds", f->time_ms.bounds);
    add_number(&s, time, "broadphase", f->time_ms.broadphase);
    add_number(&s, time, "cbp", f->time_ms.filter);
    add_number(&s, time, "mesh", f->time_ms.mesh);
    add_number(&s, time, "detect", f->time_ms.bounds + f->time_ms.broadphase + f->time_ms.filter + f->time_ms.mesh);
    return finish(&s, o);
}

bool kcbp_report_add_ccd(cJSON *doc, const kcbp_scene *scene, const kcbp_scene_ccd *c)
{
    build_state s = {false};
    cJSON *o = cJSON_AddObjectToObject(doc, "ccd");
    cJSON *list = o ? cJSON_CreateArray() : NULL;
    if (!o || !list) {
        cJSON_Delete(list);
        return false;
    }
    add_number(&s, o, "swept_pairs", (double)c->swept_pairs);
    add_number(&s, o, "undecided", (double)c->undecided);
    add_number(&s, o, "time_ms", c->ms);
    if (!cJSON_AddItemToObject(o, "touching", list)) {
        cJSON_Delete(list);
        return false;
    }
    for (size_t i = 0; i < c->nhits && !s.failed; i++) {
        const kcbp_scene_sweep_hit *h = &c->hits[i];
        cJSON *p = cJSON_CreateObject();
        s.failed |= !p || !cJSON_AddItemToArray(list, p);
        if (s.failed) {
            cJSON_Delete(p);
            break;
        }
        s.failed |= !kcbp_cli_add_string(p, "a", kcbp_scene_object_at(scene, h->a).name);
        s.failed |= !kcbp_cli_add_string(p, "b", kcbp_scene_object_at(scene, h->b).name);
        if (h->undecided) {
            s.failed |= !cJSON_AddTrueToObject(p, "undecided");
            add_number(&s, p, "free_until", h->toi);
            continue;
        }
        add_number(&s, p, "toi", h->toi);
        add_number(&s, p, "time", ((double)c->frame - 1 + h->toi) * kcbp_scene_dt(scene));
        int pair[2] = {(int)h->tri_a, (int)h->tri_b};
        cJSON *q = cJSON_CreateIntArray(pair, 2), *contacts = cJSON_AddArrayToObject(p, "contacts");
        s.failed |= !q || !contacts || !cJSON_AddItemToArray(contacts, q);
        if (s.failed && q && (!contacts || !cJSON_GetArraySize(contacts)))
            cJSON_Delete(q);
        double pt[3] = {h->point.x, h->point.y, h->point.z};
        cJSON *point = cJSON_CreateDoubleArray(pt, 3);
        s.failed |= !point || !cJSON_AddItemToObject(p, "point", point);
        if (s.failed && point && !cJSON_GetObjectItem(p, "point"))
            cJSON_Delete(point);
    }
    return !s.failed;
}

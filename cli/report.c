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
            line_number(w, "overlap_depth", c->depth); /* the k-CBPs', not the meshes': named apart */
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

/* A manifold point's feature: its triangle, null for a shape. */
static void line_feature(kcbp_jl *w, const char *key, uint32_t t)
{
    kcbp_jl_key(w, key);
    if (t == KCBP_SHAPE_FEATURE)
        kcbp_jl_null(w);
    else
        kcbp_jl_uint(w, t);
}

/* "manifolds": [{"normal", "depth", "points": [{"point_a", "point_b",
 * "separation", "feature_a", "feature_b"}, ...]}, ...] */
static void line_manifolds(kcbp_jl *w, const kcbp_manifold_set *s)
{
    kcbp_jl_key(w, "manifolds");
    kcbp_jl_open(w, '[');
    for (size_t i = 0; i < s->nmanifolds; i++) {
        const kcbp_manifold *m = &s->manifolds[i];
        kcbp_jl_open(w, '{');
        line_vec3(w, "normal", m->normal);
        line_number(w, "depth", m->depth);
        kcbp_jl_key(w, "points");
        kcbp_jl_open(w, '[');
        for (uint32_t k = 0; k < m->npoints; k++) {
            const kcbp_manifold_point *p = &m->points[k];
            kcbp_jl_open(w, '{');
            line_vec3(w, "point_a", p->point_a);
            line_vec3(w, "point_b", p->point_b);
            line_number(w, "separation", p->separation);
            line_feature(w, "feature_a", p->feature_a);
            line_feature(w, "feature_b", p->feature_b);
            kcbp_jl_close(w, '}');
        }
        kcbp_jl_close(w, ']');
        kcbp_jl_close(w, '}');
    }
    kcbp_jl_close(w, ']');
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
            if (o->contacts_stop) {
                kcbp_jl_key(&w, "stopped");
                kcbp_jl_string(&w, "max_contacts");
            }
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
    if (o->manifolds)
        line_manifolds(&w, o->manifolds);
    if (o->depth) {
        line_number(&w, "depth", o->depth->depth);
        line_vec3(&w, "normal", o->depth->normal);
        line_vec3(&w, "point_a", o->depth->point_a);
        line_vec3(&w, "point_b", o->depth->point_b);
        if (o->depth->status == KCBP_SDIST_BRACKETED) {
            kcbp_jl_key(&w, "depth_exact");
            kcbp_jl_bool(&w, false);
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

void kcbp_report_frame_begin(kcbp_report_frame *r, kcbp_js *w, const kcbp_scene *scene, uint32_t frame,
                             const kcbp_report_frame_options *o)
{
    r->w = w;
    r->scene = scene;
    r->o = *o;
    r->pairs_found = r->contacts_found = 0;
    kcbp_js_restart(w);
    kcbp_js_open(w, '{');
    kcbp_js_key(w, "scene");
    kcbp_js_string(w, kcbp_scene_name(scene));
    kcbp_js_key(w, "frame");
    kcbp_js_uint(w, frame);
    kcbp_js_key(w, "frames");
    kcbp_js_uint(w, kcbp_scene_frame_count(scene));
    uint64_t n = kcbp_scene_object_count(scene);
    kcbp_js_key(w, "objects");
    kcbp_js_uint(w, n);
    kcbp_js_key(w, "models");
    kcbp_js_uint(w, kcbp_scene_model_count(scene));
    kcbp_js_key(w, "pairs");
    kcbp_js_uint(w, n * (n - 1) / 2);
    if (o->index >= 0) {
        kcbp_js_key(w, "index");
        kcbp_js_uint(w, (uint64_t)o->index);
    }
    if (o->shard_count > 1) {
        kcbp_js_key(w, "shard");
        kcbp_js_open(w, '[');
        kcbp_js_uint(w, o->shard_index);
        kcbp_js_uint(w, o->shard_count);
        kcbp_js_close(w, ']');
    }
    kcbp_js_key(w, "colliding");
    kcbp_js_open(w, '[');
}

/* A triangle index of a scene's contact: null on a shape's side (no
 * triangle: KCBP_SHAPE_FEATURE), as kcbp collide reports it. */
static void js_tri(kcbp_js *w, uint32_t t)
{
    if (t == KCBP_SHAPE_FEATURE)
        kcbp_js_null(w);
    else
        kcbp_js_uint(w, t);
}

void kcbp_report_frame_pair(kcbp_report_frame *r, const kcbp_scene_pair *p)
{
    kcbp_js *w = r->w;
    uint64_t before = r->contacts_found;
    r->contacts_found += p->ncontacts;
    if (r->pairs_found++ >= r->o.max_pairs)
        return;
    kcbp_js_open(w, '{');
    kcbp_js_key(w, "a");
    kcbp_js_string(w, kcbp_scene_object_at(r->scene, p->a).name);
    kcbp_js_key(w, "b");
    kcbp_js_string(w, kcbp_scene_object_at(r->scene, p->b).name);
    if (p->contained != KCBP_CONTAINED_NONE) {
        kcbp_js_key(w, "contained");
        kcbp_js_string(w, kcbp_containment_name(p->contained));
    }
    if (r->o.with_contacts) {
        uint64_t left = before < r->o.max_contacts ? r->o.max_contacts - before : 0;
        size_t n = p->ncontacts < left ? p->ncontacts : (size_t)left;
        kcbp_js_key(w, "contacts");
        bool pretty = w->pretty;
        w->pretty = false; /* a contact list on one line */
        kcbp_js_open(w, '[');
        for (size_t k = 0; k < n; k++) {
            kcbp_js_open(w, '[');
            js_tri(w, p->contacts[k].a);
            js_tri(w, p->contacts[k].b);
            kcbp_js_close(w, ']');
        }
        kcbp_js_close(w, ']');
        w->pretty = pretty;
    }
    kcbp_js_close(w, '}');
}

static void key_uint(kcbp_js *w, const char *key, uint64_t v)
{
    kcbp_js_key(w, key);
    kcbp_js_uint(w, v);
}

static void key_double(kcbp_js *w, const char *key, double v)
{
    kcbp_js_key(w, key);
    kcbp_js_double(w, v);
}

static void ccd_part(kcbp_js *w, const kcbp_scene *scene, const kcbp_scene_ccd *c)
{
    kcbp_js_key(w, "ccd");
    kcbp_js_open(w, '{');
    key_uint(w, "swept_pairs", c->swept_pairs);
    key_uint(w, "undecided", c->undecided);
    key_double(w, "time_ms", c->ms);
    kcbp_js_key(w, "touching");
    kcbp_js_open(w, '[');
    for (size_t i = 0; i < c->nhits; i++) {
        const kcbp_scene_sweep_hit *h = &c->hits[i];
        kcbp_js_open(w, '{');
        kcbp_js_key(w, "a");
        kcbp_js_string(w, kcbp_scene_object_at(scene, h->a).name);
        kcbp_js_key(w, "b");
        kcbp_js_string(w, kcbp_scene_object_at(scene, h->b).name);
        if (h->undecided) {
            kcbp_js_key(w, "undecided");
            kcbp_js_bool(w, true);
            key_double(w, "free_until", h->toi);
        } else {
            key_double(w, "toi", h->toi);
            key_double(w, "time", ((double)c->frame - 1 + h->toi) * kcbp_scene_dt(scene));
            kcbp_js_key(w, "contacts");
            kcbp_js_open(w, '[');
            kcbp_js_open(w, '[');
            js_tri(w, h->tri_a);
            js_tri(w, h->tri_b);
            kcbp_js_close(w, ']');
            kcbp_js_close(w, ']');
            kcbp_js_key(w, "point");
            kcbp_js_open(w, '[');
            kcbp_js_double(w, h->point.x);
            kcbp_js_double(w, h->point.y);
            kcbp_js_double(w, h->point.z);
            kcbp_js_close(w, ']');
        }
        kcbp_js_close(w, '}');
    }
    kcbp_js_close(w, ']');
    kcbp_js_close(w, '}');
}

void kcbp_report_frame_end(kcbp_report_frame *r, const kcbp_scene_frame *f, const kcbp_scene_ccd *ccd)
{
    kcbp_js *w = r->w;
    kcbp_js_close(w, ']');
    kcbp_js_key(w, "passed");
    kcbp_js_open(w, '{');
    key_uint(w, "broadphase", f->broadphase);
    kcbp_js_key(w, "cbp");
    if (f->cbp_used)
        kcbp_js_uint(w, f->mesh_tested);
    else
        kcbp_js_null(w);
    key_uint(w, "mesh", f->colliding);
    kcbp_js_close(w, '}');
    kcbp_js_key(w, "hit_rate");
    kcbp_js_open(w, '{');
    key_double(w, "broadphase", hit_rate(f->colliding, f->broadphase));
    kcbp_js_key(w, "cbp");
    if (f->cbp_used)
        kcbp_js_double(w, hit_rate(f->colliding, f->mesh_tested));
    else
        kcbp_js_null(w);
    kcbp_js_close(w, '}');
    kcbp_js_key(w, "adaptive");
    kcbp_js_open(w, '{');
    key_uint(w, "cbp_skipped", f->cbp_adaptive_skips);
    kcbp_js_close(w, '}');
    kcbp_js_key(w, "cache");
    kcbp_js_open(w, '{');
    key_uint(w, "axis", f->cache_axis);
    key_uint(w, "contact", f->cache_contact);
    key_uint(w, "near", f->cache_near);
    key_uint(w, "cbp_skipped", f->cbp_skipped);
    key_uint(w, "kept", f->pair_caches);
    key_uint(w, "bytes", f->pair_cache_bytes);
    kcbp_js_close(w, '}');
    kcbp_scene_build_times bt = kcbp_scene_build_time(r->scene);
    kcbp_js_key(w, "time_ms");
    kcbp_js_open(w, '{');
    key_double(w, "load", bt.load_ms);
    key_double(w, "build", bt.build_ms);
    key_double(w, "bounds", f->time_ms.bounds);
    key_double(w, "broadphase", f->time_ms.broadphase);
    key_double(w, "pairs", f->pairs_ms);
    key_double(w, "cbp", f->time_ms.filter);
    key_double(w, "mesh", f->time_ms.mesh);
    key_double(w, "detect", f->time_ms.bounds + f->time_ms.broadphase + f->pairs_ms);
    kcbp_js_close(w, '}');
    bool pairs_cut = r->pairs_found > r->o.max_pairs;
    bool contacts_cut = r->o.with_contacts && r->contacts_found > r->o.max_contacts;
    if (pairs_cut || contacts_cut) {
        kcbp_js_key(w, "truncated");
        kcbp_js_bool(w, true);
        if (pairs_cut)
            key_uint(w, "colliding_found", r->pairs_found);
        if (contacts_cut)
            key_uint(w, "contacts_found", r->contacts_found);
        if (pairs_cut && r->o.stop_at_max_pairs) {
            kcbp_js_key(w, "stopped");
            kcbp_js_string(w, "max_pairs");
        } else if (contacts_cut && r->o.stop_at_max_contacts) {
            kcbp_js_key(w, "stopped");
            kcbp_js_string(w, "max_contacts");
        }
    }
    if (ccd)
        ccd_part(w, r->scene, ccd);
    kcbp_js_close(w, '}');
}

#include "report.h"

#include "utf8.h"

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
    build_state s = {false};
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    add_number(&s, o, "vertices", model->mesh.nvertices);
    add_number(&s, o, "triangles", model->mesh.ntriangles);
    add_number(&s, o, "degenerate_triangles", model->mesh.ndegenerate);
    if (kcbp_model_has_cbp(model)) {
        add_number(&s, o, "cbp_planes", model->cbp.nplanes);
        add_number(&s, o, "cbp_vertices", model->cbp.nvertices);
    }
    return finish(&s, o);
}

static void add_item(build_state *s, cJSON *obj, const char *key, cJSON *item)
{
    if (!item || !cJSON_AddItemToObject(obj, key, item)) {
        cJSON_Delete(item);
        s->failed = true;
    }
}

static void add_vec3(build_state *s, cJSON *obj, const char *key, kcbp_vec3 v)
{
    double a[3] = {v.x, v.y, v.z};
    add_item(s, obj, key, cJSON_CreateDoubleArray(a, 3));
}

cJSON *kcbp_report_cbp(const kcbp_cbp_result *c)
{
    build_state s = {false};
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    s.failed |= cJSON_AddBoolToObject(o, "separated", c->separated) == NULL;
    if (!c->measured) {
        /* Only the filter's verdict was computed: no distance, witnesses or
         * depth to report, only the bound that proved the separation. */
        s.failed |= cJSON_AddBoolToObject(o, "measured", false) == NULL;
        if (c->separated)
            add_number(&s, o, "distance_lower", c->distance_lower);
        add_number(&s, o, "gjk_iterations", c->gjk_iterations);
        return finish(&s, o);
    }
    add_number(&s, o, "distance", c->distance);
    if (c->distance > 0) {
        add_vec3(&s, o, "point_a", c->point_a);
        add_vec3(&s, o, "point_b", c->point_b);
    } else {
        add_number(&s, o, "depth", c->depth);
        add_vec3(&s, o, "direction", c->direction);
        s.failed |= cJSON_AddBoolToObject(o, "depth_exact", c->depth_exact) == NULL;
    }
    add_number(&s, o, "gjk_iterations", c->gjk_iterations);
    add_number(&s, o, "epa_iterations", c->epa_iterations);
    return finish(&s, o);
}

cJSON *kcbp_report_collide(const kcbp_collide_result *result, const kcbp_model *a, const kcbp_model *b,
                           const kcbp_timings *times)
{
    build_state s = {false};
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    s.failed |= cJSON_AddBoolToObject(o, "collide", result->collide) == NULL;
    s.failed |= cJSON_AddStringToObject(o, "decided_by", kcbp_stage_name(result->decided_by)) == NULL;
    cJSON *contacts = cJSON_AddArrayToObject(o, "contacts");
    s.failed |= contacts == NULL;
    for (size_t i = 0; contacts && i < result->ncontacts && !s.failed; i++) {
        int pair[2] = {(int)result->contacts[i].a, (int)result->contacts[i].b};
        cJSON *p = cJSON_CreateIntArray(pair, 2);
        s.failed |= !p || !cJSON_AddItemToArray(contacts, p);
    }
    if (result->cbp.tested)
        add_item(&s, o, "cbp", kcbp_report_cbp(&result->cbp));
    add_item(&s, o, "a", kcbp_report_mesh(a));
    add_item(&s, o, "b", kcbp_report_mesh(b));
    cJSON *stats = cJSON_AddObjectToObject(o, "stats");
    if (stats) {
        add_number(&s, stats, "box_pairs", (double)result->tree.box_pairs);
        add_number(&s, stats, "triangle_pairs", (double)result->tree.tri_pairs);
        add_number(&s, stats, "load_ms", times->load_ms);
        add_number(&s, stats, "build_ms", times->build_ms);
        add_number(&s, stats, "query_ms", times->query_ms);
    } else {
        s.failed = true;
    }
    return finish(&s, o);
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
    s.failed |= kcbp_json_add_string(o, "scene", scene->name) == NULL;
    add_number(&s, o, "frame", f->frame);
    add_number(&s, o, "frames", scene->frames);
    add_number(&s, o, "objects", scene->nobjects);
    add_number(&s, o, "models", scene->nmodels);
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
        s.failed |= !kcbp_json_add_string(p, "a", scene->objects[h->a].name);
        s.failed |= !kcbp_json_add_string(p, "b", scene->objects[h->b].name);
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
    add_number(&s, time, "load", scene->load_ms);
    add_number(&s, time, "build", scene->build_ms);
    add_number(&s, time, "bounds", f->bounds_ms);
    add_number(&s, time, "broadphase", f->broadphase_ms);
    add_number(&s, time, "cbp", f->filter_ms);
    add_number(&s, time, "mesh", f->mesh_ms);
    add_number(&s, time, "detect", f->bounds_ms + f->broadphase_ms + f->filter_ms + f->mesh_ms);
    return finish(&s, o);
}

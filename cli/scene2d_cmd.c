/* kcbp scene and kcbp batch on 2D scene files (scene2d.h): kcbp_cli_scene_eval
 * hands a file here when its first object is 2D; the report has the 3D
 * scenes' keys (report.h), contacts as edge index pairs. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kcbp/scene2d.h>

#include "cli.h"
#include "html2d.h"
#include "json_stream.h"
#include "progress.h"

#define STREAM_HOLD ((size_t)1 << 20)

typedef struct {
    kcbp_js *w;
    const kcbp2d_scene *scene;
    bool with_contacts;
    uint64_t max_pairs, max_contacts;
    uint64_t pairs_found, contacts_found;
} report2d;

static void js_edge(kcbp_js *w, uint32_t e)
{
    if (e == KCBP2D_SCENE_NO_EDGE)
        kcbp_js_null(w);
    else
        kcbp_js_uint(w, e);
}

static const char *contained_name(kcbp2d_containment c)
{
    return c == KCBP2D_CONTAINED_A_IN_B ? "a_in_b" : c == KCBP2D_CONTAINED_B_IN_A ? "b_in_a" : "none";
}

static kcbp_status on_pair(void *ctx, const kcbp2d_scene_pair *p, kcbp_error *err)
{
    report2d *r = ctx;
    kcbp_js *w = r->w;
    uint64_t before = r->contacts_found;
    r->contacts_found += p->ncontacts;
    if (r->pairs_found++ >= r->max_pairs)
        return KCBP_OK;
    kcbp_js_open(w, '{');
    kcbp_js_key(w, "a");
    kcbp_js_string(w, kcbp2d_scene_object_name(r->scene, p->a));
    kcbp_js_key(w, "b");
    kcbp_js_string(w, kcbp2d_scene_object_name(r->scene, p->b));
    if (p->contained != KCBP2D_CONTAINED_NONE) {
        kcbp_js_key(w, "contained");
        kcbp_js_string(w, contained_name(p->contained));
    }
    if (r->with_contacts) {
        uint64_t left = before < r->max_contacts ? r->max_contacts - before : 0;
        size_t n = p->ncontacts < left ? p->ncontacts : (size_t)left;
        kcbp_js_key(w, "contacts");
        bool pretty = w->pretty;
        w->pretty = false;
        kcbp_js_open(w, '[');
        for (size_t k = 0; k < n; k++) {
            kcbp_js_open(w, '[');
            js_edge(w, p->contacts[k].a);
            js_edge(w, p->contacts[k].b);
            kcbp_js_close(w, ']');
        }
        kcbp_js_close(w, ']');
        w->pretty = pretty;
    }
    kcbp_js_close(w, '}');
    if (w->nomem)
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "%s: out of memory for the report", kcbp2d_scene_name(r->scene));
    if (w->failed)
        return kcbp_error_set(err, KCBP_ERR_IO, "%s: the output cannot be written", kcbp2d_scene_name(r->scene));
    return KCBP_OK;
}

static void key_uint(kcbp_js *w, const char *k, uint64_t v)
{
    kcbp_js_key(w, k);
    kcbp_js_uint(w, v);
}

static void key_double(kcbp_js *w, const char *k, double v)
{
    kcbp_js_key(w, k);
    kcbp_js_double(w, v);
}

static void frame_begin(kcbp_js *w, const kcbp2d_scene *s, uint32_t f, long index, const kcbp_cli_scene_options *o)
{
    kcbp_js_restart(w);
    kcbp_js_open(w, '{');
    kcbp_js_key(w, "scene");
    kcbp_js_string(w, kcbp2d_scene_name(s));
    key_uint(w, "frame", f);
    key_uint(w, "frames", kcbp2d_scene_frame_count(s));
    uint64_t n = kcbp2d_scene_object_count(s);
    key_uint(w, "objects", n);
    key_uint(w, "models", kcbp2d_scene_model_count(s));
    key_uint(w, "pairs", n * (n - 1) / 2);
    if (index >= 0)
        key_uint(w, "index", (uint64_t)index);
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

static void frame_end(kcbp_js *w, const report2d *r, const kcbp2d_scene_frame *f, double load_ms, bool stop_at_max)
{
    kcbp_js_close(w, ']');
    kcbp_js_key(w, "passed");
    kcbp_js_open(w, '{');
    key_uint(w, "broadphase", f->broadphase);
    kcbp_js_key(w, "cbp");
    kcbp_js_null(w); /* 2D objects have no k-CBP */
    key_uint(w, "mesh", f->colliding);
    kcbp_js_close(w, '}');
    kcbp_js_key(w, "hit_rate");
    kcbp_js_open(w, '{');
    key_double(w, "broadphase", f->broadphase ? (double)f->colliding / (double)f->broadphase : 1.0);
    kcbp_js_key(w, "cbp");
    kcbp_js_null(w);
    kcbp_js_close(w, '}');
    kcbp_js_key(w, "time_ms");
    kcbp_js_open(w, '{');
    key_double(w, "load", load_ms);
    key_double(w, "bounds", f->bounds_ms);
    key_double(w, "broadphase", f->broadphase_ms);
    key_double(w, "pairs", f->pairs_ms);
    key_double(w, "detect", f->bounds_ms + f->broadphase_ms + f->pairs_ms);
    kcbp_js_close(w, '}');
    bool pairs_cut = r->pairs_found > r->max_pairs;
    bool contacts_cut = r->with_contacts && r->contacts_found > r->max_contacts;
    if (pairs_cut || contacts_cut) {
        kcbp_js_key(w, "truncated");
        kcbp_js_bool(w, true);
        if (pairs_cut)
            key_uint(w, "colliding_found", r->pairs_found);
        if (contacts_cut)
            key_uint(w, "contacts_found", r->contacts_found);
        if (pairs_cut && stop_at_max) {
            kcbp_js_key(w, "stopped");
            kcbp_js_string(w, "max_pairs");
        }
    }
    kcbp_js_close(w, '}');
}

/* --html: frame --frame (default 0) evaluated on its own with every
 * contact edge (up to the page's bound), then drawn (html2d_scene.c). */
static kcbp_status html_page(const kcbp2d_scene *scene, const kcbp_cli_scene_options *o,
                             const kcbp2d_scene_eval_options *eo, kcbp_error *err)
{
    uint32_t frames = kcbp2d_scene_frame_count(scene);
    if (o->export_frame >= (long)frames)
        return kcbp_error_set(err, KCBP_ERR_INVALID, "--frame %ld: %s has %u frame%s (0 to %u)", o->export_frame,
                              kcbp2d_scene_name(scene), frames, frames == 1 ? "" : "s", frames - 1);
    kcbp_status st = kcbp_html2d_scene_check(scene, err);
    if (st != KCBP_OK)
        return st;
    kcbp2d_scene_eval_options all = *eo;
    all.max_contacts = KCBP_HTML2D_SCENE_MAX_EDGES;
    kcbp2d_scene_eval *ev;
    if ((st = kcbp2d_scene_eval_new(scene, &all, &ev, err)) != KCBP_OK)
        return st;
    kcbp_html2d_scene_record rec = {0};
    kcbp2d_scene_frame fr;
    uint32_t frame = (uint32_t)o->export_frame;
    st = kcbp2d_scene_eval_frame(ev, frame, kcbp_html2d_scene_record_pair, &rec, &fr, err);
    kcbp2d_scene_eval_free(ev);
    if (st == KCBP_OK)
        st = kcbp_html2d_scene_write(o->html, scene, frame, o->margin, &rec, err);
    kcbp_html2d_scene_record_free(&rec);
    return st;
}

kcbp_status kcbp_cli_scene2d_eval(const char *path, const kcbp_cli_scene_options *o, long index,
                                  const kcbp_cli_frame_sink *sink, kcbp_error *err)
{
    if (o->ccd || o->export_dir || o->export_glb || o->collide.solid)
        return kcbp_error_set(err, KCBP_ERR_INVALID,
                              "%s: a 2D scene: --ccd, --export and --solid are for 3D scenes (2D regions are "
                              "solid already: one inside another collides)",
                              path);
    double t0 = kcbp_cli_now_ms();
    kcbp2d_scene *scene;
    kcbp_status st = kcbp2d_scene_read_in(path, o->mesh_root, &scene, err);
    if (st != KCBP_OK)
        return st;
    double load_ms = kcbp_cli_now_ms() - t0;
    uint32_t frames = kcbp2d_scene_frame_count(scene);
    if (index < 0)
        kcbp_cli_progress_total(frames);
    kcbp2d_scene_eval_options eo = kcbp2d_scene_eval_options_default();
    eo.margin = o->margin;
    eo.jobs = o->jobs > 1 ? (unsigned)o->jobs : 1;
    eo.shard_index = o->shard_index;
    eo.shard_count = o->shard_count;
    bool with_contacts = o->collide.contacts != KCBP_CONTACTS_NONE;
    eo.max_contacts = !with_contacts                                   ? 0
                      : o->collide.contacts == KCBP_CONTACTS_FIRST     ? 1
                      : o->max_contacts > 0 && o->max_contacts < 1000000 ? (uint32_t)o->max_contacts
                                                                          : 1000000;
    if (o->html && (st = html_page(scene, o, &eo, err)) != KCBP_OK) { /* the page first: no line when it fails */
        kcbp2d_scene_free(scene);
        return st;
    }
    kcbp2d_scene_eval *ev;
    if ((st = kcbp2d_scene_eval_new(scene, &eo, &ev, err)) != KCBP_OK) {
        kcbp2d_scene_free(scene);
        return st;
    }
    kcbp2d_scene_eval_set_pair_limit(ev, o->max_pairs >= 0 ? (uint64_t)o->max_pairs + 1 : UINT64_MAX);
    kcbp_js w;
    kcbp_js_init(&w, sink->write, sink->ctx, o->pretty, STREAM_HOLD);
    for (uint32_t f = 0; st == KCBP_OK && f < frames; f++) {
        report2d r = {&w, scene, with_contacts, o->max_pairs >= 0 ? (uint64_t)o->max_pairs : UINT64_MAX,
                      (uint64_t)o->max_contacts, 0, 0};
        w.flushed = false;
        frame_begin(&w, scene, f, index, o);
        kcbp2d_scene_frame fr;
        st = kcbp2d_scene_eval_frame(ev, f, on_pair, &r, &fr, err);
        if (st == KCBP_OK) {
            frame_end(&w, &r, &fr, load_ms, o->max_pairs >= 0);
            kcbp_js_raw(&w, "\n", 1);
            kcbp_js_flush(&w);
            if (w.nomem)
                st = kcbp_error_set(err, KCBP_ERR_NOMEM, "%s: out of memory for the report", path);
            else if (w.failed || (sink->line_done && !sink->line_done(sink->ctx)))
                st = kcbp_error_set(err, KCBP_ERR_IO, "%s: the output cannot be written", path);
        } else if (w.flushed && !w.failed) {
            w.nomem = false;
            kcbp_js_close(&w, ']');
            kcbp_js_key(&w, "error");
            kcbp_js_string(&w, err ? err->msg : "failed");
            kcbp_js_close(&w, '}');
            kcbp_js_raw(&w, "\n", 1);
            kcbp_js_flush(&w);
        } else {
            w.len = 0;
        }
    }
    kcbp_js_free(&w);
    kcbp2d_scene_eval_free(ev);
    kcbp2d_scene_free(scene);
    return st;
}

static bool write_generated(void *ctx, const char *bytes, size_t len)
{
    return fwrite(bytes, 1, len, (FILE *)ctx) == len;
}

/* The generated text is written as it is made (10^7 parcels are 1.25 GB:
 * held whole, they took that much memory, and a closed pipe was noticed
 * only after all of it was made). */
int kcbp_cli_scene2d_generate(const char *kind, long n, long seed, const char *output)
{
    kcbp_error err = {0};
    if (n < 1)
        return kcbp_cli_usage_error("scene", "--generate %s needs --n of at least 1", kind);
    FILE *f = output ? fopen(output, "w") : stdout;
    if (!f) {
        fprintf(stderr, "kcbp: %s: cannot write: %s\n", output, strerror(errno));
        return KCBP_EXIT_NOMEM;
    }
    if (!output)
        kcbp_cli_output_lock();
    kcbp_status st = kcbp2d_scene_generate_write(kind, (uint32_t)n, (uint64_t)seed, write_generated, f, &err);
    bool ok = st == KCBP_OK && fputc('\n', f) != EOF && fflush(f) == 0;
    int e = errno;
    if (!output)
        kcbp_cli_output_unlock();
    if (output && fclose(f) != 0 && ok)
        ok = false, e = errno;
    if (ok)
        return KCBP_EXIT_OK;
    if (output)
        remove(output);
    if (st != KCBP_OK && st != KCBP_ERR_IO)
        return kcbp_cli_fail(&err);
    fprintf(stderr, "kcbp: %s: cannot write: %s\n", output ? output : "standard output", strerror(e));
    return KCBP_EXIT_NOMEM;
}

/* kcbp scene: every colliding pair of a scene file; and --generate, which
 * writes the thesis's benchmark layout as a scene file. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <kcbp/scene2d.h>

#include "cli.h"
#include "view.h"

static const char scene_help[] =
    "usage: kcbp scene SCENE.json [-k 16] [--dirs greedy|thesis|fixed|kdop] [--filter aabb|cbp]\n"
    "                  [--contacts none|first|all] [--max-contacts N] [--max-pairs N] [--mesh-root DIR]\n"
    "                  [--margin D] [--solid] [--ccd] [--jobs N] [--shard I/N] [--no-adaptive]\n"
    "                  [--export FILE.glb|DIR/ [--frame F]] [--html FILE] [--pretty] [--progress]\n"
    "       kcbp scene --generate thesis --mesh FILE.obj --n N [--seed S] [--output FILE] [--pretty]\n"
    "       kcbp scene --generate parcels|nesting --n N [--seed S] [--output FILE]\n"
    "\n"
    "Finds every pair of objects of a scene that touch: world boxes, a box-tree broad\n"
    "phase, the k-CBP filter, then the exact mesh test. Prints one JSON line per frame\n"
    "(a static scene has one), its colliding pairs written as they are confirmed, in\n"
    "a fixed order (the objects' spatial ranks): counts of the pairs passing each\n"
    "stage, the colliding pairs by name, each filter's hit rate and the time of each\n"
    "stage.\n"
    "\n"
    "  -k N              planes of each model's k-CBP (default 16, 4 to 4096)\n"
    "  --dirs MODE       how the k-CBP's directions are chosen (default greedy)\n"
    "  --filter F        cbp (default): GJK on the k-CBPs before the mesh test, skipped\n"
    "                    where it does not pay; aabb: boxes only (the boxes of the k-CBPs)\n"
    "  --no-adaptive     with cbp: the k-CBP stage on every pair, paying or not\n"
    "  --contacts MODE   none: pairs only; first (default, as in kcbp collide): one\n"
    "                    triangle pair per colliding pair; all: every intersecting\n"
    "                    triangle pair\n"
    "  --max-contacts N  list at most N contacts per frame (default 100000); a frame\n"
    "                    with more says \"truncated\": true and \"contacts_found\"; given,\n"
    "                    the frame stops looking for contacts at N + 1 (every colliding\n"
    "                    pair still listed; \"stopped\": \"max_contacts\", contacts_found\n"
    "                    then a lower bound)\n"
    "  --max-pairs N     list at most N colliding pairs per frame (default: all) and\n"
    "                    stop the frame's search at N + 1: a frame with more says\n"
    "                    \"truncated\": true, \"stopped\": \"max_pairs\" and \"colliding_found\",\n"
    "                    which with the counts of \"passed\" is then a lower bound\n"
    "  --jobs N          threads for each frame's pairs (default: the CPUs this process\n"
    "                    may use, its affinity mask as taskset and Slurm set it, 1 to\n"
    "                    1024); the output is the same for every N but for its times;\n"
    "                    a frame whose work is below a few thread hand-offs runs on one\n"
    "                    thread\n"
    "  --shard I/N       only the pairs of shard I of N (0-based: 0 <= I < N): those\n"
    "                    whose lower spatial rank r has (r / 64) mod N = I. N runs, on\n"
    "                    as many machines, whose colliding pairs together are the scene's\n"
    "  --mesh-root DIR   read meshes only inside DIR (default: the scene file's folder;\n"
    "                    symbolic links are followed to where they lead)\n"
    "  --solid           every mesh is a closed solid: an object wholly inside another\n"
    "                    collides too (\"contained\": \"a_in_b\" or \"b_in_a\"); a mesh\n"
    "                    that is not closed is an error (see kcbp collide --solid)\n"
    "  --export FILE     also write frame F (default 0) as one binary glTF 2.0 file\n"
    "                    (.glb, written as named; another format's extension is an\n"
    "                    error): every object posed (a node), its contact triangles red,\n"
    "                    the k-CBPs as extra nodes\n"
    "  --export DIR/     instead (a path ending in / or an existing folder), for\n"
    "                    MeshLab: each object posed in the world frame as\n"
    "                    DIR/I-NAME.ply (I: its index; characters of NAME other than\n"
    "                    A-Z a-z 0-9 . _ - become _), its contact triangles with\n"
    "                    colliding objects red, the others grey (every intersecting\n"
    "                    triangle when --contacts is none), and its posed k-CBP as\n"
    "                    DIR/I-NAME_cbp.obj. DIR is made if missing\n"
    "  --frame F         the frame --export writes (0 to frames - 1), and on a 2D\n"
    "                    scene the frame --html draws\n"
    "  --html FILE       also write a page that shows the scene in a browser (no network):\n"
    "                    every object, every contact triangle red, a frame slider for a\n"
    "                    moving scene, the k-CBPs (a toggle), an orbit camera, a legend.\n"
    "                    Every frame is evaluated with --contacts all for it (the printed\n"
    "                    reports keep what --contacts asks), and the frames are printed\n"
    "                    once the page is written; at most 2000000 objects x frames.\n"
    "                    A 2D scene's page is one frame (--frame F, default 0) as SVG:\n"
    "                    every object posed in a colour of its own, the colliding ones\n"
    "                    outlined red, their contact edges thick red, the colliding\n"
    "                    pairs listed; at most 250000 objects and 2000000 vertices\n"
    "  --pretty          indent each document\n"
    "  --progress        frames done, their rate and the time left on stderr, also\n"
    "                    when it is not a terminal (on a terminal: always)\n"
    "  --margin D        objects within distance D (>= 0) of each other count as\n"
    "                    colliding (each inflated by D/2), listed with no contacts\n"
    "  --ccd             continuous collision: every frame after the first also lists,\n"
    "                    under \"ccd\", the pairs that touch between the last frame and\n"
    "                    this one, with their first time of contact (kcbp sweep's method;\n"
    "                    objects move linearly and spin at a constant rate in between; an\n"
    "                    interval in which an object turns 180 degrees or more is cut in\n"
    "                    steps of less, more than 1000 steps is an error)\n"
    "\n"
    "  --generate thesis write the k-CBP thesis's benchmark scene (to stdout, or to\n"
    "                    --output FILE): n + 1\n"
    "                    copies of the mesh, normalised, at random integer positions in\n"
    "                    [-4, 4]^3 with random rotations (same seed, same scene). The\n"
    "                    mesh path is written relative to the folder the scene is\n"
    "                    saved in (--output's, else the current one) when the mesh\n"
    "                    lies in it: a scene's paths are read from its own folder, so\n"
    "                    it runs as written; else as an absolute path, which it\n"
    "                    reaches with --mesh-root\n"
    "  --generate parcels|nesting  a 2D scene: N rectangles on a grid of unit cells\n"
    "                    (random sizes and angles, a quarter touching edge to edge), or N\n"
    "                    circles, rectangles and capsules on a sheet, drifting over 10 frames\n"
    "  --mesh FILE       the mesh to copy;  --n N  copies besides the first (default 100);\n"
    "  --seed S          random seed (default 1)\n"
    "\n"
    "A scene whose objects are 2D (a \"pose\" [tx, ty, deg], GeoJSON or SVG files, circle,\n"
    "rect, capsule2d shapes) is evaluated in the plane, contacts as edge pairs (docs/2d.md).\n"
    "Scene files are described in docs/scenes.md; '-' is\n"
    "standard input (meshes are then found from the current folder).\n"
    "Exit status: 0 whatever the answer, 2 for a usage error, 3 for bad input\n"
    "(the scene file or a mesh; the message names the field), 4 out of memory or a\n"
    "failed write, 130 (SIGINT) or 143 (SIGTERM) when interrupted: the frames done\n"
    "are written, and a frame's line written in part is ended as JSON with\n"
    "\"interrupted\": true. A frame that fails after part of its line was written\n"
    "ends that line with \"error\": message.\n";

kcbp_cli_scene_options kcbp_cli_scene_options_default(void)
{
    kcbp_cli_scene_options o;
    memset(&o, 0, sizeof o);
    o.model = kcbp_model_options_default();
    o.collide = kcbp_collide_options_default();
    o.collide.contacts = KCBP_CONTACTS_FIRST; /* as kcbp collide: the exact test finds it anyway */
    o.collide.use_cbp = true;
    o.max_contacts = KCBP_CLI_MAX_CONTACTS_DEFAULT;
    o.max_pairs = -1;
    o.jobs = 1;
    return o;
}

kcbp_status kcbp_cli_scene_read(kcbp_scene **scene, const char *path, const kcbp_cli_scene_options *o,
                                kcbp_error *err)
{
    return kcbp_scene_read_in(path, o->mesh_root, scene, err);
}

int kcbp_cli_scene_option(const char *cmd, int opt, const char *arg, kcbp_cli_scene_options *o)
{
    switch (opt) {
    case KCBP_OPT_FILTER:
        if (strcmp(arg, "aabb") != 0 && strcmp(arg, "cbp") != 0)
            return kcbp_cli_usage_error(cmd, "--filter takes aabb or cbp, not '%s'", arg);
        o->collide.use_cbp = !strcmp(arg, "cbp");
        return KCBP_EXIT_OK;
    case KCBP_OPT_K: return kcbp_cli_parse_k(cmd, arg, &o->model);
    case KCBP_OPT_DIRS: return kcbp_cli_parse_dirs(cmd, arg, &o->model);
    case KCBP_OPT_MAX_CONTACTS:
        o->max_contacts_set = true;
        return kcbp_cli_parse_max_contacts(cmd, arg, &o->max_contacts) ? KCBP_EXIT_OK : KCBP_EXIT_USAGE;
    case KCBP_OPT_MESH_ROOT: o->mesh_root = arg; return KCBP_EXIT_OK;
    case KCBP_OPT_MARGIN:
        if (!kcbp_cli_parse_distance(arg, &o->margin))
            return kcbp_cli_usage_error(cmd, "--margin takes a finite number >= 0, not '%s'", arg);
        return KCBP_EXIT_OK;
    case KCBP_OPT_CONTACTS:
        if (!strcmp(arg, "none"))
            o->collide.contacts = KCBP_CONTACTS_NONE;
        else if (!strcmp(arg, "first"))
            o->collide.contacts = KCBP_CONTACTS_FIRST;
        else if (!strcmp(arg, "all"))
            o->collide.contacts = KCBP_CONTACTS_ALL;
        else
            return kcbp_cli_usage_error(cmd, "--contacts takes none, first or all, not '%s'", arg);
        return KCBP_EXIT_OK;
    case KCBP_OPT_SOLID:
        o->model.solid = o->collide.solid = true;
        return KCBP_EXIT_OK;
    case KCBP_OPT_CCD: o->ccd = true; return KCBP_EXIT_OK;
    case KCBP_OPT_MAX_PAIRS:
        if (!kcbp_cli_parse_int(arg, 0, 0x7fffffffffffffffL, &o->max_pairs))
            return kcbp_cli_usage_error(cmd, "--max-pairs takes an integer >= 0, not '%s'", arg);
        return KCBP_EXIT_OK;
    case KCBP_OPT_NO_ADAPTIVE: o->no_adaptive = true; return KCBP_EXIT_OK;
    }
    return -1;
}

/* --html: every frame's poses and contact triangles, and the frames'
 * reports, held until the page is written. */
#define HTML_MAX_OBJECT_FRAMES 2000000u
#define HTML_MAX_ANSWER_BYTES ((size_t)16 << 20)
typedef struct {
    kcbp_pose *poses;
    uint64_t *marks; /* (object << 32 | triangle), sorted and unique per frame */
    size_t nmarks, cap_marks;
    size_t *mark_start;
    char **lines;
    size_t nlines, line_bytes;
} html_record;

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static bool html_add_frame(html_record *h, const kcbp_scene *scene, const kcbp_scene_frame *f, uint32_t frame)
{
    uint32_t n = kcbp_view_scene_nobjects(scene);
    for (uint32_t i = 0; i < n; i++)
        h->poses[(size_t)frame * n + i] = kcbp_scene_object_pose(scene, i, frame);
    size_t first = h->nmarks;
    for (uint64_t k = 0; k < f->colliding; k++) {
        const kcbp_scene_hit *hit = &f->hits[k];
        for (size_t c = 0; c < hit->count; c++) {
            if (h->nmarks + 2 > h->cap_marks) {
                size_t cap = h->cap_marks ? 2 * h->cap_marks : 4096;
                uint64_t *m = realloc(h->marks, cap * sizeof *m);
                if (!m)
                    return false;
                h->marks = m;
                h->cap_marks = cap;
            }
            const kcbp_contact *ct = &f->contacts[hit->first + c];
            h->marks[h->nmarks++] = (uint64_t)hit->a << 32 | ct->a;
            h->marks[h->nmarks++] = (uint64_t)hit->b << 32 | ct->b;
        }
    }
    qsort(h->marks + first, h->nmarks - first, sizeof *h->marks, cmp_u64);
    size_t w = first;
    for (size_t r = first; r < h->nmarks; r++)
        if (r == first || h->marks[r] != h->marks[w - 1])
            h->marks[w++] = h->marks[r];
    h->nmarks = w;
    h->mark_start[frame + 1] = w;
    return true;
}

static void html_record_free(html_record *h)
{
    for (size_t i = 0; i < h->nlines; i++)
        free(h->lines[i]);
    free(h->lines);
    free(h->poses);
    free(h->marks);
    free(h->mark_start);
    memset(h, 0, sizeof *h);
}

/* Writes the page of every frame recorded. */
static kcbp_status html_write(const char *path, const kcbp_scene *scene, const char *file, html_record *h,
                              kcbp_error *err)
{
    uint32_t n = kcbp_view_scene_nobjects(scene), nm = kcbp_view_scene_nmodels(scene);
    uint32_t frames = kcbp_view_scene_frames(scene);
    const kcbp_model **models = malloc(((size_t)nm + 1) * sizeof *models);
    kcbp_view_object *objects = calloc((size_t)n + 1, sizeof *objects);
    size_t nmarks = h->nmarks;
    uint32_t *marks = malloc((nmarks + 1) * 2 * sizeof *marks);
    /* The reports, as one JSON array, when they are not too big. */
    size_t alen = 3;
    for (size_t i = 0; i < h->nlines; i++)
        alen += strlen(h->lines[i]) + 1;
    char *answers = alen <= HTML_MAX_ANSWER_BYTES ? malloc(alen) : NULL;
    kcbp_status st = KCBP_OK;
    if (!models || !objects || !marks || (!answers && alen <= HTML_MAX_ANSWER_BYTES)) {
        st = kcbp_error_set(err, KCBP_ERR_NOMEM, "--html: out of memory");
    } else {
        for (uint32_t m = 0; m < nm; m++)
            models[m] = kcbp_view_scene_model(scene, m);
        for (uint32_t i = 0; i < n; i++)
            objects[i] = (kcbp_view_object){.name = kcbp_view_scene_object_name(scene, i),
                                            .model = kcbp_view_scene_object_model(scene, i),
                                            .pose = h->poses[i],
                                            .color = kcbp_view_color(i)};
        for (size_t k = 0; k < nmarks; k++) {
            marks[2 * k] = (uint32_t)(h->marks[k] >> 32);
            marks[2 * k + 1] = (uint32_t)h->marks[k];
        }
        if (answers) {
            size_t at = 0;
            answers[at++] = '[';
            for (size_t i = 0; i < h->nlines; i++) {
                if (i)
                    answers[at++] = ',';
                size_t l = strlen(h->lines[i]);
                memcpy(answers + at, h->lines[i], l);
                at += l;
            }
            answers[at++] = ']';
            answers[at] = '\0';
        }
        char title[512];
        snprintf(title, sizeof title, "kcbp scene: %s", file);
        kcbp_view v = {.kind = "scene", .title = title, .models = models, .nmodels = nm, .objects = objects,
                       .nobjects = n, .answer = answers, .answer_is_list = true, .frames = frames,
                       .dt = kcbp_view_scene_dt(scene), .poses = h->poses, .marks = marks,
                       .mark_start = h->mark_start};
        st = kcbp_html_write(path, &v, err);
    }
    free(models);
    free(objects);
    free(marks);
    free(answers);
    return st;
}

/* --export FILE.glb: the frame just evaluated as glTF. */
static kcbp_status glb_frame(const kcbp_scene *scene, const kcbp_scene_frame *f, const char *path, const char *file,
                             const char *doc, kcbp_error *err)
{
    uint32_t n = kcbp_view_scene_nobjects(scene), nm = kcbp_view_scene_nmodels(scene);
    const kcbp_model **models = malloc(((size_t)nm + 1) * sizeof *models);
    kcbp_view_object *objects = calloc((size_t)n + 1, sizeof *objects);
    uint8_t **marked = calloc((size_t)n + 1, sizeof *marked);
    kcbp_status st = models && objects && marked ? KCBP_OK : kcbp_error_set(err, KCBP_ERR_NOMEM, "--export: out of memory");
    for (uint32_t m = 0; st == KCBP_OK && m < nm; m++)
        models[m] = kcbp_view_scene_model(scene, m);
    for (uint32_t i = 0; st == KCBP_OK && i < n; i++) {
        uint32_t mi = kcbp_view_scene_object_model(scene, i);
        objects[i] = (kcbp_view_object){.name = kcbp_view_scene_object_name(scene, i), .model = mi,
                                        .pose = kcbp_scene_object_pose(scene, i, f->frame),
                                        .color = kcbp_view_color(i)};
        for (uint64_t k = 0; k < f->colliding && st == KCBP_OK; k++) {
            const kcbp_scene_hit *hit = &f->hits[k];
            if (hit->a != i && hit->b != i)
                continue;
            if (!marked[i] && !(marked[i] = calloc(kcbp_view_ntriangles(models[mi]) + 1, 1)))
                st = kcbp_error_set(err, KCBP_ERR_NOMEM, "--export: out of memory");
            else
                kcbp_cli_export_mark(marked[i], f->contacts + hit->first, hit->count, hit->b == i);
        }
        objects[i].marked = marked[i];
    }
    if (st == KCBP_OK) {
        char title[512];
        snprintf(title, sizeof title, "kcbp scene: %s", file);
        kcbp_view v = {.kind = "scene", .title = title, .models = models, .nmodels = nm, .objects = objects,
                       .nobjects = n, .answer = doc};
        st = kcbp_glb_write(path, &v, err);
    }
    for (uint32_t i = 0; marked && i < n; i++)
        free(marked[i]);
    free(marked);
    free(models);
    free(objects);
    return st;
}

/* --export: every object of the frame just evaluated, posed, with the
 * triangles of its contacts marked. */
static kcbp_status export_frame(const kcbp_scene *scene, const kcbp_scene_frame *f, const char *dir,
                                kcbp_error *err)
{
    uint32_t most = 1;
    for (uint32_t m = 0; m < kcbp_scene_model_count(scene); m++) {
        uint32_t nt = kcbp_mesh_triangle_count(kcbp_model_mesh(kcbp_scene_model(scene, m)));
        most = nt > most ? nt : most;
    }
    uint8_t *marked = malloc(most);
    if (!marked)
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "--export: out of memory");
    kcbp_status st = KCBP_OK;
    for (uint32_t i = 0; i < kcbp_scene_object_count(scene) && st == KCBP_OK; i++) {
        const kcbp_model *model = kcbp_scene_model(scene, kcbp_scene_object_model(scene, i));
        memset(marked, 0, kcbp_mesh_triangle_count(kcbp_model_mesh(model)));
        for (uint64_t h = 0; h < f->colliding; h++) {
            const kcbp_scene_hit *hit = &f->hits[h];
            if (hit->a == i || hit->b == i)
                kcbp_cli_export_mark(marked, f->contacts + hit->first, hit->count, hit->b == i);
        }
        char stem[96];
        kcbp_cli_export_stem(stem, sizeof stem, i, kcbp_scene_object_at(scene, i).name);
        kcbp_pose pose = kcbp_scene_object_pose(scene, i, f->frame);
        /* a shape has no triangle to mark: its display tessellation is
         * drawn plain (marked holds its model's triangles, none) */
        kcbp_cli_export_object o = {.stem = stem, .model = model, .pose = &pose,
                                    .marked = kcbp_model_shape(model, NULL) ? NULL : marked};
        st = kcbp_cli_export_write(dir, &o, err);
    }
    free(marked);
    return st;
}

/* kcbp_cli_scene_eval's state for one frame's pairs as they stream. */
typedef struct {
    kcbp_report_frame rep;
    kcbp_js *w;
    /* kcbp scene (not batch, which holds each scene's lines back): a frame
     * still running after LIVE_AFTER_MS writes its pairs as they come, at
     * most every LIVE_EVERY_MS, and counts them on the progress line, so
     * that a long frame shows it is working and an interrupt ends a line
     * holding the pairs found so far (marked "interrupted"). */
    bool live;
    double start_ms, last_ms, live_after_ms;
    uint32_t frame;
    const kcbp_scene_eval *ev;
} stream_ctx;

#define LIVE_AFTER_MS 1000.0
#define LIVE_EVERY_MS 200.0

static kcbp_status writer_status(const kcbp_js *w, const char *path, kcbp_error *err)
{
    if (w->nomem)
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "%s: out of memory for the report", path);
    if (w->failed)
        return kcbp_error_set(err, KCBP_ERR_IO, "%s: the output cannot be written", path);
    return KCBP_OK;
}

static kcbp_status stream_pair(void *ctx, const kcbp_scene_pair *p, kcbp_error *err)
{
    stream_ctx *sc = ctx;
    kcbp_report_frame_pair(&sc->rep, p);
    if (sc->live) {
        double now = kcbp_cli_now_ms();
        if (now - sc->start_ms >= sc->live_after_ms && (now - sc->last_ms >= LIVE_EVERY_MS || sc->last_ms == sc->start_ms)) {
            sc->last_ms = now;
            kcbp_js_flush(sc->w); /* between two pairs: a tail can end the line */
            char note[96];
            snprintf(note, sizeof note, "frame %u: %llu colliding pairs so far, %.0f%% of its pairs walked",
                     sc->frame, (unsigned long long)sc->rep.pairs_found, 100 * kcbp_scene_eval_progress(sc->ev));
            kcbp_cli_progress_note(note);
        }
    }
    return writer_status(sc->w, kcbp_scene_name(sc->rep.scene), err);
}

/* A collected frame's report, whole, into memory (NULL: out of memory). */
static char *frame_text(const kcbp_scene *scene, const kcbp_scene_frame *f, const kcbp_report_frame_options *ro,
                        const kcbp_scene_ccd *ccd, bool pretty)
{
    kcbp_js w;
    kcbp_js_init(&w, NULL, NULL, pretty, SIZE_MAX);
    kcbp_report_frame rep;
    kcbp_report_frame_begin(&rep, &w, scene, f->frame, ro);
    for (uint64_t k = 0; k < f->colliding; k++) {
        const kcbp_scene_hit *h = &f->hits[k];
        kcbp_scene_pair p = {h->a, h->b, h->count ? f->contacts + h->first : NULL, h->count, h->contained};
        kcbp_report_frame_pair(&rep, &p);
    }
    kcbp_report_frame_end(&rep, f, ccd);
    return kcbp_js_take(&w, NULL);
}

/* Bytes the report of a streamed frame holds before it is written: a frame
 * this small is printed whole, or not at all when it fails. */
#define STREAM_HOLD ((size_t)1 << 20)

kcbp_status kcbp_cli_scene_eval(const char *path, const kcbp_cli_scene_options *o, long index,
                                const kcbp_cli_frame_sink *sink, kcbp_error *err)
{
    if (kcbp2d_scene_sniff(path)) /* a 2D scene: its own reader and pair tests */
        return kcbp_cli_scene2d_eval(path, o, index, sink, err);
    kcbp_scene *scene;
    kcbp_status st = kcbp_cli_scene_read(&scene, path, o, err);
    if (st != KCBP_OK)
        return st;
    /* The fine k-CBPs serve only from a pair's second frame on. */
    kcbp_model_options mo = o->model;
    uint32_t frames = kcbp_scene_frame_count(scene);
    if (index < 0) /* kcbp scene counts frames; kcbp batch, scenes */
        kcbp_cli_progress_total(frames);
    mo.k_fine = frames >= 2 ? KCBP_CBP_K_FINE_DEFAULT : 0;
    if ((o->export_dir || o->export_glb) && o->export_frame >= (long)frames) {
        kcbp_scene_free(scene);
        return kcbp_error_set(err, KCBP_ERR_INVALID, "--frame %ld: %s has %u frame%s (0 to %u)", o->export_frame, path,
                              frames, frames == 1 ? "" : "s", frames - 1);
    }
    if ((st = kcbp_scene_build_cached(scene, &mo, o->cache, err)) != KCBP_OK) {
        kcbp_scene_free(scene);
        return st;
    }
    kcbp_scene_eval *ev = NULL;
    kcbp_scene_frame frame;
    kcbp_scene_ccd ccd;
    memset(&frame, 0, sizeof frame);
    memset(&ccd, 0, sizeof ccd);
    html_record rec;
    memset(&rec, 0, sizeof rec);
    if (o->html) {
        uint64_t of = (uint64_t)kcbp_scene_object_count(scene) * frames;
        if (of > HTML_MAX_OBJECT_FRAMES) {
            kcbp_scene_free(scene);
            return kcbp_error_set(err, KCBP_ERR_LIMIT, "--html: %s has %llu objects x frames; a page shows at most %u",
                                  path, (unsigned long long)of, HTML_MAX_OBJECT_FRAMES);
        }
        rec.poses = malloc((size_t)(of ? of : 1) * sizeof *rec.poses);
        rec.mark_start = calloc((size_t)frames + 1, sizeof *rec.mark_start);
        rec.lines = calloc((size_t)frames, sizeof *rec.lines);
        if (!rec.poses || !rec.mark_start || !rec.lines) {
            html_record_free(&rec);
            kcbp_scene_free(scene);
            return kcbp_error_set(err, KCBP_ERR_NOMEM, "--html: out of memory");
        }
    }
    /* Each frame is handed on as it is done, its colliding pairs as they
     * are confirmed: memory grows neither with the frames nor with the
     * pairs (but for --html and the frame --export writes, held whole). */
    kcbp_scene_eval_options eo = kcbp_scene_eval_options_default();
    eo.collide = o->collide;
    eo.margin = o->margin;
    eo.jobs = o->jobs > 0 ? (unsigned)o->jobs : 1;
    eo.shard_index = o->shard_index;
    eo.shard_count = o->shard_count;
    eo.cbp_adaptive = !o->no_adaptive;
    st = kcbp_scene_eval_new(scene, &eo, &ev, err);
    /* --max-pairs N: a streamed frame's search stops at N + 1 pairs (one
     * more than listed, to know there were more); the frames collected
     * whole (--export, --html) need every pair's contacts. */
    uint64_t limit = o->max_pairs >= 0 ? (uint64_t)o->max_pairs + 1 : UINT64_MAX;
    kcbp_collide_options all = o->collide;
    all.contacts = KCBP_CONTACTS_ALL;
    kcbp_report_frame_options ro = {.index = index,
                                    .shard_index = o->shard_index,
                                    .shard_count = o->shard_count,
                                    .with_contacts = o->collide.contacts != KCBP_CONTACTS_NONE,
                                    .max_pairs = o->max_pairs >= 0 ? (uint64_t)o->max_pairs : UINT64_MAX,
                                    .stop_at_max_pairs = o->max_pairs >= 0,
                                    .max_contacts = (uint64_t)o->max_contacts,
                                    .stop_at_max_contacts = o->max_contacts_set};
    /* --max-contacts N given: a streamed frame looks for N + 1 contacts,
     * then tests the rest of its pairs without contacts. */
    uint64_t contact_limit = o->max_contacts_set ? (uint64_t)o->max_contacts + 1 : UINT64_MAX;
    kcbp_js w;
    kcbp_js_init(&w, sink->write, sink->ctx, o->pretty, STREAM_HOLD);
    /* tests/test_interrupt.py: KCBP_TEST_LIVE_AFTER_MS makes frames live sooner */
    const char *live_env = getenv("KCBP_TEST_LIVE_AFTER_MS");
    double live_after_ms = live_env ? atof(live_env) : LIVE_AFTER_MS;
    for (uint32_t f = 0; st == KCBP_OK && f < frames; f++) {
        bool exporting = (o->export_dir || o->export_glb) && f == (uint32_t)o->export_frame;
        bool ccd_here = o->ccd && f >= 1;
        if (exporting || o->html) {
            /* The exported frame marks every contact when none are listed; a
             * page marks every contact of every frame. */
            if ((exporting && o->collide.contacts == KCBP_CONTACTS_NONE) || o->html)
                kcbp_scene_eval_set_collide_options(ev, &all);
            kcbp_scene_eval_set_pair_limit(ev, UINT64_MAX);
            kcbp_scene_eval_set_contact_limit(ev, UINT64_MAX);
            st = kcbp_scene_eval_frame(ev, f, &frame, err);
            kcbp_scene_eval_set_collide_options(ev, &o->collide);
            if (st == KCBP_OK && exporting && o->export_dir)
                st = export_frame(scene, &frame, o->export_dir, err);
            if (st == KCBP_OK && o->html && !html_add_frame(&rec, scene, &frame, f))
                st = kcbp_error_set(err, KCBP_ERR_NOMEM, "--html: out of memory");
            if (st == KCBP_OK && ccd_here)
                st = kcbp_scene_eval_ccd(ev, f, NULL, &ccd, err);
            if (st != KCBP_OK)
                break;
            kcbp_report_frame_options whole = ro; /* searched to the end */
            whole.stop_at_max_pairs = false;
            whole.stop_at_max_contacts = false;
            char *flat = frame_text(scene, &frame, &whole, ccd_here ? &ccd : NULL, false);
            char *line = flat && o->pretty ? frame_text(scene, &frame, &whole, ccd_here ? &ccd : NULL, true) : NULL;
            if (flat && !o->pretty)
                line = flat, flat = NULL;
            if (line && exporting && o->export_glb) /* the file first: a failure prints no more lines */
                st = glb_frame(scene, &frame, o->export_glb, path, flat ? flat : line, err);
            free(flat);
            if (st == KCBP_OK && !line)
                st = kcbp_error_set(err, KCBP_ERR_NOMEM, "%s: out of memory for the report", path);
            if (st == KCBP_OK && o->html) { /* held until the page is written */
                rec.lines[rec.nlines++] = line;
                line = NULL;
            } else if (st == KCBP_OK) {
                kcbp_js_raw(&w, line, strlen(line));
                kcbp_js_raw(&w, "\n", 1);
                if (!kcbp_js_flush(&w))
                    st = writer_status(&w, path, err);
                else if (sink->line_done && !sink->line_done(sink->ctx))
                    st = kcbp_error_set(err, KCBP_ERR_IO, "%s: the output cannot be written", path);
            }
            free(line);
            continue;
        }
        stream_ctx sc = {.w = &w, .live = index < 0, .frame = f, .live_after_ms = live_after_ms, .ev = ev};
        sc.start_ms = sc.last_ms = kcbp_cli_now_ms();
        w.flushed = false;
        kcbp_scene_eval_set_pair_limit(ev, limit);
        kcbp_scene_eval_set_contact_limit(ev, contact_limit);
        kcbp_report_frame_begin(&sc.rep, &w, scene, f, &ro);
        st = kcbp_scene_eval_frame_stream(ev, f, stream_pair, &sc, &frame, err);
        if (st == KCBP_OK && ccd_here)
            st = kcbp_scene_eval_ccd(ev, f, NULL, &ccd, err);
        if (sc.live && sc.last_ms > sc.start_ms)
            kcbp_cli_progress_note("");
        if (st == KCBP_OK) {
            kcbp_report_frame_end(&sc.rep, &frame, ccd_here ? &ccd : NULL);
            kcbp_js_raw(&w, "\n", 1);
            kcbp_js_flush(&w);
            st = writer_status(&w, path, err);
            if (st == KCBP_OK && sink->line_done && !sink->line_done(sink->ctx))
                st = kcbp_error_set(err, KCBP_ERR_IO, "%s: the output cannot be written", path);
        } else if (w.flushed && !w.failed) {
            /* Part of the line is out: end it as JSON, saying why it ends. */
            w.nomem = false;
            kcbp_js_close(&w, ']');
            kcbp_js_key(&w, "error");
            kcbp_js_string(&w, err ? err->msg : "failed");
            kcbp_js_close(&w, '}');
            kcbp_js_raw(&w, "\n", 1);
            kcbp_js_flush(&w);
        } else {
            w.len = 0; /* nothing of it printed: nothing is */
        }
    }
    if (st == KCBP_OK && o->html)
        st = html_write(o->html, scene, path, &rec, err);
    for (size_t i = 0; st == KCBP_OK && i < rec.nlines; i++) {
        kcbp_js_raw(&w, rec.lines[i], strlen(rec.lines[i]));
        kcbp_js_raw(&w, "\n", 1);
        if (!kcbp_js_flush(&w) || (sink->line_done && !sink->line_done(sink->ctx)))
            st = kcbp_error_set(err, KCBP_ERR_IO, "%s: the output cannot be written", path);
    }
    kcbp_js_free(&w);
    html_record_free(&rec);
    kcbp_scene_eval_free(ev);
    kcbp_scene_frame_free(&frame);
    kcbp_scene_ccd_free(&ccd);
    kcbp_scene_free(scene);
    return st;
}

/* The folder a generated scene will be read from: that of --output FILE,
 * else the current folder (standard output is most often saved there).
 * malloc'ed, or NULL. */
static char *scene_out_folder(const char *output)
{
    if (!output)
        return getcwd(NULL, 0);
    char *copy = strdup(output);
    if (!copy)
        return NULL;
    char *slash = strrchr(copy, '/');
    if (!slash)
        strcpy(copy, ".");
    else
        slash[slash == copy] = '\0'; /* its folder ("/" for a file at the root) */
    char *real = realpath(copy, NULL);
    free(copy);
    return real;
}

/* The mesh path a generated scene names: relative to the folder the scene
 * is saved in (scene_out_folder) when the mesh lies in it or below, since a
 * scene's relative paths are read from its own folder: it then runs as
 * written; else by its absolute path (a relative one would be read from
 * the wrong folder), which the scene reaches only with --mesh-root (said on
 * stderr). malloc'ed. */
static char *scene_mesh_path(const char *mesh_path, const char *output)
{
    char *real = realpath(mesh_path, NULL), *base = scene_out_folder(output);
    char *out = NULL;
    size_t nc = base ? strlen(base) : 0;
    if (real && base && nc > 0 && !strncmp(real, base, nc) && (real[nc] == '/' || base[nc - 1] == '/'))
        out = strdup(real + nc + (real[nc] == '/'));
    if (!out && real) {
        fprintf(stderr, "kcbp: note: the scene names %s, outside the folder it is written to: kcbp scene "
                        "reads it there only with --mesh-root\n", real);
        out = strdup(real);
    }
    free(real);
    free(base);
    return out ? out : strdup(mesh_path);
}

static int generate(const char *kind, const char *mesh_path, long n, long seed, bool pretty, const char *output)
{
    if (!strcmp(kind, "parcels") || !strcmp(kind, "nesting")) {
        if (mesh_path)
            return kcbp_cli_usage_error("scene", "--generate %s makes 2D shapes: no --mesh", kind);
        return kcbp_cli_scene2d_generate(kind, n, seed, output);
    }
    if (strcmp(kind, "thesis") != 0)
        return kcbp_cli_usage_error("scene", "--generate knows thesis, parcels and nesting, not '%s'", kind);
    if (!mesh_path)
        return kcbp_cli_usage_error("scene", "--generate needs --mesh FILE.obj");
    kcbp_error err = {0};
    /* The scene names the mesh in JSON, which is UTF-8: a path that is not
     * could only be written altered, and the scene would not load. */
    char *valid = kcbp_utf8_sanitize(mesh_path);
    bool same = valid && !strcmp(valid, mesh_path);
    if (!same)
        kcbp_error_set(&err, valid ? KCBP_ERR_INVALID : KCBP_ERR_NOMEM,
                       "%s: the mesh path is not UTF-8, which a scene file must be", valid ? valid : "?");
    free(valid);
    if (!same)
        return kcbp_cli_fail(&err);
    kcbp_mesh *mesh;
    if (kcbp_mesh_load(mesh_path, &mesh, &err) != KCBP_OK)
        return kcbp_cli_fail(&err);
    kcbp_aabb bounds = kcbp_mesh_bounds(mesh);
    kcbp_mesh_free(mesh);
    kcbp_scene *scene;
    char *named = scene_mesh_path(mesh_path, output);
    if (!named) {
        kcbp_error_set(&err, KCBP_ERR_NOMEM, "out of memory");
        return kcbp_cli_fail(&err);
    }
    kcbp_status built = kcbp_scene_thesis(&scene, named, bounds, (uint32_t)n, (uint64_t)seed, &err);
    free(named);
    if (built != KCBP_OK)
        return kcbp_cli_fail(&err);
    /* written object by object (kcbp_scene_write; --pretty is made whole) */
    FILE *f = output ? fopen(output, "w") : stdout;
    if (!f) {
        kcbp_scene_free(scene);
        fprintf(stderr, "kcbp: %s: cannot write: %s\n", output, strerror(errno));
        return KCBP_EXIT_NOMEM;
    }
    if (!output)
        kcbp_cli_output_lock();
    kcbp_status st = kcbp_scene_write(scene, f, pretty, &err);
    bool ok = st == KCBP_OK && fflush(f) == 0;
    int e = errno;
    if (!output)
        kcbp_cli_output_unlock();
    kcbp_scene_free(scene);
    if (output && fclose(f) != 0 && ok)
        ok = false, e = errno;
    if (ok)
        return KCBP_EXIT_OK;
    if (output)
        remove(output);
    if (st == KCBP_ERR_NOMEM)
        return kcbp_cli_fail(&err);
    fprintf(stderr, "kcbp: %s: cannot write: %s\n", output ? output : "standard output", strerror(e));
    return KCBP_EXIT_NOMEM;
}

/* kcbp scene's frame sink: the report's bytes to stdout under the output
 * lock, flushed after each frame; the tail that would end a line written in
 * part, for a signal (drain_stdout). */
typedef struct {
    char tail[64];
} stdout_sink;

static bool write_stdout(void *ctx, const char *p, size_t n, const char *tail)
{
    stdout_sink *s = ctx;
    kcbp_cli_output_lock();
    bool ok = fwrite(p, 1, n, stdout) == n;
    snprintf(s->tail, sizeof s->tail, "%s", tail);
    kcbp_cli_output_unlock();
    if (tail[0])
        kcbp_cli_test_stop(); /* a line written in part */
    return ok;
}

static bool flush_stdout(void *ctx)
{
    (void)ctx;
    kcbp_cli_progress_add(1);
    return fflush(stdout) == 0;
}

/* On a signal (interrupt.h; under the output lock): a frame's line written
 * in part is ended as JSON, marked "interrupted". */
static void drain_stdout(void *ctx)
{
    stdout_sink *s = ctx;
    fputs(s->tail, stdout);
}

int kcbp_cli_scene(int argc, char **argv)
{
    enum { OPT_GENERATE = 2000, OPT_MESH, OPT_N, OPT_SEED, OPT_OUTPUT, OPT_PRETTY, OPT_EXPORT, OPT_FRAME, OPT_HTML, OPT_JOBS,
           OPT_SHARD, OPT_PROGRESS };
    static const struct option longopts[] = {
        KCBP_CLI_SCENE_LONGOPTS,
        {"pretty", no_argument, NULL, OPT_PRETTY},
        {"generate", required_argument, NULL, OPT_GENERATE},
        {"mesh", required_argument, NULL, OPT_MESH},
        {"n", required_argument, NULL, OPT_N},
        {"seed", required_argument, NULL, OPT_SEED},
        {"output", required_argument, NULL, OPT_OUTPUT},
        {"export", required_argument, NULL, OPT_EXPORT},
        {"frame", required_argument, NULL, OPT_FRAME},
        {"html", required_argument, NULL, OPT_HTML},
        {"jobs", required_argument, NULL, OPT_JOBS},
        {"shard", required_argument, NULL, OPT_SHARD},
        {"progress", no_argument, NULL, OPT_PROGRESS},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    kcbp_cli_scene_options o = kcbp_cli_scene_options_default();
    o.jobs = kcbp_cli_default_jobs();
    const char *gen = NULL, *mesh = NULL, *output = NULL;
    long n = 100, seed = 1;
    bool gen_only = false, frame_given = false;
    opterr = 0;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, ":hj:" KCBP_CLI_SCENE_SHORTOPTS, longopts, NULL)) != -1) {
        int rc = kcbp_cli_scene_option("scene", c, optarg, &o);
        if (rc >= 0) {
            if (rc != KCBP_EXIT_OK)
                return rc;
            continue;
        }
        switch (c) {
        case 'h': fputs(scene_help, stdout); return KCBP_EXIT_OK;
        case OPT_PRETTY: o.pretty = true; break;
        case OPT_PROGRESS: kcbp_cli_progress_force(); break;
        case OPT_GENERATE: gen = optarg; break;
        case OPT_EXPORT:
            switch (kcbp_view_export_kind_of(optarg)) {
            case KCBP_VIEW_EXPORT_GLB: o.export_glb = optarg; break;
            case KCBP_VIEW_EXPORT_DIR: o.export_dir = optarg; break;
            default: return kcbp_view_export_usage("scene", optarg, true);
            }
            break;
        case OPT_HTML: o.html = optarg; break;
        case 'j':
        case OPT_JOBS:
            if (!kcbp_cli_parse_int(optarg, 1, 1024, &o.jobs))
                return kcbp_cli_usage_error("scene", "--jobs takes an integer in [1, 1024], not '%s'", optarg);
            break;
        case OPT_SHARD: {
            long si, sn;
            if (!kcbp_cli_parse_shard(optarg, &si, &sn))
                return kcbp_cli_usage_error("scene", "--shard takes I/N with 0 <= I < N (0-based), not '%s'", optarg);
            o.shard_index = (uint32_t)si;
            o.shard_count = (uint32_t)sn;
            break;
        }
        case OPT_FRAME:
            frame_given = true;
            if (!kcbp_cli_parse_int(optarg, 0, KCBP_SCENE_MAX_FRAMES - 1, &o.export_frame))
                return kcbp_cli_usage_error("scene", "--frame takes an integer in [0, %u], not '%s'",
                                            KCBP_SCENE_MAX_FRAMES - 1, optarg);
            break;
        case OPT_MESH: mesh = optarg; gen_only = true; break;
        case OPT_N:
            gen_only = true;
            if (!kcbp_cli_parse_int(optarg, 0, KCBP_SCENE_MAX_OBJECTS - 1, &n))
                return kcbp_cli_usage_error("scene", "--n takes an integer in [0, %u], not '%s'",
                                            KCBP_SCENE_MAX_OBJECTS - 1, optarg);
            break;
        case OPT_OUTPUT:
            gen_only = true;
            output = optarg;
            break;
        case OPT_SEED:
            gen_only = true;
            if (!kcbp_cli_parse_int(optarg, 0, 0x7fffffffL, &seed))
                return kcbp_cli_usage_error("scene", "--seed takes an integer in [0, 2^31), not '%s'", optarg);
            break;
        case ':': return kcbp_cli_usage_error("scene", "%s needs a value", argv[optind - 1]);
        default: return kcbp_cli_usage_error("scene", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (frame_given && !o.export_dir && !o.export_glb && !o.html)
        return kcbp_cli_usage_error("scene", "--frame goes with --export (or --html on a 2D scene)");
    if (gen) {
        if (o.export_dir || o.export_glb || o.html)
            return kcbp_cli_usage_error("scene", "--export and --html go with a scene file, not --generate");
        if (optind != argc)
            return kcbp_cli_usage_error("scene", "--generate takes no scene file");
        return generate(gen, mesh, n, seed, o.pretty, output);
    }
    if (gen_only)
        return kcbp_cli_usage_error("scene", "--mesh, --n and --seed go with --generate");
    if (argc - optind != 1)
        return kcbp_cli_usage_error("scene", "expected one scene file, got %d", argc - optind);

    if (frame_given && o.html && !o.export_dir && !o.export_glb && !kcbp2d_scene_sniff(argv[optind]))
        return kcbp_cli_usage_error("scene", "--frame with --html is for 2D scenes: a 3D scene's page shows every frame");
    kcbp_error err = {0};
    if (o.export_dir && kcbp_cli_export_prepare(o.export_dir, &err) != KCBP_OK)
        return kcbp_cli_export_fail(&err);
    stdout_sink out = {{0}};
    kcbp_cli_frame_sink sink = {write_stdout, flush_stdout, &out};
    kcbp_cli_interrupt_set_drain(drain_stdout, &out);
    kcbp_cli_progress_begin("scene", "frames", 0);
    kcbp_status st = kcbp_cli_scene_eval(argv[optind], &o, -1, &sink, &err);
    kcbp_cli_progress_end();
    if (st == KCBP_ERR_IO && ferror(stdout))
        return kcbp_cli_flush(); /* says why the write failed */
    if (st != KCBP_OK && (o.html || o.export_glb) && (!strncmp(err.msg, "--html", 6) || !strncmp(err.msg, "--export", 8)))
        return kcbp_view_fail(&err); /* a page or file that cannot be written: exit 4 */
    if (st != KCBP_OK)
        return kcbp_cli_fail(&err);
    return kcbp_cli_flush();
}

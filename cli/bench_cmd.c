/* kcbp bench: hit rates of bounding volumes as filters before the exact
 * mesh test, on the k-CBP thesis's scenes (its Table 1, for more volumes). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

static const char bench_help[] =
    "usage: kcbp bench [--mesh M.obj]... [--n 10,30,50,100,200] [-k 16] [--seed S]\n"
    "                  [--layout thesis|density] [--format md|csv|json] [--no-times]\n"
    "                  [--runs R] [--bv LIST] [--k-sweep] [--sweep-n 100]\n"
    "                  [--plot OUT.svg|png|pdf] [--save-scenes DIR] [--progress]\n"
    "\n"
    "For each mesh and each n: a scene of n + 1 copies of the mesh (the thesis's\n"
    "layout), then, for each bounding volume, the pairs its test passes, the pairs\n"
    "among them whose meshes touch (DP, the same for every volume: checked), the hit\n"
    "rate r = DP / passing (1 when nothing passes), the volume's construction time\n"
    "for the mesh (CT) and the detection time of the scene (DT: world boxes of the\n"
    "volumes, sweep and prune on them, the volume tests, the mesh tests).\n"
    "\n"
    "  --mesh M.obj      a mesh (repeat for more; default meshes/bunny2.obj)\n"
    "  --n LIST          scene sizes, comma separated (default 10,30,50,100,200)\n"
    "  -k K              planes of the k-CBPs (default 16)\n"
    "  --seed S          random seed of the scenes (default 1)\n"
    "  --layout L        thesis (default): positions are integers in [-4, 4]^3, so\n"
    "                    scenes get denser as n grows; density: positions uniform in\n"
    "                    a cube that grows with n, at the thesis's n = 100 density\n"
    "  --format F        md (default), csv or json\n"
    "  --no-times        leave out CT and DT (the output is then the same on every\n"
    "                    run for a seed)\n"
    "  --runs R          CT and DT are medians over R runs (default 3)\n"
    "  --bv LIST         the volumes, comma separated (default: sphere, aabb,\n"
    "                    aabb-posed, obb, 14-dop, 18-dop, 26-dop, K-cbp-fixed,\n"
    "                    K-cbp-thesis, K-cbp-greedy, hull)\n"
    "  --k-sweep         also the hit rates of the greedy, thesis and fixed k-CBPs\n"
    "                    for k = 6, 8, 12, 16, 24, 32, 46, 64 at n = --sweep-n\n"
    "  --plot FILE       per mesh: hit rate and detection time against n, one line\n"
    "                    per volume, and each volume's construction time; DT and CT\n"
    "                    are the medians of --runs with min-max bars. The format\n"
    "                    follows the extension: .svg, .png or .pdf (needs gnuplot)\n"
    "  --save-scenes DIR write each scene as DIR/MESH-LAYOUT-nN-sS.json (mesh paths\n"
    "                    absolute), for kcbp scene to check\n"
    "  --progress        a progress line on stderr even when it is not a terminal\n"
    "                    (it is shown on a terminal anyway)\n"
    "\n"
    "Ctrl-C (SIGINT) or SIGTERM stops it with status 130 or 143, writing nothing.\n"
    "Exit status: 0 success, 2 usage\n"
    "error, 3 bad input or a failed plot, 4 out of memory, 1 when two volumes found\n"
    "different colliding pairs (a bug: a filter must never change the answer).\n";

enum { MAX_NS = 64, MAX_BVS = 64, MAX_MESHES = 64 };
static const int sweep_ks[] = {6, 8, 12, 16, 24, 32, 46, 64};
static const kcbp_cbp_dirs sweep_dirs[] = {KCBP_DIRS_GREEDY, KCBP_DIRS_THESIS, KCBP_DIRS_FIXED};
enum { NSWEEP_K = sizeof sweep_ks / sizeof sweep_ks[0], NSWEEP_DIRS = sizeof sweep_dirs / sizeof sweep_dirs[0] };

typedef enum { FMT_MD, FMT_CSV, FMT_JSON } out_format;

typedef struct {
    const char *meshes[MAX_MESHES];
    int nmeshes;
    uint32_t ns[MAX_NS];
    int nns;
    int k;
    long seed;
    bool density;
    out_format format;
    bool times;
    int runs;
    kcbp_bv_spec bvs[MAX_BVS];
    int nbvs;
    bool sweep;
    uint32_t sweep_n;
    const char *plot;
    const char *save_dir;
} bench_opts;

/* One measured (scene, volume). */
typedef struct {
    uint32_t n;
    kcbp_bv_spec spec;
    char name[40];
    double ct_ms, dt_ms;            /* medians over the runs */
    double ct_lo, ct_hi, dt_lo, dt_hi; /* their least and greatest */
    uint64_t pairs, boxes, passed, dp;
    double r;
    double volume_ratio; /* volume / hull volume (0 when the hull is flat) */
} row;

typedef struct {
    const char *mesh;
    double hull_volume;
    row *rows;        /* main table: nns * nbvs, n-major */
    size_t nrows;
    row *sweep;       /* NSWEEP_K * NSWEEP_DIRS, then the hull */
    size_t nsweep;
} mesh_result;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median, least and greatest of n >= 1 times (sorts v). */
typedef struct {
    double med, lo, hi;
} spread;

static spread summarize(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return (spread){.med = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]), .lo = v[0], .hi = v[n - 1]};
}

/* What the progress line says it is doing (progress.h). */
static void progress(const bench_opts *o, const char *mesh, uint32_t n, const char *what)
{
    (void)o;
    char note[96];
    snprintf(note, sizeof note, "%s n=%u %s", mesh, n, what);
    kcbp_cli_progress_note(note);
}

/* Builds a volume `runs` times (keeping the last) and gives the spread of
 * the build times. */
static kcbp_status build_bv(const bench_opts *o, const kcbp_bv_spec *spec, const kcbp_mesh *mesh, kcbp_bv *bv,
                            spread *ct_ms, kcbp_error *err)
{
    double t[64];
    int runs = o->runs < 64 ? o->runs : 64;
    for (int r = 0; r < runs; r++) {
        if (r > 0)
            kcbp_bv_free(bv);
        kcbp_status st = kcbp_bv_build(bv, spec, mesh, err);
        if (st != KCBP_OK)
            return st;
        t[r] = bv->build_ms;
    }
    *ct_ms = summarize(t, runs);
    return KCBP_OK;
}

/* Measures one volume on a built scene (one model) `runs` times: counts
 * from the first run (the others must agree), the spread of the detection
 * times. */
static kcbp_status measure(const bench_opts *o, const kcbp_scene *scene, const kcbp_bv *bv, kcbp_hitrate *h,
                           spread *dt_ms, kcbp_error *err)
{
    double t[64];
    int runs = o->runs < 64 ? o->runs : 64;
    kcbp_hitrate again;
    memset(&again, 0, sizeof again);
    kcbp_status st = KCBP_OK;
    for (int r = 0; r < runs && st == KCBP_OK; r++) {
        kcbp_hitrate *into = r == 0 ? h : &again;
        st = kcbp_hitrate_measure(scene, 0, bv, into, err);
        if (st == KCBP_OK && r > 0 && (!kcbp_hitrate_same_pairs(h, &again) || again.passed != h->passed))
            st = kcbp_error_set(err, KCBP_ERR_INVALID, "two runs of the same measure disagree");
        t[r] = kcbp_hitrate_detect_ms(into);
    }
    kcbp_hitrate_free(&again);
    if (st == KCBP_OK)
        *dt_ms = summarize(t, runs);
    return st;
}

/* A mismatch of colliding pairs: exit status 1. */
#define KCBP_BENCH_MISMATCH 1

static void fill_row(row *w, uint32_t n, const kcbp_bv_spec *spec, const kcbp_bv *bv, double hull_volume,
                     const kcbp_hitrate *h, spread ct, spread dt)
{
    memset(w, 0, sizeof *w);
    w->n = n;
    w->spec = *spec;
    kcbp_bv_name(spec, w->name, sizeof w->name);
    w->ct_ms = ct.med;
    w->ct_lo = ct.lo;
    w->ct_hi = ct.hi;
    w->dt_ms = dt.med;
    w->dt_lo = dt.lo;
    w->dt_hi = dt.hi;
    w->pairs = h->pairs;
    w->boxes = h->boxes;
    w->passed = h->passed;
    w->dp = h->colliding;
    w->r = kcbp_hitrate_ratio(h->colliding, h->passed);
    w->volume_ratio = hull_volume > 0 ? bv->volume / hull_volume : 0;
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

static kcbp_status make_scene(const bench_opts *o, const char *mesh_abs, kcbp_aabb bounds, uint32_t n,
                              kcbp_scene **out, kcbp_error *err)
{
    kcbp_status st = o->density ? kcbp_scene_density(out, mesh_abs, bounds, n, (uint64_t)o->seed, err)
                                : kcbp_scene_thesis(out, mesh_abs, bounds, n, (uint64_t)o->seed, err);
    if (st != KCBP_OK)
        return st;
    kcbp_model_options mo = kcbp_model_options_default();
    mo.k = 0; /* trees only: the volumes under test are built apart */
    st = kcbp_scene_build(*out, &mo, err);
    if (st != KCBP_OK) {
        kcbp_scene_free(*out);
        *out = NULL;
    }
    return st;
}

static kcbp_status save_scene(const bench_opts *o, const char *mesh, const kcbp_scene *scene, uint32_t n,
                              kcbp_error *err)
{
    char stem[256], path[PATH_MAX];
    snprintf(stem, sizeof stem, "%s", base_name(mesh));
    char *dot = strrchr(stem, '.');
    if (dot)
        *dot = '\0';
    snprintf(path, sizeof path, "%s/%s-%s-n%u-s%ld.json", o->save_dir, stem, o->density ? "density" : "thesis", n,
             o->seed);
    char *text;
    if (kcbp_scene_to_text(scene, true, &text, err) != KCBP_OK)
        return err->code;
    FILE *f = fopen(path, "w");
    bool ok = f && fputs(text, f) >= 0 && fputc('\n', f) != EOF;
    if (f && fclose(f) != 0)
        ok = false;
    free(text);
    if (!ok)
        return kcbp_error_set(err, KCBP_ERR_IO, "%s: cannot write: %s", path, strerror(errno));
    return KCBP_OK;
}

/* Measures every volume of o->bvs on one built scene, appending to rows;
 * checks that every volume found the same colliding pairs. bvs: built once
 * per mesh. */
static kcbp_status measure_scene(const bench_opts *o, const char *mesh, const kcbp_scene *scene, uint32_t n,
                                 const kcbp_bv *bvs, const spread *ct, const kcbp_bv_spec *specs, int nspecs,
                                 double hull_volume, row *rows, bool *mismatch, kcbp_error *err)
{
    kcbp_hitrate ref, h;
    memset(&ref, 0, sizeof ref);
    memset(&h, 0, sizeof h);
    kcbp_status st = KCBP_OK;
    for (int b = 0; b < nspecs && st == KCBP_OK; b++) {
        char name[40];
        progress(o, mesh, n, kcbp_bv_name(&specs[b], name, sizeof name));
        spread dt = {0};
        kcbp_hitrate *into = b == 0 ? &ref : &h;
        st = measure(o, scene, &bvs[b], into, &dt, err);
        if (st != KCBP_OK)
            break;
        kcbp_cli_progress_add(1);
        fill_row(&rows[b], n, &specs[b], &bvs[b], hull_volume, into, ct[b], dt);
        if (b > 0 && !kcbp_hitrate_same_pairs(&ref, &h)) {
            *mismatch = true;
            st = kcbp_error_set(err, KCBP_ERR_GEOMETRY,
                                "%s, n = %u: %s found %llu colliding pairs, %s %llu: a filter changed the answer",
                                mesh, n, rows[0].name, (unsigned long long)ref.colliding, rows[b].name,
                                (unsigned long long)h.colliding);
        }
    }
    kcbp_hitrate_free(&ref);
    kcbp_hitrate_free(&h);
    return st;
}

static void free_bvs(kcbp_bv *bvs, int n)
{
    for (int i = 0; i < n; i++)
        kcbp_bv_free(&bvs[i]);
}

static kcbp_status run_mesh(const bench_opts *o, const char *mesh, mesh_result *res, bool *mismatch,
                            kcbp_error *err)
{
    memset(res, 0, sizeof *res);
    res->mesh = mesh;
    char abs[PATH_MAX];
    if (!realpath(mesh, abs))
        return kcbp_error_set(err, KCBP_ERR_IO, "%s: %s", mesh, strerror(errno));
    kcbp_mesh *m;
    kcbp_status st = kcbp_mesh_load(mesh, &m, err);
    if (st != KCBP_OK)
        return st;
    kcbp_aabb bounds = kcbp_mesh_bounds(m);
    kcbp_mesh_free(m);

    int nsweep = o->sweep ? NSWEEP_K * NSWEEP_DIRS + 1 : 0;
    res->rows = calloc((size_t)o->nns * (size_t)o->nbvs, sizeof *res->rows);
    res->sweep = calloc((size_t)nsweep + 1, sizeof *res->sweep);
    kcbp_bv *bvs = calloc((size_t)(o->nbvs > nsweep ? o->nbvs : nsweep) + 1, sizeof *bvs);
    spread *ct = calloc((size_t)(o->nbvs > nsweep ? o->nbvs : nsweep) + 1, sizeof *ct);
    kcbp_bv_spec *sweep_specs = calloc((size_t)nsweep + 1, sizeof *sweep_specs);
    if (!res->rows || !res->sweep || !bvs || !ct || !sweep_specs) {
        free(bvs);
        free(ct);
        free(sweep_specs);
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for the tables");
    }
    int built = 0;
    for (int i = 0; i < o->nns && st == KCBP_OK; i++) {
        uint32_t n = o->ns[i];
        kcbp_scene *scene;
        progress(o, mesh, n, "scene");
        st = make_scene(o, abs, bounds, n, &scene, err);
        if (st != KCBP_OK)
            break;
        if (o->save_dir)
            st = save_scene(o, mesh, scene, n, err);
        if (st == KCBP_OK && built == 0) {
            /* The volumes, once per mesh: every scene's model is the same
             * normalised mesh. */
            const kcbp_mesh *mm = kcbp_model_mesh(kcbp_scene_model(scene, 0));
            st = kcbp_hull_volume(kcbp_mesh_vertices(mm), kcbp_mesh_vertex_count(mm), &res->hull_volume, err);
            for (int b = 0; b < o->nbvs && st == KCBP_OK; b++) {
                char name[40];
                progress(o, mesh, n, kcbp_bv_name(&o->bvs[b], name, sizeof name));
                st = build_bv(o, &o->bvs[b], mm, &bvs[b], &ct[b], err);
                built = b + 1;
            }
        }
        if (st == KCBP_OK)
            st = measure_scene(o, mesh, scene, n, bvs, ct, o->bvs, o->nbvs, res->hull_volume,
                               res->rows + (size_t)i * (size_t)o->nbvs, mismatch, err);
        if (st == KCBP_OK)
            res->nrows += (size_t)o->nbvs;
        kcbp_scene_free(scene);
    }
    free_bvs(bvs, built);
    built = 0;
    if (st == KCBP_OK && o->sweep) {
        int s = 0;
        for (int d = 0; d < NSWEEP_DIRS; d++)
            for (int k = 0; k < NSWEEP_K; k++)
                sweep_specs[s++] = (kcbp_bv_spec){KCBP_BV_CBP, sweep_ks[k], sweep_dirs[d]};
        sweep_specs[s++] = (kcbp_bv_spec){KCBP_BV_HULL, 0, KCBP_DIRS_GREEDY};
        kcbp_scene *scene;
        progress(o, mesh, o->sweep_n, "scene");
        st = make_scene(o, abs, bounds, o->sweep_n, &scene, err);
        if (st == KCBP_OK) {
            const kcbp_mesh *mm = kcbp_model_mesh(kcbp_scene_model(scene, 0));
            if (res->hull_volume == 0)
                st = kcbp_hull_volume(kcbp_mesh_vertices(mm), kcbp_mesh_vertex_count(mm), &res->hull_volume, err);
            for (int b = 0; b < nsweep && st == KCBP_OK; b++) {
                char name[40];
                progress(o, mesh, o->sweep_n, kcbp_bv_name(&sweep_specs[b], name, sizeof name));
                st = build_bv(o, &sweep_specs[b], mm, &bvs[b], &ct[b], err);
                built = b + 1;
            }
            if (st == KCBP_OK)
                st = measure_scene(o, mesh, scene, o->sweep_n, bvs, ct, sweep_specs, nsweep, res->hull_volume,
                                   res->sweep, mismatch, err);
            if (st == KCBP_OK)
                res->nsweep = (size_t)nsweep;
            kcbp_scene_free(scene);
        }
        free_bvs(bvs, built);
    }
    free(bvs);
    free(ct);
    free(sweep_specs);
    return st;
}

/* ---- output -------------------------------------------------------------- */

static void print_md(FILE *f, const bench_opts *o, const mesh_result *res, int nres)
{
    for (int m = 0; m < nres; m++) {
        const mesh_result *r = &res[m];
        fprintf(f, "## %s: %s layout, seed %ld\n\n", r->mesh, o->density ? "density" : "thesis", o->seed);
        fprintf(f, "| n | BV |%s pairs passing | DP | r | volume / hull |\n", o->times ? " CT ms | DT ms |" : "");
        fprintf(f, "|---|---|%s---|---|---|---|\n", o->times ? "---|---|" : "");
        for (size_t i = 0; i < r->nrows; i++) {
            const row *w = &r->rows[i];
            fprintf(f, "| %u | %s |", w->n, w->name);
            if (o->times)
                fprintf(f, " %.3f | %.3f |", w->ct_ms, w->dt_ms);
            fprintf(f, " %llu | %llu | %.3f | %.3f |\n", (unsigned long long)w->passed, (unsigned long long)w->dp,
                    w->r, w->volume_ratio);
        }
        fprintf(f, "\nHit rate r by n:\n\n| n |");
        for (int b = 0; b < o->nbvs; b++)
            fprintf(f, " %s |", r->rows[b].name);
        fprintf(f, " DP |\n|---|");
        for (int b = 0; b <= o->nbvs; b++)
            fprintf(f, "---|");
        fprintf(f, "\n");
        for (int i = 0; i < o->nns && (size_t)i * (size_t)o->nbvs < r->nrows; i++) {
            const row *w = &r->rows[(size_t)i * (size_t)o->nbvs];
            fprintf(f, "| %u |", w->n);
            for (int b = 0; b < o->nbvs; b++)
                fprintf(f, " %.3f |", w[b].r);
            fprintf(f, " %llu |\n", (unsigned long long)w->dp);
        }
        if (r->nsweep) {
            const row *h = &r->sweep[r->nsweep - 1];
            fprintf(f, "\nk sweep at n = %u (DP %llu; hull r %.3f, passing %llu):\n\n", o->sweep_n,
                    (unsigned long long)h->dp, h->r, (unsigned long long)h->passed);
            fprintf(f, "| k |");
            for (int d = 0; d < NSWEEP_DIRS; d++)
                fprintf(f, " r %s |", kcbp_cbp_dirs_name(sweep_dirs[d]));
            for (int d = 0; d < NSWEEP_DIRS; d++)
                fprintf(f, " passing %s |", kcbp_cbp_dirs_name(sweep_dirs[d]));
            if (o->times)
                for (int d = 0; d < NSWEEP_DIRS; d++)
                    fprintf(f, " CT %s ms |", kcbp_cbp_dirs_name(sweep_dirs[d]));
            fprintf(f, "\n|---|");
            for (int d = 0; d < NSWEEP_DIRS * (o->times ? 3 : 2); d++)
                fprintf(f, "---|");
            fprintf(f, "\n");
            for (int k = 0; k < NSWEEP_K; k++) {
                fprintf(f, "| %d |", sweep_ks[k]);
                for (int d = 0; d < NSWEEP_DIRS; d++)
                    fprintf(f, " %.3f |", r->sweep[d * NSWEEP_K + k].r);
                for (int d = 0; d < NSWEEP_DIRS; d++)
                    fprintf(f, " %llu |", (unsigned long long)r->sweep[d * NSWEEP_K + k].passed);
                if (o->times)
                    for (int d = 0; d < NSWEEP_DIRS; d++)
                        fprintf(f, " %.3f |", r->sweep[d * NSWEEP_K + k].ct_ms);
                fprintf(f, "\n");
            }
        }
        if (m + 1 < nres)
            fprintf(f, "\n");
    }
}

static void csv_row(FILE *f, const bench_opts *o, const char *mesh, const char *table, const row *w)
{
    char dirs[16] = "";
    if (w->spec.kind == KCBP_BV_CBP)
        snprintf(dirs, sizeof dirs, "%s", kcbp_cbp_dirs_name(w->spec.dirs));
    fprintf(f, "%s,%s,%ld,%s,%u,%s,%d,%s,", mesh, o->density ? "density" : "thesis", o->seed, table, w->n, w->name,
            w->spec.kind == KCBP_BV_CBP || w->spec.kind == KCBP_BV_KDOP ? w->spec.k : 0, dirs);
    if (o->times)
        fprintf(f, "%.6f,%.6f,", w->ct_ms, w->dt_ms);
    fprintf(f, "%llu,%llu,%llu,%llu,%.6f,%.6f\n", (unsigned long long)w->pairs, (unsigned long long)w->boxes,
            (unsigned long long)w->passed, (unsigned long long)w->dp, w->r, w->volume_ratio);
}

static void print_csv(FILE *f, const bench_opts *o, const mesh_result *res, int nres)
{
    fprintf(f, "mesh,layout,seed,table,n,bv,k,dirs,%spairs,boxes,passed,dp,r,volume_ratio\n",
            o->times ? "ct_ms,dt_ms," : "");
    for (int m = 0; m < nres; m++) {
        for (size_t i = 0; i < res[m].nrows; i++)
            csv_row(f, o, res[m].mesh, "main", &res[m].rows[i]);
        for (size_t i = 0; i < res[m].nsweep; i++)
            csv_row(f, o, res[m].mesh, "k-sweep", &res[m].sweep[i]);
    }
}

static cJSON *json_row(const bench_opts *o, const row *w)
{
    cJSON *j = cJSON_CreateObject();
    if (!j)
        return NULL;
    bool ok = cJSON_AddNumberToObject(j, "n", w->n) && cJSON_AddStringToObject(j, "bv", w->name);
    if (ok && (w->spec.kind == KCBP_BV_CBP || w->spec.kind == KCBP_BV_KDOP))
        ok = cJSON_AddNumberToObject(j, "k", w->spec.k);
    if (ok && w->spec.kind == KCBP_BV_CBP)
        ok = cJSON_AddStringToObject(j, "dirs", kcbp_cbp_dirs_name(w->spec.dirs));
    if (ok && o->times)
        ok = cJSON_AddNumberToObject(j, "ct_ms", w->ct_ms) && cJSON_AddNumberToObject(j, "dt_ms", w->dt_ms);
    ok = ok && cJSON_AddNumberToObject(j, "pairs", (double)w->pairs) &&
         cJSON_AddNumberToObject(j, "boxes", (double)w->boxes) &&
         cJSON_AddNumberToObject(j, "passed", (double)w->passed) && cJSON_AddNumberToObject(j, "dp", (double)w->dp) &&
         cJSON_AddNumberToObject(j, "r", w->r) && cJSON_AddNumberToObject(j, "volume_ratio", w->volume_ratio);
    if (!ok) {
        cJSON_Delete(j);
        return NULL;
    }
    return j;
}

static cJSON *json_doc(const bench_opts *o, const mesh_result *res, int nres)
{
    cJSON *doc = cJSON_CreateObject();
    cJSON *meshes = doc ? cJSON_AddArrayToObject(doc, "meshes") : NULL;
    bool ok = meshes != NULL;
    for (int m = 0; m < nres && ok; m++) {
        cJSON *mj = cJSON_CreateObject();
        ok = mj && cJSON_AddItemToArray(meshes, mj);
        ok = ok && kcbp_cli_add_string(mj, "mesh", res[m].mesh) &&
             cJSON_AddStringToObject(mj, "layout", o->density ? "density" : "thesis") &&
             cJSON_AddNumberToObject(mj, "seed", (double)o->seed) && cJSON_AddNumberToObject(mj, "k", o->k);
        cJSON *rows = ok ? cJSON_AddArrayToObject(mj, "rows") : NULL;
        ok = rows != NULL;
        for (size_t i = 0; i < res[m].nrows && ok; i++) {
            cJSON *r = json_row(o, &res[m].rows[i]);
            ok = r && cJSON_AddItemToArray(rows, r);
        }
        if (ok && res[m].nsweep) {
            cJSON *sw = cJSON_AddObjectToObject(mj, "k_sweep");
            ok = sw && cJSON_AddNumberToObject(sw, "n", o->sweep_n);
            cJSON *srows = ok ? cJSON_AddArrayToObject(sw, "rows") : NULL;
            ok = srows != NULL;
            for (size_t i = 0; i < res[m].nsweep && ok; i++) {
                cJSON *r = json_row(o, &res[m].sweep[i]);
                ok = r && cJSON_AddItemToArray(srows, r);
            }
        }
    }
    if (!ok) {
        cJSON_Delete(doc);
        return NULL;
    }
    return doc;
}

/* ---- the plot ------------------------------------------------------------ */

/* Hands kcbp_cli_bench_plot, per mesh, the hit rate and the spread of the
 * detection time of each volume at each n, and the spread of each volume's
 * construction time (built once per mesh: the same on every row). */
static kcbp_status plot(const bench_opts *o, const mesh_result *res, int nres, kcbp_error *err)
{
    kcbp_cli_plot_series *series = calloc((size_t)nres, sizeof *series);
    const char **names = calloc((size_t)o->nbvs, sizeof *names);
    if (!series || !names) {
        free(series);
        free(names);
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for the plot");
    }
    for (int b = 0; b < o->nbvs; b++)
        names[b] = nres > 0 && res[0].nrows > 0 ? res[0].rows[b].name : "";
    for (int m = 0; m < nres; m++) {
        series[m].title = res[m].mesh;
        series[m].nx = (int)(res[m].nrows / (size_t)o->nbvs);
        series[m].ncols = o->nbvs;
        series[m].x = calloc((size_t)series[m].nx + 1, sizeof(double));
        series[m].r = calloc((size_t)series[m].nx * (size_t)o->nbvs + 1, sizeof(double));
        series[m].dt = calloc(3 * (size_t)series[m].nx * (size_t)o->nbvs + 1, sizeof(double));
        series[m].ct = calloc(3 * (size_t)o->nbvs + 1, sizeof(double));
        if (!series[m].x || !series[m].r || !series[m].dt || !series[m].ct)
            continue;
        for (int i = 0; i < series[m].nx; i++) {
            const row *w = &res[m].rows[(size_t)i * (size_t)o->nbvs];
            series[m].x[i] = w->n;
            for (int b = 0; b < o->nbvs; b++) {
                series[m].r[i * o->nbvs + b] = w[b].r;
                double *dt = &series[m].dt[3 * (i * o->nbvs + b)], *ct = &series[m].ct[3 * b];
                dt[0] = w[b].dt_ms, dt[1] = w[b].dt_lo, dt[2] = w[b].dt_hi;
                ct[0] = w[b].ct_ms, ct[1] = w[b].ct_lo, ct[2] = w[b].ct_hi;
            }
        }
    }
    kcbp_status st = KCBP_OK;
    for (int m = 0; m < nres && st == KCBP_OK; m++)
        if (!series[m].x || !series[m].r || !series[m].dt || !series[m].ct)
            st = kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for the plot");
    if (st == KCBP_OK)
        st = kcbp_cli_bench_plot(o->plot, series, nres, names, o->density ? "density" : "thesis", err);
    for (int m = 0; m < nres; m++) {
        free(series[m].x);
        free(series[m].r);
        free(series[m].dt);
        free(series[m].ct);
    }
    free(series);
    free(names);
    return st;
}

/* ---- options ------------------------------------------------------------- */

static bool parse_n_list(const char *s, bench_opts *o)
{
    o->nns = 0;
    const char *p = s;
    for (;;) {
        char buf[32];
        size_t len = strcspn(p, ",");
        if (len == 0 || len >= sizeof buf || o->nns >= MAX_NS)
            return false;
        memcpy(buf, p, len);
        buf[len] = '\0';
        long v;
        if (!kcbp_cli_parse_int(buf, 1, KCBP_SCENE_MAX_OBJECTS - 1, &v))
            return false;
        o->ns[o->nns++] = (uint32_t)v;
        if (p[len] == '\0')
            return true;
        p += len + 1;
    }
}

static int parse_bv_list(const char *s, bench_opts *o)
{
    o->nbvs = 0;
    const char *p = s;
    for (;;) {
        char buf[64];
        size_t len = strcspn(p, ",");
        if (len == 0 || len >= sizeof buf || o->nbvs >= MAX_BVS)
            return kcbp_cli_usage_error("bench", "--bv takes a comma-separated list of volumes, not '%s'", s);
        memcpy(buf, p, len);
        buf[len] = '\0';
        kcbp_error err;
        if (kcbp_bv_parse(buf, &o->bvs[o->nbvs], &err) != KCBP_OK)
            return kcbp_cli_usage_error("bench", "--bv: %s", err.msg);
        o->nbvs++;
        if (p[len] == '\0')
            return KCBP_EXIT_OK;
        p += len + 1;
    }
}

static void default_bvs(bench_opts *o)
{
    int k = o->k;
    const kcbp_bv_spec all[] = {
        {KCBP_BV_SPHERE, 0, KCBP_DIRS_GREEDY}, {KCBP_BV_AABB, 0, KCBP_DIRS_GREEDY},
        {KCBP_BV_AABB_POSED, 0, KCBP_DIRS_GREEDY}, {KCBP_BV_OBB, 0, KCBP_DIRS_GREEDY},
        {KCBP_BV_KDOP, 14, KCBP_DIRS_KDOP}, {KCBP_BV_KDOP, 18, KCBP_DIRS_KDOP},
        {KCBP_BV_KDOP, 26, KCBP_DIRS_KDOP}, {KCBP_BV_CBP, k, KCBP_DIRS_FIXED},
        {KCBP_BV_CBP, k, KCBP_DIRS_THESIS}, {KCBP_BV_CBP, k, KCBP_DIRS_GREEDY},
        {KCBP_BV_HULL, 0, KCBP_DIRS_GREEDY},
    };
    o->nbvs = (int)(sizeof all / sizeof all[0]);
    memcpy(o->bvs, all, sizeof all);
}

int kcbp_cli_bench(int argc, char **argv)
{
    enum { OPT_MESH = 3000, OPT_N, OPT_SEED, OPT_LAYOUT, OPT_FORMAT, OPT_PLOT, OPT_SAVE, OPT_SWEEP, OPT_SWEEP_N,
           OPT_NO_TIMES, OPT_RUNS, OPT_BV, OPT_PROGRESS };
    static const struct option longopts[] = {
        {"mesh", required_argument, NULL, OPT_MESH},
        {"n", required_argument, NULL, OPT_N},
        {"seed", required_argument, NULL, OPT_SEED},
        {"layout", required_argument, NULL, OPT_LAYOUT},
        {"format", required_argument, NULL, OPT_FORMAT},
        {"plot", required_argument, NULL, OPT_PLOT},
        {"save-scenes", required_argument, NULL, OPT_SAVE},
        {"k-sweep", no_argument, NULL, OPT_SWEEP},
        {"sweep-n", required_argument, NULL, OPT_SWEEP_N},
        {"no-times", no_argument, NULL, OPT_NO_TIMES},
        {"runs", required_argument, NULL, OPT_RUNS},
        {"bv", required_argument, NULL, OPT_BV},
        {"progress", no_argument, NULL, OPT_PROGRESS},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    bench_opts o;
    memset(&o, 0, sizeof o);
    o.k = KCBP_CBP_K_DEFAULT;
    o.seed = 1;
    o.times = true;
    o.runs = 3;
    o.sweep_n = 100;
    parse_n_list("10,30,50,100,200", &o);
    const char *bv_list = NULL;
    opterr = 0;
    optind = 1;
    int c;
    long v;
    while ((c = getopt_long(argc, argv, ":hk:", longopts, NULL)) != -1) {
        switch (c) {
        case 'h': fputs(bench_help, stdout); return KCBP_EXIT_OK;
        case OPT_MESH:
            if (kcbp_cli_is_shape(optarg))
                return kcbp_cli_usage_error("bench", "--mesh takes a mesh file, not the shape '%s' (a file of that "
                                            "name is ./%s)", optarg, optarg);
            if (o.nmeshes >= MAX_MESHES)
                return kcbp_cli_usage_error("bench", "at most %d meshes", MAX_MESHES);
            o.meshes[o.nmeshes++] = optarg;
            break;
        case OPT_N:
            if (!parse_n_list(optarg, &o))
                return kcbp_cli_usage_error("bench", "--n takes up to %d comma-separated integers in [1, %u], not '%s'",
                                            MAX_NS, KCBP_SCENE_MAX_OBJECTS - 1, optarg);
            break;
        case 'k':
            if (!kcbp_cli_parse_int(optarg, KCBP_CBP_K_MIN, KCBP_CBP_K_MAX, &v))
                return kcbp_cli_usage_error("bench", "-k takes a whole number from %d to %d, not '%s'",
                                            KCBP_CBP_K_MIN, KCBP_CBP_K_MAX, optarg);
            o.k = (int)v;
            break;
        case OPT_SEED:
            if (!kcbp_cli_parse_int(optarg, 0, 0x7fffffffL, &o.seed))
                return kcbp_cli_usage_error("bench", "--seed takes an integer in [0, 2^31), not '%s'", optarg);
            break;
        case OPT_LAYOUT:
            if (strcmp(optarg, "thesis") != 0 && strcmp(optarg, "density") != 0)
                return kcbp_cli_usage_error("bench", "--layout takes thesis or density, not '%s'", optarg);
            o.density = !strcmp(optarg, "density");
            break;
        case OPT_FORMAT:
            if (!strcmp(optarg, "md"))
                o.format = FMT_MD;
            else if (!strcmp(optarg, "csv"))
                o.format = FMT_CSV;
            else if (!strcmp(optarg, "json"))
                o.format = FMT_JSON;
            else
                return kcbp_cli_usage_error("bench", "--format takes md, csv or json, not '%s'", optarg);
            break;
        case OPT_PLOT:
            if (!kcbp_cli_plot_terminal(optarg))
                return kcbp_cli_usage_error("bench", "--plot writes .svg, .png or .pdf files, not '%s'", optarg);
            o.plot = optarg;
            break;
        case OPT_SAVE: o.save_dir = optarg; break;
        case OPT_SWEEP: o.sweep = true; break;
        case OPT_SWEEP_N:
            if (!kcbp_cli_parse_int(optarg, 1, KCBP_SCENE_MAX_OBJECTS - 1, &v))
                return kcbp_cli_usage_error("bench", "--sweep-n takes an integer in [1, %u], not '%s'",
                                            KCBP_SCENE_MAX_OBJECTS - 1, optarg);
            o.sweep_n = (uint32_t)v;
            break;
        case OPT_NO_TIMES: o.times = false; break;
        case OPT_RUNS:
            if (!kcbp_cli_parse_int(optarg, 1, 64, &v))
                return kcbp_cli_usage_error("bench", "--runs takes an integer in [1, 64], not '%s'", optarg);
            o.runs = (int)v;
            break;
        case OPT_BV: bv_list = optarg; break;
        case OPT_PROGRESS: kcbp_cli_progress_force(); break;
        case ':': return kcbp_cli_usage_error("bench", "%s needs a value", argv[optind - 1]);
        default: return kcbp_cli_usage_error("bench", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind != argc)
        return kcbp_cli_usage_error("bench", "unexpected argument '%s' (meshes go with --mesh)", argv[optind]);
    if (bv_list) {
        int rc = parse_bv_list(bv_list, &o);
        if (rc != KCBP_EXIT_OK)
            return rc;
    } else {
        default_bvs(&o);
    }
    if (o.nmeshes == 0)
        o.meshes[o.nmeshes++] = "meshes/bunny2.obj";
    if (o.save_dir) {
        struct stat sb;
        if (stat(o.save_dir, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
            fprintf(stderr, "kcbp: %s: not a folder\n", o.save_dir);
            return KCBP_EXIT_INPUT;
        }
    }
    /* the progress line counts measurements: a volume on a scene */
    kcbp_cli_progress_begin("bench", "measurements",
                            (uint64_t)o.nmeshes * ((uint64_t)o.nns * (uint64_t)o.nbvs +
                                                   (o.sweep ? NSWEEP_K * NSWEEP_DIRS + 1 : 0)));

    mesh_result *res = calloc((size_t)o.nmeshes, sizeof *res);
    if (!res) {
        fprintf(stderr, "kcbp: out of memory\n");
        return KCBP_EXIT_NOMEM;
    }
    kcbp_error err = {0};
    kcbp_status st = KCBP_OK;
    bool mismatch = false;
    int nres = 0;
    for (int m = 0; m < o.nmeshes && st == KCBP_OK; m++) {
        st = run_mesh(&o, o.meshes[m], &res[m], &mismatch, &err);
        nres = m + 1;
    }
    kcbp_cli_progress_end();
    if (st == KCBP_OK && o.plot)
        st = plot(&o, res, nres, &err);

    char *text = NULL;
    size_t len = 0;
    if (st == KCBP_OK) {
        if (o.format == FMT_JSON) {
            cJSON *doc = json_doc(&o, res, nres);
            char *s = doc ? cJSON_Print(doc) : NULL;
            cJSON_Delete(doc);
            if (s) {
                len = strlen(s);
                text = malloc(len + 2);
                if (text) {
                    memcpy(text, s, len);
                    text[len++] = '\n';
                    text[len] = '\0';
                }
                cJSON_free(s);
            }
        } else {
            FILE *f = open_memstream(&text, &len);
            if (f) {
                if (o.format == FMT_MD)
                    print_md(f, &o, res, nres);
                else
                    print_csv(f, &o, res, nres);
                if (fclose(f) != 0) {
                    free(text);
                    text = NULL;
                }
            }
        }
        if (!text)
            st = kcbp_error_set(&err, KCBP_ERR_NOMEM, "out of memory for the report");
    }
    for (int m = 0; m < nres; m++) {
        free(res[m].rows);
        free(res[m].sweep);
    }
    free(res);
    if (st != KCBP_OK) {
        if (mismatch) {
            fprintf(stderr, "kcbp: %s\n", err.msg);
            return KCBP_BENCH_MISMATCH;
        }
        return kcbp_cli_fail(&err);
    }
    kcbp_cli_output_lock();
    fwrite(text, 1, len, stdout);
    kcbp_cli_output_unlock();
    free(text);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "kcbp: cannot write the report\n");
        return KCBP_EXIT_NOMEM;
    }
    return KCBP_EXIT_OK;
}

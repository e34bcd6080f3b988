/* kcbp batch: many scene files, NDJSON out, in input order, on N threads. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char batch_help[] =
    "usage: kcbp batch SCENE.json... [--jobs N] [--shard I/N] [-k 16] [--dirs ...] [--filter aabb|cbp]\n"
    "                                 [--contacts none|first|all] [--max-contacts N] [--mesh-root DIR]\n"
    "                                 [--margin D] [--solid] [--ccd] [--max-pairs N] [--no-adaptive]\n"
    "                                 [--progress]\n"
    "\n"
    "Runs kcbp scene on each file and prints NDJSON: one line per scene (one per\n"
    "frame for moving scenes), each with \"index\", the scene's 0-based position\n"
    "in the argument list. Lines come in input order whatever --jobs; the frames of\n"
    "the scene being printed are written as they are done.\n"
    "\n"
    "  --jobs N      evaluate N scenes at a time on N threads (default, as for kcbp\n"
    "                scene: the CPUs this process may use; under GNU parallel, which\n"
    "                runs several at once, give --jobs 1)\n"
    "  --progress    scenes done, their rate and the time left on stderr, also when\n"
    "                it is not a terminal (on a terminal: always)\n"
    "  --shard I/N   only the scenes whose index mod N is I (0 <= I < N): run the\n"
    "                N shards on N machines and put the lines together (sort by\n"
    "                \"index\", then \"frame\", to get the unsharded order)\n"
    "  -k, --dirs, --filter, --contacts, --max-contacts, --mesh-root, --margin, --solid, --ccd,\n"
    "  --max-pairs, --no-adaptive\n"
    "                as for "
    "kcbp scene (--mesh-root: one root for every scene; default: each scene's folder;\n"
    "                each scene's pairs on the thread that took it: to split one big\n"
    "                scene across threads or machines, use kcbp scene --jobs, --shard)\n"
    "\n"
    "A scene that fails gets the line {\"scene\": path, \"index\": i, \"error\": message}\n"
    "and the batch goes on.\n"
    "Exit status: 0 when every scene succeeded, 2 for a usage error, 3 when some scene\n"
    "failed, 4 when memory ran out or stdout could not be written, 130 (SIGINT) or\n"
    "143 (SIGTERM) when interrupted: then the finished scenes are written, in input\n"
    "order up to the first unfinished one (whose line written in part, if any, is\n"
    "ended with \"interrupted\": true), then the later finished ones, each line with\n"
    "its \"index\".\n";

typedef struct batch batch;

typedef struct {
    const char *path;
    long index;      /* position in the full list */
    char *text;      /* the scene's lines not printed yet, or its error line */
    size_t len, cap;
    bool text_failed; /* out of memory for them */
    char tail[64];    /* what ends its last line if that was written in part (json_stream.h) */
    kcbp_status st;
    bool done;
    batch *b;
} slot;

struct batch {
    slot *slots;
    size_t nslots;
    const kcbp_cli_scene_options *opts;
    atomic_size_t next;
    pthread_mutex_t lock;
    pthread_cond_t ready;
    size_t head;      /* the slot whose lines are printed now: its worker prints them itself */
    bool write_failed;
};

static bool append(slot *s, const char *text, size_t n)
{
    if (s->len + n + 1 > s->cap) {
        size_t cap = s->cap ? s->cap : 4096;
        while (cap < s->len + n + 1)
            cap *= 2;
        char *g = realloc(s->text, cap);
        if (!g)
            return false;
        s->text = g;
        s->cap = cap;
    }
    memcpy(s->text + s->len, text, n);
    s->len += n;
    s->text[s->len] = '\0';
    return true;
}

/* Writes what the slot holds; false when stdout failed. Under the lock
 * (always: workers and the signal thread's drain take it too). */
static bool print_held(batch *b, slot *s)
{
    if (s->len && !b->write_failed)
        b->write_failed = fwrite(s->text, 1, s->len, stdout) != s->len;
    s->len = 0;
    return !b->write_failed;
}

/* Each frame of a scene: printed at once when its scene is the one being
 * printed (the first not finished), so that a moving scene's frames stream
 * out in constant memory; held until then otherwise. */
static bool sink_write(void *ctx, const char *p, size_t n, const char *tail)
{
    slot *s = ctx;
    batch *b = s->b;
    pthread_mutex_lock(&b->lock);
    bool ok = true;
    snprintf(s->tail, sizeof s->tail, "%s", tail);
    if (s->text_failed)
        ;
    else if (!append(s, p, n))
        s->text_failed = true;
    else if (b->head == (size_t)(s - b->slots))
        ok = print_held(b, s);
    pthread_mutex_unlock(&b->lock);
    return ok;
}

static bool sink_line_done(void *ctx)
{
    slot *s = ctx;
    batch *b = s->b;
    pthread_mutex_lock(&b->lock);
    bool ok = b->head != (size_t)(s - b->slots) || (!b->write_failed && fflush(stdout) == 0);
    pthread_mutex_unlock(&b->lock);
    return ok;
}

static char *error_line(const char *path, long index, const char *msg)
{
    cJSON *doc = cJSON_CreateObject();
    char *text = NULL;
    if (doc && kcbp_cli_add_string(doc, "scene", path) && cJSON_AddNumberToObject(doc, "index", (double)index) &&
        kcbp_cli_add_string(doc, "error", msg))
        text = cJSON_PrintUnformatted(doc);
    cJSON_Delete(doc);
    if (!text)
        return NULL;
    size_t n = strlen(text);
    char *line = malloc(n + 2);
    if (line) {
        memcpy(line, text, n);
        line[n] = '\n';
        line[n + 1] = '\0';
    }
    cJSON_free(text);
    return line;
}

static void run_slot(const kcbp_cli_scene_options *opts, slot *s)
{
    kcbp_error err = {0};
    kcbp_cli_frame_sink sk = {sink_write, sink_line_done, s};
    s->st = kcbp_cli_scene_eval(s->path, opts, s->index, &sk, &err);
    if (s->text_failed && s->st == KCBP_OK)
        s->st = KCBP_ERR_NOMEM;
    if (s->st != KCBP_OK) {
        char *line = error_line(s->path, s->index, err.msg); /* NULL when out of memory: handled by the printer */
        pthread_mutex_lock(&s->b->lock);
        s->len = 0;
        s->text_failed = !line || !append(s, line, strlen(line));
        s->tail[0] = '\0';
        pthread_mutex_unlock(&s->b->lock);
        free(line);
    }
}

/* On a signal (interrupt.h; the signal thread, under the output lock): the
 * scene being printed gets what it holds and, when its last line is out in
 * part, that line's end ("interrupted": true); then every later scene that
 * is finished, whole: lines with their "index", after the gap of the ones
 * not finished. The lock is kept: nothing is printed after. */
static void drain(void *ctx)
{
    batch *b = ctx;
    pthread_mutex_lock(&b->lock);
    if (b->head >= b->nslots)
        return;
    slot *h = &b->slots[b->head];
    if (!h->text_failed && print_held(b, h) && h->tail[0] && !b->write_failed)
        fputs(h->tail, stdout);
    for (size_t i = b->head + 1; i < b->nslots; i++)
        if (b->slots[i].done && !b->slots[i].text_failed)
            print_held(b, &b->slots[i]);
}

static void *worker(void *arg)
{
    batch *b = arg;
    for (;;) {
        size_t i = atomic_fetch_add(&b->next, 1);
        if (i >= b->nslots)
            return NULL;
        run_slot(b->opts, &b->slots[i]);
        pthread_mutex_lock(&b->lock);
        b->slots[i].done = true;
        pthread_cond_broadcast(&b->ready);
        pthread_mutex_unlock(&b->lock);
    }
}

int kcbp_cli_batch(int argc, char **argv)
{
    enum { OPT_JOBS = 2000, OPT_SHARD, OPT_PROGRESS };
    static const struct option longopts[] = {
        KCBP_CLI_SCENE_LONGOPTS,
        {"jobs", required_argument, NULL, OPT_JOBS},
        {"shard", required_argument, NULL, OPT_SHARD},
        {"progress", no_argument, NULL, OPT_PROGRESS},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    kcbp_cli_scene_options o = kcbp_cli_scene_options_default();
    long jobs = kcbp_cli_default_jobs(), shard_i = 0, shard_n = 1;
    opterr = 0;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, ":hj:" KCBP_CLI_SCENE_SHORTOPTS, longopts, NULL)) != -1) {
        int rc = kcbp_cli_scene_option("batch", c, optarg, &o);
        if (rc >= 0) {
            if (rc != KCBP_EXIT_OK)
                return rc;
            continue;
        }
        switch (c) {
        case 'h': fputs(batch_help, stdout); return KCBP_EXIT_OK;
        case OPT_PROGRESS: kcbp_cli_progress_force(); break;
        case 'j':
        case OPT_JOBS:
            if (!kcbp_cli_parse_int(optarg, 1, 1024, &jobs))
                return kcbp_cli_usage_error("batch", "--jobs takes an integer in [1, 1024], not '%s'", optarg);
            break;
        case OPT_SHARD:
            if (!kcbp_cli_parse_shard(optarg, &shard_i, &shard_n))
                return kcbp_cli_usage_error("batch", "--shard takes I/N with 0 <= I < N (0-based), not '%s'", optarg);
            break;
        case ':': return kcbp_cli_usage_error("batch", "%s needs a value", argv[optind - 1]);
        default: return kcbp_cli_usage_error("batch", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind == argc)
        return kcbp_cli_usage_error("batch", "expected at least one scene file");

    size_t total = (size_t)(argc - optind), nslots = 0;
    slot *slots = calloc(total, sizeof *slots);
    if (!slots) {
        fprintf(stderr, "kcbp: out of memory for %zu scenes\n", total);
        return KCBP_EXIT_NOMEM;
    }
    batch b = {slots, 0, &o, 0, PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, false};
    for (size_t k = 0; k < total; k++)
        if ((long)(k % (size_t)shard_n) == shard_i)
            slots[nslots++] = (slot){.path = argv[optind + (int)k], .index = (long)k, .b = &b};
    b.nslots = nslots;
    kcbp_cli_interrupt_set_drain(drain, &b);
    kcbp_cli_progress_begin("batch", "scenes", nslots);

    /* One model per (mesh file, scale, options) for the whole batch. */
    kcbp_error cerr;
    if (kcbp_model_cache_new(KCBP_CLI_BATCH_CACHE_BYTES, &o.cache, &cerr) != KCBP_OK) {
        kcbp_cli_interrupt_set_drain(NULL, NULL);
        kcbp_cli_progress_end();
        free(slots);
        return kcbp_cli_fail(&cerr);
    }
    size_t nthreads = (size_t)jobs < nslots ? (size_t)jobs : nslots;
    pthread_t *threads = NULL;
    size_t started = 0;
    if (nthreads > 1 && (threads = calloc(nthreads, sizeof *threads)))
        for (; started < nthreads; started++)
            if (pthread_create(&threads[started], NULL, worker, &b) != 0)
                break;
    /* With no thread running (--jobs 1, or none could be started), this
     * thread does the work itself, one scene before each line it prints. */
    int rc = KCBP_EXIT_OK;
    for (size_t i = 0; i < nslots; i++) {
        slot *s = &slots[i];
        if (started == 0) {
            size_t k = atomic_fetch_add(&b.next, 1);
            (void)k; /* == i: nobody else takes slots */
            pthread_mutex_lock(&b.lock);
            b.head = i;
            pthread_mutex_unlock(&b.lock);
            run_slot(&o, s);
        } else {
            pthread_mutex_lock(&b.lock);
            b.head = i; /* its worker prints its frames from now on */
            print_held(&b, s);
            while (!s->done)
                pthread_cond_wait(&b.ready, &b.lock);
            pthread_mutex_unlock(&b.lock);
        }
        if (s->st != KCBP_OK && rc == KCBP_EXIT_OK)
            rc = KCBP_EXIT_INPUT;
        if (s->st == KCBP_ERR_NOMEM || s->text_failed) {
            rc = KCBP_EXIT_NOMEM;
            if (s->text_failed)
                fprintf(stderr, "kcbp: %s: out of memory for the report\n", s->path);
        }
        pthread_mutex_lock(&b.lock);
        print_held(&b, s);
        free(s->text);
        s->text = NULL;
        s->len = s->cap = 0;
        s->done = true;
        pthread_mutex_unlock(&b.lock);
        kcbp_cli_progress_add(1);
    }
    kcbp_cli_progress_end();
    kcbp_cli_interrupt_set_drain(NULL, NULL);
    for (size_t t = 0; t < started; t++)
        pthread_join(threads[t], NULL);
    free(threads);
    free(slots);
    kcbp_model_cache_free(o.cache);
    pthread_mutex_destroy(&b.lock);
    pthread_cond_destroy(&b.ready);
    int wrc = kcbp_cli_flush();
    if (wrc == KCBP_EXIT_OK && b.write_failed) {
        fprintf(stderr, "kcbp: cannot write the output\n");
        wrc = KCBP_EXIT_NOMEM;
    }
    return wrc != KCBP_EXIT_OK ? wrc : rc;
}

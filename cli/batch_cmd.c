/* kcbp batch: many scene files, NDJSON out, in input order, on N threads. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char batch_help[] =
    "usage: kcbp batch SCENE.json... [--jobs N] [--shard I/N] [-k 16] [--dirs ...] [--filter aabb|cbp]\n"
    "                                 [--contacts none|first|all] [--solid]\n"
    "\n"
    "Runs kcbp scene on each file and prints NDJSON: one line per scene (one per\n"
    "frame for moving scenes), each with \"index\", the scene's 0-based position\n"
    "in the argument list. Lines come in input order whatever --jobs.\n"
    "\n"
    "  --jobs N      evaluate N scenes at a time on N threads (default 1)\n"
    "  --shard I/N   only the scenes whose index mod N is I (0 <= I < N): run the\n"
    "                N shards on N machines and put the lines together (sort by\n"
    "                \"index\", then \"frame\", to get the unsharded order)\n"
    "  -k, --dirs, --filter, --contacts, --solid   as for kcbp scene\n"
    "\n"
    "A scene that fails gets the line {\"scene\": path, \"index\": i, \"error\": message}\n"
    "and the batch goes on.\n"
    "Exit status: 0 when every scene succeeded, 2 for a usage error, 3 when some scene\n"
    "failed, 4 when memory ran out or stdout could not be written.\n";

typedef struct {
    const char *path;
    long index;      /* position in the full list */
    char *text;      /* the scene's lines, or its error line */
    kcbp_status st;
    bool done;
} slot;

typedef struct {
    slot *slots;
    size_t nslots;
    const kcbp_cli_scene_options *opts;
    atomic_size_t next;
    pthread_mutex_t lock;
    pthread_cond_t ready;
} batch;

static char *error_line(const char *path, long index, const char *msg)
{
    cJSON *doc = cJSON_CreateObject();
    char *text = NULL;
    if (doc && kcbp_json_add_string(doc, "scene", path) && cJSON_AddNumberToObject(doc, "index", (double)index) &&
        kcbp_json_add_string(doc, "error", msg))
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
    s->st = kcbp_cli_scene_eval(s->path, opts, s->index, &s->text, &err);
    if (s->st != KCBP_OK)
        s->text = error_line(s->path, s->index, err.msg); /* NULL when out of memory: handled by the printer */
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

/* Parses "I/N" with 0 <= I < N. */
static bool parse_shard(const char *s, long *i, long *n)
{
    const char *slash = strchr(s, '/');
    if (!slash || slash == s || (size_t)(slash - s) >= 32)
        return false;
    char first[32];
    memcpy(first, s, (size_t)(slash - s));
    first[slash - s] = '\0';
    return kcbp_cli_parse_int(first, 0, 1000000, i) && kcbp_cli_parse_int(slash + 1, 1, 1000000, n) && *i < *n;
}

int kcbp_cli_batch(int argc, char **argv)
{
    enum { OPT_JOBS = 2000, OPT_SHARD };
    static const struct option longopts[] = {
        KCBP_CLI_SCENE_LONGOPTS,
        {"jobs", required_argument, NULL, OPT_JOBS},
        {"shard", required_argument, NULL, OPT_SHARD},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    kcbp_cli_scene_options o = kcbp_cli_scene_options_default();
    long jobs = 1, shard_i = 0, shard_n = 1;
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
        case 'j':
        case OPT_JOBS:
            if (!kcbp_cli_parse_int(optarg, 1, 1024, &jobs))
                return kcbp_cli_usage_error("batch", "--jobs takes an integer in [1, 1024], not '%s'", optarg);
            break;
        case OPT_SHARD:
            if (!parse_shard(optarg, &shard_i, &shard_n))
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
    for (size_t k = 0; k < total; k++)
        if ((long)(k % (size_t)shard_n) == shard_i)
            slots[nslots++] = (slot){argv[optind + (int)k], (long)k, NULL, KCBP_OK, false};

    /* One model per (mesh file, scale, options) for the whole batch. */
    kcbp_error cerr;
    if (kcbp_model_cache_new(KCBP_CLI_BATCH_CACHE_BYTES, &o.cache, &cerr) != KCBP_OK) {
        free(slots);
        return kcbp_cli_fail(&cerr);
    }
    batch b = {slots, nslots, &o, 0, PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER};
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
    bool write_failed = false;
    for (size_t i = 0; i < nslots; i++) {
        slot *s = &slots[i];
        if (started == 0) {
            size_t k = atomic_fetch_add(&b.next, 1);
            (void)k; /* == i: nobody else takes slots */
            run_slot(&o, s);
        } else {
            pthread_mutex_lock(&b.lock);
            while (!s->done)
                pthread_cond_wait(&b.ready, &b.lock);
            pthread_mutex_unlock(&b.lock);
        }
        if (s->st != KCBP_OK && rc == KCBP_EXIT_OK)
            rc = KCBP_EXIT_INPUT;
        if (s->st == KCBP_ERR_NOMEM || !s->text) {
            rc = KCBP_EXIT_NOMEM;
            if (!s->text)
                fprintf(stderr, "kcbp: %s: out of memory for the report\n", s->path);
        }
        if (s->text && !write_failed) {
            size_t len = strlen(s->text);
            write_failed = fwrite(s->text, 1, len, stdout) != len;
        }
        free(s->text);
        s->text = NULL;
    }
    for (size_t t = 0; t < started; t++)
        pthread_join(threads[t], NULL);
    free(threads);
    free(slots);
    kcbp_model_cache_free(o.cache);
    pthread_mutex_destroy(&b.lock);
    pthread_cond_destroy(&b.ready);
    if (fflush(stdout) != 0 || ferror(stdout) || write_failed) {
        fprintf(stderr, "kcbp: cannot write the output\n");
        return KCBP_EXIT_NOMEM;
    }
    return rc;
}

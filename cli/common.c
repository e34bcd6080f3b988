#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

int kcbp_cli_fail(const kcbp_error *err)
{
    fprintf(stderr, "kcbp: %s\n", err->msg);
    return err->code == KCBP_ERR_NOMEM ? KCBP_EXIT_NOMEM : KCBP_EXIT_INPUT;
}

int kcbp_cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "kcbp %s: ", cmd);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n(see 'kcbp %s --help')\n", cmd);
    va_end(ap);
    return KCBP_EXIT_USAGE;
}

long kcbp_cli_default_jobs(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) >= 1)
        n = CPU_COUNT(&set); /* taskset, Slurm's and cgroups' CPU sets */
    return n < 1 ? 1 : n > 1024 ? 1024 : n;
}

bool kcbp_cli_parse_int(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end != '\0' || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

int kcbp_cli_print_json(cJSON *doc, bool pretty)
{
    char *text = doc ? (pretty ? cJSON_Print(doc) : cJSON_PrintUnformatted(doc)) : NULL;
    cJSON_Delete(doc);
    if (!text) {
        fprintf(stderr, "kcbp: out of memory while writing the report\n");
        return KCBP_EXIT_NOMEM;
    }
    kcbp_cli_output_lock(); /* a whole line, or none of it (interrupt.h) */
    fputs(text, stdout);
    fputc('\n', stdout);
    kcbp_cli_output_unlock();
    cJSON_free(text);
    return KCBP_EXIT_OK;
}

int kcbp_cli_print_text(char *text)
{
    kcbp_cli_output_lock();
    fputs(text, stdout);
    fputc('\n', stdout);
    kcbp_cli_output_unlock();
    free(text);
    return KCBP_EXIT_OK;
}

int kcbp_cli_write_text(char *text, const char *path)
{
    if (!path)
        return kcbp_cli_print_text(text);
    FILE *f = fopen(path, "w");
    bool ok = f && fputs(text, f) >= 0 && fputc('\n', f) != EOF;
    int e = errno;
    if (f && fclose(f) != 0) {
        ok = false;
        e = errno;
    }
    free(text);
    if (ok)
        return KCBP_EXIT_OK;
    fprintf(stderr, "kcbp: %s: cannot write: %s\n", path, strerror(e));
    if (f)
        remove(path);
    return KCBP_EXIT_NOMEM;
}

int kcbp_cli_flush(void)
{
    errno = 0;
    if (fflush(stdout) == 0 && !ferror(stdout))
        return KCBP_EXIT_OK;
    int e = errno;
    fprintf(stderr, "kcbp: cannot write the output: %s\n", e ? strerror(e) : "write error");
    clearerr(stdout);
    return KCBP_EXIT_NOMEM;
}

bool kcbp_cli_parse_max_contacts(const char *cmd, const char *arg, long *out)
{
    if (kcbp_cli_parse_int(arg, 1, KCBP_CLI_MAX_CONTACTS_MAX, out))
        return true;
    kcbp_cli_usage_error(cmd, "--max-contacts takes an integer in [1, %ld], not '%s'", KCBP_CLI_MAX_CONTACTS_MAX, arg);
    return false;
}

double kcbp_cli_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

cJSON *kcbp_cli_add_string(cJSON *object, const char *key, const char *s)
{
    char *valid = kcbp_utf8_sanitize(s);
    cJSON *item = valid ? cJSON_AddStringToObject(object, key, valid) : NULL;
    free(valid);
    return item;
}

bool kcbp_cli_parse_shard(const char *s, long *i, long *n)
{
    const char *slash = strchr(s, '/');
    if (!slash || slash == s || (size_t)(slash - s) >= 32)
        return false;
    char first[32];
    memcpy(first, s, (size_t)(slash - s));
    first[slash - s] = '\0';
    return kcbp_cli_parse_int(first, 0, 1000000, i) && kcbp_cli_parse_int(slash + 1, 1, 1000000, n) && *i < *n;
}

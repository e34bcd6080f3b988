/* The kcbp program: shared pieces of its subcommands.
 *
 * Every subcommand computes its whole answer first and prints it last, so
 * that an error never leaves partial output on stdout. */
#ifndef KCBP_CLI_H
#define KCBP_CLI_H

#include <cjson/cJSON.h>
#include <stdbool.h>

#include "kcbp.h"

enum {
    KCBP_EXIT_OK = 0,     /* success, whatever the answer */
    KCBP_EXIT_USAGE = 2,  /* bad command line */
    KCBP_EXIT_INPUT = 3,  /* bad or unreadable input (mesh, pose, scene file) */
    KCBP_EXIT_NOMEM = 4,  /* out of memory or another resource */
};

/* Subcommands: each gets argv with argv[0] set to the subcommand's name. */
int kcbp_cli_collide(int argc, char **argv);
int kcbp_cli_cbp(int argc, char **argv);

/* Prints "kcbp: message" to stderr and returns the exit code for the status. */
int kcbp_cli_fail(const kcbp_error *err);
/* Prints "kcbp <cmd>: message" and a hint to use --help; returns KCBP_EXIT_USAGE. */
int kcbp_cli_usage_error(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Parses a whole decimal integer in [lo, hi]. */
bool kcbp_cli_parse_int(const char *s, long lo, long hi, long *out);
/* Prints one JSON document (compact on one line, or indented) and frees it.
 * Returns KCBP_EXIT_NOMEM if it could not be printed. */
int kcbp_cli_print_json(cJSON *doc, bool pretty);
/* Milliseconds from a monotonic clock. */
double kcbp_cli_now_ms(void);

#endif

/* kcbp: mesh collision detection with k-direction convex bounding polytopes. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static int version_cmd(int argc, char **argv);

static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} commands[] = {
    {"collide", kcbp_cli_collide, "do two meshes touch? exact answer, JSON report, --export for a viewer"},
    {"distance", kcbp_cli_distance, "how far apart are two meshes? closest points, clearance"},
    {"sweep", kcbp_cli_sweep, "when does a moving mesh first touch another? time of impact"},
    {"scene", kcbp_cli_scene, "every colliding pair of a scene file (or --generate one), --export a frame"},
    {"batch", kcbp_cli_batch, "many scene files, NDJSON, on N threads, shardable"},
    {"self", kcbp_cli_self, "does a mesh intersect itself? which triangle pairs, exact"},
    {"cbp", kcbp_cli_cbp, "build a mesh's k-CBP, report its tightness, export it as OBJ"},
    {"bench", kcbp_cli_bench, "hit rates of bounding volumes as filters (the k-CBP thesis's Table 1)"},
    {"version", version_cmd, "print the version (also kcbp --version)"},
};

static void usage(FILE *out)
{
    fprintf(out, "usage: kcbp COMMAND [options]\n       kcbp --help | --version\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "\n'kcbp COMMAND --help' describes each command, 'man kcbp' all of them.\n"
                 "Exit status: 0 success (whatever the answer), 2 usage error, 3 bad input,\n"
                 "4 out of memory or a failed write; 'kcbp COMMAND --help' gives the details.\n"
                 "'-' is standard input (or output) wherever a file is expected.\n");
}

/* "kcbp VERSION": the headers' version, which is the program's. The program
 * links libkcbp statically, so the library's kcbp_version() is the same
 * string; should the two ever differ, both are shown. */
static int print_version(void)
{
    if (strcmp(kcbp_version(), KCBP_VERSION_STRING) != 0)
        printf("kcbp %s (libkcbp %s)\n", KCBP_VERSION_STRING, kcbp_version());
    else
        printf("kcbp %s\n", KCBP_VERSION_STRING);
    return KCBP_EXIT_OK;
}

static int version_cmd(int argc, char **argv)
{
    if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        printf("usage: kcbp version   (or kcbp --version)\n\nPrints \"kcbp VERSION\" and exits with status 0.\n");
        return KCBP_EXIT_OK;
    }
    if (argc > 1)
        return kcbp_cli_usage_error("version", "takes no arguments ('%s' is extra)", argv[1]);
    return print_version();
}

int main(int argc, char **argv)
{
    /* SIGINT and SIGTERM: finished answers written, partial files removed,
     * status 130 or 143 (interrupt.h). */
    kcbp_cli_interrupt_install();
    if (argc < 2) {
        usage(stderr);
        return KCBP_EXIT_USAGE;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return KCBP_EXIT_OK;
    }
    if (!strcmp(argv[1], "--version"))
        return version_cmd(argc - 1, argv + 1);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name)) {
            int rc = commands[i].run(argc - 1, argv + 1);
            /* Whatever a command printed must have reached stdout: a failed
             * write (a full disk, /dev/full) is exit status 4, said once. */
            if (rc == KCBP_EXIT_NOMEM)
                return rc;
            int wrc = kcbp_cli_flush();
            return wrc != KCBP_EXIT_OK ? wrc : rc;
        }
    fprintf(stderr, "kcbp: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return KCBP_EXIT_USAGE;
}

/* kcbp: mesh collision detection with k-direction convex bounding polytopes. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} commands[] = {
    {"collide", kcbp_cli_collide, "do two meshes touch? exact answer, JSON report"},
    {"scene", kcbp_cli_scene, "every colliding pair of a scene file (or --generate one)"},
    {"batch", kcbp_cli_batch, "many scene files, NDJSON, on N threads, shardable"},
    {"cbp", kcbp_cli_cbp, "build a mesh's k-CBP, report its tightness, export it as OBJ"},
    {"bench", kcbp_cli_bench, "hit rates of bounding volumes as filters (the k-CBP thesis's Table 1)"},
};

static void usage(FILE *out)
{
    fprintf(out, "usage: kcbp COMMAND [options]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "\n'kcbp COMMAND --help' describes each command.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return KCBP_EXIT_USAGE;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return KCBP_EXIT_OK;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name))
            return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "kcbp: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return KCBP_EXIT_USAGE;
}

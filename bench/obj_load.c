/* Times kcbp_obj_load: prints the median of N loads of each file given.
 * Build (from the repository root, after make):
 *   cc -O2 -std=c11 -D_GNU_SOURCE -Iinclude bench/obj_load.c build/libkcbp.a -lm -o build/obj_load
 * Usage: build/obj_load [-n RUNS] FILE.obj... */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <kcbp/obj.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    int runs = 11, first = 1;
    if (argc > 2 && strcmp(argv[1], "-n") == 0) {
        runs = atoi(argv[2]);
        first = 3;
    }
    if (runs < 1 || runs > 1000 || first >= argc) {
        fprintf(stderr, "usage: %s [-n RUNS] FILE.obj...\n", argv[0]);
        return 2;
    }
    double *ms = malloc((size_t)runs * sizeof *ms);
    if (!ms)
        return 1;
    for (int a = first; a < argc; a++) {
        kcbp_mesh *mesh = NULL;
        kcbp_error err;
        for (int r = 0; r < runs; r++) {
            struct timespec t0, t1;
            clock_gettime(CLOCK_MONOTONIC, &t0);
            kcbp_status st = kcbp_obj_load(argv[a], &mesh, &err);
            clock_gettime(CLOCK_MONOTONIC, &t1);
            if (st != KCBP_OK) {
                fprintf(stderr, "%s\n", err.msg);
                free(ms);
                return 1;
            }
            ms[r] = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-6;
            if (r + 1 < runs)
                kcbp_mesh_free(mesh);
        }
        qsort(ms, (size_t)runs, sizeof *ms, cmp_double);
        printf("%s: %u vertices, %u triangles (%u degenerate), median %.2f ms of %d (min %.2f)\n", argv[a],
               kcbp_mesh_vertex_count(mesh), kcbp_mesh_triangle_count(mesh), kcbp_mesh_degenerate_count(mesh), ms[runs / 2], runs, ms[0]);
        kcbp_mesh_free(mesh);
    }
    free(ms);
    return 0;
}

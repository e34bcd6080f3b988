/* k-CBP tightness and build time: for each mesh and k, the volume ratio to
 * the convex hull for greedy, thesis, fixed and kdop directions, and the
 * median build time (hull included) over several runs.
 *
 * usage: cbp_tightness [-r RUNS] MESH.obj...   (prints a Markdown table) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <kcbp/kcbp.h>

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static int by_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    static const int ks[] = {8, 12, 16, 18, 24, 32};
    static const kcbp_cbp_dirs dirs[] = {KCBP_DIRS_GREEDY, KCBP_DIRS_THESIS, KCBP_DIRS_FIXED, KCBP_DIRS_KDOP};
    enum { NDIRS = sizeof dirs / sizeof dirs[0], MAXRUNS = 50 };
    int runs = 5, first = 1;
    if (argc > 2 && !strcmp(argv[1], "-r")) {
        runs = atoi(argv[2]);
        first = 3;
    }
    if (runs < 1 || runs > MAXRUNS || first >= argc) {
        fprintf(stderr, "usage: cbp_tightness [-r RUNS(1..%d)] MESH.obj...\n", MAXRUNS);
        return 2;
    }
    printf("| mesh | k | greedy | thesis | fixed | kdop | greedy ms | thesis ms | fixed ms | kdop ms |\n");
    printf("|---|---|---|---|---|---|---|---|---|---|\n");
    int status = 0;
    for (int m = first; m < argc; m++) {
        kcbp_mesh *mesh;
        kcbp_error err;
        if (kcbp_obj_load(argv[m], &mesh, &err) != KCBP_OK) {
            fprintf(stderr, "cbp_tightness: %s\n", err.msg);
            status = 1;
            continue;
        }
        const char *name = strrchr(argv[m], '/') ? strrchr(argv[m], '/') + 1 : argv[m];
        double hull;
        if (kcbp_hull_volume(kcbp_mesh_vertices(mesh), kcbp_mesh_vertex_count(mesh), &hull, &err) != KCBP_OK) {
            fprintf(stderr, "cbp_tightness: %s: %s\n", name, err.msg);
            kcbp_mesh_free(mesh);
            status = 1;
            continue;
        }
        if (!(hull > 0)) { /* flat mesh: ratios to a zero volume mean nothing */
            printf("| %s | - | flat: hull volume 0 | | | | | | | |\n", name);
            kcbp_mesh_free(mesh);
            continue;
        }
        for (size_t k = 0; k < sizeof ks / sizeof ks[0]; k++) {
            double ratio[NDIRS], ms[NDIRS];
            for (size_t d = 0; d < NDIRS; d++) {
                double t[MAXRUNS];
                ratio[d] = NAN;
                for (int r = 0; r < runs; r++) {
                    kcbp_cbp *c;
                    double t0 = now_ms();
                    if (kcbp_cbp_build(kcbp_mesh_vertices(mesh), kcbp_mesh_vertex_count(mesh), ks[k], dirs[d], &c, &err) != KCBP_OK) {
                        fprintf(stderr, "cbp_tightness: %s: %s\n", name, err.msg);
                        status = 1;
                        t[r] = NAN;
                        continue;
                    }
                    t[r] = now_ms() - t0;
                    ratio[d] = kcbp_cbp_volume(c) / hull;
                    kcbp_cbp_free(c);
                }
                qsort(t, (size_t)runs, sizeof t[0], by_double);
                ms[d] = t[runs / 2];
            }
            printf("| %s | %d |", name, ks[k]);
            for (size_t d = 0; d < NDIRS; d++)
                printf(" %.4f |", ratio[d]);
            for (size_t d = 0; d < NDIRS; d++)
                printf(" %.1f |", ms[d]);
            printf("\n");
        }
        kcbp_mesh_free(mesh);
    }
    return status;
}

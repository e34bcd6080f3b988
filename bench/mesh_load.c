/* mesh_load: CPU time of kcbp_mesh_load (any format) per file, the median of
 * RUNS loads, and the mesh's counts and a checksum of its vertices and
 * triangles (so two builds can be compared for the same answer). CPU time
 * (CLOCK_PROCESS_CPUTIME_ID), not wall time: the machine is shared.
 *
 * Usage: mesh_load [-n RUNS] FILE... */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <kcbp/mesh.h>
#include <kcbp/mesh_io.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double cpu_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

int main(int argc, char **argv)
{
    int runs = 3, first = 1;
    if (argc > 2 && strcmp(argv[1], "-n") == 0) {
        runs = atoi(argv[2]);
        first = 3;
    }
    if (runs < 1 || runs > 1000 || first >= argc) {
        fprintf(stderr, "usage: %s [-n RUNS] FILE...\n", argv[0]);
        return 2;
    }
    double *ms = malloc((size_t)runs * sizeof *ms);
    if (!ms)
        return 1;
    for (int a = first; a < argc; a++) {
        kcbp_mesh *mesh = NULL;
        kcbp_error err;
        for (int r = 0; r < runs; r++) {
            double t0 = cpu_ms();
            kcbp_status st = kcbp_mesh_load(argv[a], &mesh, &err);
            ms[r] = cpu_ms() - t0;
            if (st != KCBP_OK) {
                fprintf(stderr, "%s\n", err.msg);
                free(ms);
                return 1;
            }
            if (r + 1 < runs)
                kcbp_mesh_free(mesh);
        }
        qsort(ms, (size_t)runs, sizeof *ms, cmp_double);
        /* FNV-1a over the vertices' bytes and the triangles' indices. */
        uint64_t h = 1469598103934665603u;
        uint32_t nv = kcbp_mesh_vertex_count(mesh), nt = kcbp_mesh_triangle_count(mesh);
        const kcbp_vec3 *v = kcbp_mesh_vertices(mesh);
        const kcbp_tri *t = kcbp_mesh_triangles(mesh);
        const unsigned char *p = (const unsigned char *)v;
        for (size_t i = 0; i < (size_t)nv * sizeof *v; i++)
            h = (h ^ p[i]) * 1099511628211u;
        p = (const unsigned char *)t;
        for (size_t i = 0; i < (size_t)nt * sizeof *t; i++)
            h = (h ^ p[i]) * 1099511628211u;
        printf("%s\t%u vertices\t%u triangles\tmedian %.1f ms CPU of %d\tfnv %016llx\n", argv[a], nv, nt,
               ms[runs / 2], runs, (unsigned long long)h);
        kcbp_mesh_free(mesh);
    }
    free(ms);
    return 0;
}

/* Measures whether assimp (Debian's libassimp-dev) would be worth reading
 * the long tail of formats (glTF, 3MF, ...) behind kcbp's own readers: the
 * median of N loads of each file by kcbp_mesh_load and by assimp's
 * aiImportFile, (1) with aiProcess_Triangulate only (what it takes to get
 * triangles; vertices stay one per face corner) and (2) with
 * aiProcess_JoinIdenticalVertices as well (shared vertices, as kcbp's
 * meshes have). Runs are interleaved so that both see the same machine.
 * Not part of `make bench` and not a dependency of kcbp: built by hand
 * (from the repository root, after make):
 *   cc -O2 -std=c11 -D_GNU_SOURCE -Iinclude bench/assimp_load.c build/libkcbp.a \
 *      $(pkg-config --libs qhull_r libcjson gmp) -lassimp -lm -o build/assimp_load
 * Usage: build/assimp_load [-n RUNS] FILE... */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <assimp/cimport.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include <kcbp/kcbp.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

/* Loads path with assimp; returns the time, and the vertex and triangle
 * counts over all meshes of the scene, or a negative time on failure. */
static double assimp_load(const char *path, unsigned flags, unsigned *nv, unsigned *nt)
{
    double t0 = now_ms();
    const struct aiScene *s = aiImportFile(path, flags);
    double t = now_ms() - t0;
    if (!s) {
        fprintf(stderr, "%s: assimp: %s\n", path, aiGetErrorString());
        return -1;
    }
    *nv = *nt = 0;
    for (unsigned m = 0; m < s->mNumMeshes; m++) {
        *nv += s->mMeshes[m]->mNumVertices;
        *nt += s->mMeshes[m]->mNumFaces;
    }
    aiReleaseImport(s);
    return t;
}

int main(int argc, char **argv)
{
    int runs = 11, first = 1;
    if (argc > 2 && strcmp(argv[1], "-n") == 0) {
        runs = atoi(argv[2]);
        first = 3;
    }
    if (runs < 1 || runs > 1000 || first >= argc) {
        fprintf(stderr, "usage: %s [-n RUNS] FILE...\n", argv[0]);
        return 2;
    }
    static const unsigned flags[2] = {aiProcess_Triangulate, aiProcess_Triangulate | aiProcess_JoinIdenticalVertices};
    static const char *const names[3] = {"kcbp_mesh_load", "assimp triangulate", "assimp triangulate+join"};
    double *ms = malloc(3 * (size_t)runs * sizeof *ms);
    if (!ms)
        return 1;
    for (int a = first; a < argc; a++) {
        unsigned nv[3] = {0}, nt[3] = {0};
        for (int r = 0; r < runs; r++) {
            kcbp_mesh mesh;
            kcbp_error err;
            double t0 = now_ms();
            kcbp_status st = kcbp_mesh_load(argv[a], &mesh, &err);
            ms[r] = now_ms() - t0;
            if (st != KCBP_OK) {
                fprintf(stderr, "%s\n", err.msg);
                free(ms);
                return 1;
            }
            nv[0] = mesh.nvertices;
            nt[0] = mesh.ntriangles;
            kcbp_mesh_free(&mesh);
            for (int k = 0; k < 2; k++)
                if ((ms[(k + 1) * runs + r] = assimp_load(argv[a], flags[k], &nv[k + 1], &nt[k + 1])) < 0) {
                    free(ms);
                    return 1;
                }
        }
        for (int k = 0; k < 3; k++) {
            double *v = ms + k * runs;
            qsort(v, (size_t)runs, sizeof *v, cmp_double);
            printf("%s: %-24s %7u vertices %7u triangles  median %8.2f ms of %d (min %.2f, max %.2f)\n", argv[a],
                   names[k], nv[k], nt[k], v[runs / 2], runs, v[0], v[runs - 1]);
        }
    }
    free(ms);
    return 0;
}

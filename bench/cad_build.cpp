// cad_build: tree build time and memory, kcbp against FCL 0.7 (bench/cad.sh).
//
// For each mesh (loaded once with kcbp_mesh_load), RUNS interleaved rounds
// of: kcbp's tree alone (kcbp_model_build with k = 0: the mesh, its
// bounding-volume tree and the tree's per-triangle data, no k-CBP), kcbp's
// whole model (kcbp_model_build with the default 16-CBP: what `kcbp collide`
// builds per mesh), both counting the mesh they take over (its copy is made
// before the timer starts), and FCL's BVHModel<OBBRSSd> (beginModel,
// addSubModel, endModel, as bench/fcl_collide builds it; FCL keeps its own
// copies of the vertices and triangles). Each build is timed alone
// (steady_clock); the memory it keeps is the growth of the heap in use over
// the build (glibc mallinfo2: uordblks + hblkhd, so that mmap'ed blocks
// count), measured once, with the build's temporaries freed.
//
// Output: "# ..." lines, then per mesh one line
//   "MESH TRIANGLES TREE_MS MODEL_MS FCL_MS TREE_B MODEL_B FCL_B"
// (medians over the rounds; bytes kept, whole).
//
// Usage: cad_build [-r RUNS=5] MESH...
#include <malloc.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "fcl_peer.hpp"

using Clock = std::chrono::steady_clock;

static size_t heap_in_use()
{
    struct mallinfo2 mi = mallinfo2();
    return mi.uordblks + mi.hblkhd;
}

static double ms_since(Clock::time_point t0)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// A copy of m that kcbp_model_build may take.
static kcbp_mesh *copy_mesh(const kcbp_mesh *m)
{
    kcbp_error err;
    kcbp_mesh *out = nullptr;
    if (kcbp_mesh_create(kcbp_mesh_vertices(m), kcbp_mesh_vertex_count(m), kcbp_mesh_triangles(m),
                         kcbp_mesh_triangle_count(m), &out, &err) != KCBP_OK)
        return nullptr;
    return out;
}

// Builds a model of a copy of m with k planes (0: the tree only): its time
// into ms, the heap it keeps (the mesh included) into bytes when asked.
static bool model_build(const kcbp_mesh *m, int k, std::vector<double> &ms, size_t *bytes, const char *path)
{
    kcbp_error err;
    kcbp_model model;
    kcbp_model_options o = kcbp_model_options_default();
    o.k = k;
    size_t h0 = heap_in_use();
    kcbp_mesh *copy = copy_mesh(m);
    if (!copy) {
        std::fprintf(stderr, "cad_build: out of memory\n");
        return false;
    }
    auto t0 = Clock::now();
    kcbp_status st = kcbp_model_build(&model, copy, &o, &err);
    ms.push_back(ms_since(t0));
    if (st != KCBP_OK) {
        std::fprintf(stderr, "cad_build: %s: %s\n", path, err.msg);
        return false;
    }
    if (bytes)
        *bytes = heap_in_use() - h0;
    kcbp_model_free(&model);
    return true;
}

int main(int argc, char **argv)
{
    int runs = 5, first = 1;
    if (argc > 2 && std::strcmp(argv[1], "-r") == 0) {
        runs = std::atoi(argv[2]);
        first = 3;
    }
    if (argc <= first || runs < 1 || runs > 1000) {
        std::fprintf(stderr, "usage: %s [-r RUNS=5 (1..1000)] MESH...\n", argv[0]);
        return 2;
    }
    std::printf("# cad_build: %d interleaved rounds; ms medians; bytes kept by one build\n", runs);
    std::printf("# mesh triangles kcbp_tree_ms kcbp_model_ms fcl_obbrss_ms kcbp_tree_bytes kcbp_model_bytes "
                "fcl_obbrss_bytes\n");
    for (int f = first; f < argc; f++) {
        kcbp_error err;
        kcbp_mesh *m = nullptr;
        if (kcbp_mesh_load(argv[f], &m, &err) != KCBP_OK) {
            std::fprintf(stderr, "cad_build: %s\n", err.msg);
            return 3;
        }
        std::vector<double> tree_ms, model_ms, fcl_ms;
        size_t tree_b = 0, model_b = 0, fcl_b = 0;
        for (int r = 0; r < runs; r++) {
            // Order rotated each round: tree, model, FCL; model, FCL, tree; ...
            for (int k = 0; k < 3; k++) {
                int which = (k + r) % 3;
                if (which == 0) {
                    if (!model_build(m, 0, tree_ms, r == 0 ? &tree_b : nullptr, argv[f]))
                        return 4;
                } else if (which == 1) {
                    if (!model_build(m, KCBP_CBP_K_DEFAULT, model_ms, r == 0 ? &model_b : nullptr, argv[f]))
                        return 4;
                } else {
                    size_t h0 = heap_in_use();
                    auto t0 = Clock::now();
                    auto bvh = build_bvh<fcl::OBBRSSd>(m);
                    fcl_ms.push_back(ms_since(t0));
                    if (!bvh) {
                        std::fprintf(stderr, "cad_build: %s: FCL's build failed\n", argv[f]);
                        return 4;
                    }
                    if (r == 0)
                        fcl_b = heap_in_use() - h0;
                }
            }
        }
        std::printf("%s %u %.3f %.3f %.3f %zu %zu %zu\n", argv[f], kcbp_mesh_triangle_count(m), median(tree_ms), median(model_ms),
                    median(fcl_ms), tree_b, model_b, fcl_b);
        std::fflush(stdout);
        kcbp_mesh_free(m);
    }
    return 0;
}

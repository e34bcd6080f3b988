// cgal_self: the CGAL peer of `kcbp self MESH --contacts none` (bench/cad.sh):
// CGAL 5.5's CGAL::Polygon_mesh_processing::does_self_intersect on a
// Surface_mesh of the same triangles (kcbp_mesh_load: kcbp's own loader,
// polygons split as kcbp splits them), exact predicates (Epick), sequential.
//
// With --triangulate, the file is read by CGAL instead (an OBJ polygon soup,
// CGAL::IO::read_polygon_soup), turned into a mesh and triangulated by
// CGAL::Polygon_mesh_processing::triangulate_faces (a constrained Delaunay
// triangulation of each face, which covers the polygon exactly): what a
// correct split of a huge polygon gives, and what testing it costs; with
// --write OUT.obj that triangulation is written out (%.17g, one `f` line a
// triangle), for `kcbp self` to be timed on the same triangles.
//
// For a flat mesh in the xy plane (every z = 0, as bench/gen_cad's star
// polygons), the answer also counts the triangles kcbp's loader made that
// run clockwise ("flipped_triangles"): a counter-clockwise polygon split
// into triangles that cover it exactly has none.
//
// Each does_self_intersect call is timed alone (steady_clock), RUNS times.
// Output: "# ..." header lines, then "self_intersect 0|1", "median_ms X"
// (median over the runs), "min_ms X", "mesh_ms X" (building the Surface_mesh,
// once), and with --triangulate "triangulate_ms X" and "triangles N".
//
// Usage: cgal_self [--triangulate [--write OUT.obj]] MESH [RUNS=3]
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <CGAL/Exact_predicates_inexact_constructions_kernel.h>
#include <CGAL/IO/polygon_soup_io.h>
#include <CGAL/Polygon_mesh_processing/polygon_soup_to_polygon_mesh.h>
#include <CGAL/Polygon_mesh_processing/self_intersections.h>
#include <CGAL/Polygon_mesh_processing/triangulate_faces.h>
#include <CGAL/Surface_mesh.h>

#include <kcbp/kcbp.h>

using K = CGAL::Exact_predicates_inexact_constructions_kernel;
using Mesh = CGAL::Surface_mesh<K::Point_3>;
using Clock = std::chrono::steady_clock;
namespace PMP = CGAL::Polygon_mesh_processing;

static double ms_since(Clock::time_point t0)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

int main(int argc, char **argv)
{
    bool triangulate = argc > 1 && std::strcmp(argv[1], "--triangulate") == 0;
    int a = triangulate ? 2 : 1;
    const char *write = nullptr;
    if (triangulate && argc > 3 && std::strcmp(argv[2], "--write") == 0) {
        write = argv[3];
        a = 4;
    }
    int runs = argc > a + 1 ? std::atoi(argv[a + 1]) : 3;
    if (argc < a + 1 || argc > a + 2 || runs < 1 || runs > 1000) {
        std::fprintf(stderr, "usage: %s [--triangulate [--write OUT.obj]] MESH [RUNS=3 (1..1000)]\n", argv[0]);
        return 2;
    }
    long flipped = -1;
    const char *path = argv[a];
    Mesh mesh;
    double mesh_ms = 0, tri_ms = -1;
    if (!triangulate) {
        kcbp_error err;
        kcbp_mesh *m = nullptr;
        if (kcbp_mesh_load(path, &m, &err) != KCBP_OK) {
            std::fprintf(stderr, "cgal_self: %s\n", err.msg);
            return 3;
        }
        const uint32_t nv = kcbp_mesh_vertex_count(m), nt = kcbp_mesh_triangle_count(m);
        const kcbp_vec3 *mv = kcbp_mesh_vertices(m);
        const kcbp_tri *mt = kcbp_mesh_triangles(m);
        auto t0 = Clock::now();
        std::vector<Mesh::Vertex_index> v(nv);
        for (uint32_t i = 0; i < nv; i++)
            v[i] = mesh.add_vertex(K::Point_3(mv[i].x, mv[i].y, mv[i].z));
        for (uint32_t i = 0; i < nt; i++) {
            const uint32_t *t = mt[i].v;
            if (mesh.add_face(v[t[0]], v[t[1]], v[t[2]]) == Mesh::null_face()) {
                std::fprintf(stderr, "cgal_self: %s: triangle %u cannot be added to a Surface_mesh (not an oriented "
                                     "2-manifold)\n", path, i);
                kcbp_mesh_free(m);
                return 3;
            }
        }
        mesh_ms = ms_since(t0);
        bool flat = true;
        for (uint32_t i = 0; i < nv && flat; i++)
            flat = mv[i].z == 0;
        if (flat) {
            flipped = 0;
            for (uint32_t i = 0; i < nt; i++) {
                const kcbp_vec3 &p = mv[mt[i].v[0]], &q = mv[mt[i].v[1]],
                                &r = mv[mt[i].v[2]];
                if ((q.x - p.x) * (r.y - p.y) - (q.y - p.y) * (r.x - p.x) < 0)
                    flipped++;
            }
        }
        kcbp_mesh_free(m);
    } else {
        std::vector<K::Point_3> points;
        std::vector<std::vector<std::size_t>> polygons;
        if (!CGAL::IO::read_polygon_soup(path, points, polygons)) {
            std::fprintf(stderr, "cgal_self: %s: CGAL cannot read it\n", path);
            return 3;
        }
        auto t0 = Clock::now();
        PMP::polygon_soup_to_polygon_mesh(points, polygons, mesh);
        mesh_ms = ms_since(t0);
        t0 = Clock::now();
        if (!PMP::triangulate_faces(mesh)) {
            std::fprintf(stderr, "cgal_self: %s: triangulate_faces failed\n", path);
            return 3;
        }
        tri_ms = ms_since(t0);
        if (write) {
            FILE *f = std::fopen(write, "w");
            if (!f) {
                std::fprintf(stderr, "cgal_self: cannot write %s\n", write);
                return 4;
            }
            std::fprintf(f, "# %s triangulated by CGAL::Polygon_mesh_processing::triangulate_faces\n", path);
            std::vector<size_t> number(mesh.number_of_vertices() + mesh.number_of_removed_vertices());
            size_t k = 0;
            for (auto v : mesh.vertices()) {
                const K::Point_3 &p = mesh.point(v);
                std::fprintf(f, "v %.17g %.17g %.17g\n", p.x(), p.y(), p.z());
                number[v.idx()] = ++k;
            }
            for (auto fc : mesh.faces()) {
                std::fputc('f', f);
                for (auto v : CGAL::vertices_around_face(mesh.halfedge(fc), mesh))
                    std::fprintf(f, " %zu", number[v.idx()]);
                std::fputc('\n', f);
            }
            if (std::fclose(f) != 0) {
                std::fprintf(stderr, "cgal_self: cannot write %s\n", write);
                return 4;
            }
        }
    }
    std::vector<double> ms;
    int answer = -1;
    for (int r = 0; r < runs; r++) {
        auto t0 = Clock::now();
        bool yes = PMP::does_self_intersect(mesh);
        ms.push_back(ms_since(t0));
        if (answer >= 0 && answer != (yes ? 1 : 0)) {
            std::fprintf(stderr, "cgal_self: the answer changed between runs\n");
            return 1;
        }
        answer = yes ? 1 : 0;
    }
    std::sort(ms.begin(), ms.end());
    double med = runs % 2 ? ms[runs / 2] : 0.5 * (ms[runs / 2 - 1] + ms[runs / 2]);
    std::printf("# cgal_self %s%s: %zu vertices, %zu triangles, %d runs\n", triangulate ? "--triangulate " : "", path,
                (size_t)mesh.number_of_vertices(), (size_t)mesh.number_of_faces(), runs);
    std::printf("self_intersect %d\nmedian_ms %.3f\nmin_ms %.3f\nmesh_ms %.3f\n", answer, med, ms[0], mesh_ms);
    if (triangulate)
        std::printf("triangulate_ms %.3f\ntriangles %zu\n", tri_ms, (size_t)mesh.number_of_faces());
    if (flipped >= 0)
        std::printf("flipped_triangles %ld\n", flipped);
    return 0;
}

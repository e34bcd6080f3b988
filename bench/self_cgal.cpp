// self_cgal: the CGAL peer of `kcbp self` (bench/self.sh): CGAL 5.5's
// Polygon_mesh_processing::does_self_intersect (and self_intersections for
// the pairs) on a Surface_mesh of the very triangles kcbp reads
// (kcbp_mesh_load: polygons split as kcbp splits them, same order, same
// vertex numbers), exact predicates (Epick kernel), sequential.
//
// Modes:
//   self_cgal MESH [RUNS=3]        does_self_intersect, each call timed alone
//                                  (steady_clock), RUNS times
//   self_cgal --pairs MESH         every intersecting pair, sorted, one
//                                  "a b" line each (a < b, kcbp's triangle
//                                  numbers; "a a" for a degenerate triangle,
//                                  which CGAL reports so), vertices with
//                                  identical coordinates welded as kcbp self
//                                  identifies them: the oracle kcbp self's
//                                  pairs are compared with (bench/self.sh);
//                                  triangles a Surface_mesh cannot hold (a
//                                  repeated vertex, a third face on an edge,
//                                  a face turned against its neighbour) are
//                                  left out, each listed "refused t"; pairs
//                                  with two common vertices that CGAL's
//                                  halfedges do not join are listed
//                                  "unlinked a b" (CGAL then takes them as
//                                  sharing one vertex, kcbp an edge)
//   self_cgal --triangulate IN.obj OUT.obj
//                                  IN read by CGAL itself (a polygon soup),
//                                  its faces triangulated by
//                                  PMP::triangulate_faces (a constrained
//                                  Delaunay triangulation of each face) and
//                                  written to OUT (%.17g, one `f` a triangle):
//                                  the issue's "its triangulation written
//                                  out", a second, independent split of the
//                                  same polygons
//
// Output of the timing mode: "# ..." header lines, then "self_intersect 0|1",
// "median_ms X", "min_ms X", "max_ms X" and "mesh_ms X" (building the
// Surface_mesh, once, not timed in the medians).
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <map>
#include <utility>
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

// kcbp's triangles as a Surface_mesh, face i = triangle i. With weld,
// vertices with identical coordinates become one (kcbp self identifies
// them so: the pairs mean the same). Returns false (with a message) when
// they do not make an oriented 2-manifold, which a Surface_mesh needs.
static bool load(const char *path, Mesh &mesh, double *ms, bool weld = false,
                 std::vector<unsigned> *face_tri = nullptr, std::vector<unsigned> *refused = nullptr)
{
    kcbp_error err;
    kcbp_mesh *m = nullptr;
    if (kcbp_mesh_load(path, &m, &err) != KCBP_OK) {
        std::fprintf(stderr, "self_cgal: %s\n", err.msg);
        return false;
    }
    auto t0 = Clock::now();
    const kcbp_vec3 *v = kcbp_mesh_vertices(m);
    const kcbp_tri *t = kcbp_mesh_triangles(m);
    std::vector<Mesh::Vertex_index> vi(kcbp_mesh_vertex_count(m));
    std::map<std::array<double, 3>, Mesh::Vertex_index> at;
    for (uint32_t i = 0; i < kcbp_mesh_vertex_count(m); i++) {
        std::array<double, 3> key = {v[i].x + 0.0, v[i].y + 0.0, v[i].z + 0.0};
        auto it = weld ? at.find(key) : at.end();
        if (it != at.end()) {
            vi[i] = it->second;
        } else {
            vi[i] = mesh.add_vertex(K::Point_3(v[i].x, v[i].y, v[i].z));
            if (weld)
                at[key] = vi[i];
        }
    }
    bool ok = true;
    for (uint32_t i = 0; i < kcbp_mesh_triangle_count(m) && ok; i++) {
        Mesh::Face_index f = mesh.add_face(vi[t[i].v[0]], vi[t[i].v[1]], vi[t[i].v[2]]);
        if (f != Mesh::null_face()) {
            if (face_tri)
                face_tri->push_back(i);
        } else if (refused) {
            refused->push_back(i);
        } else {
            std::fprintf(stderr, "self_cgal: %s: triangle %u cannot join a Surface_mesh (not an oriented 2-manifold)\n",
                         path, i);
            ok = false;
        }
    }
    *ms = ms_since(t0);
    kcbp_mesh_free(m);
    return ok;
}

static int triangulate(const char *in, const char *out)
{
    std::vector<K::Point_3> points;
    std::vector<std::vector<std::size_t>> polygons;
    if (!CGAL::IO::read_polygon_soup(in, points, polygons)) {
        std::fprintf(stderr, "self_cgal: %s: CGAL cannot read it\n", in);
        return 3;
    }
    Mesh mesh;
    PMP::polygon_soup_to_polygon_mesh(points, polygons, mesh);
    if (!PMP::triangulate_faces(mesh)) {
        std::fprintf(stderr, "self_cgal: %s: triangulate_faces failed\n", in);
        return 3;
    }
    FILE *f = std::fopen(out, "w");
    if (!f) {
        std::fprintf(stderr, "self_cgal: cannot write %s\n", out);
        return 4;
    }
    std::fprintf(f, "# %s, its faces triangulated by CGAL::Polygon_mesh_processing::triangulate_faces\n", in);
    std::vector<std::size_t> number(mesh.number_of_vertices() + mesh.number_of_removed_vertices());
    std::size_t k = 0;
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
    return std::fclose(f) == 0 ? 0 : 4;
}

int main(int argc, char **argv)
{
    if (argc == 4 && std::strcmp(argv[1], "--triangulate") == 0)
        return triangulate(argv[2], argv[3]);
    if (argc == 3 && std::strcmp(argv[1], "--pairs") == 0) {
        Mesh mesh;
        double ms;
        std::vector<unsigned> face_tri, refused;
        if (!load(argv[2], mesh, &ms, true, &face_tri, &refused))
            return 3;
        std::vector<std::pair<Mesh::Face_index, Mesh::Face_index>> pairs;
        PMP::self_intersections(mesh, std::back_inserter(pairs));
        std::vector<std::pair<unsigned, unsigned>> out, unlinked;
        for (auto &p : pairs) {
            unsigned a = face_tri[p.first.idx()], b = face_tri[p.second.idx()];
            /* Two faces with two common vertices that the halfedges do not
             * make neighbours (their other faces refused round that edge):
             * CGAL takes them as sharing one vertex, whose opposite edge
             * then holds the other and "meets" the other face; kcbp takes
             * the edge as shared. Listed apart. */
            int common = 0;
            bool linked = false;
            for (auto h : CGAL::halfedges_around_face(mesh.halfedge(p.first), mesh)) {
                for (auto k : CGAL::halfedges_around_face(mesh.halfedge(p.second), mesh))
                    common += mesh.target(h) == mesh.target(k);
                linked |= mesh.face(mesh.opposite(h)) == p.second;
            }
            (common == 2 && !linked ? unlinked : out).emplace_back(std::min(a, b), std::max(a, b));
        }
        std::sort(out.begin(), out.end());
        for (unsigned r : refused)
            std::printf("refused %u\n", r);
        for (auto &p : unlinked)
            std::printf("unlinked %u %u\n", p.first, p.second);
        for (auto &p : out)
            std::printf("%u %u\n", p.first, p.second);
        return 0;
    }
    int runs = argc == 3 ? std::atoi(argv[2]) : 3;
    if (argc < 2 || argc > 3 || argv[1][0] == '-' || runs < 1 || runs > 1000) {
        std::fprintf(stderr, "usage: %s MESH [RUNS=3 (1..1000)] | --pairs MESH | --triangulate IN.obj OUT.obj\n",
                     argv[0]);
        return 2;
    }
    Mesh mesh;
    double mesh_ms;
    if (!load(argv[1], mesh, &mesh_ms))
        return 3;
    std::vector<double> ms;
    int answer = -1;
    for (int r = 0; r < runs; r++) {
        auto t0 = Clock::now();
        bool yes = PMP::does_self_intersect(mesh);
        ms.push_back(ms_since(t0));
        if (answer >= 0 && answer != (yes ? 1 : 0)) {
            std::fprintf(stderr, "self_cgal: the answer changed between runs\n");
            return 1;
        }
        answer = yes ? 1 : 0;
    }
    std::sort(ms.begin(), ms.end());
    double med = runs % 2 ? ms[runs / 2] : 0.5 * (ms[runs / 2 - 1] + ms[runs / 2]);
    std::printf("# self_cgal %s: %zu vertices, %zu triangles, %d runs\n", argv[1], (size_t)mesh.number_of_vertices(),
                (size_t)mesh.number_of_faces(), runs);
    std::printf("self_intersect %d\nmedian_ms %.3f\nmin_ms %.3f\nmax_ms %.3f\nmesh_ms %.3f\n", answer, med, ms[0],
                ms.back(), mesh_ms);
    return 0;
}

// Solids and self-intersection against CGAL (exact predicates kernel).
//
//   solid_exact contain A.obj B.obj POSES SEED
//     B scaled down about its box centre (by 0.1 to 0.5, a factor of 2^-k so
//     that scaling is exact) and posed at random in A's box: kcbp_collide
//     with solid (A at the identity) against CGAL's
//     PMP::do_intersect(do_overlap_test_of_bounded_sides) on the coordinates
//     kcbp's tests receive (B's vertices carried by kcbp_pose_apply), and
//     "contained" against Side_of_triangle_mesh of one vertex. Also times
//     kcbp's containment stage and CGAL's Side_of_triangle_mesh on the same
//     poses.
//   solid_exact tri PAIRS SEED
//     kcbp_tri_intersection (contact geometry, constructed in double)
//     against CGAL's exact intersection of the two triangles (Epeck): on
//     random crossing, coplanar (exactly: dyadic coordinates in the plane
//     z = x + y) and touching pairs, every point kcbp gives is within 1e-9
//     of CGAL's point, segment, triangle or polygon vertices and each of
//     those within 1e-9 of kcbp's, relative to the coordinates.
//   solid_exact self MESH.obj [GRID]
//     kcbp_self_intersections against PMP::self_intersections, every pair;
//     with GRID > 0 the coordinates are first rounded to multiples of
//     scale / GRID (exact: many coplanar, collinear and coincident
//     configurations). Pairs with a degenerate triangle, which CGAL
//     reports only as (f, f), and faces CGAL's Surface_mesh cannot hold
//     (non-manifold) are left out of the comparison and counted.
// Exit status 1 on any disagreement.
#include <CGAL/Exact_predicates_exact_constructions_kernel.h>
#include <CGAL/Exact_predicates_inexact_constructions_kernel.h>
#include <CGAL/intersections.h>
#include <CGAL/Polygon_mesh_processing/intersection.h>
#include <CGAL/Polygon_mesh_processing/self_intersections.h>
#include <CGAL/Side_of_triangle_mesh.h>
#include <CGAL/Surface_mesh.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <tuple>
#include <utility>
#include <vector>

#include <kcbp/kcbp.h>

namespace PMP = CGAL::Polygon_mesh_processing;
typedef CGAL::Exact_predicates_inexact_constructions_kernel K;
typedef K::Point_3 P3;
typedef CGAL::Surface_mesh<P3> Mesh;
typedef Mesh::Face_index F;

namespace {

uint64_t rng_state = 1;
uint64_t next_u64()
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
double uni(double lo, double hi) { return lo + (hi - lo) * (double)(next_u64() >> 11) * 0x1p-53; }

double now_ms()
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// A mesh's arrays, copied out of the library's opaque kcbp_mesh (the 1.0
// API), which the checks below edit (rounding, scaling) and rebuild from.
struct Tris {
    std::vector<kcbp_vec3> vertices;
    std::vector<kcbp_tri> triangles;
    uint32_t nvertices = 0, ntriangles = 0;
    kcbp_aabb bounds = {};
};

Tris tris_of(const kcbp_mesh *m)
{
    Tris t;
    t.nvertices = kcbp_mesh_vertex_count(m);
    t.ntriangles = kcbp_mesh_triangle_count(m);
    t.vertices.assign(kcbp_mesh_vertices(m), kcbp_mesh_vertices(m) + t.nvertices);
    t.triangles.assign(kcbp_mesh_triangles(m), kcbp_mesh_triangles(m) + t.ntriangles);
    t.bounds = kcbp_mesh_bounds(m);
    return t;
}

// A new kcbp_mesh of t's arrays (NULL, with the message printed, on failure).
kcbp_mesh *mesh_of(const Tris &t)
{
    kcbp_mesh *m = nullptr;
    kcbp_error err = {};
    if (kcbp_mesh_create(t.vertices.data(), t.nvertices, t.triangles.data(), t.ntriangles, &m, &err) != KCBP_OK)
        std::fprintf(stderr, "%s\n", err.msg);
    return m;
}

// A Surface_mesh of the given coordinates and triangles, vertices identified
// by coordinates as kcbp does; face_of[t] = the CGAL face of triangle t, or
// an invalid face when it has a repeated vertex or add_face refused it.
Mesh to_cgal(const std::vector<kcbp_vec3> &v, const Tris &m, std::vector<F> &face_of, size_t *refused)
{
    Mesh out;
    std::map<std::tuple<double, double, double>, Mesh::Vertex_index> ids;
    std::vector<Mesh::Vertex_index> vid(v.size());
    for (size_t i = 0; i < v.size(); i++) {
        auto key = std::make_tuple(v[i].x, v[i].y, v[i].z);
        auto it = ids.find(key);
        if (it == ids.end())
            it = ids.emplace(key, out.add_vertex(P3(v[i].x, v[i].y, v[i].z))).first;
        vid[i] = it->second;
    }
    face_of.assign(m.ntriangles, Mesh::null_face());
    *refused = 0;
    for (uint32_t t = 0; t < m.ntriangles; t++) {
        auto a = vid[m.triangles[t].v[0]], b = vid[m.triangles[t].v[1]], c = vid[m.triangles[t].v[2]];
        if (a == b || b == c || c == a)
            continue;
        F f = out.add_face(a, b, c);
        if (f == Mesh::null_face())
            ++*refused;
        face_of[t] = f;
    }
    return out;
}

bool load(const char *path, Tris *t)
{
    kcbp_error err = {};
    kcbp_mesh *m = nullptr;
    if (kcbp_obj_load(path, &m, &err) != KCBP_OK) {
        std::fprintf(stderr, "%s\n", err.msg);
        return false;
    }
    *t = tris_of(m);
    kcbp_mesh_free(m);
    return true;
}

std::vector<kcbp_vec3> coords(const Tris &m) { return m.vertices; }

int run_self(const char *path, double grid)
{
    Tris mesh;
    if (!load(path, &mesh))
        return 2;
    if (grid > 0) {
        kcbp_mesh *m = mesh_of(mesh);
        if (!m)
            return 2;
        double step = kcbp_mesh_scale(m) / grid;
        kcbp_mesh_free(m);
        for (uint32_t i = 0; i < mesh.nvertices; i++) {
            kcbp_vec3 &p = mesh.vertices[i];
            p = kcbp_v3(std::nearbyint(p.x / step) * step, std::nearbyint(p.y / step) * step,
                        std::nearbyint(p.z / step) * step);
        }
    }
    std::vector<kcbp_vec3> v = coords(mesh);
    kcbp_model model;
    kcbp_error err = {};
    kcbp_model_options mo = kcbp_model_options_default();
    mo.k = 0;
    kcbp_mesh *copy = mesh_of(mesh);
    if (!copy || kcbp_model_build(&model, copy, &mo, &err) != KCBP_OK) {
        std::fprintf(stderr, "%s\n", err.msg);
        return 2;
    }
    double t0 = now_ms();
    kcbp_contact *pairs;
    size_t npairs;
    if (kcbp_self_intersections(&model, KCBP_CONTACTS_ALL, &pairs, &npairs, nullptr, &err) != KCBP_OK) {
        std::fprintf(stderr, "%s\n", err.msg);
        return 2;
    }
    double t1 = now_ms();
    std::vector<F> face_of;
    size_t refused;
    Mesh cm = to_cgal(v, mesh, face_of, &refused);
    std::map<F, uint32_t> tri_of;
    for (uint32_t t = 0; t < mesh.ntriangles; t++)
        if (face_of[t] != Mesh::null_face())
            tri_of[face_of[t]] = t;
    std::vector<std::pair<F, F>> cg;
    double t2 = now_ms();
    PMP::self_intersections(cm, std::back_inserter(cg));
    double t3 = now_ms();
    std::set<uint32_t> degenerate; // CGAL's (f, f)
    std::set<std::pair<uint32_t, uint32_t>> want, got;
    for (auto &p : cg) {
        uint32_t a = tri_of.at(p.first), b = tri_of.at(p.second);
        if (a == b)
            degenerate.insert(a);
        else
            want.insert({std::min(a, b), std::max(a, b)});
    }
    auto shared = [&](uint32_t a, uint32_t b) {
        int n = 0;
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) {
                kcbp_vec3 p = v[mesh.triangles[a].v[i]], q = v[mesh.triangles[b].v[j]];
                n += p.x == q.x && p.y == q.y && p.z == q.z;
            }
        return n;
    };
    // Two faces with two common vertices that CGAL's halfedges do not make
    // neighbours (a non-manifold edge): CGAL takes them as sharing one vertex,
    // whose opposite edge then holds the other one and "meets" the other
    // face; kcbp takes the shared edge as shared. Left out.
    auto adjacent = [&](F f, F g) {
        for (auto h : CGAL::halfedges_around_face(cm.halfedge(f), cm))
            if (cm.face(cm.opposite(h)) == g)
                return true;
        return false;
    };
    size_t nonmanifold = 0;
    auto comparable = [&](uint32_t a, uint32_t b) {
        if (face_of[a] == Mesh::null_face() || face_of[b] == Mesh::null_face() || degenerate.count(a) ||
            degenerate.count(b))
            return false;
        return shared(a, b) != 2 || adjacent(face_of[a], face_of[b]);
    };
    for (auto &p : want)
        nonmanifold += face_of[p.first] != Mesh::null_face() && face_of[p.second] != Mesh::null_face() &&
                       shared(p.first, p.second) == 2 && !adjacent(face_of[p.first], face_of[p.second]);
    for (size_t i = 0; i < npairs; i++)
        if (comparable(pairs[i].a, pairs[i].b))
            got.insert({pairs[i].a, pairs[i].b});
    std::set<std::pair<uint32_t, uint32_t>> want_c;
    for (auto &p : want)
        if (comparable(p.first, p.second))
            want_c.insert(p);
    size_t bad = 0;
    for (auto &p : want_c)
        if (!got.count(p) && bad++ < 5)
            std::printf("  missed by kcbp: %u %u (sharing %d vertices)\n", p.first, p.second, shared(p.first, p.second));
    for (auto &p : got)
        if (!want_c.count(p) && bad++ < 10)
            std::printf("  not in CGAL: %u %u\n", p.first, p.second);
    size_t extra = 0;
    for (auto &p : got)
        extra += !want_c.count(p);
    size_t missed = 0;
    for (auto &p : want_c)
        missed += !got.count(p);
    std::printf("self %s grid %g: %u triangles, kcbp %zu pairs (%.1f ms), CGAL %zu pairs (%.1f ms); "
                "compared %zu, degenerate %zu, refused faces %zu, non-manifold edge pairs %zu: %s\n",
                path, grid, mesh.ntriangles, npairs, t1 - t0, cg.size(), t3 - t2, want_c.size(), degenerate.size(),
                refused, nonmanifold, missed + extra ? "DISAGREE" : "agree");
    std::free(pairs);
    kcbp_model_free(&model);
    return missed + extra ? 1 : 0;
}

int run_contain(const char *pa, const char *pb, int nposes)
{
    Tris ma, mb;
    if (!load(pa, &ma) || !load(pb, &mb))
        return 2;
    kcbp_model_options mo = kcbp_model_options_default();
    mo.solid = true;
    kcbp_error err = {};
    std::vector<kcbp_vec3> va = coords(ma);
    const Tris &keep_a = ma;
    kcbp_model a;
    kcbp_mesh *mesh_a = mesh_of(ma);
    if (!mesh_a || kcbp_model_build(&a, mesh_a, &mo, &err) != KCBP_OK) {
        std::fprintf(stderr, "%s: %s\n", pa, err.msg);
        return 2;
    }
    std::vector<F> fa;
    size_t refused;
    Mesh ca = to_cgal(va, keep_a, fa, &refused);
    CGAL::Side_of_triangle_mesh<Mesh, K> side_a(ca);
    (void)side_a(P3(va[0].x, va[0].y, va[0].z)); // builds its AABB tree, which the timings leave out
    kcbp_aabb box = kcbp_mesh_bounds(kcbp_model_mesh(&a));
    kcbp_vec3 ext = kcbp_v3_sub(box.max, box.min);
    double ext_max = std::max(ext.x, std::max(ext.y, ext.z));
    // B scaled by 2^-k (exact) about its box centre, rounded to a multiple of 2^-k too.
    kcbp_aabb bb = mb.bounds;
    kcbp_vec3 bext = kcbp_v3_sub(bb.max, bb.min);
    double bmax = std::max(bext.x, std::max(bext.y, bext.z));
    double s = std::exp2(std::floor(std::log2(0.15 * ext_max / bmax)));
    kcbp_vec3 c = kcbp_aabb_center(bb);
    for (uint32_t i = 0; i < mb.nvertices; i++)
        mb.vertices[i] = kcbp_v3_scale(kcbp_v3_sub(mb.vertices[i], c), s);
    kcbp_mesh *mb2 = mesh_of(mb);
    if (!mb2)
        return 2;
    kcbp_model b;
    if (kcbp_model_build(&b, mb2, &mo, &err) != KCBP_OK) {
        std::fprintf(stderr, "%s: %s\n", pb, err.msg);
        return 2;
    }
    kcbp_collide_options o = kcbp_collide_options_default();
    o.solid = true;
    o.contacts = KCBP_CONTACTS_NONE;
    kcbp_collide_result r = {};
    kcbp_pose id = kcbp_pose_identity();
    int bad = 0, counts[4] = {0, 0, 0, 0};
    double kcbp_ms = 0, cgal_ms = 0;
    int timed = 0;
    for (int i = 0; i < nposes; i++) {
        kcbp_vec3 axis = kcbp_v3(uni(-1, 1), uni(-1, 1), uni(-1, 1));
        kcbp_vec3 t = kcbp_v3(uni(box.min.x, box.max.x), uni(box.min.y, box.max.y), uni(box.min.z, box.max.z));
        kcbp_pose pb;
        if (kcbp_v3_len(axis) < 1e-3 || kcbp_pose_from_axis_angle(t, axis, uni(0, 360), &pb, &err) != KCBP_OK)
            continue;
        if (kcbp_collide(&a, &id, &b, &pb, &o, &r, &err) != KCBP_OK) {
            std::fprintf(stderr, "%s\n", err.msg);
            return 2;
        }
        kcbp_pose rel = kcbp_pose_relative(&id, &pb);
        std::vector<kcbp_vec3> vb(mb.nvertices);
        for (uint32_t k = 0; k < mb.nvertices; k++)
            vb[k] = kcbp_pose_apply(&rel, mb.vertices[k]);
        std::vector<F> fb;
        Mesh cb = to_cgal(vb, mb, fb, &refused);
        bool want = PMP::do_intersect(ca, cb, CGAL::parameters::do_overlap_test_of_bounded_sides(true),
                                      CGAL::parameters::do_overlap_test_of_bounded_sides(true));
        bool surfaces = PMP::do_intersect(ca, cb);
        kcbp_containment want_c = KCBP_CONTAINED_NONE;
        if (want && !surfaces) {
            double t0 = now_ms();
            bool b_in_a = side_a(P3(vb[0].x, vb[0].y, vb[0].z)) == CGAL::ON_BOUNDED_SIDE;
            cgal_ms += now_ms() - t0;
            timed++;
            want_c = b_in_a ? KCBP_CONTAINED_B_IN_A : KCBP_CONTAINED_A_IN_B;
            // kcbp's containment stage alone, on the same pose.
            double t1 = now_ms();
            kcbp_containment again = kcbp_point_in_solid(&a, &id, vb[0]) == KCBP_SOLID_INSIDE
                                         ? KCBP_CONTAINED_B_IN_A
                                         : KCBP_CONTAINED_A_IN_B;
            kcbp_ms += now_ms() - t1;
            (void)again;
        }
        counts[want ? (surfaces ? 1 : 2) : 0]++;
        // The same pair the other way round: A inside B.
        kcbp_collide_result r2 = {};
        if (kcbp_collide(&b, &pb, &a, &id, &o, &r2, &err) != KCBP_OK)
            return 2;
        kcbp_containment mirror = want_c == KCBP_CONTAINED_B_IN_A   ? KCBP_CONTAINED_A_IN_B
                                  : want_c == KCBP_CONTAINED_A_IN_B ? KCBP_CONTAINED_B_IN_A
                                                                    : KCBP_CONTAINED_NONE;
        bool ok2 = r2.collide == want && r2.contained == mirror;
        kcbp_collide_result_free(&r2);
        if (r.collide != want || r.contained != want_c || !ok2) {
            if (bad++ < 5)
                std::printf("  pose %d: kcbp collide %d contained %s, CGAL %d %s\n", i, r.collide,
                            kcbp_containment_name(r.contained), want, kcbp_containment_name(want_c));
        }
    }
    std::printf("contain %s %s: %d poses (apart %d, surfaces meet %d, nested %d): %s; one point in solid: "
                "kcbp %.4f ms, CGAL Side_of_triangle_mesh %.4f ms (mean of %d)\n",
                pa, pb, nposes, counts[0], counts[1], counts[2], bad ? "DISAGREE" : "agree",
                timed ? kcbp_ms / timed : 0.0, timed ? cgal_ms / timed : 0.0, timed);
    kcbp_collide_result_free(&r);
    kcbp_model_free(&a);
    kcbp_model_free(&b);
    return bad ? 1 : 0;
}

typedef CGAL::Exact_predicates_exact_constructions_kernel EK;

std::vector<kcbp_vec3> cgal_points(const kcbp_vec3 a[3], const kcbp_vec3 b[3], bool *met)
{
    auto P = [](kcbp_vec3 v) { return EK::Point_3(v.x, v.y, v.z); };
    auto D = [](const EK::Point_3 &p) {
        return kcbp_v3(CGAL::to_double(p.x()), CGAL::to_double(p.y()), CGAL::to_double(p.z()));
    };
    EK::Triangle_3 ta(P(a[0]), P(a[1]), P(a[2])), tb(P(b[0]), P(b[1]), P(b[2]));
    std::vector<kcbp_vec3> out;
    auto r = CGAL::intersection(ta, tb);
    *met = bool(r);
    if (!r)
        return out;
    if (const EK::Point_3 *p = boost::get<EK::Point_3>(&*r))
        out.push_back(D(*p));
    else if (const EK::Segment_3 *sg = boost::get<EK::Segment_3>(&*r))
        out = {D(sg->source()), D(sg->target())};
    else if (const EK::Triangle_3 *t = boost::get<EK::Triangle_3>(&*r))
        out = {D(t->vertex(0)), D(t->vertex(1)), D(t->vertex(2))};
    else if (const std::vector<EK::Point_3> *v = boost::get<std::vector<EK::Point_3>>(&*r))
        for (auto &p : *v)
            out.push_back(D(p));
    return out;
}

// Every point of p within tol of some point of q.
bool near_all(const std::vector<kcbp_vec3> &p, const std::vector<kcbp_vec3> &q, double tol)
{
    for (auto &x : p) {
        bool ok = false;
        for (auto &y : q)
            ok |= kcbp_v3_len(kcbp_v3_sub(x, y)) <= tol;
        if (!ok)
            return false;
    }
    return true;
}

int run_tri(long pairs)
{
    long tested = 0, bad = 0, kinds[3] = {0, 0, 0};
    for (long i = 0; i < pairs; i++) {
        kcbp_vec3 a[3], b[3];
        int kind = (int)(next_u64() % 3);
        for (int k = 0; k < 3; k++) {
            if (kind == 0) { // random
                a[k] = kcbp_v3(uni(-1, 1), uni(-1, 1), uni(-1, 1));
                b[k] = kcbp_v3(uni(-1, 1), uni(-1, 1), uni(-1, 1));
            } else { // dyadic grid: coplanar (kind 1) or not, often touching
                auto g = [] { return (double)((int64_t)(next_u64() % 9) - 4) / 4; };
                double ax = g(), ay = g(), bx = g(), by = g(); // in this order (arguments' is unspecified)
                a[k] = kcbp_v3(ax, ay, 0);
                b[k] = kcbp_v3(bx, by, 0);
                a[k].z = a[k].x + a[k].y;
                b[k].z = kind == 1 ? b[k].x + b[k].y : g();
            }
        }
        auto P = [](kcbp_vec3 v) { return EK::Point_3(v.x, v.y, v.z); };
        if (CGAL::collinear(P(a[0]), P(a[1]), P(a[2])) || CGAL::collinear(P(b[0]), P(b[1]), P(b[2])))
            continue; // CGAL's triangle intersection needs triangles (test_contact_geom has a degenerate case)
        bool met;
        std::vector<kcbp_vec3> want = cgal_points(a, b, &met);
        if (met != kcbp_tri_intersect(a, b, 0)) {
            if (bad++ < 5)
                std::printf("  pair %ld: kcbp_tri_intersect disagrees with CGAL\n", i);
            continue;
        }
        if (!met)
            continue;
        tested++;
        kinds[kind]++;
        kcbp_vec3 out[KCBP_CONTACT_POINTS_MAX];
        uint32_t n = kcbp_tri_intersection(a, b, out);
        std::vector<kcbp_vec3> got(out, out + n);
        if (!near_all(got, want, 1e-9) || !near_all(want, got, 1e-9)) {
            if (bad++ < 5) {
                std::printf("  pair %ld (kind %d): kcbp %u points, CGAL %zu\n", i, kind, n, want.size());
                for (int k = 0; k < 3; k++)
                    std::printf("    a %.17g %.17g %.17g  b %.17g %.17g %.17g\n", a[k].x, a[k].y, a[k].z, b[k].x,
                                b[k].y, b[k].z);
                for (auto &p : got)
                    std::printf("    kcbp %.17g %.17g %.17g\n", p.x, p.y, p.z);
                for (auto &p : want)
                    std::printf("    CGAL %.17g %.17g %.17g\n", p.x, p.y, p.z);
            }
        }
    }
    std::printf("tri: %ld pairs, %ld intersecting compared (random %ld, coplanar %ld, grid %ld): %s\n", pairs,
                tested, kinds[0], kinds[1], kinds[2], bad ? "DISAGREE" : "agree");
    return bad ? 1 : 0;
}

} // namespace

int main(int argc, char **argv)
{
    if (argc >= 3 && !std::strcmp(argv[1], "tri")) {
        rng_state = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 1;
        return run_tri(std::atol(argv[2]));
    }
    if (argc >= 3 && !std::strcmp(argv[1], "self"))
        return run_self(argv[2], argc > 3 ? std::atof(argv[3]) : 0);
    if (argc >= 4 && !std::strcmp(argv[1], "contain")) {
        rng_state = argc > 5 ? std::strtoull(argv[5], nullptr, 10) : 1;
        return run_contain(argv[2], argv[3], argc > 4 ? std::atoi(argv[4]) : 100);
    }
    std::fprintf(stderr, "usage: solid_exact contain A.obj B.obj [POSES] [SEED] | self MESH.obj [GRID] | tri PAIRS [SEED]\n");
    return 2;
}

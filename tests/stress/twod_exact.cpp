// The 2D layer against CGAL's exact predicates (style §4.2's CGAL 2D
// oracle).
//
//   twod_exact PAIRS SEED
//     Random pairs, on the coordinates kcbp2d answers for (the posed
//     vertices: kcbp2d_pose_apply, A at the identity for the models):
//       - convex polygons (3..12 vertices; a third on a small integer grid
//         with quarter turns, so that touching, collinear edges and shared
//         vertices are common; a third moved to within 1e-13 of touching),
//         kcbp2d_collide, and kcbp2d_distance (its status against the
//         same oracle, its distance against the exact one below; with
//         want_depth false, the same status and distance as the default);
//       - polygons with a hole (star rings, 3..40 vertices), kcbp2d_model_collide
//         and kcbp2d_model_distance;
//     against CGAL (Epick's exact predicates): closed regions meet when two
//     boundary segments meet (CGAL::do_intersect) or a vertex of one lies
//     inside the other (Polygon_2::bounded_side, holes subtracted); and the
//     distance of regions apart against the smallest exact segment distance
//     (Epeck's squared_distance), to 1e-12 of the scale.
// Exit status 1 on any disagreement.
#include <CGAL/Exact_predicates_exact_constructions_kernel.h>
#include <CGAL/Exact_predicates_inexact_constructions_kernel.h>
#include <CGAL/Polygon_2.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <kcbp/kcbp2d.h>

typedef CGAL::Exact_predicates_inexact_constructions_kernel K;
typedef CGAL::Exact_predicates_exact_constructions_kernel KE;
typedef K::Point_2 P;
typedef K::Segment_2 S;
typedef CGAL::Polygon_2<K> Poly;

static unsigned long long rs;
static double uni()
{
    rs ^= rs << 13, rs ^= rs >> 7, rs ^= rs << 17;
    return (double)(rs >> 11) * (1.0 / 9007199254740992.0);
}
static double range(double lo, double hi) { return lo + (hi - lo) * uni(); }

// Rings as point lists; a region is rings[0] minus rings[1..].
typedef std::vector<std::vector<kcbp_vec2>> region;

static bool inside(const region &g, kcbp_vec2 x)
{
    P p(x.x, x.y);
    for (size_t r = 0; r < g.size(); r++) {
        Poly poly;
        for (auto v : g[r])
            poly.push_back(P(v.x, v.y));
        CGAL::Bounded_side s = poly.bounded_side(p);
        if (r == 0 && s == CGAL::ON_UNBOUNDED_SIDE)
            return false;
        if (r == 0 && s == CGAL::ON_BOUNDARY)
            return true;
        if (r > 0 && s != CGAL::ON_UNBOUNDED_SIDE)
            return s == CGAL::ON_BOUNDARY; // in a hole: only its boundary is in the region
    }
    return true;
}

static bool oracle_meet(const region &a, const region &b, double *dist)
{
    bool meet = false;
    KE::FT best = -1;
    for (auto &ra : a)
        for (size_t i = 0; i < ra.size(); i++) {
            kcbp_vec2 p0 = ra[i], p1 = ra[(i + 1) % ra.size()];
            S sa(P(p0.x, p0.y), P(p1.x, p1.y));
            KE::Segment_2 ea(KE::Point_2(p0.x, p0.y), KE::Point_2(p1.x, p1.y));
            for (auto &rb : b)
                for (size_t j = 0; j < rb.size(); j++) {
                    kcbp_vec2 q0 = rb[j], q1 = rb[(j + 1) % rb.size()];
                    if (CGAL::do_intersect(sa, S(P(q0.x, q0.y), P(q1.x, q1.y))))
                        meet = true;
                    if (dist) {
                        KE::FT d = CGAL::squared_distance(ea, KE::Segment_2(KE::Point_2(q0.x, q0.y),
                                                                             KE::Point_2(q1.x, q1.y)));
                        if (best < 0 || d < best)
                            best = d;
                    }
                }
        }
    if (!meet)
        meet = inside(a, b[0][0]) || inside(b, a[0][0]);
    if (dist)
        *dist = meet ? 0 : std::sqrt(CGAL::to_double(best));
    return meet;
}

static std::vector<kcbp_vec2> convex(double sc, bool grid)
{
    for (;;) {
        kcbp_vec2 p[12], h[12];
        size_t n = 3 + (size_t)(uni() * 10), nh = 0;
        for (size_t i = 0; i < n; i++)
            p[i] = grid ? kcbp_v2_make(std::round(range(-3, 3)), std::round(range(-3, 3)))
                        : kcbp_v2_make(range(-sc, sc), range(-sc, sc));
        if (kcbp2d_hull(p, n, h, &nh, nullptr) == KCBP_OK && nh >= 3)
            return std::vector<kcbp_vec2>(h, h + nh);
    }
}

static std::vector<kcbp_vec2> star(uint32_t n, double lo, double hi, bool cw)
{
    std::vector<kcbp_vec2> v(n);
    for (uint32_t i = 0; i < n; i++) {
        double t = 2 * M_PI * ((double)i + 0.8 * uni()) / n, r = range(lo, hi);
        v[cw ? n - 1 - i : i] = kcbp_v2_make(r * std::cos(t), r * std::sin(t));
    }
    return v;
}

int main(int argc, char **argv)
{
    long pairs = argc > 1 ? std::atol(argv[1]) : 10000;
    rs = 0x9E3779B97F4A7C15ull ^ (unsigned long long)(argc > 2 ? std::atol(argv[2]) : 1);
    long bad = 0, yes = 0, no = 0;
    for (long t = 0; t < pairs; t++) {
        if (t % 2 == 0) { // convex shapes
            bool grid = t % 6 == 0;
            double sc = std::pow(10, range(-3, 3));
            std::vector<kcbp_vec2> a = convex(sc, grid), b = convex(sc, grid);
            kcbp2d_pose pa, pb;
            double deg = grid ? 90 * std::floor(range(0, 4)) : range(-180, 180);
            kcbp2d_pose_from_angle(grid ? std::round(range(-3, 3)) : range(-sc, sc),
                                   grid ? std::round(range(-3, 3)) : range(-sc, sc), deg, &pa, nullptr);
            kcbp2d_pose_from_angle(grid ? std::round(range(-3, 3)) : range(-sc, sc),
                                   grid ? std::round(range(-3, 3)) : range(-sc, sc), grid ? 0 : range(-180, 180),
                                   &pb, nullptr);
            kcbp2d_shape sa = kcbp2d_shape_polygon(a.data(), (uint32_t)a.size(), 0),
                         sb = kcbp2d_shape_polygon(b.data(), (uint32_t)b.size(), 0);
            if (t % 6 == 2) { // near touching
                kcbp2d_distance_result d;
                kcbp2d_distance(&sa, &pa, &sb, &pb, nullptr, &d, nullptr);
                pb.trans = kcbp_v2_sub(pb.trans, kcbp_v2_scale(d.normal, d.signed_distance + sc * range(-1e-13, 1e-13)));
            }
            region ga(1), gb(1);
            for (auto v : a)
                ga[0].push_back(kcbp2d_pose_apply(&pa, v));
            for (auto v : b)
                gb[0].push_back(kcbp2d_pose_apply(&pb, v));
            // the library answers for the hull of the posed vertices
            for (region *g : {&ga, &gb}) {
                std::vector<kcbp_vec2> h((*g)[0].size());
                size_t nh;
                kcbp2d_hull((*g)[0].data(), (*g)[0].size(), h.data(), &nh, nullptr);
                h.resize(nh);
                (*g)[0] = h;
            }
            if (ga[0].size() < 3 || gb[0].size() < 3)
                continue;
            kcbp2d_collide_result r;
            kcbp2d_collide(&sa, &pa, &sb, &pb, nullptr, &r, nullptr);
            double dist;
            bool want = oracle_meet(ga, gb, &dist);
            if (r.collide != want) {
                if (bad < 10)
                    std::printf("convex pair %ld: kcbp2d %d, CGAL %d\n", t, r.collide, want);
                bad++;
            }
            // kcbp2d_distance: its status exact, its distance to 1e-12 of the scale
            kcbp2d_distance_result dr;
            kcbp2d_distance(&sa, &pa, &sb, &pb, nullptr, &dr, nullptr);
            if ((dr.status != KCBP2D_APART) != want || (!want && std::fabs(dr.distance - dist) > 1e-12 * dr.scale)) {
                if (bad < 10)
                    std::printf("convex pair %ld: kcbp2d_distance %s %.17g, CGAL %d %.17g\n", t,
                                kcbp2d_distance_status_name(dr.status), dr.distance, want, dist);
                bad++;
            }
            // without the depth (want_depth false): the same status and distance
            kcbp2d_distance_options nd = kcbp2d_distance_options_default();
            nd.want_depth = false;
            kcbp2d_distance_result dn;
            kcbp2d_distance(&sa, &pa, &sb, &pb, &nd, &dn, nullptr);
            if (dn.status != dr.status || dn.distance != dr.distance) {
                if (bad < 10)
                    std::printf("convex pair %ld: want_depth false %s %.17g, default %s %.17g\n", t,
                                kcbp2d_distance_status_name(dn.status), dn.distance,
                                kcbp2d_distance_status_name(dr.status), dr.distance);
                bad++;
            }
            yes += want, no += !want;
        } else { // polygons with a hole
            region ga = {star(8 + (uint32_t)(uni() * 32), 0.6, 1.0, false), star(3 + (uint32_t)(uni() * 10), 0.1, 0.4, true)};
            region gbl = {star(8 + (uint32_t)(uni() * 32), 0.3, 0.5, false), star(3 + (uint32_t)(uni() * 10), 0.05, 0.2, true)};
            std::vector<kcbp_vec2> pa_pts = ga[0], pb_pts = gbl[0];
            pa_pts.insert(pa_pts.end(), ga[1].begin(), ga[1].end());
            pb_pts.insert(pb_pts.end(), gbl[1].begin(), gbl[1].end());
            uint32_t ea[2] = {(uint32_t)ga[0].size(), (uint32_t)pa_pts.size()},
                     eb[2] = {(uint32_t)gbl[0].size(), (uint32_t)pb_pts.size()}, pe[1] = {2};
            kcbp2d_polygons ia = {pa_pts.data(), ea, 2, pe, 1}, ib = {pb_pts.data(), eb, 2, pe, 1};
            kcbp2d_model *ma = nullptr, *mb = nullptr;
            if (kcbp2d_model_build(&ia, &ma, nullptr) != KCBP_OK || kcbp2d_model_build(&ib, &mb, nullptr) != KCBP_OK) {
                kcbp2d_model_free(ma);
                continue;
            }
            kcbp2d_pose id = kcbp2d_pose_identity(), pb;
            kcbp2d_pose_from_angle(range(-1.5, 1.5), range(-1.5, 1.5), range(-180, 180), &pb, nullptr);
            region gb = gbl;
            for (auto &ring : gb)
                for (auto &v : ring)
                    v = kcbp2d_pose_apply(&pb, v);
            kcbp2d_model_distance_result r;
            kcbp2d_model_distance(ma, &id, mb, &pb, &r, nullptr);
            double d;
            bool want = oracle_meet(ga, gb, &d);
            if (r.collide != want || (!want && std::fabs(r.distance - d) > 1e-12 * 4)) {
                if (bad < 10)
                    std::printf("regions %ld: kcbp2d %d %.17g, CGAL %d %.17g\n", t, r.collide, r.distance, want, d);
                bad++;
            }
            yes += want, no += !want;
            kcbp2d_model_free(ma);
            kcbp2d_model_free(mb);
        }
    }
    std::printf("twod_exact: %ld pairs (%ld meet, %ld apart), %ld disagreements\n", yes + no, yes, no, bad);
    return bad ? 1 : 0;
}

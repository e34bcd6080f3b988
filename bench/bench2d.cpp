// The 2D layer's benchmark (issue 35): kcbp2d against its peers, through
// their C and C++ APIs, in loops, on the same inputs.
//   convex: pairs of convex polygons of 3..8 vertices (Box2D's limit) at
//     random poses, half of them placed within 1e-12 of touching; kcbp2d_collide
//     and kcbp2d_distance against Box2D 2.4's b2TestOverlap and b2Distance
//     (its polygon skin radius set to 0, so that both answer for the same
//     sets), the count of overlap answers that differ from kcbp2d's exact
//     one, and of distances that differ from Box2D's by more than 1e-5 on
//     pairs apart by more than 1e-3 (its float coordinates);
//   nonconvex: star polygons with a hole of 10^3..10^5 vertices; kcbp2d's
//     model collide and distance (poses applied inside the query) against
//     GEOS 3.11 at its best: the geometries posed beforehand (not timed),
//     A prepared once, GEOSPreparedIntersects_r and GEOSPreparedDistance_r;
//     and the count of disagreements on collide.
//   toi: convex polygons of 3..8 vertices, B moving across A (half of the
//     motions turning up to 90 degrees): kcbp2d_sweep against Box2D 2.4's
//     b2TimeOfImpact, in process CPU time, medians of interleaved rounds, and
//     the count of answers that disagree to Box2D's tolerance (see bench_toi).
//   convexn: the convex distance rows by vertex count, n = 3..8 (see
//     bench_convex_by_n); convexcg: the convex pairs by class, each loop
//     run once in its own function, for callgrind (see bench_convex_cg).
// Usage: ./bench2d [pairs [toi|convex|convexn|convexcg]] (that part alone) (default 20000
// convex pairs, 200 non-convex queries per size). Prints a table; times are
// per query, microseconds of CPU time, each the median of 7 runs of the loop
// interleaved with the peer's (3 for the non-convex rows), and kcbp's time
// over the peer's.
#include <box2d/box2d.h>
#include <box2d/b2_distance.h>
#include <box2d/b2_time_of_impact.h>
#include <geos_c.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <vector>

extern "C" {
#include <kcbp/kcbp2d.h>
}

// CPU time of this thread, microseconds: the machine is shared, so wall
// time is noise (bench/README.md).
static double now_us()
{
    timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec * 1e-3;
}

// Repetitions of each timed loop, interleaved with the peer's; medians.
static const int REPS = 7;

static double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

struct rng {
    uint64_t s;
    double uni()
    {
        s ^= s >> 12, s ^= s << 25, s ^= s >> 27;
        return (double)((s * 0x2545F4914F6CDD1DULL) >> 11) * (1.0 / 9007199254740992.0);
    }
    double range(double lo, double hi) { return lo + (hi - lo) * uni(); }
};

// ---- convex pairs -------------------------------------------------------

struct convex_case {
    std::vector<kcbp_vec2> a, b;
    kcbp2d_pose pa, pb;
};

static std::vector<kcbp_vec2> rnd_convex(rng &r, double sc)
{
    for (;;) {
        kcbp_vec2 p[8], h[8];
        size_t n = 3 + (size_t)(r.uni() * 6), nh = 0;
        for (size_t i = 0; i < n; i++)
            p[i] = kcbp_v2_make(r.range(-sc, sc), r.range(-sc, sc));
        if (kcbp2d_hull(p, n, h, &nh, nullptr) != KCBP_OK || nh < 3)
            continue;
        // Box2D welds vertices closer than its linear slop: keep them apart
        bool ok = true;
        for (size_t i = 0; i < nh; i++)
            ok &= kcbp_v2_len(kcbp_v2_sub(h[i], h[(i + 1) % nh])) > 0.05 * sc;
        if (ok)
            return std::vector<kcbp_vec2>(h, h + nh);
    }
}

static b2Transform b2xf(const kcbp2d_pose &p)
{
    b2Transform t;
    t.p.Set((float)p.trans.x, (float)p.trans.y);
    t.q.s = (float)p.s, t.q.c = (float)p.c;
    return t;
}

// One kcbp2d_distance call on a case (the shapes made as a user's loop
// makes them) and one b2Distance call on the same pair: the loops below time
// these, inlined.
static inline kcbp2d_distance_result kcbp_dist(const convex_case &c, const kcbp2d_distance_options *o)
{
    kcbp2d_shape sa = kcbp2d_shape_polygon(c.a.data(), (uint32_t)c.a.size(), 0),
                 sb = kcbp2d_shape_polygon(c.b.data(), (uint32_t)c.b.size(), 0);
    kcbp2d_distance_result d;
    kcbp2d_distance(&sa, &c.pa, &sb, &c.pb, o, &d, nullptr);
    return d;
}

static inline float box2d_dist(const b2PolygonShape &a, const b2PolygonShape &b, const convex_case &c)
{
    b2DistanceInput in;
    in.proxyA.Set(&a, 0), in.proxyB.Set(&b, 0);
    in.transformA = b2xf(c.pa), in.transformB = b2xf(c.pb);
    in.useRadii = true;
    b2SimplexCache cache;
    cache.count = 0;
    b2DistanceOutput out;
    b2Distance(&out, &cache, &in);
    return out.distance;
}

// The same pairs split by the exact answer, each class against the Box2D
// call that answers the same question: pairs apart against b2Distance (the
// distance and the witnesses), pairs that meet against b2CollidePolygons
// followed by b2WorldManifold::Initialize (Box2D's separating-axis depth:
// the reference edge's normal and each manifold point's separation), since
// kcbp2d_distance answers a meeting pair with its depth and normal, which
// b2Distance never computes (it answers 0). The mixed row above keeps both.
static void bench_convex_classes(const std::vector<convex_case> &cs, const std::vector<b2PolygonShape> &ba,
                                 const std::vector<b2PolygonShape> &bb, const std::vector<char> &exact)
{
    std::vector<int> apart, meet;
    for (int i = 0; i < (int)cs.size(); i++)
        (exact[i] ? meet : apart).push_back(i);
    std::vector<double> ka, kb_, ba_t, bm_t;
    std::vector<double> kdepth(cs.size(), 0), bdepth(cs.size(), 0);
    double sink = 0;
    for (int rep = 0; rep < REPS; rep++) {
        double t0 = now_us();
        for (int i : apart) {
            kcbp2d_distance_result d = kcbp_dist(cs[i], nullptr);
            sink += d.distance;
        }
        ka.push_back((now_us() - t0) / (double)apart.size());
        t0 = now_us();
        for (int i : apart) {
            sink += box2d_dist(ba[i], bb[i], cs[i]);
        }
        ba_t.push_back((now_us() - t0) / (double)apart.size());
        t0 = now_us();
        for (int i : meet) {
            kcbp2d_distance_result d = kcbp_dist(cs[i], nullptr);
            sink += d.normal.x;
            kdepth[i] = d.depth;
        }
        kb_.push_back((now_us() - t0) / (double)meet.size());
        t0 = now_us();
        for (int i : meet) {
            b2Manifold m;
            b2Transform xa = b2xf(cs[i].pa), xb = b2xf(cs[i].pb);
            b2CollidePolygons(&m, &ba[i], xa, &bb[i], xb);
            b2WorldManifold wm;
            double dep = 0;
            if (m.pointCount > 0) {
                wm.Initialize(&m, xa, 0, xb, 0);
                for (int k = 0; k < m.pointCount; k++)
                    dep = std::max(dep, -(double)wm.separations[k]);
                sink += wm.normal.x;
            }
            bdepth[i] = dep;
        }
        bm_t.push_back((now_us() - t0) / (double)meet.size());
    }
    // Box2D picks its reference edge with a bias (0.1 b2_linearSlop toward
    // A's edges) and works in float: its depth may exceed the minimum by
    // that much; counted where either depth is over 1e-3.
    int deep = 0, differ = 0;
    for (int i : meet)
        if (kdepth[i] > 1e-3 || bdepth[i] > 1e-3)
            deep++, differ += std::fabs(kdepth[i] - bdepth[i]) > 1e-3;
    double t_ka = median(ka), t_ba = median(ba_t), t_km = median(kb_), t_bm = median(bm_t);
    std::printf("  by class (the same pairs; each class against the Box2D call answering the same question):\n");
    std::printf("  %-28s %10.3f us/query   kcbp/Box2D %.2f   (%zu pairs apart)\n", "kcbp2d_distance, apart", t_ka,
                t_ka / t_ba, apart.size());
    std::printf("  %-28s %10.3f us/query\n", "Box2D b2Distance, apart", t_ba);
    std::printf("  %-28s %10.3f us/query   kcbp/Box2D %.2f   (%zu pairs meeting: depth and normal)\n",
                "kcbp2d_distance, meeting", t_km, t_km / t_bm, meet.size());
    std::printf("  %-28s %10.3f us/query\n", "Box2D b2CollidePolygons+wm", t_bm);
    std::printf("  depths differing from Box2D's by more than 1e-3 (either over 1e-3): %d of %d\n", differ, deep);
    if (sink == 12345.678)
        std::printf("\n");
}

static void bench_convex(int pairs)
{
    rng r{42};
    std::vector<convex_case> cs(pairs);
    for (auto &c : cs) {
        c.a = rnd_convex(r, 1), c.b = rnd_convex(r, 1);
        kcbp2d_pose_from_angle(0, 0, r.range(-180, 180), &c.pa, nullptr);
        kcbp2d_pose_from_angle(r.range(-2, 2), r.range(-2, 2), r.range(-180, 180), &c.pb, nullptr);
        if (r.uni() < 0.5) { // near touching: moved along the normal to within 1e-12
            kcbp2d_shape sa = kcbp2d_shape_polygon(c.a.data(), (uint32_t)c.a.size(), 0),
                         sb = kcbp2d_shape_polygon(c.b.data(), (uint32_t)c.b.size(), 0);
            kcbp2d_distance_result d;
            kcbp2d_distance(&sa, &c.pa, &sb, &c.pb, nullptr, &d, nullptr);
            double gap = d.signed_distance + r.range(-1e-12, 1e-12);
            c.pb.trans = kcbp_v2_sub(c.pb.trans, kcbp_v2_scale(d.normal, gap));
        }
    }
    // Box2D: shapes made once (not timed), skin radius 0
    std::vector<b2PolygonShape> ba(pairs), bb(pairs);
    for (int i = 0; i < pairs; i++) {
        std::vector<b2Vec2> va, vb;
        for (auto p : cs[i].a)
            va.push_back(b2Vec2((float)p.x, (float)p.y));
        for (auto p : cs[i].b)
            vb.push_back(b2Vec2((float)p.x, (float)p.y));
        ba[i].Set(va.data(), (int32)va.size());
        bb[i].Set(vb.data(), (int32)vb.size());
        ba[i].m_radius = bb[i].m_radius = 0;
    }
    std::vector<char> exact(pairs);
    std::vector<double> kc, kd, kn, bc, bd;
    std::vector<double> kdist(pairs), bdist(pairs); // the distances of the last round, compared below
    std::vector<int> kstat(pairs);
    int nodepth_differ = 0, nodepth_skipped = 0; // want_depth false against the default call
    kcbp2d_distance_options nodepth = kcbp2d_distance_options_default();
    nodepth.want_depth = false;
    double sink = 0;
    int wrong = 0;
    for (int rep = 0; rep < REPS; rep++) {
        double t0 = now_us();
        for (int i = 0; i < pairs; i++) {
            const convex_case &c = cs[i];
            kcbp2d_shape sa = kcbp2d_shape_polygon(c.a.data(), (uint32_t)c.a.size(), 0),
                         sb = kcbp2d_shape_polygon(c.b.data(), (uint32_t)c.b.size(), 0);
            kcbp2d_collide_result res;
            kcbp2d_collide(&sa, &c.pa, &sb, &c.pb, nullptr, &res, nullptr);
            exact[i] = res.collide;
        }
        kc.push_back((now_us() - t0) / pairs);
        t0 = now_us();
        int w = 0;
        for (int i = 0; i < pairs; i++)
            w += b2TestOverlap(&ba[i], 0, &bb[i], 0, b2xf(cs[i].pa), b2xf(cs[i].pb)) != (bool)exact[i];
        bc.push_back((now_us() - t0) / pairs);
        wrong = w;
        t0 = now_us();
        for (int i = 0; i < pairs; i++) {
            kcbp2d_distance_result d = kcbp_dist(cs[i], nullptr);
            sink += d.distance;
            kdist[i] = d.distance;
            kstat[i] = d.status;
        }
        kd.push_back((now_us() - t0) / pairs);
        // the same call without the depth (want_depth false): the same
        // status and distance, checked against the default call's
        t0 = now_us();
        int nd = 0, ns = 0;
        for (int i = 0; i < pairs; i++) {
            kcbp2d_distance_result d = kcbp_dist(cs[i], &nodepth);
            sink += d.distance;
            nd += (int)d.status != kstat[i] || d.distance != kdist[i];
            ns += !d.depth_computed;
        }
        kn.push_back((now_us() - t0) / pairs);
        nodepth_differ = nd, nodepth_skipped = ns;
        t0 = now_us();
        for (int i = 0; i < pairs; i++) {
            float bd_i = box2d_dist(ba[i], bb[i], cs[i]);
            sink += bd_i;
            bdist[i] = bd_i;
        }
        bd.push_back((now_us() - t0) / pairs);
    }
    // the same answers: where either reports more than 1e-3 (Box2D's float
    // coordinates are within about 1e-7 of kcbp2d's double ones), the two
    // distances within 1e-5
    int dist_far = 0, dist_differ = 0;
    for (int i = 0; i < pairs; i++)
        if (kdist[i] > 1e-3 || bdist[i] > 1e-3)
            dist_far++, dist_differ += std::fabs(kdist[i] - bdist[i]) > 1e-5;
    double t_kc = median(kc), t_bc = median(bc), t_kd = median(kd), t_bd = median(bd), t_kn = median(kn);
    std::printf("convex pairs (3..8 vertices, %d pairs, half within 1e-12 of touching)\n", pairs);
    std::printf("  %-28s %10.3f us/query\n", "kcbp2d_collide (exact)", t_kc);
    std::printf("  %-28s %10.3f us/query   kcbp/Box2D %.2f\n", "Box2D b2TestOverlap (float)", t_bc, t_kc / t_bc);
    std::printf("  %-28s %10.3f us/query\n", "kcbp2d_distance", t_kd);
    std::printf("  %-28s %10.3f us/query   kcbp/Box2D %.2f\n", "Box2D b2Distance (float)", t_bd, t_kd / t_bd);
    std::printf("  %-28s %10.3f us/query   kcbp/Box2D %.2f   (no depth: %d of %d pairs; status or distance\n"
                "  %-28s differing from the default call's: %d)\n",
                "kcbp2d_distance want_depth=0", t_kn, t_kn / t_bd, nodepth_skipped, pairs, "", nodepth_differ);
    std::printf("  Box2D overlap answers differing from the exact ones: %d of %d\n", wrong, pairs);
    std::printf("  distances differing from Box2D's by more than 1e-5 (pairs apart by more than 1e-3): %d of %d\n",
                dist_differ, dist_far);
    bench_convex_classes(cs, ba, bb, exact);
    if (sink == 12345.678)
        std::printf("\n");
}

// The convex rows by vertex count (`./bench2d PAIRS convexn`): for each n
// in 3..8, PAIRS pairs of polygons of exactly n vertices (n points at sorted
// random angles on circles of radius 0.6..1, kept when their hull has all n
// and no edge is shorter than 0.05), posed as in bench_convex (half moved to
// within 1e-12 of touching). kcbp2d_distance (default) against b2Distance on
// all pairs, and the meeting pairs against b2CollidePolygons + world
// manifold, interleaved, CPU time, medians of REPS rounds.
static std::vector<kcbp_vec2> rnd_convex_n(rng &r, size_t n)
{
    for (;;) {
        double ang[8];
        kcbp_vec2 p[8], h[8];
        size_t nh = 0;
        for (size_t i = 0; i < n; i++)
            ang[i] = r.range(0, 2 * M_PI);
        std::sort(ang, ang + n);
        for (size_t i = 0; i < n; i++) {
            double rad = r.range(0.6, 1);
            p[i] = kcbp_v2_make(rad * std::cos(ang[i]), rad * std::sin(ang[i]));
        }
        if (kcbp2d_hull(p, n, h, &nh, nullptr) != KCBP_OK || nh != n)
            continue;
        bool ok = true;
        for (size_t i = 0; i < nh; i++)
            ok &= kcbp_v2_len(kcbp_v2_sub(h[i], h[(i + 1) % nh])) > 0.05;
        if (ok)
            return std::vector<kcbp_vec2>(h, h + nh);
    }
}

static void bench_convex_by_n(int pairs)
{
    std::printf("convex pairs by vertex count (%d pairs each, half within 1e-12 of touching; CPU time, medians of %d "
                "interleaved rounds)\n",
                pairs, REPS);
    std::printf("  %2s %10s %10s %6s   %8s %10s %10s %6s\n", "n", "kcbp dist", "b2Distance", "ratio", "meeting",
                "kcbp meet", "b2Collide", "ratio");
    for (size_t n = 3; n <= 8; n++) {
        rng r{1000 + n};
        std::vector<convex_case> cs(pairs);
        for (auto &c : cs) {
            c.a = rnd_convex_n(r, n), c.b = rnd_convex_n(r, n);
            kcbp2d_pose_from_angle(0, 0, r.range(-180, 180), &c.pa, nullptr);
            kcbp2d_pose_from_angle(r.range(-2, 2), r.range(-2, 2), r.range(-180, 180), &c.pb, nullptr);
            if (r.uni() < 0.5) {
                kcbp2d_distance_result d = kcbp_dist(c, nullptr);
                double gap = d.signed_distance + r.range(-1e-12, 1e-12);
                c.pb.trans = kcbp_v2_sub(c.pb.trans, kcbp_v2_scale(d.normal, gap));
            }
        }
        std::vector<b2PolygonShape> ba(pairs), bb(pairs);
        std::vector<int> meet;
        for (int i = 0; i < pairs; i++) {
            std::vector<b2Vec2> va, vb;
            for (auto p : cs[i].a)
                va.push_back(b2Vec2((float)p.x, (float)p.y));
            for (auto p : cs[i].b)
                vb.push_back(b2Vec2((float)p.x, (float)p.y));
            ba[i].Set(va.data(), (int32)va.size());
            bb[i].Set(vb.data(), (int32)vb.size());
            ba[i].m_radius = bb[i].m_radius = 0;
            if (kcbp_dist(cs[i], nullptr).status != KCBP2D_APART)
                meet.push_back(i);
        }
        std::vector<double> kd, bd, km, bm;
        double sink = 0;
        for (int rep = 0; rep < REPS; rep++) {
            double t0 = now_us();
            for (int i = 0; i < pairs; i++)
                sink += kcbp_dist(cs[i], nullptr).distance;
            kd.push_back((now_us() - t0) / pairs);
            t0 = now_us();
            for (int i = 0; i < pairs; i++)
                sink += box2d_dist(ba[i], bb[i], cs[i]);
            bd.push_back((now_us() - t0) / pairs);
            t0 = now_us();
            for (int i : meet)
                sink += kcbp_dist(cs[i], nullptr).normal.x;
            km.push_back((now_us() - t0) / (double)(meet.empty() ? 1 : meet.size()));
            t0 = now_us();
            for (int i : meet) {
                b2Manifold m;
                b2Transform xa = b2xf(cs[i].pa), xb = b2xf(cs[i].pb);
                b2CollidePolygons(&m, &ba[i], xa, &bb[i], xb);
                if (m.pointCount > 0) {
                    b2WorldManifold wm;
                    wm.Initialize(&m, xa, 0, xb, 0);
                    sink += wm.normal.x;
                }
            }
            bm.push_back((now_us() - t0) / (double)(meet.empty() ? 1 : meet.size()));
        }
        double t_kd = median(kd), t_bd = median(bd), t_km = median(km), t_bm = median(bm);
        std::printf("  %2zu %10.3f %10.3f %6.2f   %8zu %10.3f %10.3f %6.2f\n", n, t_kd, t_bd, t_kd / t_bd, meet.size(),
                    t_km, t_bm, t_km / t_bm);
        if (sink == 12345.678)
            std::printf("\n");
    }
}

// `./bench2d PAIRS convexcg`: bench_convex's pairs split by the exact
// collide answer, each class run once through each library in its own
// function, for callgrind's instruction counts per call (no timing):
//   valgrind --tool=callgrind --toggle-collect='cg_kcbp_apart()' bench/bench2d 2000 convexcg
// (Ir over the "apart" count printed; likewise cg_box2d_apart (b2Distance),
// cg_kcbp_meet (kcbp2d_distance: depth and normal), cg_box2d_meet
// (b2CollidePolygons + world manifold), cg_box2d_dist_meet (b2Distance on
// the meeting pairs); or the inclusive cost of each in one run).
static struct {
    std::vector<convex_case> cs;
    std::vector<b2PolygonShape> ba, bb;
    std::vector<int> apart, meet;
    double sink;
} cg;
__attribute__((noinline)) void cg_kcbp_apart()
{
    for (int i : cg.apart)
        cg.sink += kcbp_dist(cg.cs[i], nullptr).distance;
}
__attribute__((noinline)) void cg_box2d_apart()
{
    for (int i : cg.apart)
        cg.sink += box2d_dist(cg.ba[i], cg.bb[i], cg.cs[i]);
}
__attribute__((noinline)) void cg_kcbp_meet()
{
    for (int i : cg.meet)
        cg.sink += kcbp_dist(cg.cs[i], nullptr).normal.x;
}
__attribute__((noinline)) void cg_box2d_dist_meet()
{
    for (int i : cg.meet)
        cg.sink += box2d_dist(cg.ba[i], cg.bb[i], cg.cs[i]);
}
__attribute__((noinline)) void cg_box2d_meet()
{
    for (int i : cg.meet) {
        b2Manifold m;
        b2Transform xa = b2xf(cg.cs[i].pa), xb = b2xf(cg.cs[i].pb);
        b2CollidePolygons(&m, &cg.ba[i], xa, &cg.bb[i], xb);
        if (m.pointCount > 0) {
            b2WorldManifold wm;
            wm.Initialize(&m, xa, 0, xb, 0);
            cg.sink += wm.normal.x;
        }
    }
}

static void bench_convex_cg(int pairs)
{
    rng r{42}; // bench_convex's pairs, drawn in the same order
    cg.cs.resize(pairs);
    for (auto &c : cg.cs) {
        c.a = rnd_convex(r, 1), c.b = rnd_convex(r, 1);
        kcbp2d_pose_from_angle(0, 0, r.range(-180, 180), &c.pa, nullptr);
        kcbp2d_pose_from_angle(r.range(-2, 2), r.range(-2, 2), r.range(-180, 180), &c.pb, nullptr);
        if (r.uni() < 0.5) {
            kcbp2d_distance_result d = kcbp_dist(c, nullptr);
            double gap = d.signed_distance + r.range(-1e-12, 1e-12);
            c.pb.trans = kcbp_v2_sub(c.pb.trans, kcbp_v2_scale(d.normal, gap));
        }
    }
    cg.ba.resize(pairs), cg.bb.resize(pairs);
    for (int i = 0; i < pairs; i++) {
        std::vector<b2Vec2> va, vb;
        for (auto p : cg.cs[i].a)
            va.push_back(b2Vec2((float)p.x, (float)p.y));
        for (auto p : cg.cs[i].b)
            vb.push_back(b2Vec2((float)p.x, (float)p.y));
        cg.ba[i].Set(va.data(), (int32)va.size());
        cg.bb[i].Set(vb.data(), (int32)vb.size());
        cg.ba[i].m_radius = cg.bb[i].m_radius = 0;
        kcbp2d_shape sa = kcbp2d_shape_polygon(cg.cs[i].a.data(), (uint32_t)cg.cs[i].a.size(), 0),
                     sb = kcbp2d_shape_polygon(cg.cs[i].b.data(), (uint32_t)cg.cs[i].b.size(), 0);
        kcbp2d_collide_result res;
        kcbp2d_collide(&sa, &cg.cs[i].pa, &sb, &cg.cs[i].pb, nullptr, &res, nullptr);
        (res.collide ? cg.meet : cg.apart).push_back(i);
    }
    cg_kcbp_apart();
    cg_box2d_apart();
    cg_kcbp_meet();
    cg_box2d_meet();
    cg_box2d_dist_meet();
    std::printf("convex pairs for callgrind: %zu apart, %zu meeting (checksum %.6g)\n", cg.apart.size(), cg.meet.size(),
                cg.sink);
}

// ---- time of impact ----------------------------------------------------

// (now_us and median above: CPU time, medians)
struct toi_case {
    std::vector<kcbp_vec2> a, b;
    kcbp2d_motion ma, mb;
};

// B from the left of A (x in [-4, -3]) to its right (x in [3, 4]), y in
// [-1.5, 1.5] at both ends: most motions meet A. Half turn by up to
// 90 degrees either way (b2_maxRotation). The same shapes and motions for both libraries
// (Box2D's in float, its polygons' skin radius 0 and localCenter the origin,
// so that both move B the same way: linear translation and angle).
// Agreement, to Box2D's tolerance (its target separation linearSlop = 0.005
// with radius 0, give or take a quarter of it): kcbp2d hits only where Box2D
// reports touching (or overlapped); where Box2D reports touching at t_b,
// kcbp2d's toi is not before t_b (Box2D stops short of contact, at the
// target), and the exact distance at Box2D's t_b (kcbp2d_distance on the
// poses of the motion) is the target within its tolerance (plus 1e-4 for
// float); where Box2D reports separated, kcbp2d has no hit.
static void bench_toi(int pairs, int rounds)
{
    rng r{7};
    std::vector<toi_case> cs(pairs);
    for (auto &c : cs) {
        c.a = rnd_convex(r, 1), c.b = rnd_convex(r, 1);
        double da = r.range(-180, 180);
        c.ma = kcbp2d_motion_still(0, 0, da);
        double x0 = r.range(-4, -3), y0 = r.range(-1.5, 1.5), x1 = r.range(3, 4), y1 = r.range(-1.5, 1.5);
        // turns within Box2D's b2_maxRotation per step (a quarter turn), what its solver sends it
        double d0 = r.range(-180, 180), turn = r.uni() < 0.5 ? 0 : r.range(-90, 90);
        c.mb = kcbp2d_motion{kcbp_v2_make(x0, y0), kcbp_v2_make(x1, y1), d0, d0 + turn};
    }
    std::vector<b2PolygonShape> ba(pairs), bb(pairs);
    std::vector<b2TOIInput> in(pairs);
    for (int i = 0; i < pairs; i++) {
        std::vector<b2Vec2> va, vb;
        for (auto p : cs[i].a)
            va.push_back(b2Vec2((float)p.x, (float)p.y));
        for (auto p : cs[i].b)
            vb.push_back(b2Vec2((float)p.x, (float)p.y));
        ba[i].Set(va.data(), (int32)va.size());
        bb[i].Set(vb.data(), (int32)vb.size());
        ba[i].m_radius = bb[i].m_radius = 0;
        b2TOIInput &t = in[i];
        t.proxyA.Set(&ba[i], 0), t.proxyB.Set(&bb[i], 0);
        const kcbp2d_motion &ma = cs[i].ma, &mb = cs[i].mb;
        t.sweepA.localCenter.SetZero();
        t.sweepA.c0.Set((float)ma.from.x, (float)ma.from.y), t.sweepA.c.Set((float)ma.to.x, (float)ma.to.y);
        t.sweepA.a0 = (float)(ma.from_deg * M_PI / 180), t.sweepA.a = (float)(ma.to_deg * M_PI / 180);
        t.sweepA.alpha0 = 0;
        t.sweepB.localCenter.SetZero();
        t.sweepB.c0.Set((float)mb.from.x, (float)mb.from.y), t.sweepB.c.Set((float)mb.to.x, (float)mb.to.y);
        t.sweepB.a0 = (float)(mb.from_deg * M_PI / 180), t.sweepB.a = (float)(mb.to_deg * M_PI / 180);
        t.sweepB.alpha0 = 0;
        t.tMax = 1;
    }
    std::vector<kcbp2d_sweep_result> kr(pairs);
    std::vector<b2TOIOutput> br(pairs);
    std::vector<double> tk, tb;
    kcbp2d_sweep_options o = kcbp2d_sweep_options_default();
    for (int round = 0; round < rounds; round++) { // interleaved: kcbp2d, then Box2D, each round
        double t0 = now_us();
        for (int i = 0; i < pairs; i++) {
            const toi_case &c = cs[i];
            kcbp2d_shape sa = kcbp2d_shape_polygon(c.a.data(), (uint32_t)c.a.size(), 0),
                         sb = kcbp2d_shape_polygon(c.b.data(), (uint32_t)c.b.size(), 0);
            kcbp2d_sweep(&sa, &c.ma, &sb, &c.mb, &o, &kr[i], nullptr);
        }
        tk.push_back((now_us() - t0) / pairs);
        t0 = now_us();
        for (int i = 0; i < pairs; i++)
            b2TimeOfImpact(&br[i], &in[i]);
        tb.push_back((now_us() - t0) / pairs);
    }
    // the same loops on the translating and the turning motions apart
    // (interleaved as above), for where the time goes
    double kind_k[2], kind_b[2];
    for (int turning = 0; turning < 2; turning++) {
        std::vector<int> idx;
        for (int i = 0; i < pairs; i++)
            if ((cs[i].mb.to_deg != cs[i].mb.from_deg) == (turning != 0))
                idx.push_back(i);
        std::vector<double> sk, sb;
        kcbp2d_sweep_result kx;
        b2TOIOutput bx;
        for (int round = 0; round < rounds; round++) {
            double t0 = now_us();
            for (int i : idx) {
                const toi_case &c = cs[i];
                kcbp2d_shape sa = kcbp2d_shape_polygon(c.a.data(), (uint32_t)c.a.size(), 0),
                             sb2 = kcbp2d_shape_polygon(c.b.data(), (uint32_t)c.b.size(), 0);
                kcbp2d_sweep(&sa, &c.ma, &sb2, &c.mb, &o, &kx, nullptr);
            }
            sk.push_back((now_us() - t0) / (double)idx.size());
            t0 = now_us();
            for (int i : idx)
                b2TimeOfImpact(&bx, &in[i]);
            sb.push_back((now_us() - t0) / (double)idx.size());
        }
        kind_k[turning] = median(sk), kind_b[turning] = median(sb);
    }
    const double target = b2_linearSlop, tol = 0.25 * b2_linearSlop;
    int hits = 0, b_touch = 0, b_failed = 0, undecided = 0, confirmed = 0, missed = 0, missed_turning = 0;
    int differ[2] = {0, 0}, cases[2] = {0, 0}; // [turning]
    long iters = 0, steps[2] = {0, 0};
    for (int i = 0; i < pairs; i++) {
        const kcbp2d_sweep_result &k = kr[i];
        const b2TOIOutput &b = br[i];
        const toi_case &c = cs[i];
        bool turning = c.mb.to_deg != c.mb.from_deg;
        cases[turning]++;
        steps[turning] += k.iterations;
        hits += k.hit, confirmed += k.confirmed, undecided += k.undecided, iters += k.iterations;
        b_failed += b.state == b2TOIOutput::e_failed;
        if (k.hit && k.confirmed && b.state == b2TOIOutput::e_separated) {
            // Box2D steps over a contact the exact test finds at kcbp2d's toi
            // (or toi + tau): its separation functions lose a turning body
            missed++, missed_turning += turning;
            continue;
        }
        bool bad = false;
        if (k.hit && b.state != b2TOIOutput::e_touching && b.state != b2TOIOutput::e_overlapped)
            bad = true;
        if (b.state == b2TOIOutput::e_touching) {
            b_touch++;
            if (k.hit && k.toi < b.t - 1e-6) // Box2D stops short of contact, never after it
                bad = true;
            kcbp2d_shape sa = kcbp2d_shape_polygon(c.a.data(), (uint32_t)c.a.size(), 0),
                         sb = kcbp2d_shape_polygon(c.b.data(), (uint32_t)c.b.size(), 0);
            kcbp2d_pose pa, pb;
            kcbp2d_motion_at(&c.ma, b.t, &pa, nullptr);
            kcbp2d_motion_at(&c.mb, b.t, &pb, nullptr);
            kcbp2d_distance_result d;
            kcbp2d_distance(&sa, &pa, &sb, &pb, nullptr, &d, nullptr);
            if (std::fabs(d.signed_distance - target) > tol + 1e-4) // Box2D's target, to its tolerance and float
                bad = true;
        }
        differ[turning] += bad;
    }
    std::printf("time of impact (convex 3..8 vertices, %d motions, %d of them turning; CPU time, median of %d "
                "interleaved rounds)\n",
                pairs, cases[1], rounds);
    std::printf("  %-28s %10.3f us/query  (%d hits, %d confirmed, %d undecided, %.1f steps per query: %.1f "
                "translating, %.1f turning)\n",
                "kcbp2d_sweep (tau 1e-9)", median(tk), hits, confirmed, undecided, (double)iters / pairs,
                (double)steps[0] / cases[0], (double)steps[1] / cases[1]);
    std::printf("  %-28s %10.3f us/query  (%d touching, %d failed)\n", "Box2D b2TimeOfImpact (float)", median(tb),
                b_touch, b_failed);
    for (int turning = 0; turning < 2; turning++)
        std::printf("  %-28s %10.3f us/query  (Box2D %.3f us: %.2fx)\n", turning ? "  turning alone" : "  translating alone",
                    kind_k[turning], kind_b[turning], kind_k[turning] / kind_b[turning]);
    std::printf("  answers disagreeing to Box2D's tolerance: %d of %d translating, %d of %d turning\n", differ[0],
                cases[0], differ[1], cases[1]);
    std::printf("  contacts Box2D reports separated, kcbp2d's confirmed by the exact test: %d (%d turning)\n", missed,
                missed_turning);
}

// ---- non-convex ---------------------------------------------------------

// A star ring of n vertices round the origin: radius rad * (1 + 0.05 sin 7t)
// plus noise in [0, rough * rad) (rough 0.1: a "hairy" ring, every vertex a
// spike, the worst case of box trees); cw reversed.
static void star(rng &r, std::vector<kcbp_vec2> &out, uint32_t n, double rad0, double rough, bool cw)
{
    size_t base = out.size();
    out.resize(base + n);
    for (uint32_t i = 0; i < n; i++) {
        double t = 2 * M_PI * ((double)i + 0.8 * r.uni()) / n;
        double rad = rad0 * (0.9 + 0.05 * std::sin(7 * t)) + r.range(0, rough * rad0);
        out[base + (cw ? n - 1 - i : i)] = kcbp_v2_make(rad * std::cos(t), rad * std::sin(t));
    }
}

static GEOSGeometry *geos_ring(GEOSContextHandle_t h, const std::vector<kcbp_vec2> &v, size_t s, size_t e,
                               const kcbp2d_pose &p)
{
    GEOSCoordSequence *seq = GEOSCoordSeq_create_r(h, (unsigned)(e - s + 1), 2);
    for (size_t i = s; i <= e; i++) {
        kcbp_vec2 q = kcbp2d_pose_apply(&p, v[i < e ? i : s]);
        GEOSCoordSeq_setXY_r(h, seq, (unsigned)(i - s), q.x, q.y);
    }
    return GEOSGeom_createLinearRing_r(h, seq);
}

static GEOSGeometry *geos_polygon(GEOSContextHandle_t h, const std::vector<kcbp_vec2> &v, uint32_t split,
                                  const kcbp2d_pose &p)
{
    GEOSGeometry *shell = geos_ring(h, v, 0, split, p);
    GEOSGeometry *hole = geos_ring(h, v, split, v.size(), p);
    GEOSGeometry *holes[1] = {hole};
    return GEOSGeom_createPolygon_r(h, shell, holes, 1);
}

static void bench_nonconvex(int queries, double rough)
{
    GEOSContextHandle_t h = GEOS_init_r();
    std::printf("\nnon-convex polygons with a hole, %s boundary (%d poses per size; GEOS: posed beforehand, "
                "A prepared)\n",
                rough < 0.01 ? "smooth" : "hairy", queries);
    std::printf("  %8s %12s %12s %7s %12s %12s %7s %9s\n", "vertices", "kcbp collide", "GEOS inters.", "ratio",
                "kcbp dist", "GEOS dist", "ratio", "disagree");
    for (uint32_t n : {1000u, 10000u, 100000u}) {
        rng r{7 + n};
        std::vector<kcbp_vec2> va, vb;
        star(r, va, n - n / 4, 1.0, rough, false);
        star(r, va, n / 4, 0.35, rough, true);
        star(r, vb, n - n / 4, 1.0, rough, false);
        star(r, vb, n / 4, 0.35, rough, true);
        uint32_t ea[2] = {n - n / 4, n}, pe[1] = {2};
        kcbp2d_polygons ia = {va.data(), ea, 2, pe, 1}, ib = {vb.data(), ea, 2, pe, 1};
        kcbp2d_model *ma, *mb;
        kcbp_error err;
        if (kcbp2d_model_build(&ia, &ma, &err) != KCBP_OK || kcbp2d_model_build(&ib, &mb, &err) != KCBP_OK) {
            std::printf("build: %s\n", err.msg);
            return;
        }
        std::vector<kcbp2d_pose> poses(queries);
        for (auto &p : poses) // B half a unit to three units away: crossings, holes, apart
            kcbp2d_pose_from_angle(r.range(-2.5, 2.5), r.range(-2.5, 2.5), r.range(-180, 180), &p, nullptr);
        kcbp2d_pose id = kcbp2d_pose_identity();
        GEOSGeometry *ga = geos_polygon(h, va, ea[0], id);
        const GEOSPreparedGeometry *pa = GEOSPrepare_r(h, ga);
        std::vector<GEOSGeometry *> gb(queries);
        for (int i = 0; i < queries; i++)
            gb[i] = geos_polygon(h, vb, ea[0], poses[i]);
        std::vector<char> kc(queries);
        std::vector<double> vkc, vgc, vkd, vgd;
        double sink = 0;
        int disagree = 0;
        for (int rep = 0; rep < 3; rep++) {
            double t0 = now_us();
            for (int i = 0; i < queries; i++) {
                kcbp2d_model_collide_result res;
                kcbp2d_model_collide(ma, &id, mb, &poses[i], nullptr, &res, nullptr);
                kc[i] = res.collide;
            }
            vkc.push_back((now_us() - t0) / queries);
            t0 = now_us();
            int dis = 0;
            for (int i = 0; i < queries; i++)
                dis += (GEOSPreparedIntersects_r(h, pa, gb[i]) == 1) != (bool)kc[i];
            vgc.push_back((now_us() - t0) / queries);
            disagree = dis;
            t0 = now_us();
            for (int i = 0; i < queries; i++) {
                kcbp2d_model_distance_result res;
                kcbp2d_model_distance(ma, &id, mb, &poses[i], &res, nullptr);
                sink += res.distance;
            }
            vkd.push_back((now_us() - t0) / queries);
            t0 = now_us();
            for (int i = 0; i < queries; i++) {
                double d = 0;
                GEOSPreparedDistance_r(h, pa, gb[i], &d);
                sink += d;
            }
            vgd.push_back((now_us() - t0) / queries);
        }
        double t_kc = median(vkc), t_gc = median(vgc), t_kd = median(vkd), t_gd = median(vgd);
        std::printf("  %8u %12.1f %12.1f %7.3f %12.1f %12.1f %7.3f %9d\n", n, t_kc, t_gc, t_kc / t_gc, t_kd, t_gd,
                    t_kd / t_gd, disagree);
        for (auto g : gb)
            GEOSGeom_destroy_r(h, g);
        GEOSPreparedGeom_destroy_r(h, pa);
        GEOSGeom_destroy_r(h, ga);
        kcbp2d_model_free(ma);
        kcbp2d_model_free(mb);
        if (sink == 12345.678)
            std::printf("\n");
    }
    GEOS_finish_r(h);
}

int main(int argc, char **argv)
{
    int pairs = argc > 1 ? std::atoi(argv[1]) : 20000;
    if (pairs < 1)
        pairs = 1;
    if (argc > 2 && !std::strcmp(argv[2], "toi")) { // ./bench2d PAIRS toi: the time of impact alone
        bench_toi(pairs, 7);
        return 0;
    }
    if (argc > 2 && !std::strcmp(argv[2], "convexcg")) { // ./bench2d PAIRS convexcg: each class once, for callgrind
        bench_convex_cg(pairs);
        return 0;
    }
    if (argc > 2 && !std::strcmp(argv[2], "convexn")) { // ./bench2d PAIRS convexn: the convex rows by vertex count
        bench_convex_by_n(pairs);
        return 0;
    }
    bench_convex(pairs);
    if (argc > 2 && !std::strcmp(argv[2], "convex")) // ./bench2d PAIRS convex: the convex rows alone
        return 0;
    bench_toi(pairs, 7);
    bench_nonconvex(pairs >= 20000 ? 200 : 20, 0.001);
    bench_nonconvex(pairs >= 20000 ? 50 : 10, 0.1);
    return 0;
}

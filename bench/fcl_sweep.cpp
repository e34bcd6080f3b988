// fcl_sweep: the FCL 0.7 peer of `kcbp sweep A B --sweeps FILE` (issue 18),
// and a dense-sampling referee for both.
//
// Loads both OBJ files with kcbp's own loader (same triangles, same order),
// builds one fcl::BVHModel<RSSd> per mesh, reads the sweep file (one sweep a
// line: B's from-pose then its to-pose, 14 numbers "tx ty tz ax ay az deg"
// twice, blank lines and '#' comments skipped; poses built with
// kcbp_pose_from_axis_angle, so with the same rounding as kcbp's reader) and
// answers each sweep with fcl::continuousCollide, CCDC_CONSERVATIVE_ADVANCEMENT.
//
// The motion: fcl::InterpMotion built from (R0, T0, R1, T1, O) with the
// reference point O = 0, B's local origin. Its pose at t is
// R(t) = AngleAxis(t * angle, axis) * R0 with (axis, angle in [0, pi]) the
// rotation R1 * R0^T, i.e. slerp along the shortest arc, and
// T(t) = T0 + t * (T1 - T0): the motion of the sweep file. Two other ways to
// get an InterpMotion are wrong in FCL 0.7 (README "sweep.sh"): the
// (tf0, tf1) constructor, which continuousCollide(tf...) uses for
// CCDM_LINEAR, leaves the reference point uninitialised, and the (tf0, tf1,
// O) constructor never computes the velocities. `--check` verifies the motion
// against an independent slerp at every sample.
//
// A stays at --pose-a (default identity) through an InterpMotion with equal
// ends. FCL's mesh-mesh conservative advancement ignores the request's
// num_max_iterations and toc_err: it stops when a step is below the
// traversal node's t_err = 1e-5 (then it reports is_collide with the meshes
// still apart by up to 1e-5 of the step bound) or when t passes 1 (then
// time_of_contact = 1, is_collide false). Iterations: distance traversals
// (the oriented method counts them; for public, through the motion's
// integrate() calls: one per traversal after the first).
//
// Output, one JSON line per sweep:
//   {"sweep":I,"toi":T|null,"time_of_contact":T,"is_collide":B,
//    "gap":D,"stats":{"query_ms":M,"iterations":N}}
// toi = time_of_contact when is_collide, else null; gap = fcl::distance
// between the meshes at FCL's contact pose (how far apart FCL stopped; 0
// when they overlap), not timed; query_ms = median over RUNS of the
// continuousCollide call alone. Then a line
//   {"summary":{"sweeps":N,"runs":R,"median_query_ms":M,"run_median_ms":[...],"build_ms":B}}
// (median over the sweeps of the per-sweep medians; each run's median).
//
// --check SAMPLES: the referee. For each sweep, fcl::collide (default
// request, on BVHModel<OBBRSSd>: FCL 0.7 collides RSS models only through a
// world-frame copy) at t = i/SAMPLES, i = 0..SAMPLES, on the same motion; the first
// colliding sample is bisected 60 times against the free one before it.
// Prints {"sweep":I,"toi":T|null,"samples":S,"motion_err":E} with E the
// largest difference between InterpMotion's pose and an independent one
// (Eigen's slerp of the two quaternions, linear translation) over the
// samples, in units of the mesh coordinates (|dR| * radius + |dT|). A contact
// shorter than 1/SAMPLES in t can be missed. With --claims FILE (NDJSON
// lines holding "sweep" and "toi", e.g. kcbp's or this program's output) it
// also prints for each claimed toi T whether a sample before T - 1e-9
// collides ("free_before") and whether the meshes collide at T + 1e-9
// ("hit_after": contact within 1e-9 after T).
//
// Options: --method oriented (default: FCL's oriented advancement, called
// directly, ca_oriented below) | public (fcl::continuousCollide, which FCL
// 0.7 answers wrongly for meshes); --order ba (default) | ab: the argument
// order for public (B first, or A first); --bv rss (default) | obbrss: the
// models' bounding volume; --t-err X: the oriented advancement's stop step
// instead of FCL's fixed 1e-5.
//
// Usage: fcl_sweep [options] [--pose-a POSE] A.obj B.obj SWEEPS [RUNS=5]
//        fcl_sweep --check SAMPLES [--claims FILE] [--pose-a POSE] A.obj B.obj SWEEPS
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "fcl_peer.hpp"

using Clock = std::chrono::steady_clock;

namespace {

struct Opts {
    long check;
    double t_err; // the oriented advancement's stop step (0: FCL's own 1e-5)
    bool swap, oriented, same;
    int runs;
    kcbp_pose pose_a;
};

struct Sweep {
    kcbp_pose from, to;
};

// InterpMotion that counts its integrate() calls (the CA loop's steps).
class CountingMotion : public fcl::InterpMotion<double> {
public:
    CountingMotion(const kcbp_pose &p0, const kcbp_pose &p1)
        : fcl::InterpMotion<double>(to_fcl(p0).linear(), to_fcl(p0).translation(), to_fcl(p1).linear(),
                             to_fcl(p1).translation(), fcl::Vector3d::Zero())
    {
    }
    bool integrate(double dt) const override
    {
        calls++;
        return fcl::InterpMotion<double>::integrate(dt);
    }
    mutable long calls = 0;
};

bool read_sweeps(const char *path, std::vector<Sweep> &out)
{
    std::ifstream in(path);
    if (!in) {
        std::fprintf(stderr, "fcl_sweep: cannot open %s\n", path);
        return false;
    }
    std::string line;
    long lineno = 0;
    while (std::getline(in, line)) {
        lineno++;
        size_t hash = line.find('#');
        if (hash != std::string::npos)
            line.resize(hash);
        std::istringstream ss(line);
        std::vector<double> v;
        double x;
        while (ss >> x)
            v.push_back(x);
        if (!ss.eof()) {
            std::fprintf(stderr, "fcl_sweep: %s:%ld: not a number\n", path, lineno);
            return false;
        }
        if (v.empty())
            continue;
        if (v.size() != 14) {
            std::fprintf(stderr, "fcl_sweep: %s:%ld: %zu numbers, a sweep has 14\n", path, lineno, v.size());
            return false;
        }
        Sweep s;
        kcbp_error err;
        if (kcbp_pose_from_axis_angle(kcbp_v3(v[0], v[1], v[2]), kcbp_v3(v[3], v[4], v[5]), v[6], &s.from, &err) !=
                KCBP_OK ||
            kcbp_pose_from_axis_angle(kcbp_v3(v[7], v[8], v[9]), kcbp_v3(v[10], v[11], v[12]), v[13], &s.to, &err) !=
                KCBP_OK) {
            std::fprintf(stderr, "fcl_sweep: %s:%ld: %s\n", path, lineno, err.msg);
            return false;
        }
        out.push_back(s);
    }
    if (out.empty()) {
        std::fprintf(stderr, "fcl_sweep: %s: no sweeps in file\n", path);
        return false;
    }
    return true;
}

// "sweep" -> "toi" (NaN for null) from NDJSON lines; other lines are skipped.
bool read_claims(const char *path, std::map<long, double> &claims)
{
    std::ifstream in(path);
    if (!in) {
        std::fprintf(stderr, "fcl_sweep: cannot open %s\n", path);
        return false;
    }
    std::string line;
    while (std::getline(in, line)) {
        size_t s = line.find("\"sweep\":"), t = line.find("\"toi\":");
        if (s == std::string::npos || t == std::string::npos)
            continue;
        long i = std::strtol(line.c_str() + s + 8, nullptr, 10);
        const char *v = line.c_str() + t + 6;
        claims[i] = std::strncmp(v, "null", 4) == 0 ? NAN : std::strtod(v, nullptr);
    }
    return true;
}

std::string json_double(double x)
{
    if (std::isnan(x))
        return "null";
    char b[40];
    std::snprintf(b, sizeof b, "%.17g", x);
    return b;
}

double mesh_radius(const kcbp_mesh *m)
{
    double r = 0;
    for (uint32_t i = 0; i < kcbp_mesh_vertex_count(m); i++)
        r = std::max(r, std::sqrt(kcbp_v3_len2(kcbp_mesh_vertices(m)[i])));
    return r;
}

} // namespace

// FCL 0.7's fcl::detail::conservativeAdvancementMeshOriented, line for line,
// except for the first overlap test (t = 0), done here on the OBBRSS models:
// fcl::collide on BVHModel<RSS> has no oriented traversal in FCL 0.7
// (BVHCollideImpl is specialised for OBB, OBBRSS and kIOS only), so it copies
// both models and refits them in world coordinates, ~20 ms on 5k triangles,
// which would swamp the advancement itself. continuousCollide never gets
// here for BVH models (see README "sweep.sh"). iters: distance traversals.
template <class BV, class Node>
bool ca_oriented(const fcl::BVHModel<BV> &o1, const fcl::MotionBase<double> *motion1, const fcl::BVHModel<BV> &o2,
                 const fcl::MotionBase<double> *motion2, const fcl::BVHModel<fcl::OBBRSSd> &c1,
                 const fcl::BVHModel<fcl::OBBRSSd> &c2, double t_err, double &toc, long &iters)
{
    fcl::Transform3d tf1, tf2;
    motion1->getCurrentTransform(tf1);
    motion2->getCurrentTransform(tf2);
    fcl::CollisionRequestd request;
    fcl::CollisionResultd result;
    iters = 0;
    if (fcl::collide(&c1, tf1, &c2, tf2, request, result)) {
        toc = 0;
        return true;
    }
    Node node;
    fcl::detail::initialize(node, o1, tf1, o2, tf2);
    if (t_err > 0)
        node.t_err = t_err;
    node.motion1 = motion1;
    node.motion2 = motion2;
    do {
        node.motion1->getCurrentTransform(tf1);
        node.motion2->getCurrentTransform(tf2);
        fcl::Transform3d tf = tf1.inverse(Eigen::Isometry) * tf2;
        node.R = tf.linear();
        node.T = tf.translation();
        node.delta_t = 1;
        node.min_distance = std::numeric_limits<double>::max();
        fcl::detail::distanceRecurse(&node, 0, 0, nullptr);
        iters++;
        if (node.delta_t <= node.t_err)
            break;
        node.toc += node.delta_t;
        if (node.toc > 1) {
            node.toc = 1;
            break;
        }
        node.motion1->integrate(node.toc);
        node.motion2->integrate(node.toc);
    } while (1);
    toc = node.toc;
    return node.toc < 1;
}

// Answers the sweeps on BVHModel<BV>; Node: FCL's oriented conservative
// advancement node for BV.
template <class BV, class Node>
int run(const Opts &o, const kcbp_mesh *ma, const kcbp_mesh *mb, const std::vector<Sweep> &sweeps,
        const std::map<long, double> &claims)
{
    const long check = o.check;
    const bool swap = o.swap, oriented = o.oriented;
    const int runs = o.runs;
    const kcbp_pose pose_a = o.pose_a;
    auto t0 = Clock::now();
    auto bvh_a = build_bvh<BV>(ma);
    auto bvh_b = o.same ? bvh_a : build_bvh<BV>(mb);
    double build_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    auto obb_a = build_bvh<fcl::OBBRSSd>(ma);
    auto obb_b = o.same ? obb_a : build_bvh<fcl::OBBRSSd>(mb);
    if (!bvh_a || !bvh_b || !obb_a || !obb_b) {
        std::fprintf(stderr, "fcl_sweep: building the BVH failed\n");
        return 4;
    }
    const fcl::Transform3d tf_a = to_fcl(pose_a);
    size_t n = sweeps.size();

    if (check) {
        double radius = mesh_radius(mb);
        fcl::CollisionRequestd creq;
        auto collide_at = [&](const Sweep &s, double t, double *motion_err) {
            CountingMotion m(s.from, s.to);
            m.integrate(t);
            fcl::Transform3d tf;
            m.getCurrentTransform(tf);
            if (motion_err) {
                fcl::Quaterniond q0(to_fcl(s.from).linear()), q1(to_fcl(s.to).linear());
                fcl::Matrix3d r = q0.slerp(t, q1).toRotationMatrix();
                fcl::Vector3d tr = (1 - t) * to_fcl(s.from).translation() + t * to_fcl(s.to).translation();
                double e = (r - tf.linear()).norm() * radius + (tr - tf.translation()).norm();
                *motion_err = std::max(*motion_err, e);
            }
            fcl::CollisionResultd cres;
            return fcl::collide(obb_a.get(), tf_a, obb_b.get(), tf, creq, cres) > 0; // OBBRSS: oriented
        };
        for (size_t i = 0; i < n; i++) {
            const Sweep &s = sweeps[i];
            double motion_err = 0, toi = NAN, prev = 0;
            for (long k = 0; k <= check; k++) {
                double t = (double)k / check;
                if (!collide_at(s, t, &motion_err)) {
                    prev = t;
                    continue;
                }
                if (k == 0) {
                    toi = 0;
                    break;
                }
                double lo = prev, hi = t;
                for (int j = 0; j < 60; j++) {
                    double mid = 0.5 * (lo + hi);
                    if (mid <= lo || mid >= hi)
                        break;
                    (collide_at(s, mid, nullptr) ? hi : lo) = mid;
                }
                toi = hi;
                break;
            }
            std::printf("{\"sweep\":%zu,\"toi\":%s,\"samples\":%ld,\"motion_err\":%.3g", i, json_double(toi).c_str(),
                        check, motion_err);
            auto c = claims.find((long)i);
            if (c != claims.end()) {
                double ct = c->second;
                std::printf(",\"claim\":%s", json_double(ct).c_str());
                if (!std::isnan(ct)) {
                    bool free_before = std::isnan(toi) || toi >= ct - 1e-9;
                    bool hit_after = collide_at(s, std::min(1.0, ct + 1e-9), nullptr);
                    std::printf(",\"free_before\":%s,\"hit_after\":%s", free_before ? "true" : "false",
                                hit_after ? "true" : "false");
                }
            }
            std::printf("}\n");
        }
    } else {
        std::vector<double> toc(n), gap(n);
        std::vector<int> hit(n);
        std::vector<long> iters(n);
        std::vector<std::vector<double>> per_sweep_ms(n);
        std::vector<double> run_median_ms;
        fcl::ContinuousCollisionRequestd request;
        request.ccd_solver_type = fcl::CCDC_CONSERVATIVE_ADVANCEMENT;
        request.ccd_motion_type = fcl::CCDM_LINEAR; // not read with explicit motions; the matching type
        for (int r = 0; r < runs; r++) {
            std::vector<double> ms(n);
            for (size_t i = 0; i < n; i++) {
                CountingMotion m_a(pose_a, pose_a), m_b(sweeps[i].from, sweeps[i].to);
                fcl::ContinuousCollisionResultd result;
                long ca_iters = 0;
                auto q0 = Clock::now();
                if (oriented) {
                    double t = 1;
                    result.is_collide = ca_oriented<BV, Node>(*bvh_a, &m_a, *bvh_b, &m_b, *obb_a, *obb_b, o.t_err, t, ca_iters);
                    result.time_of_contact = t;
                } else if (swap) {
                    fcl::continuousCollide(bvh_b.get(), &m_b, bvh_a.get(), &m_a, request, result);
                } else {
                    fcl::continuousCollide(bvh_a.get(), &m_a, bvh_b.get(), &m_b, request, result);
                }
                auto q1 = Clock::now();
                ms[i] = std::chrono::duration<double, std::milli>(q1 - q0).count();
                per_sweep_ms[i].push_back(ms[i]);
                if (r == 0) {
                    hit[i] = result.is_collide;
                    toc[i] = result.time_of_contact;
                    // One integrate() per step after the first traversal, one more after a hit.
                    long steps = m_b.calls - (result.is_collide ? 1 : 0);
                    iters[i] = oriented ? ca_iters : result.is_collide && result.time_of_contact == 0 ? 0 : steps + 1;
                    fcl::Transform3d tf_b;
                    m_b.integrate(std::min(1.0, result.time_of_contact));
                    m_b.getCurrentTransform(tf_b);
                    fcl::DistanceRequestd dreq(false, false, 0.0, 0.0);
                    fcl::DistanceResultd dres;
                    gap[i] = fcl::distance(bvh_a.get(), tf_a, bvh_b.get(), tf_b, dreq, dres);
                }
            }
            run_median_ms.push_back(median(ms));
        }
        std::vector<double> med(n);
        for (size_t i = 0; i < n; i++) {
            med[i] = median(per_sweep_ms[i]);
            std::printf("{\"sweep\":%zu,\"toi\":%s,\"time_of_contact\":%.17g,\"is_collide\":%s,\"gap\":%.6g,"
                        "\"stats\":{\"query_ms\":%.6g,\"iterations\":%ld}}\n",
                        i, hit[i] ? json_double(toc[i]).c_str() : "null", toc[i], hit[i] ? "true" : "false",
                        std::max(0.0, gap[i]), med[i], iters[i]);
        }
        std::printf("{\"summary\":{\"sweeps\":%zu,\"runs\":%d,\"median_query_ms\":%.6g,\"run_median_ms\":[", n, runs,
                    median(med));
        for (int r = 0; r < runs; r++)
            std::printf("%s%.6g", r ? "," : "", run_median_ms[r]);
        std::printf("],\"build_ms\":%.3f}}\n", build_ms);
    }
    return 0;
}

int main(int argc, char **argv)
{
    long check = 0;
    bool swap = true, oriented = true, rss = true;
    const char *claims_path = nullptr;
    double t_err = 0;
    kcbp_pose pose_a = kcbp_pose_identity();
    kcbp_error err;
    int ai = 1;
    for (; ai < argc && argv[ai][0] == '-' && argv[ai][1] == '-'; ai += 2) {
        if (ai + 1 >= argc)
            break;
        if (!std::strcmp(argv[ai], "--check")) {
            check = std::strtol(argv[ai + 1], nullptr, 10);
            if (check < 1 || check > 10000000) {
                std::fprintf(stderr, "fcl_sweep: --check SAMPLES must be in 1..1e7\n");
                return 2;
            }
        } else if (!std::strcmp(argv[ai], "--method")) {
            if (std::strcmp(argv[ai + 1], "oriented") && std::strcmp(argv[ai + 1], "public")) {
                std::fprintf(stderr, "fcl_sweep: --method is oriented or public\n");
                return 2;
            }
            oriented = argv[ai + 1][0] == 'o';
        } else if (!std::strcmp(argv[ai], "--t-err")) {
            t_err = std::strtod(argv[ai + 1], nullptr);
            if (!(t_err > 0 && t_err < 1)) {
                std::fprintf(stderr, "fcl_sweep: --t-err must be in (0, 1)\n");
                return 2;
            }
        } else if (!std::strcmp(argv[ai], "--bv")) {
            if (std::strcmp(argv[ai + 1], "rss") && std::strcmp(argv[ai + 1], "obbrss")) {
                std::fprintf(stderr, "fcl_sweep: --bv is rss or obbrss\n");
                return 2;
            }
            rss = argv[ai + 1][0] == 'r';
        } else if (!std::strcmp(argv[ai], "--order")) {
            if (std::strcmp(argv[ai + 1], "ab") && std::strcmp(argv[ai + 1], "ba")) {
                std::fprintf(stderr, "fcl_sweep: --order is ab or ba\n");
                return 2;
            }
            swap = argv[ai + 1][0] == 'b';
        } else if (!std::strcmp(argv[ai], "--claims")) {
            claims_path = argv[ai + 1];
        } else if (!std::strcmp(argv[ai], "--pose-a")) {
            if (kcbp_pose_parse(argv[ai + 1], &pose_a, &err) != KCBP_OK) {
                std::fprintf(stderr, "fcl_sweep: --pose-a: %s\n", err.msg);
                return 2;
            }
        } else {
            break;
        }
    }
    int npos = argc - ai;
    int runs = npos == 4 ? std::atoi(argv[ai + 3]) : 5;
    if (npos < 3 || npos > 4 || runs < 1 || runs > 1000 || (check && npos != 3) || (claims_path && !check)) {
        std::fprintf(stderr,
                     "usage: %s [--method oriented|public] [--order ba|ab] [--bv rss|obbrss] [--t-err X]\n"
                     "          [--pose-a POSE] A.obj B.obj SWEEPS [RUNS=5 (1..1000)]\n"
                     "       %s --check SAMPLES [--claims FILE] [--pose-a POSE] A.obj B.obj SWEEPS\n",
                     argv[0], argv[0]);
        return 2;
    }
    const char *path_a = argv[ai], *path_b = argv[ai + 1], *path_s = argv[ai + 2];
    kcbp_mesh *ma = nullptr, *mb = nullptr;
    std::vector<Sweep> sweeps;
    if (kcbp_obj_load(path_a, &ma, &err) != KCBP_OK || kcbp_obj_load(path_b, &mb, &err) != KCBP_OK) {
        std::fprintf(stderr, "fcl_sweep: %s\n", err.msg);
        return 3;
    }
    if (!read_sweeps(path_s, sweeps))
        return 3;
    std::map<long, double> claims;
    if (claims_path && !read_claims(claims_path, claims))
        return 3;
    Opts o;
    o.check = check;
    o.t_err = t_err;
    o.swap = swap;
    o.oriented = oriented;
    o.runs = runs;
    o.pose_a = pose_a;
    o.same = std::strcmp(path_a, path_b) == 0;
    int rc = rss ? run<fcl::RSSd, fcl::detail::MeshConservativeAdvancementTraversalNodeRSS<double>>(o, ma, mb, sweeps, claims)
                 : run<fcl::OBBRSSd, fcl::detail::MeshConservativeAdvancementTraversalNodeOBBRSS<double>>(o, ma, mb, sweeps,
                                                                                                   claims);
    kcbp_mesh_free(ma);
    kcbp_mesh_free(mb);
    return rc;
}

// depth_convex: penetration depth of convex shape pairs, kcbp against FCL
// 0.7 and Bullet 3.24 (issue 32 item 1).
//
// Pairs: for each class (sphere-sphere, ..., hull-hull), PAIRS random
// overlapping pairs (sizes 0.2 .. 1, a random rotation, B's centre within
// 0.6 of the sum of the reaches; kept when kcbp says they overlap by more
// than 1e-6). Each query:
//   kcbp:   kcbp_shape_pair_depth (src/convex/depth.h; the convex depth the
//           public kcbp_signed_distance dispatches to);
//   FCL:    fcl::collide with CollisionRequestd(1, true) (one contact, with
//           its penetration_depth), gjk_solver_type GST_LIBCCD and GST_INDEP;
//   Bullet: btGjkEpaSolver2::Penetration on btSphereShape, btCapsuleShapeZ,
//           btBoxShape, btCylinderShapeZ, btConvexHullShape (margins 0 but
//           a sphere's and a capsule's, which are their radii), depth =
//           -results.distance.
// Runs are interleaved (each run times every solver on the whole class, the
// solvers' order rotating), each timed as one batch in CPU time
// (CLOCK_PROCESS_CPUTIME_ID: the machine is shared) and divided by the
// number of pairs; the report is the median over the runs. The answers are
// compared with kcbp's: the largest |depth - kcbp's depth| and the number of
// pairs differing by more than 1e-6 (the pairs' scale is about 1); and
// kcbp's answers are checked as tests/test_depth_convex.c does (B moved
// along the normal by depth + 1e-7 of the pair's scale is apart from A, by
// depth - 1e-7 still touching: kcbp_shape_pair_collide), the failures
// counted in the last column (0 expected).
//
// Usage: depth_convex [PAIRS=200] [RUNS=15] [SEED=1]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>
#include <vector>

#include <fcl/fcl.h>

#include <BulletCollision/CollisionShapes/btBoxShape.h>
#include <BulletCollision/CollisionShapes/btCapsuleShape.h>
#include <BulletCollision/CollisionShapes/btConvexHullShape.h>
#include <BulletCollision/CollisionShapes/btCylinderShape.h>
#include <BulletCollision/CollisionShapes/btSphereShape.h>
#include <BulletCollision/NarrowPhaseCollision/btGjkEpa2.h>

extern "C" {
#include <kcbp/convex_hull.h>
#include <kcbp/pose.h>
#include "convex/depth.h"
#include "convex/shape_internal.h"
}

enum Kind { SPHERE, CAPSULE, BOX, CYLINDER, HULL };
static const char *kind_name[] = {"sphere", "capsule", "box", "cylinder", "hull"};

struct Rng {
    uint64_t s;
    double uniform()
    {
        s ^= s >> 12;
        s ^= s << 25;
        s ^= s >> 27;
        return (double)((s * 2685821657736338717ull) >> 11) * (1.0 / 9007199254740992.0);
    }
    double range(double lo, double hi) { return lo + (hi - lo) * uniform(); }
};

struct Shape {
    Kind kind;
    kcbp_shape_geom g; // in place (a cylinder's support points into it)
    std::vector<kcbp_vec3> hull;
    std::shared_ptr<fcl::CollisionGeometryd> fcl;
    std::unique_ptr<btConvexShape> bt;
    ~Shape() { kcbp_shape_geom_clear(&g); }
};

// The hull's triangles by brute force (every triple with all vertices on
// one side), outward, in FCL's face encoding.
static std::shared_ptr<fcl::Convexd> fcl_hull(const kcbp_vec3 *v, int n)
{
    auto verts = std::make_shared<std::vector<fcl::Vector3d>>();
    for (int i = 0; i < n; i++)
        verts->emplace_back(v[i].x, v[i].y, v[i].z);
    auto faces = std::make_shared<std::vector<int>>();
    int nf = 0;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            for (int k = j + 1; k < n; k++) {
                fcl::Vector3d a = (*verts)[i], b = (*verts)[j], c = (*verts)[k];
                fcl::Vector3d nrm = (b - a).cross(c - a);
                int pos = 0, neg = 0;
                for (int m = 0; m < n; m++) {
                    double s = nrm.dot((*verts)[m] - a);
                    pos += s > 1e-12;
                    neg += s < -1e-12;
                }
                if (pos && neg)
                    continue;
                faces->push_back(3);
                faces->push_back(i);
                if (pos) { // normal points inward: flip
                    faces->push_back(k);
                    faces->push_back(j);
                } else {
                    faces->push_back(j);
                    faces->push_back(k);
                }
                nf++;
            }
    return std::make_shared<fcl::Convexd>(verts, nf, faces);
}

static void make_shape(Shape &s, Kind kind, Rng &r)
{
    s.kind = kind;
    double a = r.range(0.2, 1), b = r.range(0.2, 1), c = r.range(0.2, 1);
    kcbp_shape def = kcbp_shape_sphere(a);
    kcbp_error err;
    switch (kind) {
    case SPHERE: def = kcbp_shape_sphere(a); break;
    case CAPSULE: def = kcbp_shape_capsule(0.6 * a, 1.5 * b); break;
    case BOX: def = kcbp_shape_box(2 * a, 2 * b, 2 * c); break;
    case CYLINDER: def = kcbp_shape_cylinder(a, 2 * b); break;
    case HULL: {
        std::vector<kcbp_vec3> p(12);
        for (auto &q : p)
            q = kcbp_v3(r.range(-a, a), r.range(-b, b), r.range(-c, c));
        if (kcbp_shape_geom_init_hull(&s.g, p.data(), p.size(), &err) != KCBP_OK) {
            std::fprintf(stderr, "hull: %s\n", err.msg);
            std::exit(3);
        }
        const kcbp_vec3 *v = kcbp_convex_hull_vertices(s.g.hull);
        int n = (int)kcbp_convex_hull_vertex_count(s.g.hull);
        s.hull.assign(v, v + n);
        s.fcl = fcl_hull(v, n);
        auto *h = new btConvexHullShape();
        for (int i = 0; i < n; i++)
            h->addPoint(btVector3(v[i].x, v[i].y, v[i].z), i + 1 == n);
        h->setMargin(0);
        s.bt.reset(h);
        return;
    }
    }
    if (kcbp_shape_geom_init(&s.g, &def, &err) != KCBP_OK) {
        std::fprintf(stderr, "shape: %s\n", err.msg);
        std::exit(3);
    }
    switch (kind) {
    case SPHERE:
        s.fcl = std::make_shared<fcl::Sphered>(def.radius);
        s.bt.reset(new btSphereShape(def.radius));
        break;
    case CAPSULE:
        s.fcl = std::make_shared<fcl::Capsuled>(def.radius, def.length);
        s.bt.reset(new btCapsuleShapeZ(def.radius, def.length));
        break;
    case BOX: {
        s.fcl = std::make_shared<fcl::Boxd>(def.size.x, def.size.y, def.size.z);
        auto *bx = new btBoxShape(btVector3(def.size.x / 2, def.size.y / 2, def.size.z / 2));
        bx->setMargin(0);
        s.bt.reset(bx);
        break;
    }
    default: {
        s.fcl = std::make_shared<fcl::Cylinderd>(def.radius, def.length);
        auto *cy = new btCylinderShapeZ(btVector3(def.radius, def.radius, def.length / 2));
        cy->setMargin(0);
        s.bt.reset(cy);
        break;
    }
    }
}

struct Pair {
    std::unique_ptr<Shape> a, b;
    kcbp_pose pose;
    fcl::Transform3d tf;
    btTransform bt;
    std::unique_ptr<fcl::CollisionObjectd> oa, ob;
};

static kcbp_pose random_pose(Rng &r, double reach)
{
    // a uniform rotation from a random unit quaternion
    double q[4], l;
    do {
        for (double &x : q)
            x = r.range(-1, 1);
        l = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    } while (l < 0.1 || l > 1);
    for (double &x : q)
        x /= l;
    kcbp_pose p;
    kcbp_vec3 t = kcbp_v3(r.range(-reach, reach), r.range(-reach, reach), r.range(-reach, reach));
    if (kcbp_pose_from_quat(t, q[0], q[1], q[2], q[3], &p, nullptr) != KCBP_OK)
        std::exit(3);
    return p;
}

static double cpu_now()
{
    timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int main(int argc, char **argv)
{
    int npairs = argc > 1 ? std::atoi(argv[1]) : 200;
    int runs = argc > 2 ? std::atoi(argv[2]) : 15;
    uint64_t seed = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 1;
    if (npairs < 1 || runs < 1) {
        std::fprintf(stderr, "usage: %s [PAIRS=200] [RUNS=15] [SEED=1]\n", argv[0]);
        return 2;
    }
    static const Kind classes[][2] = {{SPHERE, SPHERE}, {SPHERE, CAPSULE}, {CAPSULE, CAPSULE}, {SPHERE, BOX},
                                      {CAPSULE, BOX},   {BOX, BOX},        {CYLINDER, SPHERE}, {CYLINDER, BOX},
                                      {CYLINDER, CYLINDER}, {HULL, BOX},   {HULL, HULL}};
    std::printf("# depth_convex: %d overlapping pairs per class, %d interleaved runs, CPU time per query (median "
                "over runs, us); max |depth - kcbp| over the pairs (count > 1e-6)\n",
                npairs, runs);
    std::printf("%-18s %9s %9s %9s %9s %7s %7s  %-16s %-16s %-16s %s\n", "class", "kcbp", "fcl_ccd", "fcl_indep",
                "bullet", "kcbp/fi", "kcbp/bt", "diff_fcl_ccd", "diff_fcl_indep", "diff_bullet", "check_fail");
    Rng r{seed * 0x9E3779B97F4A7C15ull + 1};
    std::vector<double> tot(4, 0);
    for (auto &cl : classes) {
        std::vector<Pair> pairs;
        for (int tries = 0; (int)pairs.size() < npairs && tries < npairs * 50; tries++) {
            Pair p;
            p.a.reset(new Shape());
            p.b.reset(new Shape());
            make_shape(*p.a, cl[0], r);
            make_shape(*p.b, cl[1], r);
            p.pose = random_pose(r, 0.6 * (p.a->g.reach + p.b->g.reach) / std::sqrt(3.0));
            kcbp_convex_depth d;
            kcbp_shape_pair_depth(&p.a->g, &p.b->g, &p.pose, &d);
            if (!d.overlap || d.depth < 1e-6)
                continue;
            fcl::Matrix3d R;
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++)
                    R(i, j) = p.pose.rot.m[i][j];
            p.tf.setIdentity();
            p.tf.linear() = R;
            p.tf.translation() = fcl::Vector3d(p.pose.trans.x, p.pose.trans.y, p.pose.trans.z);
            const double(*m)[3] = p.pose.rot.m;
            p.bt = btTransform(btMatrix3x3(m[0][0], m[0][1], m[0][2], m[1][0], m[1][1], m[1][2], m[2][0], m[2][1],
                                           m[2][2]),
                               btVector3(p.pose.trans.x, p.pose.trans.y, p.pose.trans.z));
            p.oa.reset(new fcl::CollisionObjectd(p.a->fcl, fcl::Transform3d::Identity()));
            p.ob.reset(new fcl::CollisionObjectd(p.b->fcl, p.tf));
            pairs.push_back(std::move(p));
        }
        size_t n = pairs.size();
        std::vector<std::vector<double>> depth(4, std::vector<double>(n, NAN));
        std::vector<std::vector<double>> times(4);
        volatile double sink = 0;
        for (int run = 0; run < runs; run++)
            for (int k = 0; k < 4; k++) {
                int s = (k + run) % 4; // the solvers' order rotates
                double t0 = cpu_now();
                for (size_t i = 0; i < n; i++) {
                    Pair &p = pairs[i];
                    double dep = NAN;
                    if (s == 0) {
                        kcbp_convex_depth d;
                        kcbp_shape_pair_depth(&p.a->g, &p.b->g, &p.pose, &d);
                        dep = d.overlap ? d.depth : NAN;
                    } else if (s == 1 || s == 2) {
                        fcl::CollisionRequestd req(1, true);
                        req.gjk_solver_type = s == 1 ? fcl::GST_LIBCCD : fcl::GST_INDEP;
                        fcl::CollisionResultd res;
                        fcl::collide(p.oa.get(), p.ob.get(), req, res);
                        if (res.numContacts() > 0)
                            dep = res.getContact(0).penetration_depth;
                    } else {
                        btGjkEpaSolver2::sResults res;
                        btTransform ida;
                        ida.setIdentity();
                        if (btGjkEpaSolver2::Penetration(p.a->bt.get(), ida, p.b->bt.get(), p.bt, btVector3(1, 0, 0), res))
                            dep = -res.distance;
                    }
                    sink = sink + (std::isnan(dep) ? 0 : dep);
                    if (run == 0)
                        depth[s][i] = dep;
                }
                times[s].push_back((cpu_now() - t0) / n * 1e6);
            }
        (void)sink;
        int check_fail = 0;
        for (Pair &p : pairs) {
            kcbp_convex_depth d;
            kcbp_shape_pair_depth(&p.a->g, &p.b->g, &p.pose, &d);
            double sc = std::max(p.a->g.reach, kcbp_v3_max_abs(p.pose.trans) + p.b->g.reach);
            for (double eps : {1e-7, -1e-7}) {
                kcbp_pose q = p.pose;
                q.trans = kcbp_v3_add(q.trans, kcbp_v3_scale(d.normal, d.depth + eps * sc));
                bool exact;
                bool c = kcbp_shape_pair_collide(&p.a->g, &p.b->g, &q, KCBP_SHAPE_GJK_BAND * sc, &exact);
                check_fail += c != (eps < 0);
            }
        }
        char label[40];
        std::snprintf(label, sizeof label, "%s-%s", kind_name[cl[0]], kind_name[cl[1]]);
        double med[4];
        for (int s = 0; s < 4; s++) {
            med[s] = median(times[s]);
            tot[s] += med[s];
        }
        char diff[3][40];
        for (int s = 1; s < 4; s++) {
            double worst = 0;
            int bad = 0, none = 0;
            for (size_t i = 0; i < n; i++) {
                if (std::isnan(depth[s][i])) {
                    none++;
                    continue;
                }
                double e = std::fabs(depth[s][i] - depth[0][i]);
                worst = std::max(worst, e);
                bad += e > 1e-6;
            }
            if (none)
                std::snprintf(diff[s - 1], sizeof diff[s - 1], "%.1e(%d,miss%d)", worst, bad, none);
            else
                std::snprintf(diff[s - 1], sizeof diff[s - 1], "%.1e(%d)", worst, bad);
        }
        std::printf("%-18s %9.3f %9.3f %9.3f %9.3f %7.2f %7.2f  %-16s %-16s %-16s %d\n", label, med[0], med[1], med[2],
                    med[3], med[0] / med[2], med[0] / med[3], diff[0], diff[1], diff[2], check_fail);
        std::fflush(stdout);
    }
    std::printf("%-18s %9.3f %9.3f %9.3f %9.3f %7.2f %7.2f\n", "sum of medians", tot[0], tot[1], tot[2], tot[3],
                tot[0] / tot[2], tot[0] / tot[3]);
    return 0;
}

// cones_bench: one pair of nested surfaces (bench/gen_cones, both in one
// world frame) at the identity pose: kcbp_distance and FCL 0.7's
// fcl::distance (BVHModel<RSSd>, nearest points on, rel_err = abs_err = 0,
// as bench/fcl_distance) timed in CPU time of the thread
// (CLOCK_THREAD_CPUTIME_ID: the machine may be shared), interleaved
// (kcbp, FCL, kcbp, ...), and the answers compared: each against the other
// and, with BRUTE = 1, against the smallest kcbp_tri_distance over all
// triangle pairs.
//
// Output, one line: "kcbp_us K fcl_us F d_kcbp D d_fcl E d_brute B
// box_pairs P tri_pairs T collide_us C" (medians over the runs; d_brute
// nan when not asked for; C: one kcbp_collide with the default options on
// the same pair, as `kcbp collide` runs it, timed in the same rounds). FCL
// is run FCL_RUNS times (its queries may take seconds).
//
// Usage: cones_bench A.obj B.obj RUNS FCL_RUNS BRUTE
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <vector>

#include "fcl_peer.hpp"

static double cpu_us()
{
    timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec * 1e6 + t.tv_nsec * 1e-3;
}

int main(int argc, char **argv)
{
    if (argc != 6) {
        std::fprintf(stderr, "usage: %s A.obj B.obj RUNS FCL_RUNS BRUTE\n", argv[0]);
        return 2;
    }
    int runs = std::atoi(argv[3]), fcl_runs = std::atoi(argv[4]), brute = std::atoi(argv[5]);
    kcbp_error err;
    kcbp_model a, b;
    kcbp_mesh *ma = nullptr, *mb = nullptr;
    if (kcbp_model_load(&a, argv[1], nullptr, &err) != KCBP_OK || kcbp_model_load(&b, argv[2], nullptr, &err) != KCBP_OK ||
        kcbp_mesh_load(argv[1], &ma, &err) != KCBP_OK || kcbp_mesh_load(argv[2], &mb, &err) != KCBP_OK) {
        std::fprintf(stderr, "cones_bench: %s\n", err.msg);
        return 3;
    }
    auto bvh_a = build_bvh<fcl::RSSd>(ma), bvh_b = build_bvh<fcl::RSSd>(mb);
    if (!bvh_a || !bvh_b)
        return 4;
    fcl::CollisionObjectd obj_a(bvh_a, fcl::Transform3d::Identity()), obj_b(bvh_b, fcl::Transform3d::Identity());
    fcl::DistanceRequestd request(true, false, 0.0, 0.0);
    kcbp_pose id = kcbp_pose_identity();
    std::vector<double> kt, ft, ct;
    kcbp_collide_options copt = kcbp_collide_options_default();
    kcbp_collide_result cres{};
    double dk = NAN, df = NAN;
    kcbp_distance_result res{};
    for (int r = 0; r < runs || r < fcl_runs; r++) {
        if (r < runs) {
            double t0 = cpu_us();
            if (kcbp_distance(&a, &id, &b, &id, nullptr, &res, &err) != KCBP_OK)
                return 5;
            kt.push_back(cpu_us() - t0);
            dk = res.distance;
            t0 = cpu_us();
            if (kcbp_collide(&a, &id, &b, &id, &copt, &cres, &err) != KCBP_OK || cres.collide != (dk == 0))
                return 6;
            ct.push_back(cpu_us() - t0);
        }
        if (r < fcl_runs) {
            fcl::DistanceResultd fr;
            double t0 = cpu_us();
            fcl::distance(&obj_a, &obj_b, request, fr);
            ft.push_back(cpu_us() - t0);
            df = fr.min_distance;
        }
    }
    double db = NAN;
    if (brute) {
        const kcbp_vec3 *va = kcbp_mesh_vertices(ma), *vb = kcbp_mesh_vertices(mb);
        const kcbp_tri *ta = kcbp_mesh_triangles(ma), *tb = kcbp_mesh_triangles(mb);
        db = INFINITY;
        for (uint32_t i = 0; i < kcbp_mesh_triangle_count(ma); i++) {
            kcbp_vec3 p[3] = {va[ta[i].v[0]], va[ta[i].v[1]], va[ta[i].v[2]]};
            for (uint32_t j = 0; j < kcbp_mesh_triangle_count(mb); j++) {
                kcbp_vec3 q[3] = {vb[tb[j].v[0]], vb[tb[j].v[1]], vb[tb[j].v[2]]};
                db = std::fmin(db, kcbp_tri_distance(p, q, nullptr, nullptr));
            }
        }
    }
    std::printf("kcbp_us %.3f fcl_us %.3f d_kcbp %.17g d_fcl %.17g d_brute %.17g box_pairs %llu tri_pairs %llu collide_us %.3f\n",
                kt.empty() ? NAN : median(kt), ft.empty() ? NAN : median(ft), dk, df, db,
                (unsigned long long)res.tree.box_pairs, (unsigned long long)res.tree.tri_pairs, ct.empty() ? NAN : median(ct));
    kcbp_collide_result_free(&cres);
    kcbp_mesh_free(ma);
    kcbp_mesh_free(mb);
    kcbp_model_free(&a);
    kcbp_model_free(&b);
    return 0;
}

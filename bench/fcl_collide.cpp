// fcl_collide: the FCL peer of `kcbp collide A B --poses FILE --contacts none`.
//
// Loads both meshes (OBJ, STL, PLY, OFF, glTF) with kcbp_mesh_load, kcbp's own
// loader (same triangles, same order),
// builds one fcl::BVHModel<OBBRSSd> per mesh, reads the pose file with
// kcbp_pose_load_file (A at the identity, B at each pose: world = R*local + t,
// as in kcbp), and answers each pose with fcl::collide and a default
// CollisionRequest (num_max_contacts = 1: stop at the first contact). Each
// fcl::collide call is timed alone (steady_clock); the whole pose set is run
// R times.
//
// Output: "# ..." header lines, then one line per pose "POSE COLLIDE MEDIAN_US"
// (the answer of the first run, which every run must repeat, and the pose's
// median time over the runs), then "median_us X" (median over the runs of each
// run's median per-query time) and "build_ms X".
//
// Usage: fcl_collide A.obj B.obj POSES [RUNS=5]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include <fcl/fcl.h>

#include "fcl_peer.hpp"

using Clock = std::chrono::steady_clock;

int main(int argc, char **argv)
{
    if (argc < 4 || argc > 5) {
        std::fprintf(stderr, "usage: %s A.obj B.obj POSES [RUNS=5]\n", argv[0]);
        return 2;
    }
    int runs = argc > 4 ? std::atoi(argv[4]) : 5;
    if (runs < 1 || runs > 1000) {
        std::fprintf(stderr, "%s: RUNS must be in 1..1000\n", argv[0]);
        return 2;
    }
    kcbp_error err;
    kcbp_mesh *ma = nullptr, *mb = nullptr;
    if (kcbp_mesh_load(argv[1], &ma, &err) != KCBP_OK || kcbp_mesh_load(argv[2], &mb, &err) != KCBP_OK) {
        std::fprintf(stderr, "fcl_collide: %s\n", err.msg);
        return 3;
    }
    kcbp_pose *poses = nullptr;
    size_t nposes = 0;
    if (kcbp_pose_load_file(argv[3], &poses, &nposes, &err) != KCBP_OK) {
        std::fprintf(stderr, "fcl_collide: %s\n", err.msg);
        return 3;
    }

    // Same mesh on both sides: one BVH shared by the two objects, as kcbp does.
    bool same = std::strcmp(argv[1], argv[2]) == 0;
    auto t0 = Clock::now();
    auto bvh_a = build_bvh(ma);
    auto t1 = Clock::now();
    auto bvh_b = same ? bvh_a : build_bvh(mb);
    auto t2 = Clock::now();
    if (!bvh_a || !bvh_b) {
        std::fprintf(stderr, "fcl_collide: building the BVH failed\n");
        return 4;
    }
    double build_a_ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
    double build_b_ms = std::chrono::duration<double, std::milli>(t2 - t1).count();

    fcl::CollisionObjectd obj_a(bvh_a, fcl::Transform3d::Identity());
    fcl::CollisionObjectd obj_b(bvh_b, fcl::Transform3d::Identity());
    std::vector<fcl::Transform3d> tf(nposes);
    for (size_t i = 0; i < nposes; i++)
        tf[i] = to_fcl(poses[i]);

    fcl::CollisionRequestd request; // defaults: num_max_contacts = 1, no contact info
    std::vector<int> answer(nposes, -1);
    std::vector<std::vector<double>> per_pose_us(nposes);
    std::vector<double> run_median_us;
    int inconsistent = 0;
    for (int r = 0; r < runs; r++) {
        std::vector<double> us(nposes);
        for (size_t i = 0; i < nposes; i++) {
            obj_b.setTransform(tf[i]);
            fcl::CollisionResultd result;
            auto q0 = Clock::now();
            fcl::collide(&obj_a, &obj_b, request, result);
            auto q1 = Clock::now();
            us[i] = std::chrono::duration<double, std::micro>(q1 - q0).count();
            per_pose_us[i].push_back(us[i]);
            int c = result.isCollision() ? 1 : 0;
            if (answer[i] < 0)
                answer[i] = c;
            else if (answer[i] != c)
                inconsistent++;
        }
        run_median_us.push_back(median(us));
    }

    std::printf("# fcl_collide %s (%u triangles) %s (%u triangles) %s: %zu poses, %d runs\n", argv[1],
                kcbp_mesh_triangle_count(ma), argv[2], kcbp_mesh_triangle_count(mb), argv[3], nposes, runs);
    std::printf("# pose collide median_us\n");
    for (size_t i = 0; i < nposes; i++)
        std::printf("%zu %d %.3f\n", i, answer[i], median(per_pose_us[i]));
    std::printf("median_us %.3f\n", median(run_median_us));
    std::printf("build_ms %.3f %.3f\n", build_a_ms, same ? 0.0 : build_b_ms);
    std::free(poses);
    kcbp_mesh_free(ma);
    kcbp_mesh_free(mb);
    if (inconsistent) {
        std::fprintf(stderr, "fcl_collide: %d answers changed between runs\n", inconsistent);
        return 1;
    }
    return 0;
}

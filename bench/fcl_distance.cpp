// fcl_distance: the FCL peer of `kcbp distance A B --poses FILE`.
//
// Loads both meshes (OBJ, STL, PLY, OFF, glTF) with kcbp_mesh_load, kcbp's own
// loader (same triangles, same order),
// builds one fcl::BVHModel<RSSd> per mesh (FCL's fastest for distance),
// reads the pose file with kcbp_pose_load_file (A at the identity, B at
// each pose) and answers each pose with fcl::distance, nearest points on,
// rel_err = abs_err = 0 (the exact distance). Each call is timed alone
// (steady_clock); the whole pose set is run R times.
//
// Output: "# ..." header lines, then one line per pose "POSE DISTANCE
// MEDIAN_US" (%.17g distance of the first run), then "median_us X" (median
// over the runs of each run's median per-query time) and "build_ms X".
//
// Usage: fcl_distance A.obj B.obj POSES [RUNS=5]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "fcl_peer.hpp"

using Clock = std::chrono::steady_clock;

int main(int argc, char **argv)
{
    int runs = argc > 4 ? std::atoi(argv[4]) : 5;
    if (argc < 4 || argc > 5 || runs < 1 || runs > 1000) {
        std::fprintf(stderr, "usage: %s A.obj B.obj POSES [RUNS=5 (1..1000)]\n", argv[0]);
        return 2;
    }
    kcbp_error err;
    kcbp_mesh *ma = nullptr, *mb = nullptr;
    kcbp_pose *poses = nullptr;
    size_t nposes = 0;
    if (kcbp_mesh_load(argv[1], &ma, &err) != KCBP_OK || kcbp_mesh_load(argv[2], &mb, &err) != KCBP_OK ||
        kcbp_pose_load_file(argv[3], &poses, &nposes, &err) != KCBP_OK) {
        std::fprintf(stderr, "fcl_distance: %s\n", err.msg);
        return 3;
    }
    auto t0 = Clock::now();
    auto bvh_a = build_bvh<fcl::RSSd>(ma);
    auto bvh_b = std::strcmp(argv[1], argv[2]) == 0 ? bvh_a : build_bvh<fcl::RSSd>(mb);
    double build_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    if (!bvh_a || !bvh_b) {
        std::fprintf(stderr, "fcl_distance: building the BVH failed\n");
        return 4;
    }
    fcl::CollisionObjectd obj_a(bvh_a, fcl::Transform3d::Identity());
    fcl::CollisionObjectd obj_b(bvh_b, fcl::Transform3d::Identity());
    fcl::DistanceRequestd request(true, false, 0.0, 0.0); // nearest points, unsigned, rel_err = abs_err = 0
    std::vector<double> dist(nposes, -1);
    std::vector<std::vector<double>> per_pose_us(nposes);
    std::vector<double> run_median_us;
    for (int r = 0; r < runs; r++) {
        std::vector<double> us(nposes);
        for (size_t i = 0; i < nposes; i++) {
            obj_b.setTransform(to_fcl(poses[i]));
            fcl::DistanceResultd result;
            auto q0 = Clock::now();
            fcl::distance(&obj_a, &obj_b, request, result);
            auto q1 = Clock::now();
            us[i] = std::chrono::duration<double, std::micro>(q1 - q0).count();
            per_pose_us[i].push_back(us[i]);
            if (r == 0)
                dist[i] = result.min_distance;
        }
        run_median_us.push_back(median(us));
    }
    std::printf("# fcl_distance %s (%u triangles) %s (%u triangles) %s: %zu poses, %d runs\n", argv[1],
                kcbp_mesh_triangle_count(ma), argv[2], kcbp_mesh_triangle_count(mb), argv[3], nposes, runs);
    std::printf("# pose distance median_us\n");
    for (size_t i = 0; i < nposes; i++)
        std::printf("%zu %.17g %.3f\n", i, dist[i], median(per_pose_us[i]));
    std::printf("median_us %.3f\n", median(run_median_us));
    std::printf("build_ms %.3f\n", build_ms);
    std::free(poses);
    kcbp_mesh_free(ma);
    kcbp_mesh_free(mb);
    return 0;
}

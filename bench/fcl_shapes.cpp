// fcl_shapes: the FCL 0.7 peer of `kcbp collide MESH SHAPE --poses FILE`
// and `kcbp distance MESH SHAPE --poses FILE` (bench/shapes.sh).
//
// The mesh is read with kcbp's loader (the same triangles in the same
// order) into an fcl::BVHModel<OBBRSSd>; the shape is FCL's own (Sphered,
// Capsuled, Boxd, Cylinderd: the same conventions as kcbp's, centred, axis
// along z, a box by its full sides, a capsule by its segment's length), at
// each pose of the file (the mesh at the identity). Each pose is answered
// by fcl::collide (a default request: stops at the first contact) and by
// fcl::distance (nearest points on, everything else FCL's default: libccd
// GJK, distance tolerance 1e-6), each call timed alone; the pose set is run
// RUNS times, the collides of a run before its distances.
//
// Output: "# ..." lines, then one line per pose "POSE COLLIDE DISTANCE
// COLLIDE_US DISTANCE_US TIGHT" (the answers of the first run, %.17g; the
// medians of each pose's times; TIGHT: an untimed fcl::distance with GJK's
// distance tolerance 1e-14 instead of 1e-6, a second opinion on the
// distance), then "collide_median_us X", "distance_median_us X" (the median
// over the runs of each run's median) and "build_ms X".
//
// Usage: fcl_shapes MESH SHAPE POSES [RUNS=5]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "fcl_peer.hpp"

using Clock = std::chrono::steady_clock;

static std::shared_ptr<fcl::CollisionGeometryd> fcl_shape(const kcbp_shape &s)
{
    switch (s.kind) {
    case KCBP_SHAPE_SPHERE: return std::make_shared<fcl::Sphered>(s.radius);
    case KCBP_SHAPE_CAPSULE: return std::make_shared<fcl::Capsuled>(s.radius, s.length);
    case KCBP_SHAPE_BOX: return std::make_shared<fcl::Boxd>(s.size.x, s.size.y, s.size.z);
    case KCBP_SHAPE_CYLINDER: return std::make_shared<fcl::Cylinderd>(s.radius, s.length);
    default: return nullptr;
    }
}

int main(int argc, char **argv)
{
    int runs = argc > 4 ? std::atoi(argv[4]) : 5;
    if (argc < 4 || argc > 5 || runs < 1 || runs > 1000) {
        std::fprintf(stderr, "usage: %s MESH SHAPE POSES [RUNS=5 (1..1000)]\n", argv[0]);
        return 2;
    }
    kcbp_error err;
    kcbp_mesh *mesh = nullptr;
    kcbp_pose *poses = nullptr;
    size_t nposes = 0;
    kcbp_shape shape;
    if (kcbp_mesh_load(argv[1], &mesh, &err) != KCBP_OK || kcbp_shape_parse(argv[2], &shape, &err) != KCBP_OK ||
        kcbp_pose_load_file(argv[3], &poses, &nposes, &err) != KCBP_OK) {
        std::fprintf(stderr, "fcl_shapes: %s\n", err.msg);
        return 3;
    }
    auto t0 = Clock::now();
    auto bvh = build_bvh<fcl::OBBRSSd>(mesh);
    double build_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    auto geom = fcl_shape(shape);
    if (!bvh || !geom) {
        std::fprintf(stderr, "fcl_shapes: building the BVH or the shape failed\n");
        return 4;
    }
    fcl::CollisionObjectd obj_m(bvh, fcl::Transform3d::Identity());
    fcl::CollisionObjectd obj_s(geom, fcl::Transform3d::Identity());
    fcl::CollisionRequestd creq;
    fcl::DistanceRequestd dreq;
    dreq.enable_nearest_points = true;
    fcl::DistanceRequestd tight = dreq;
    tight.distance_tolerance = 1e-14;
    std::vector<double> tight_dist(nposes, -1);
    for (size_t i = 0; i < nposes; i++) {
        obj_s.setTransform(to_fcl(poses[i]));
        obj_s.computeAABB();
        fcl::DistanceResultd result;
        fcl::distance(&obj_m, &obj_s, tight, result);
        tight_dist[i] = result.min_distance < 0 ? 0 : result.min_distance;
    }
    std::vector<int> hit(nposes, -1);
    std::vector<double> dist(nposes, -1);
    std::vector<std::vector<double>> cus(nposes), dus(nposes);
    std::vector<double> run_c, run_d;
    for (int r = 0; r < runs; r++) {
        std::vector<double> c(nposes), d(nposes);
        for (size_t i = 0; i < nposes; i++) {
            obj_s.setTransform(to_fcl(poses[i]));
            obj_s.computeAABB();
            fcl::CollisionResultd result;
            auto q0 = Clock::now();
            fcl::collide(&obj_m, &obj_s, creq, result);
            auto q1 = Clock::now();
            c[i] = std::chrono::duration<double, std::micro>(q1 - q0).count();
            cus[i].push_back(c[i]);
            if (r == 0)
                hit[i] = result.isCollision();
        }
        for (size_t i = 0; i < nposes; i++) {
            obj_s.setTransform(to_fcl(poses[i]));
            obj_s.computeAABB();
            fcl::DistanceResultd result;
            auto q0 = Clock::now();
            fcl::distance(&obj_m, &obj_s, dreq, result);
            auto q1 = Clock::now();
            d[i] = std::chrono::duration<double, std::micro>(q1 - q0).count();
            dus[i].push_back(d[i]);
            if (r == 0)
                dist[i] = result.min_distance < 0 ? 0 : result.min_distance;
        }
        run_c.push_back(median(c));
        run_d.push_back(median(d));
    }
    std::printf("# fcl_shapes %s (%u triangles, BVHModel<OBBRSSd>) %s %s: %zu poses, %d runs\n", argv[1],
                kcbp_mesh_triangle_count(mesh), argv[2], argv[3], nposes, runs);
    std::printf("# pose collide distance collide_us distance_us tight_distance\n");
    for (size_t i = 0; i < nposes; i++)
        std::printf("%zu %d %.17g %.3f %.3f %.17g\n", i, hit[i], dist[i], median(cus[i]), median(dus[i]), tight_dist[i]);
    std::printf("collide_median_us %.3f\n", median(run_c));
    std::printf("distance_median_us %.3f\n", median(run_d));
    std::printf("build_ms %.3f\n", build_ms);
    std::free(poses);
    kcbp_mesh_free(mesh);
    return 0;
}

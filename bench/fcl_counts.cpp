// fcl_counts: what FCL 0.7 does per query, for bench/cad.sh: the number of
// bounding-volume pairs and of triangle pairs its traversals test, next to
// kcbp's "box_pairs" and "triangle_pairs". Untimed.
//
// Builds the models of the peers (BVHModel<OBBRSSd> for collide as
// bench/fcl_collide, BVHModel<RSSd> for distance as bench/fcl_distance) and
// runs, per pose, the very traversal nodes fcl::collide and fcl::distance
// run for those models (MeshCollisionTraversalNodeOBBRSS with a default
// request; MeshDistanceTraversalNodeRSS with nearest points, rel_err =
// abs_err = 0, queue size 2), with their statistics on. The answers are
// printed too, so that they can be checked against the timed peers'.
//
// Output: "# ..." header lines, then per pose
//   "POSE COLLIDE BV_TESTS LEAF_TESTS DISTANCE BV_TESTS LEAF_TESTS"
// (a column pair is "- -" for a query not asked).
//
// Usage: fcl_counts A B POSES [collide|distance|both=both]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "fcl_peer.hpp"

int main(int argc, char **argv)
{
    std::string what = argc > 4 ? argv[4] : "both";
    if (argc < 4 || argc > 5 || (what != "collide" && what != "distance" && what != "both")) {
        std::fprintf(stderr, "usage: %s A B POSES [collide|distance|both]\n", argv[0]);
        return 2;
    }
    bool do_collide = what != "distance", do_distance = what != "collide";
    kcbp_error err;
    kcbp_mesh *ma = nullptr, *mb = nullptr;
    kcbp_pose *poses = nullptr;
    size_t nposes = 0;
    if (kcbp_mesh_load(argv[1], &ma, &err) != KCBP_OK || kcbp_mesh_load(argv[2], &mb, &err) != KCBP_OK ||
        kcbp_pose_load_file(argv[3], &poses, &nposes, &err) != KCBP_OK) {
        std::fprintf(stderr, "fcl_counts: %s\n", err.msg);
        return 3;
    }
    bool same = std::strcmp(argv[1], argv[2]) == 0;
    std::shared_ptr<fcl::BVHModel<fcl::OBBRSSd>> ca, cb;
    std::shared_ptr<fcl::BVHModel<fcl::RSSd>> da, db;
    if (do_collide) {
        ca = build_bvh<fcl::OBBRSSd>(ma);
        cb = same ? ca : build_bvh<fcl::OBBRSSd>(mb);
    }
    if (do_distance) {
        da = build_bvh<fcl::RSSd>(ma);
        db = same ? da : build_bvh<fcl::RSSd>(mb);
    }
    if ((do_collide && (!ca || !cb)) || (do_distance && (!da || !db))) {
        std::fprintf(stderr, "fcl_counts: building the BVH failed\n");
        return 4;
    }
    std::printf("# fcl_counts %s (%u triangles) %s (%u triangles) %s: %zu poses\n", argv[1], kcbp_mesh_triangle_count(ma), argv[2],
                kcbp_mesh_triangle_count(mb), argv[3], nposes);
    std::printf("# pose collide bv_tests leaf_tests distance bv_tests leaf_tests\n");
    const fcl::Transform3d id = fcl::Transform3d::Identity();
    for (size_t i = 0; i < nposes; i++) {
        fcl::Transform3d tf = to_fcl(poses[i]);
        std::printf("%zu", i);
        if (do_collide) {
            fcl::CollisionRequestd request;
            fcl::CollisionResultd result;
            fcl::detail::MeshCollisionTraversalNodeOBBRSS<double> node;
            if (!fcl::detail::initialize(node, *ca, id, *cb, tf, request, result)) {
                std::fprintf(stderr, "fcl_counts: initialize failed\n");
                return 4;
            }
            node.enable_statistics = true;
            fcl::detail::collide(&node);
            std::printf(" %d %d %d", result.isCollision() ? 1 : 0, node.num_bv_tests, node.num_leaf_tests);
        } else {
            std::printf(" - - -");
        }
        if (do_distance) {
            fcl::DistanceRequestd request(true, false, 0.0, 0.0);
            fcl::DistanceResultd result;
            fcl::detail::MeshDistanceTraversalNodeRSS<double> node;
            if (!fcl::detail::initialize(node, *da, id, *db, tf, request, result)) {
                std::fprintf(stderr, "fcl_counts: initialize failed\n");
                return 4;
            }
            node.enable_statistics = true;
            fcl::detail::distance(&node);
            std::printf(" %.17g %d %d", result.min_distance, node.num_bv_tests, node.num_leaf_tests);
        } else {
            std::printf(" - - -");
        }
        std::printf("\n");
    }
    std::free(poses);
    kcbp_mesh_free(ma);
    kcbp_mesh_free(mb);
    return 0;
}

// scene_fcl: the FCL peer of `kcbp scene` on a static scene file.
//
// Reads and builds the scene with kcbp (so both sides use the same scaled
// meshes and the same poses: world = R * (scale * x) + t), builds one
// fcl::BVHModel<OBBRSSd> per kcbp model (objects sharing a model share the
// BVH, as in kcbp), and puts one fcl::CollisionObjectd per object at its
// frame-0 pose. Each run then times, with steady_clock, what corresponds to
// kcbp's detection (world boxes + broad phase + pair tests):
//   computeAABB of every object, a fresh DynamicAABBTreeCollisionManager,
//   registerObjects, setup, and collide with a callback that runs
//   fcl::collide (default request: num_max_contacts = 1, stop at the first
//   contact) on each pair the manager reports and collects the colliding ones.
//
// Output, one line each: "broadphase N" (pairs the manager gave the
// callback), "colliding N", "median_ms X" (over the runs), "collide_ms X"
// (median of the collide call alone), "build_ms X" (the BVHs), then one line
// "pair NAME_A NAME_B" per colliding pair (a < b in scene order).
//
// Usage: scene_fcl SCENE.json [RUNS=5]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <utility>
#include <vector>

#include <fcl/fcl.h>

#include "fcl_peer.hpp"

using Clock = std::chrono::steady_clock;

struct Collected {
    size_t calls = 0;
    std::vector<std::pair<uintptr_t, uintptr_t>> hits; // object indices (user data)
};

static bool on_pair(fcl::CollisionObjectd *o1, fcl::CollisionObjectd *o2, void *data)
{
    auto *c = static_cast<Collected *>(data);
    c->calls++;
    fcl::CollisionRequestd request; // num_max_contacts = 1
    fcl::CollisionResultd result;
    fcl::collide(o1, o2, request, result);
    if (result.isCollision()) {
        uintptr_t a = (uintptr_t)o1->getUserData(), b = (uintptr_t)o2->getUserData();
        c->hits.emplace_back(std::min(a, b), std::max(a, b));
    }
    return false; // go on: every colliding pair
}

int main(int argc, char **argv)
{
    int runs = parse_scene_runs(argc, argv, 5);
    if (runs == 0)
        return 2;
    kcbp_scene *scene = nullptr;
    std::vector<std::shared_ptr<fcl::BVHModel<fcl::OBBRSSd>>> bvhs;
    double build_ms;
    if (int rc = load_scene_bvhs("scene_fcl", argv[1], scene, bvhs, build_ms))
        return rc;
    std::vector<std::unique_ptr<fcl::CollisionObjectd>> objects;
    std::vector<fcl::CollisionObjectd *> ptrs;
    for (uint32_t i = 0; i < kcbp_scene_object_count(scene); i++) {
        kcbp_pose p = kcbp_scene_object_pose(scene, i, 0);
        objects.emplace_back(new fcl::CollisionObjectd(bvhs[kcbp_scene_object_model(scene, i)], to_fcl(p)));
        objects.back()->setUserData((void *)(uintptr_t)i);
        ptrs.push_back(objects.back().get());
    }

    std::vector<double> total_ms, collide_ms;
    Collected first;
    int inconsistent = 0;
    for (int r = 0; r < runs; r++) {
        Collected c;
        auto t0 = Clock::now();
        for (auto *o : ptrs)
            o->computeAABB();
        fcl::DynamicAABBTreeCollisionManagerd manager;
        manager.registerObjects(ptrs);
        manager.setup();
        auto t1 = Clock::now();
        manager.collide(&c, on_pair);
        auto t2 = Clock::now();
        total_ms.push_back(std::chrono::duration<double, std::milli>(t2 - t0).count());
        collide_ms.push_back(std::chrono::duration<double, std::milli>(t2 - t1).count());
        std::sort(c.hits.begin(), c.hits.end());
        if (r == 0)
            first = c;
        else if (c.hits != first.hits)
            inconsistent++;
    }
    std::printf("broadphase %zu\n", first.calls);
    std::printf("colliding %zu\n", first.hits.size());
    std::printf("median_ms %.4f\n", median(total_ms));
    std::printf("collide_ms %.4f\n", median(collide_ms));
    std::printf("build_ms %.3f\n", build_ms);
    for (auto &h : first.hits)
        std::printf("pair %s %s\n", kcbp_scene_object_at(scene, h.first).name, kcbp_scene_object_at(scene, h.second).name);
    kcbp_scene_free(scene);
    if (inconsistent) {
        std::fprintf(stderr, "scene_fcl: %d runs found other pairs than the first\n", inconsistent);
        return 1;
    }
    return 0;
}

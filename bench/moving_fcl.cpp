// moving_fcl: the FCL 0.7 peer of bench/moving.sh (issue 12): a moving scene
// run the way FCL's users run one.
//
//   moving_fcl SCENE.json [RUNS=1]
//
// Reads and builds the scene with kcbp (no k-CBPs: only the scaled meshes),
// so both sides test the same triangles at the same poses (kcbp's
// kcbp_scene_object_pose of each object at each frame). One
// fcl::BVHModel<OBBRSSd> per kcbp model (objects sharing a model share the
// BVH), one fcl::CollisionObjectd per object. RUNS timed runs after one
// untimed warm-up run (the first run of a process is slower: fresh memory,
// cold caches). Each run, untimed: every object at its frame-0 pose, a fresh
// DynamicAABBTreeCollisionManager, registerObjects once, setup. Then, timed
// with steady_clock, every frame:
//   for every object: its pose (kcbp_scene_object_pose, as kcbp's own frame
//   computes it), setTransform, computeAABB; manager.update();
//   manager.collide(callback), the callback running fcl::collide with the
//   default request (boolean: num_max_contacts = 1, stops at the first
//   contact) on every pair the manager reports, recording the colliding ones.
// Sorting each frame's pairs for the output is not timed.
//
// Prints "objects", "frames", "broadphase" (pairs the manager gave the
// callback, summed over the frames), "colliding" (pair-frames), "median_ms"
// (over the runs), "collide_ms" (median of the collide calls' total),
// "setup_ms" (median of the untimed register + setup), "build_ms" (the BVHs),
// "run_ms" (every run), then "frame F pair A B" per colliding pair (names,
// a < b in scene order, each frame's pairs sorted). Exits 1 when a run finds
// other pairs than the warm-up run.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <tuple>
#include <vector>

#include <fcl/fcl.h>

#include "fcl_peer.hpp"

using Clock = std::chrono::steady_clock;

struct Hit {
    uint32_t frame, a, b;
    bool operator<(const Hit &o) const { return std::tie(frame, a, b) < std::tie(o.frame, o.a, o.b); }
    bool operator==(const Hit &o) const { return frame == o.frame && a == o.a && b == o.b; }
};

struct Collected {
    uint32_t frame = 0;
    size_t calls = 0;
    std::vector<Hit> hits;
};

static bool on_pair(fcl::CollisionObjectd *o1, fcl::CollisionObjectd *o2, void *data)
{
    auto *c = static_cast<Collected *>(data);
    c->calls++;
    fcl::CollisionRequestd request; // num_max_contacts = 1: boolean
    fcl::CollisionResultd result;
    fcl::collide(o1, o2, request, result);
    if (result.isCollision()) {
        uint32_t a = (uint32_t)(uintptr_t)o1->getUserData(), b = (uint32_t)(uintptr_t)o2->getUserData();
        c->hits.push_back(Hit{c->frame, std::min(a, b), std::max(a, b)});
    }
    return false; // go on: every colliding pair
}

static double ms(Clock::time_point a, Clock::time_point b)
{
    return std::chrono::duration<double, std::milli>(b - a).count();
}

int main(int argc, char **argv)
{
    int runs = parse_scene_runs(argc, argv, 1);
    if (runs == 0)
        return 2;
    kcbp_scene *scene = nullptr;
    std::vector<std::shared_ptr<fcl::BVHModel<fcl::OBBRSSd>>> bvhs;
    double build_ms;
    if (int rc = load_scene_bvhs("moving_fcl", argv[1], scene, bvhs, build_ms))
        return rc;
    std::vector<std::unique_ptr<fcl::CollisionObjectd>> objects;
    std::vector<fcl::CollisionObjectd *> ptrs;
    for (uint32_t i = 0; i < kcbp_scene_object_count(scene); i++) {
        objects.emplace_back(new fcl::CollisionObjectd(bvhs[kcbp_scene_object_model(scene, i)]));
        objects.back()->setUserData((void *)(uintptr_t)i);
        ptrs.push_back(objects.back().get());
    }

    std::vector<double> total_ms, collide_ms, setup_ms;
    Collected first;
    int inconsistent = 0;
    for (int r = -1; r < runs; r++) { // r = -1: the warm-up
        auto s0 = Clock::now();
        for (uint32_t i = 0; i < kcbp_scene_object_count(scene); i++) {
            ptrs[i]->setTransform(to_fcl(kcbp_scene_object_pose(scene, i, 0)));
            ptrs[i]->computeAABB();
        }
        fcl::DynamicAABBTreeCollisionManagerd manager;
        manager.registerObjects(ptrs);
        manager.setup();
        double setup = ms(s0, Clock::now());

        Collected c;
        double total = 0, coll = 0;
        for (uint32_t f = 0; f < kcbp_scene_frame_count(scene); f++) {
            size_t before = c.hits.size();
            c.frame = f;
            auto t0 = Clock::now();
            for (uint32_t i = 0; i < kcbp_scene_object_count(scene); i++) {
                ptrs[i]->setTransform(to_fcl(kcbp_scene_object_pose(scene, i, f)));
                ptrs[i]->computeAABB();
            }
            manager.update();
            auto t1 = Clock::now();
            manager.collide(&c, on_pair);
            auto t2 = Clock::now();
            total += ms(t0, t2);
            coll += ms(t1, t2);
            std::sort(c.hits.begin() + (std::ptrdiff_t)before, c.hits.end());
        }
        if (r < 0) {
            first = c;
            continue;
        }
        setup_ms.push_back(setup);
        total_ms.push_back(total);
        collide_ms.push_back(coll);
        if (c.hits != first.hits)
            inconsistent++;
    }
    std::printf("objects %u\nframes %u\n", kcbp_scene_object_count(scene), kcbp_scene_frame_count(scene));
    std::printf("broadphase %zu\n", first.calls);
    std::printf("colliding %zu\n", first.hits.size());
    std::printf("median_ms %.4f\n", median(total_ms));
    std::printf("collide_ms %.4f\n", median(collide_ms));
    std::printf("setup_ms %.4f\n", median(setup_ms));
    std::printf("build_ms %.3f\n", build_ms);
    std::printf("run_ms");
    for (double t : total_ms)
        std::printf(" %.4f", t);
    std::printf("\n");
    for (auto &h : first.hits)
        std::printf("frame %u pair %s %s\n", h.frame, kcbp_scene_object_at(scene, h.a).name, kcbp_scene_object_at(scene, h.b).name);
    kcbp_scene_free(scene);
    if (inconsistent) {
        std::fprintf(stderr, "moving_fcl: %d runs found other pairs than the first\n", inconsistent);
        return 1;
    }
    return 0;
}

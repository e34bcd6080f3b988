// scale_fcl: the FCL 0.7 peer of bench/scale.sh (issue 26), built to go to
// 10^6 objects.
//
//   scale_fcl SCENE.json.bin [PAIRS.txt]
//
// Reads gen_scale's side file (bench/scale_scene.h: the same doubles as
// SCENE.json, without kcbp's object limit or a JSON tree in memory), loads
// each model's mesh with kcbp's reader, scaled as kcbp scales it, and
// builds one fcl::BVHModel<OBBRSSd> per model (objects share their model's
// BVH, as in kcbp), then one fcl::CollisionObjectd per object. Then, timed
// with steady_clock, every frame as FCL's users run one:
//   every object: its pose (ss_pose: kcbp_scene_object_pose's formula, bit
//   for bit), setTransform, computeAABB; at frame 0 registerObjects and
//   setup on a DynamicAABBTreeCollisionManager, later frames update();
//   then collide() with a callback running fcl::collide with the default
//   request (num_max_contacts = 1: stops at the first contact) on every
//   pair the manager reports, recording the colliding ones.
// Nothing grows with the frames: each frame's colliding pairs are sorted
// (untimed) and written to PAIRS.txt as "F A B" lines (object indices, A <
// B), then dropped. kcbp's `kcbp scene` output reduces to the same lines
// (bench/scale.sh), so the two can be compared with cmp.
//
// Prints one "key value" line each: objects, frames, load_ms (side file and
// meshes), build_ms (BVHs and collision objects), detect_ms (the frames,
// summed), collide_ms (the collide() calls alone), broadphase (pairs given
// to the callback, summed over frames), colliding (pair-frames), and
// frame_ms (each frame).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <new>
#include <utility>
#include <vector>

#include <fcl/fcl.h>

#include "fcl_peer.hpp"
#include "scale_scene.h"

using Clock = std::chrono::steady_clock;

struct Collected {
    uint64_t calls = 0;
    std::vector<std::pair<uint32_t, uint32_t>> hits;
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
        c->hits.emplace_back(std::min(a, b), std::max(a, b));
    }
    return false; // go on: every colliding pair
}

static double ms(Clock::time_point a, Clock::time_point b)
{
    return std::chrono::duration<double, std::milli>(b - a).count();
}

static int run(int argc, char **argv)
{
    if (argc < 2 || argc > 3) {
        std::fprintf(stderr, "usage: scale_fcl SCENE.json.bin [PAIRS.txt]\n");
        return 2;
    }
    auto l0 = Clock::now();
    ss_scene s;
    char msg[512];
    if (!ss_read(argv[1], &s, msg, sizeof msg)) {
        std::fprintf(stderr, "scale_fcl: %s\n", msg);
        return 3;
    }
    char dir[4096];
    ss_dir_of(argv[1], dir, sizeof dir);
    std::vector<kcbp_mesh *> meshes(s.nmodels);
    for (uint32_t m = 0; m < s.nmodels; m++) {
        kcbp_error err;
        if (ss_load_mesh(&s, dir, m, &meshes[m], &err) != KCBP_OK) {
            std::fprintf(stderr, "scale_fcl: %s\n", err.msg);
            return 3;
        }
    }
    auto l1 = Clock::now();
    std::vector<std::shared_ptr<fcl::BVHModel<fcl::OBBRSSd>>> bvhs;
    for (uint32_t m = 0; m < s.nmodels; m++) {
        bvhs.push_back(build_bvh(meshes[m]));
        kcbp_mesh_free(meshes[m]);
        if (!bvhs.back()) {
            std::fprintf(stderr, "scale_fcl: building the BVH failed\n");
            return 4;
        }
    }
    std::vector<std::unique_ptr<fcl::CollisionObjectd>> objects;
    std::vector<fcl::CollisionObjectd *> ptrs;
    objects.reserve(s.nobjects);
    ptrs.reserve(s.nobjects);
    for (uint32_t i = 0; i < s.nobjects; i++) {
        objects.emplace_back(new fcl::CollisionObjectd(bvhs[s.objects[i].model]));
        objects.back()->setUserData((void *)(uintptr_t)i);
        ptrs.push_back(objects.back().get());
    }
    auto l2 = Clock::now();

    FILE *pairs = argc > 2 ? std::fopen(argv[2], "w") : nullptr;
    if (argc > 2 && !pairs) {
        std::fprintf(stderr, "scale_fcl: %s: cannot write\n", argv[2]);
        return 4;
    }
    fcl::DynamicAABBTreeCollisionManagerd manager;
    Collected c;
    uint64_t broadphase = 0, colliding = 0;
    double detect = 0, coll = 0;
    std::vector<double> frame_ms;
    for (uint32_t f = 0; f < s.frames; f++) {
        c.calls = 0;
        c.hits.clear();
        auto t0 = Clock::now();
        for (uint32_t i = 0; i < s.nobjects; i++) {
            ptrs[i]->setTransform(to_fcl(ss_pose(&s, i, f)));
            ptrs[i]->computeAABB();
        }
        if (f == 0) {
            manager.registerObjects(ptrs);
            manager.setup();
        } else {
            manager.update();
        }
        auto t1 = Clock::now();
        manager.collide(&c, on_pair);
        auto t2 = Clock::now();
        detect += ms(t0, t2);
        coll += ms(t1, t2);
        frame_ms.push_back(ms(t0, t2));
        broadphase += c.calls;
        colliding += c.hits.size();
        if (pairs) {
            std::sort(c.hits.begin(), c.hits.end());
            for (auto &h : c.hits)
                std::fprintf(pairs, "%u %u %u\n", f, h.first, h.second);
        }
    }
    if (pairs && std::fclose(pairs) != 0) {
        std::fprintf(stderr, "scale_fcl: %s: write failed\n", argv[2]);
        return 4;
    }
    std::printf("objects %u\nframes %u\n", s.nobjects, s.frames);
    std::printf("load_ms %.3f\nbuild_ms %.3f\n", ms(l0, l1), ms(l1, l2));
    std::printf("detect_ms %.3f\ncollide_ms %.3f\n", detect, coll);
    std::printf("broadphase %llu\ncolliding %llu\n", (unsigned long long)broadphase, (unsigned long long)colliding);
    std::printf("frame_ms");
    for (double t : frame_ms)
        std::printf(" %.3f", t);
    std::printf("\n");
    ss_free(&s);
    return 0;
}

int main(int argc, char **argv)
{
    try {
        return run(argc, argv);
    } catch (const std::bad_alloc &) {
        std::fprintf(stderr, "scale_fcl: out of memory\n");
        return 4;
    }
}

// The pieces both FCL peers share: kcbp's mesh and pose as FCL objects, and
// the median of timings. Header-only, for the bench programs.
#ifndef KCBP_BENCH_FCL_PEER_HPP
#define KCBP_BENCH_FCL_PEER_HPP

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

#include <fcl/fcl.h>

#include <kcbp/kcbp.h>

inline double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// BV: OBBRSSd for collide (the default), RSSd for distance (bench/fcl_distance).
template <class BV = fcl::OBBRSSd> std::shared_ptr<fcl::BVHModel<BV>> build_bvh(const kcbp_mesh *m)
{
    uint32_t nv = kcbp_mesh_vertex_count(m), nt = kcbp_mesh_triangle_count(m);
    const kcbp_vec3 *v = kcbp_mesh_vertices(m);
    const kcbp_tri *t = kcbp_mesh_triangles(m);
    std::vector<fcl::Vector3d> ps(nv);
    for (uint32_t i = 0; i < nv; i++)
        ps[i] = fcl::Vector3d(v[i].x, v[i].y, v[i].z);
    std::vector<fcl::Triangle> ts(nt);
    for (uint32_t i = 0; i < nt; i++)
        ts[i] = fcl::Triangle(t[i].v[0], t[i].v[1], t[i].v[2]);
    auto bvh = std::make_shared<fcl::BVHModel<BV>>();
    if (bvh->beginModel((int)nt, (int)nv) != fcl::BVH_OK ||
        bvh->addSubModel(ps, ts) != fcl::BVH_OK || bvh->endModel() != fcl::BVH_OK)
        return nullptr;
    return bvh;
}

// The command line "PROG SCENE.json [RUNS=fallback]": RUNS in 1..1000, or
// 0 after printing the usage or the problem.
inline int parse_scene_runs(int argc, char **argv, int fallback)
{
    if (argc < 2 || argc > 3) {
        std::fprintf(stderr, "usage: %s SCENE.json [RUNS=%d]\n", argv[0], fallback);
        return 0;
    }
    int runs = argc > 2 ? std::atoi(argv[2]) : fallback;
    if (runs < 1 || runs > 1000) {
        std::fprintf(stderr, "%s: RUNS must be in 1..1000\n", argv[0]);
        return 0;
    }
    return runs;
}

// Reads and builds the scene at path with kcbp, meshes only (FCL needs no
// k-CBPs), and one BVH per model; build_ms: the BVHs' build time. Returns 0,
// or the exit status after printing "prog: problem".
inline int load_scene_bvhs(const char *prog, const char *path, kcbp_scene *&scene,
                           std::vector<std::shared_ptr<fcl::BVHModel<fcl::OBBRSSd>>> &bvhs, double &build_ms)
{
    kcbp_error err;
    kcbp_model_options opts = kcbp_model_options_default();
    opts.k = 0;
    if (kcbp_scene_load(path, &opts, &scene, &err) != KCBP_OK) {
        std::fprintf(stderr, "%s: %s\n", prog, err.msg);
        return 3;
    }
    auto t0 = std::chrono::steady_clock::now();
    for (uint32_t m = 0; m < kcbp_scene_model_count(scene); m++) {
        bvhs.push_back(build_bvh(kcbp_model_mesh(kcbp_scene_model(scene, m))));
        if (!bvhs.back()) {
            std::fprintf(stderr, "%s: building the BVH failed\n", prog);
            return 4;
        }
    }
    build_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return 0;
}

inline fcl::Transform3d to_fcl(const kcbp_pose &p)
{
    fcl::Transform3d t = fcl::Transform3d::Identity();
    fcl::Matrix3d r;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            r(i, j) = p.rot.m[i][j];
    t.linear() = r;
    t.translation() = fcl::Vector3d(p.trans.x, p.trans.y, p.trans.z);
    return t;
}

#endif

// The pieces both FCL peers share: kcbp's mesh and pose as FCL objects, and
// the median of timings. Header-only, for the bench programs.
#ifndef KCBP_BENCH_FCL_PEER_HPP
#define KCBP_BENCH_FCL_PEER_HPP

#include <algorithm>
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

inline std::shared_ptr<fcl::BVHModel<fcl::OBBRSSd>> build_bvh(const kcbp_mesh &m)
{
    std::vector<fcl::Vector3d> ps(m.nvertices);
    for (uint32_t i = 0; i < m.nvertices; i++)
        ps[i] = fcl::Vector3d(m.vertices[i].x, m.vertices[i].y, m.vertices[i].z);
    std::vector<fcl::Triangle> ts(m.ntriangles);
    for (uint32_t i = 0; i < m.ntriangles; i++)
        ts[i] = fcl::Triangle(m.triangles[i].v[0], m.triangles[i].v[1], m.triangles[i].v[2]);
    auto bvh = std::make_shared<fcl::BVHModel<fcl::OBBRSSd>>();
    if (bvh->beginModel((int)m.ntriangles, (int)m.nvertices) != fcl::BVH_OK ||
        bvh->addSubModel(ps, ts) != fcl::BVH_OK || bvh->endModel() != fcl::BVH_OK)
        return nullptr;
    return bvh;
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

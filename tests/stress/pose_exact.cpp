// kcbp_collide on posed mesh pairs against exact brute force: for random
// rotations and directions, B is moved along the direction to its first
// contact with A (bisection on the translation's length, on CGAL's exact
// answer), then posed at (1 +- 10^-k) times that length, k = 6 .. 12. At each
// pose, kcbp_collide's answer (A at the identity or, every other direction,
// rotated and 10^7 of its scale from the origin; the full pipeline: boxes,
// k-CBPs, trees) must equal CGAL's exact kernel over every triangle pair on
// the coordinates kcbp's triangle test receives: A's vertices as stored, B's
// carried into A's frame with kcbp_pose_apply of kcbp_pose_relative of the
// two world poses.
//
// usage: pose_exact A.obj B.obj [directions (default 20)] [seed (default 1)]
// Exit status 1 on any disagreement.
#include "exact_shape.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <kcbp/collide.h>
#include <kcbp/mesh.h>
#include <kcbp/model.h>
#include <kcbp/pose.h>

namespace {

using exact_shape::next_u64;
using exact_shape::rng_state;
using exact_shape::runit;
using exact_shape::uni;

struct Box {
    kcbp_vec3 lo, hi;
};
Box tri_box(const kcbp_vec3 t[3])
{
    return {kcbp_v3_min(t[0], kcbp_v3_min(t[1], t[2])), kcbp_v3_max(t[0], kcbp_v3_max(t[1], t[2]))};
}

// A model's mesh arrays, read through the 1.0 accessors.
struct MeshView {
    const kcbp_vec3 *vertices;
    const kcbp_tri *triangles;
    uint32_t nvertices, ntriangles;
    kcbp_aabb bounds;
};

MeshView view_of(const kcbp_model &m)
{
    const kcbp_mesh *x = kcbp_model_mesh(&m);
    return MeshView{kcbp_mesh_vertices(x), kcbp_mesh_triangles(x), kcbp_mesh_vertex_count(x),
                    kcbp_mesh_triangle_count(x), kcbp_mesh_bounds(x)};
}

// A's triangles, sorted by their boxes' low x, for a sweep.
struct Sorted {
    std::vector<uint32_t> order;
    std::vector<Box> box;
    std::vector<double> lox;
};

void tri_of(const MeshView &m, uint32_t t, kcbp_vec3 out[3])
{
    for (int k = 0; k < 3; k++)
        out[k] = m.vertices[m.triangles[t].v[k]];
}

Sorted sort_a(const MeshView &a)
{
    Sorted s;
    for (uint32_t t = 0; t < a.ntriangles; t++)
        s.order.push_back(t);
    std::vector<Box> boxes(a.ntriangles);
    for (uint32_t t = 0; t < a.ntriangles; t++) {
        kcbp_vec3 v[3];
        tri_of(a, t, v);
        boxes[t] = tri_box(v);
    }
    std::sort(s.order.begin(), s.order.end(), [&](uint32_t p, uint32_t q) { return boxes[p].lo.x < boxes[q].lo.x; });
    for (uint32_t t : s.order) {
        s.box.push_back(boxes[t]);
        s.lox.push_back(boxes[t].lo.x);
    }
    return s;
}

// Exact brute force: some triangle of A meets some triangle of B (at
// b_in_a) on the coordinates the triangle test sees. Boxes of exact
// coordinates prune exactly.
bool exact_collide(const MeshView &a, const Sorted &sa, const MeshView &b, const kcbp_pose &b_in_a)
{
    std::vector<kcbp_vec3> vb(b.nvertices);
    for (uint32_t i = 0; i < b.nvertices; i++)
        vb[i] = kcbp_pose_apply(&b_in_a, b.vertices[i]);
    for (uint32_t t = 0; t < b.ntriangles; t++) {
        kcbp_vec3 tb[3] = {vb[b.triangles[t].v[0]], vb[b.triangles[t].v[1]], vb[b.triangles[t].v[2]]};
        Box bb = tri_box(tb);
        size_t end = std::upper_bound(sa.lox.begin(), sa.lox.end(), bb.hi.x) - sa.lox.begin();
        exact_shape::Shape sb;
        bool have = false;
        for (size_t i = 0; i < end; i++) {
            const Box &ab = sa.box[i];
            if (ab.hi.x < bb.lo.x || ab.hi.y < bb.lo.y || ab.lo.y > bb.hi.y || ab.hi.z < bb.lo.z || ab.lo.z > bb.hi.z)
                continue;
            if (!have)
                sb = exact_shape::shape(tb), have = true;
            kcbp_vec3 ta[3];
            tri_of(a, sa.order[i], ta);
            if (exact_shape::exact_intersect(exact_shape::shape(ta), sb))
                return true;
        }
    }
    return false;
}

// B rotated by rot, its box centre moved to base + s dir, in A's frame;
// then both carried by pose_a (the world poses kcbp_collide receives).
kcbp_vec3 base;
kcbp_pose pose_a;
kcbp_pose pose_at(const kcbp_mat3 &rot, kcbp_vec3 dir, double s)
{
    kcbp_pose p;
    p.rot = rot;
    p.trans = kcbp_v3_add(base, kcbp_v3_scale(dir, s));
    return kcbp_pose_mul(&pose_a, &p);
}

} // namespace

int main(int argc, char **argv)
{
    if (argc < 3) {
        std::fprintf(stderr, "usage: pose_exact A.obj B.obj [directions] [seed]\n");
        return 2;
    }
    int ndir = argc > 3 ? std::atoi(argv[3]) : 20;
    rng_state = argc > 4 ? std::strtoull(argv[4], nullptr, 10) : 1;
    kcbp_model ma, mb;
    kcbp_error err;
    kcbp_model_options mo = kcbp_model_options_default();
    if (kcbp_model_load(&ma, argv[1], &mo, &err) != KCBP_OK || kcbp_model_load(&mb, argv[2], &mo, &err) != KCBP_OK) {
        std::fprintf(stderr, "pose_exact: %s\n", err.msg);
        return 2;
    }
    MeshView va = view_of(ma), vb = view_of(mb);
    Sorted sa = sort_a(va);
    kcbp_collide_options co = kcbp_collide_options_default();
    co.contacts = KCBP_CONTACTS_NONE;
    double far = 2 * (kcbp_model_scale(&ma) + kcbp_model_scale(&mb));
    long poses = 0, yes = 0, wrong = 0, skipped = 0;
    for (int d = 0; d < ndir; d++) {
        kcbp_pose rp;
        if (kcbp_pose_from_axis_angle(kcbp_v3(0, 0, 0), runit(), uni(0, 360), &rp, &err) != KCBP_OK)
            return 2;
        kcbp_vec3 dir = runit();
        // Every other direction, A rotated and moved 10^7 of its scale away
        // from the origin, B with it: world rounding far above the gaps.
        pose_a = kcbp_pose_identity();
        if (d % 2 && kcbp_pose_from_axis_angle(kcbp_v3_scale(runit(), 1e7 * kcbp_model_scale(&ma)), runit(), uni(0, 360), &pose_a,
                                               &err) != KCBP_OK)
            return 2;
        // s = 0: the boxes' centres together
        base = kcbp_v3_sub(kcbp_aabb_center(va.bounds), kcbp_mat3_mul_v3(&rp.rot, kcbp_aabb_center(vb.bounds)));
        // Bisection: lo touches, hi is apart (both exactly, per CGAL).
        double lo = 0, hi = far;
        kcbp_pose p0 = pose_at(rp.rot, dir, lo), p1 = pose_at(rp.rot, dir, hi);
        if (!exact_collide(va, sa, vb, kcbp_pose_relative(&pose_a, &p0)) ||
            exact_collide(va, sa, vb, kcbp_pose_relative(&pose_a, &p1))) {
            skipped++;
            continue;
        }
        for (int it = 0; it < 200 && hi - lo > 1e-15 * hi; it++) {
            double mid = 0.5 * (lo + hi);
            kcbp_pose pm = pose_at(rp.rot, dir, mid);
            (exact_collide(va, sa, vb, kcbp_pose_relative(&pose_a, &pm)) ? lo : hi) = mid;
        }
        for (int k = 6; k <= 12; k++)
            for (int sg = -1; sg <= 1; sg += 2) {
                double s = hi * (1 + sg * std::pow(10.0, -k));
                kcbp_pose pb = pose_at(rp.rot, dir, s);
                bool want = exact_collide(va, sa, vb, kcbp_pose_relative(&pose_a, &pb));
                kcbp_collide_result res = {};
                if (kcbp_collide(&ma, &pose_a, &mb, &pb, &co, &res, &err) != KCBP_OK) {
                    std::fprintf(stderr, "pose_exact: %s\n", err.msg);
                    return 2;
                }
                poses++;
                yes += want;
                if (res.collide != want) {
                    wrong++;
                    std::printf("  WRONG: direction %d, 1 %+g: exact %d, kcbp %d (decided by %s)\n", d,
                                sg * std::pow(10.0, -k), want, res.collide, kcbp_stage_name(res.decided_by));
                }
                kcbp_collide_result_free(&res);
            }
    }
    std::printf("pose_exact %s %s: %ld poses at 1e-6 .. 1e-12 of first contact (%ld colliding), %ld directions "
                "skipped, %ld disagreements: %s\n",
                argv[1], argv[2], poses, yes, skipped, wrong, wrong ? "FAILED" : "ok");
    kcbp_model_free(&ma);
    kcbp_model_free(&mb);
    return wrong ? 1 : 0;
}

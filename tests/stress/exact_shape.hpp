// For the stress programs: exact intersection of two mesh triangles with
// CGAL's exact kernel (a triangle as CGAL sees it is a triangle, or, its
// vertices collinear, the segment between its two farthest ones, or a
// point), and a seeded random stream (splitmix64).
#ifndef KCBP_STRESS_EXACT_SHAPE_HPP
#define KCBP_STRESS_EXACT_SHAPE_HPP

#include <CGAL/Exact_predicates_exact_constructions_kernel.h>
#include <CGAL/intersections.h>
#include <CGAL/squared_distance_3.h>

#include <cstdint>

#include <kcbp/vec3.h>

namespace exact_shape {

typedef CGAL::Exact_predicates_exact_constructions_kernel K;
typedef K::Point_3 P3;
typedef K::Segment_3 S3;
typedef K::Triangle_3 T3;
typedef K::FT FT;

inline uint64_t rng_state;
inline uint64_t next_u64()
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
inline double uni(double lo, double hi) { return lo + (hi - lo) * (double)(next_u64() >> 11) * 0x1p-53; }
inline kcbp_vec3 rvec(double lo, double hi) { return kcbp_v3(uni(lo, hi), uni(lo, hi), uni(lo, hi)); }
inline kcbp_vec3 unit(kcbp_vec3 v) { return kcbp_v3_scale(v, 1.0 / kcbp_v3_len(v)); }
inline kcbp_vec3 runit()
{
    for (;;) {
        kcbp_vec3 v = rvec(-1, 1);
        double l = kcbp_v3_len2(v);
        if (l > 0.01 && l <= 1)
            return unit(v);
    }
}

inline P3 cp(kcbp_vec3 v) { return P3(v.x, v.y, v.z); }

struct Shape {
    int kind; // 3 triangle, 2 segment, 1 point
    T3 t;
    S3 s;
    P3 p;
};

inline Shape shape(const kcbp_vec3 v[3])
{
    Shape sh;
    P3 p[3] = {cp(v[0]), cp(v[1]), cp(v[2])};
    if (!CGAL::collinear(p[0], p[1], p[2])) {
        sh.kind = 3;
        sh.t = T3(p[0], p[1], p[2]);
        return sh;
    }
    // collinear: the two points farthest apart
    int bi = 0, bj = 1;
    FT best = CGAL::squared_distance(p[0], p[1]);
    for (int i = 0; i < 3; i++)
        for (int j = i + 1; j < 3; j++)
            if (CGAL::squared_distance(p[i], p[j]) > best)
                best = CGAL::squared_distance(p[i], p[j]), bi = i, bj = j;
    if (best == 0) {
        sh.kind = 1;
        sh.p = p[0];
    } else {
        sh.kind = 2;
        sh.s = S3(p[bi], p[bj]);
    }
    return sh;
}

inline bool exact_intersect(const Shape &a, const Shape &b)
{
    if (a.kind < b.kind)
        return exact_intersect(b, a);
    if (a.kind == 3)
        return b.kind == 3 ? CGAL::do_intersect(a.t, b.t)
               : b.kind == 2 ? CGAL::do_intersect(a.t, b.s)
                             : a.t.has_on(b.p);
    if (a.kind == 2)
        return b.kind == 2 ? CGAL::do_intersect(a.s, b.s) : a.s.has_on(b.p);
    return a.p == b.p;
}

} // namespace exact_shape

#endif

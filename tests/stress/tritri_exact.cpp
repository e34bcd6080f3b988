// kcbp_tri_intersect against exact arithmetic: CGAL's
// Exact_predicates_exact_constructions_kernel decides whether the two
// triangles (their double coordinates taken as exact rationals) share a
// point. kcbp_tri_intersect's contract (include/kcbp/tritri.h) is the same
// exact answer, so every disagreement is a bug: a miss (intersecting, said
// apart) or a false alarm (apart, said touching).
//
// Classes: random, near-coplanar, exactly coplanar, small-integer grid
// (exact touching of every kind), slivers and segments, a vertex of b on or
// near a's face, an edge of b across an edge of a, pairs far from the
// origin, pairs scaled to huge and tiny magnitudes, and exact contacts moved
// by one ulp.
//
// usage: tritri_exact [pairs (default 1000000)] [seed (default 1)]
// Exit status 1 when there is any disagreement.
#include "exact_shape.hpp"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <kcbp/tritri.h>

using exact_shape::exact_intersect;
using exact_shape::next_u64;
using exact_shape::rng_state;
using exact_shape::runit;
using exact_shape::rvec;
using exact_shape::shape;
using exact_shape::uni;
using exact_shape::unit;

namespace {

double decade(double lo_exp, double hi_exp) { return std::pow(10.0, uni(lo_exp, hi_exp)); }
double sign() { return next_u64() & 1 ? 1.0 : -1.0; }

// A point on triangle t at random barycentric coordinates (inside).
kcbp_vec3 on_tri(const kcbp_vec3 t[3])
{
    double u = uni(0.05, 1), v = uni(0.05, 1), w = uni(0.05, 1), s = u + v + w;
    return kcbp_v3_add(kcbp_v3_add(kcbp_v3_scale(t[0], u / s), kcbp_v3_scale(t[1], v / s)), kcbp_v3_scale(t[2], w / s));
}
kcbp_vec3 tri_normal(const kcbp_vec3 t[3])
{
    return kcbp_v3_cross(kcbp_v3_sub(t[1], t[0]), kcbp_v3_sub(t[2], t[0]));
}

enum Class { UNIFORM, NEARCOP, COPLANAR, GRID, SLIVER, TOUCH_VERTEX, TOUCH_EDGE, FAR, SCALED, ULP, NCLASS };
const char *class_name[NCLASS] = {"uniform",      "near-coplanar",   "coplanar", "grid",   "sliver",
                                  "vertex-on-face", "edge-on-edge", "far-from-origin", "huge-tiny", "1-ulp"};

kcbp_vec3 nudge(kcbp_vec3 v) // one coordinate one ulp up or down
{
    double *c = &v.x + next_u64() % 3;
    *c = std::nextafter(*c, next_u64() & 1 ? INFINITY : -INFINITY);
    return v;
}

void make_pair(int cls, kcbp_vec3 a[3], kcbp_vec3 b[3])
{
    switch (cls) {
    case UNIFORM: {
        double s = uni(0.05, 1);
        kcbp_vec3 c = rvec(-0.5, 0.5);
        for (int i = 0; i < 3; i++)
            a[i] = rvec(-1, 1), b[i] = kcbp_v3_add(c, kcbp_v3_scale(rvec(-1, 1), s));
        break;
    }
    case NEARCOP: { // b near a's plane: offsets over 1e-18 .. 1e-4
        for (int i = 0; i < 3; i++)
            a[i] = rvec(-1, 1);
        kcbp_vec3 n = unit(tri_normal(a));
        for (int i = 0; i < 3; i++) {
            kcbp_vec3 p = on_tri(a);
            p = kcbp_v3_add(p, kcbp_v3_scale(kcbp_v3_sub(rvec(-1, 1), kcbp_v3_scale(n, 0)), uni(0, 1.5)));
            double off = kcbp_v3_dot(kcbp_v3_sub(p, a[0]), n); // project onto the plane, then offset
            b[i] = kcbp_v3_add(kcbp_v3_sub(p, kcbp_v3_scale(n, off)), kcbp_v3_scale(n, sign() * decade(-18, -4)));
        }
        break;
    }
    case COPLANAR: { // exactly coplanar: an axis plane
        int ax = (int)(next_u64() % 3);
        double c = uni(-1, 1);
        for (int i = 0; i < 3; i++) {
            double p[3] = {uni(-1, 1), uni(-1, 1), uni(-1, 1)}, q[3] = {uni(-1.5, 1.5), uni(-1.5, 1.5), uni(-1.5, 1.5)};
            p[ax] = q[ax] = c;
            a[i] = kcbp_v3(p[0], p[1], p[2]);
            b[i] = kcbp_v3(q[0], q[1], q[2]);
        }
        break;
    }
    case GRID: // small integers: shared vertices, edges, vertices on edges, exact touching
        for (int i = 0; i < 3; i++) {
            a[i] = kcbp_v3((double)(next_u64() % 4), (double)(next_u64() % 4), (double)(next_u64() % 3));
            b[i] = kcbp_v3((double)(next_u64() % 4), (double)(next_u64() % 4), (double)(next_u64() % 3));
        }
        break;
    case SLIVER: { // a nearly degenerate: its third vertex within 1e-18 .. 1e-6 of the line of the others
        kcbp_vec3 p = rvec(-1, 1), q = rvec(-1, 1);
        kcbp_vec3 off = kcbp_v3_scale(runit(), decade(-18, -6) * (next_u64() % 5 ? 1 : 0));
        a[0] = p, a[1] = q;
        a[2] = kcbp_v3_add(kcbp_v3_add(p, kcbp_v3_scale(kcbp_v3_sub(q, p), uni(-0.2, 1.2))), off);
        for (int i = 0; i < 3; i++)
            b[i] = rvec(-1, 1);
        if (next_u64() & 1)
            std::swap(a, b);
        break;
    }
    case TOUCH_VERTEX: { // a vertex of b on a's face, moved by +-1e-18 .. 1e-6 along the normal
        for (int i = 0; i < 3; i++)
            a[i] = rvec(-1, 1);
        kcbp_vec3 n = unit(tri_normal(a)), p = on_tri(a);
        double side = sign();
        b[0] = kcbp_v3_add(p, kcbp_v3_scale(n, sign() * decade(-18, -6) * (next_u64() % 4 ? 1 : 0)));
        b[1] = kcbp_v3_add(p, kcbp_v3_add(kcbp_v3_scale(n, side * uni(0.1, 1)), rvec(-0.7, 0.7)));
        b[2] = kcbp_v3_add(p, kcbp_v3_add(kcbp_v3_scale(n, side * uni(0.1, 1)), rvec(-0.7, 0.7)));
        break;
    }
    case TOUCH_EDGE: { // an edge of b crossing an edge of a, apart by +-1e-18 .. 1e-6
        for (int i = 0; i < 3; i++)
            a[i] = rvec(-1, 1);
        kcbp_vec3 e = kcbp_v3_sub(a[1], a[0]), n = unit(tri_normal(a));
        kcbp_vec3 out = unit(kcbp_v3_cross(e, n)); // in a's plane, away from a? sign below
        if (kcbp_v3_dot(out, kcbp_v3_sub(a[2], a[0])) > 0)
            out = kcbp_v3_neg(out);
        kcbp_vec3 x = kcbp_v3_add(a[0], kcbp_v3_scale(e, uni(0.1, 0.9)));
        kcbp_vec3 d = unit(kcbp_v3_add(kcbp_v3_scale(n, uni(-1, 1)), kcbp_v3_scale(unit(e), uni(-1, 1))));
        if (!std::isfinite(d.x))
            d = n;
        x = kcbp_v3_add(x, kcbp_v3_scale(out, sign() * decade(-18, -6) * (next_u64() % 4 ? 1 : 0)));
        b[0] = kcbp_v3_add(x, kcbp_v3_scale(d, uni(0.1, 1)));
        b[1] = kcbp_v3_sub(x, kcbp_v3_scale(d, uni(0.1, 1)));
        b[2] = kcbp_v3_add(x, kcbp_v3_add(kcbp_v3_scale(out, uni(0.2, 1)), rvec(-0.3, 0.3)));
        break;
    }
    case FAR: { // uniform or touching-vertex pairs moved to around 1e6
        kcbp_vec3 off = kcbp_v3_scale(runit(), 1e6);
        make_pair(next_u64() & 1 ? UNIFORM : TOUCH_VERTEX, a, b);
        for (int i = 0; i < 3; i++)
            a[i] = kcbp_v3_add(a[i], off), b[i] = kcbp_v3_add(b[i], off);
        break;
    }
    case SCALED: { // any other class times 2^k or 10^k, k up to +-40 (10^k rounds)
        make_pair((int)(next_u64() % SCALED), a, b);
        double f = next_u64() & 1 ? std::ldexp(1.0, (int)(next_u64() % 161) - 80) : decade(-40, 40);
        for (int i = 0; i < 3; i++)
            a[i] = kcbp_v3_scale(a[i], f), b[i] = kcbp_v3_scale(b[i], f);
        break;
    }
    case ULP: { // an exact grid contact (often touching), one vertex moved by one ulp
        make_pair(GRID, a, b);
        double f = decade(-3, 3);
        for (int i = 0; i < 3; i++)
            a[i] = kcbp_v3_scale(a[i], f), b[i] = kcbp_v3_scale(b[i], f);
        int k = (int)(next_u64() % 6);
        (k < 3 ? a : b)[k % 3] = nudge((k < 3 ? a : b)[k % 3]);
        break;
    }
    }
}

void print_pair(const char *what, const char *cls, const kcbp_vec3 a[3], const kcbp_vec3 b[3])
{
    std::printf("  %s (%s)\n   a", what, cls);
    for (int i = 0; i < 3; i++)
        std::printf(" (%.17g, %.17g, %.17g)", a[i].x, a[i].y, a[i].z);
    std::printf("\n   b");
    for (int i = 0; i < 3; i++)
        std::printf(" (%.17g, %.17g, %.17g)", b[i].x, b[i].y, b[i].z);
    std::printf("\n");
}

} // namespace

int main(int argc, char **argv)
{
    long n = argc > 1 ? std::atol(argv[1]) : 1000000;
    rng_state = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1;
    long pairs[NCLASS] = {0}, yes[NCLASS] = {0}, miss[NCLASS] = {0}, falses[NCLASS] = {0}, asym[NCLASS] = {0};
    int shown = 0;
    for (long k = 0; k < n; k++) {
        int cls = (int)(k % NCLASS);
        kcbp_vec3 a[3], b[3];
        make_pair(cls, a, b);
        bool got = kcbp_tri_intersect(a, b, 0.0);
        bool exact = exact_intersect(shape(a), shape(b));
        pairs[cls]++;
        yes[cls] += exact;
        asym[cls] += kcbp_tri_intersect(b, a, 0.0) != got;
        if (got != exact) {
            (exact ? miss : falses)[cls]++;
            if (shown++ < 10)
                print_pair(exact ? "MISS: intersecting, said apart" : "FALSE: apart, said touching", class_name[cls],
                           a, b);
        }
    }
    long tp = 0, tm = 0, tf = 0, ta = 0;
    std::printf("%-16s %8s %8s %6s %6s %6s\n", "class", "pairs", "exact", "misses", "false", "asym");
    for (int c = 0; c < NCLASS; c++) {
        std::printf("%-16s %8ld %8ld %6ld %6ld %6ld\n", class_name[c], pairs[c], yes[c], miss[c], falses[c], asym[c]);
        tp += pairs[c], tm += miss[c], tf += falses[c], ta += asym[c];
    }
    bool ok = tm == 0 && tf == 0 && ta == 0;
    std::printf("tritri vs exact: %ld pairs, %ld misses, %ld false, %ld asymmetric: %s\n", tp, tm, tf, ta,
                ok ? "ok" : "FAILED");
    return ok ? 0 : 1;
}

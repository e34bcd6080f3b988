/* Penetration depth of convex shape pairs (src/convex/depth.h) against
 * independent oracles:
 *  - polytopes (boxes, hulls, cylinders' inscribed and circumscribed
 *    prisms, a capsule's segment): the depth is the minimum over unit n of
 *    the overlap h_A(n) + h_B(-n), attained at a facet normal of A - B,
 *    that is a face normal of A or B or the cross product of an edge of
 *    each; the oracle takes the minimum over a superset of those (every
 *    plane through three points with all points on one side, every
 *    difference of two points as an edge), in long double, written here
 *    without the library (any direction's overlap is >= the depth, so a
 *    superset is exact);
 *  - spheres and capsules: the radii less the cores' distance, found by a
 *    nested ternary search in long double (convex in both parameters);
 *    against a box, the same search for the segment-box distance, or, the
 *    segment meeting the box, the radius plus the polytope oracle;
 *  - cylinders: between the inscribed and circumscribed prisms' depths (64
 *    sides), and locally optimal: the exact support functions along
 *    normals tilted by 1e-2 .. 1e-7 rad give no smaller overlap (by more
 *    than 1e-9 of the scale), while the overlap along the normal is the
 *    depth.
 * Every answer is also checked for its own promises: a unit normal,
 * point_a - point_b == depth * normal, the points on their surfaces, B
 * moved by depth + 1e-7 * scale along the normal apart from A and by
 * depth - 1e-7 * scale still touching (kcbp_shape_pair_collide), no NaN;
 * at scales 1, 1e6 and 1e-6; and the degenerate cases of depth.h. */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "convex/depth.h"
#include "convex/shape_internal.h"
#include "testutil.h"

typedef long double ld;

/* ---- the oracle's polytopes (long double, A's frame) ---- */

#define MAXP 160
#define MAXN 2048
#define MAXE 256

typedef struct {
    ld p[MAXP][3];
    int np;
    ld n[MAXN][3]; /* face normals (a superset) */
    int nn;
    ld e[MAXE][3]; /* edge directions (a superset) */
    int ne;
} poly;

static void lcross(const ld a[3], const ld b[3], ld c[3])
{
    c[0] = a[1] * b[2] - a[2] * b[1];
    c[1] = a[2] * b[0] - a[0] * b[2];
    c[2] = a[0] * b[1] - a[1] * b[0];
}
static ld ldot(const ld a[3], const ld b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static ld llen(const ld a[3]) { return sqrtl(ldot(a, a)); }

static void add_point(poly *P, kcbp_vec3 v)
{
    assert_true(P->np < MAXP);
    P->p[P->np][0] = v.x;
    P->p[P->np][1] = v.y;
    P->p[P->np][2] = v.z;
    P->np++;
}
static void add_normal(poly *P, const ld v[3])
{
    assert_true(P->nn < MAXN);
    memcpy(P->n[P->nn++], v, sizeof(ld) * 3);
}
static void add_edge(poly *P, const ld v[3])
{
    assert_true(P->ne < MAXE);
    memcpy(P->e[P->ne++], v, sizeof(ld) * 3);
}

/* Facet planes by brute force over triples; every point difference as an edge. */
static void hull_features(poly *P)
{
    for (int i = 0; i < P->np; i++)
        for (int j = i + 1; j < P->np; j++) {
            ld d[3] = {P->p[j][0] - P->p[i][0], P->p[j][1] - P->p[i][1], P->p[j][2] - P->p[i][2]};
            add_edge(P, d);
            for (int k = j + 1; k < P->np; k++) {
                ld f[3] = {P->p[k][0] - P->p[i][0], P->p[k][1] - P->p[i][1], P->p[k][2] - P->p[i][2]}, c[3];
                lcross(d, f, c);
                ld l = llen(c);
                if (!(l > 0))
                    continue;
                int pos = 0, neg = 0;
                for (int m = 0; m < P->np; m++) {
                    ld s = (ldot(c, P->p[m]) - ldot(c, P->p[i])) / l;
                    pos |= s > 1e-12L;
                    neg |= s < -1e-12L;
                }
                if (pos && neg)
                    continue;
                if (pos) { /* outward: off_surface reads these as half-spaces */
                    c[0] = -c[0];
                    c[1] = -c[1];
                    c[2] = -c[2];
                }
                add_normal(P, c);
            }
        }
}

static void axes_identity(poly *P)
{
    for (int i = 0; i < 3; i++) {
        ld v[3] = {0, 0, 0};
        v[i] = 1;
        add_normal(P, v);
        add_edge(P, v);
    }
}

/* The overlap of A and B along n (unnormalised n, divided out). */
static ld overlap(const poly *A, const poly *B, const ld n[3])
{
    ld ha = -INFINITY, lb = INFINITY, l = llen(n);
    for (int i = 0; i < A->np; i++)
        ha = fmaxl(ha, ldot(n, A->p[i]));
    for (int i = 0; i < B->np; i++)
        lb = fminl(lb, ldot(n, B->p[i]));
    return (ha - lb) / l;
}

/* min over the candidate axes (both signs) of the overlap: the depth when
 * >= 0, a separating axis when < 0 */
static ld sat(const poly *A, const poly *B)
{
    ld best = INFINITY;
    for (int s = 0; s < 2; s++) {
        const poly *P = s ? B : A;
        for (int i = 0; i < P->nn; i++) {
            ld m[3] = {-P->n[i][0], -P->n[i][1], -P->n[i][2]};
            best = fminl(best, fminl(overlap(A, B, P->n[i]), overlap(A, B, m)));
        }
    }
    for (int i = 0; i < A->ne; i++)
        for (int j = 0; j < B->ne; j++) {
            ld c[3], m[3];
            lcross(A->e[i], B->e[j], c);
            if (!(llen(c) > 1e-13L * llen(A->e[i]) * llen(B->e[j])))
                continue;
            m[0] = -c[0];
            m[1] = -c[1];
            m[2] = -c[2];
            best = fminl(best, fminl(overlap(A, B, c), overlap(A, B, m)));
        }
    return best;
}

/* ---- shapes ---- */

enum { SPHERE, CAPSULE, BOX, CYLINDER, HULL, NKINDS };
static const char *const kind_name[] = {"sphere", "capsule", "box", "cylinder", "hull"};

typedef struct {
    int kind;
    kcbp_shape_geom g;
    kcbp_vec3 hp[24]; /* a hull's points */
    int nhp;
} shape;

static void make_shape(shape *s, int kind, test_rng *r, double scale)
{
    memset(s, 0, sizeof *s);
    s->kind = kind;
    kcbp_shape def;
    double a = test_rng_range(r, 0.2, 1) * scale, b = test_rng_range(r, 0.2, 1) * scale,
           c = test_rng_range(r, 0.2, 1) * scale;
    switch (kind) {
    case SPHERE: def = kcbp_shape_sphere(a); break;
    case CAPSULE: def = kcbp_shape_capsule(a * 0.6, b * 1.5); break;
    case BOX: def = kcbp_shape_box(a * 2, b * 2, c * 2); break;
    case CYLINDER: def = kcbp_shape_cylinder(a, b * 2); break;
    default: {
        s->nhp = 12;
        for (int i = 0; i < s->nhp; i++)
            s->hp[i] = kcbp_v3(test_rng_range(r, -a, a), test_rng_range(r, -b, b), test_rng_range(r, -c, c));
        kcbp_error err = {0};
        assert_int_equal(kcbp_shape_geom_init_hull(&s->g, s->hp, (size_t)s->nhp, &err), KCBP_OK);
        return;
    }
    }
    kcbp_error err = {0};
    assert_int_equal(kcbp_shape_geom_init(&s->g, &def, &err), KCBP_OK);
}

static void free_shape(shape *s) { kcbp_shape_geom_clear(&s->g); }


/* The shape's polytope (for a cylinder: inscribed (out == 0) or
 * circumscribed prism of N sides; for a sphere or capsule: its core), in
 * the frame pose places it in. */
#define NSIDES 64
static void to_poly(const shape *s, const kcbp_pose *pose, int outer, poly *P)
{
    memset(P, 0, sizeof *P);
    const kcbp_shape_geom *g = &s->g;
    poly L;
    memset(&L, 0, sizeof L);
    switch (s->kind) {
    case SPHERE: add_point(&L, kcbp_v3(0, 0, 0)); break;
    case CAPSULE: {
        add_point(&L, g->pts[0]);
        add_point(&L, g->pts[1]);
        if (g->def.length > 0) {
            ld z[3] = {0, 0, 1};
            add_edge(&L, z);
        }
        break;
    }
    case BOX:
        for (int i = 0; i < 8; i++)
            add_point(&L, g->pts[i]);
        axes_identity(&L);
        break;
    case CYLINDER: {
        double rr = g->def.radius / (outer ? cos(M_PI / NSIDES) : 1), h = g->half.z;
        for (int k = 0; k < NSIDES; k++) {
            double t = 2 * M_PI * k / NSIDES;
            add_point(&L, kcbp_v3(rr * cos(t), rr * sin(t), h));
            add_point(&L, kcbp_v3(rr * cos(t), rr * sin(t), -h));
            ld n[3] = {cosl((2 * k + 1) * M_PI / NSIDES), sinl((2 * k + 1) * M_PI / NSIDES), 0};
            add_normal(&L, n);
            ld e[3] = {-n[1], n[0], 0};
            add_edge(&L, e);
        }
        ld z[3] = {0, 0, 1};
        add_normal(&L, z);
        add_edge(&L, z);
        break;
    }
    default:
        for (int i = 0; i < s->nhp; i++)
            add_point(&L, s->hp[i]);
        hull_features(&L);
        break;
    }
    for (int i = 0; i < L.np; i++)
        add_point(P, kcbp_pose_apply(pose, kcbp_v3((double)L.p[i][0], (double)L.p[i][1], (double)L.p[i][2])));
    /* normals and edges rotated in long double */
    for (int w = 0; w < 2; w++) {
        int cnt = w ? L.ne : L.nn;
        for (int i = 0; i < cnt; i++) {
            const ld *v = w ? L.e[i] : L.n[i];
            ld o[3];
            for (int r = 0; r < 3; r++)
                o[r] = pose->rot.m[r][0] * v[0] + pose->rot.m[r][1] * v[1] + pose->rot.m[r][2] * v[2];
            if (w)
                add_edge(P, o);
            else
                add_normal(P, o);
        }
    }
}

/* The exact support value of the shape along d (its frame), long double. */
static ld support(const shape *s, kcbp_vec3 d)
{
    const kcbp_shape_geom *g = &s->g;
    ld dx = d.x, dy = d.y, dz = d.z, dl = sqrtl(dx * dx + dy * dy + dz * dz);
    switch (s->kind) {
    case SPHERE: return g->def.radius * dl;
    case CAPSULE: return fabsl(dz) * g->half.z + g->def.radius * dl;
    case BOX: return fabsl(dx) * g->half.x + fabsl(dy) * g->half.y + fabsl(dz) * g->half.z;
    case CYLINDER: return sqrtl(dx * dx + dy * dy) * g->def.radius + fabsl(dz) * g->half.z;
    default: {
        ld m = -INFINITY;
        for (int i = 0; i < s->nhp; i++)
            m = fmaxl(m, dx * s->hp[i].x + dy * s->hp[i].y + dz * s->hp[i].z);
        return m;
    }
    }
}

/* h_A(n) + h_B(-n), B placed by pose, n unit (A's frame). */
static ld exact_overlap(const shape *a, const shape *b, const kcbp_pose *pose, kcbp_vec3 n)
{
    kcbp_vec3 mb = kcbp_mat3_tmul_v3(&pose->rot, kcbp_v3_neg(n));
    return support(a, n) + support(b, mb) - ((ld)n.x * pose->trans.x + (ld)n.y * pose->trans.y + (ld)n.z * pose->trans.z);
}

/* How far p (the shape's frame) is off its surface (0 on it). */
static double off_surface(const shape *s, kcbp_vec3 p)
{
    const kcbp_shape_geom *g = &s->g;
    switch (s->kind) {
    case SPHERE: return fabs(kcbp_v3_len(p) - g->def.radius);
    case CAPSULE: {
        double z = fmax(-g->half.z, fmin(g->half.z, p.z));
        return fabs(kcbp_v3_len(kcbp_v3_sub(p, kcbp_v3(0, 0, z))) - g->def.radius);
    }
    case BOX: {
        kcbp_vec3 a = kcbp_v3_abs(p);
        return fabs(fmax(a.x - g->half.x, fmax(a.y - g->half.y, a.z - g->half.z)));
    }
    case CYLINDER:
        return fabs(fmax(hypot(p.x, p.y) - g->def.radius, fabs(p.z) - g->half.z));
    default: {
        /* max over facet planes of the signed distance */
        poly P;
        memset(&P, 0, sizeof P);
        for (int i = 0; i < s->nhp; i++)
            add_point(&P, s->hp[i]);
        hull_features(&P);
        ld worst = -INFINITY;
        for (int i = 0; i < P.nn; i++) {
            ld l = llen(P.n[i]), h = -INFINITY;
            for (int k = 0; k < P.np; k++)
                h = fmaxl(h, ldot(P.n[i], P.p[k]));
            ld pp[3] = {p.x, p.y, p.z};
            worst = fmaxl(worst, (ldot(P.n[i], pp) - h) / l);
        }
        return fabs((double)worst);
    }
    }
}

/* ---- the cores' oracle: nested ternary searches ---- */

static ld pt_seg(const ld p[3], const ld a[3], const ld b[3])
{
    ld u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, w[3] = {p[0] - a[0], p[1] - a[1], p[2] - a[2]};
    ld uu = ldot(u, u), t = uu > 0 ? ldot(w, u) / uu : 0;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    ld d[3] = {w[0] - t * u[0], w[1] - t * u[1], w[2] - t * u[2]};
    return llen(d);
}

static ld seg_seg(kcbp_vec3 a0, kcbp_vec3 a1, kcbp_vec3 b0, kcbp_vec3 b1)
{
    ld A0[3] = {a0.x, a0.y, a0.z}, A1[3] = {a1.x, a1.y, a1.z}, B0[3] = {b0.x, b0.y, b0.z}, B1[3] = {b1.x, b1.y, b1.z};
    ld lo = 0, hi = 1;
    for (int it = 0; it < 200; it++) {
        ld m1 = lo + (hi - lo) / 3, m2 = hi - (hi - lo) / 3, p1[3], p2[3];
        for (int k = 0; k < 3; k++) {
            p1[k] = A0[k] + m1 * (A1[k] - A0[k]);
            p2[k] = A0[k] + m2 * (A1[k] - A0[k]);
        }
        if (pt_seg(p1, B0, B1) <= pt_seg(p2, B0, B1))
            hi = m2;
        else
            lo = m1;
    }
    ld best = fminl(pt_seg(A0, B0, B1), pt_seg(A1, B0, B1)), p[3];
    for (int k = 0; k < 3; k++)
        p[k] = A0[k] + lo * (A1[k] - A0[k]);
    return fminl(best, pt_seg(p, B0, B1));
}

static ld pt_box(const ld p[3], kcbp_vec3 h)
{
    ld H[3] = {h.x, h.y, h.z}, s = 0;
    for (int k = 0; k < 3; k++) {
        ld e = fabsl(p[k]) - H[k];
        s += e > 0 ? e * e : 0;
    }
    return sqrtl(s);
}

static ld seg_box(kcbp_vec3 a0, kcbp_vec3 a1, kcbp_vec3 h)
{
    ld A0[3] = {a0.x, a0.y, a0.z}, A1[3] = {a1.x, a1.y, a1.z}, lo = 0, hi = 1;
    for (int it = 0; it < 200; it++) {
        ld m1 = lo + (hi - lo) / 3, m2 = hi - (hi - lo) / 3, p1[3], p2[3];
        for (int k = 0; k < 3; k++) {
            p1[k] = A0[k] + m1 * (A1[k] - A0[k]);
            p2[k] = A0[k] + m2 * (A1[k] - A0[k]);
        }
        ld f1 = pt_box(p1, h), f2 = pt_box(p2, h);
        if (f1 == 0 || f2 == 0)
            return 0; /* the segment meets the box */
        if (f1 <= f2)
            hi = m2;
        else
            lo = m1;
    }
    ld p[3];
    for (int k = 0; k < 3; k++)
        p[k] = A0[k] + lo * (A1[k] - A0[k]);
    return fminl(pt_box(p, h), fminl(pt_box(A0, h), pt_box(A1, h)));
}

static bool has_core(int k) { return k == SPHERE || k == CAPSULE; }

/* The reference depth: *kind 0 exact (to tol), 1 bracket [lo, hi], 2 none
 * (the local checks only). Negative: apart. */
static int reference(const shape *a, const shape *b, const kcbp_pose *pose, ld *lo, ld *hi)
{
    static const kcbp_pose id = {{{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}, {0, 0, 0}};
    static poly PA, PB, QA, QB; /* large: static storage, the test is single-threaded */
    if (has_core(a->kind) && has_core(b->kind)) {
        kcbp_vec3 ca[2], cb[2];
        double ra, rb;
        kcbp_shape_geom_core(&a->g, &id, ca, &ra);
        kcbp_shape_geom_core(&b->g, pose, cb, &rb);
        *lo = *hi = (ld)ra + rb - seg_seg(ca[0], ca[1], cb[0], cb[1]);
        return 0;
    }
    const shape *cs = has_core(a->kind) ? a : has_core(b->kind) ? b : NULL;
    const shape *os = cs == a ? b : a;
    if (cs) {
        /* work in the other shape's frame */
        kcbp_pose core_pose = cs == b ? *pose : kcbp_pose_inverse(pose);
        kcbp_vec3 c[2];
        double r;
        kcbp_shape_geom_core(&cs->g, &core_pose, c, &r);
        to_poly(cs, &core_pose, 0, &PB);
        if (os->kind == BOX) {
            ld d = seg_box(c[0], c[1], os->g.half);
            if (d > 0) {
                *lo = *hi = (ld)r - d;
                return 0;
            }
            to_poly(os, &id, 0, &PA);
            *lo = *hi = r + sat(&PA, &PB);
            return 0;
        }
        to_poly(os, &id, 0, &PA);
        ld in = sat(&PA, &PB);
        if (os->kind == HULL) {
            if (in < 0)
                return 2;
            *lo = *hi = r + in;
            return 0;
        }
        to_poly(os, &id, 1, &QA);
        ld out = sat(&QA, &PB);
        if (in < 0)
            return 2;
        *lo = r + in;
        *hi = r + out;
        return 1;
    }
    to_poly(a, &id, 0, &PA);
    to_poly(b, pose, 0, &PB);
    ld in = sat(&PA, &PB);
    if (a->kind != CYLINDER && b->kind != CYLINDER) {
        *lo = *hi = in;
        return 0;
    }
    to_poly(a, &id, 1, &QA);
    to_poly(b, pose, 1, &QB);
    *lo = in;
    *hi = sat(&QA, &QB);
    return 1;
}

/* ---- the checks ---- */

typedef struct {
    int n, exact_n, bracket_n;
    double worst_err; /* |depth - ref| / scale, exact references */
    double worst_local; /* the cylinders' local optimality, / scale */
} stats;

static double pair_scale(const shape *a, const shape *b, const kcbp_pose *pose)
{
    return fmax(a->g.reach, kcbp_v3_max_abs(pose->trans) + b->g.reach);
}

static bool collide_moved(const shape *a, const shape *b, const kcbp_pose *pose, kcbp_vec3 move)
{
    kcbp_pose p = *pose;
    p.trans = kcbp_v3_add(p.trans, move);
    bool exact;
    return kcbp_shape_pair_collide(&a->g, &b->g, &p, KCBP_SHAPE_GJK_BAND * pair_scale(a, b, &p), &exact);
}

/* Checks one query; returns whether it overlapped. */
static bool check_pair(const shape *a, const shape *b, const kcbp_pose *pose, stats *st)
{
    kcbp_convex_depth d;
    kcbp_shape_pair_depth(&a->g, &b->g, pose, &d);
    double scale = pair_scale(a, b, pose);
    ld lo, hi;
    int rk = reference(a, b, pose, &lo, &hi);
    char what[128];
    snprintf(what, sizeof what, "%s-%s scale %g", kind_name[a->kind], kind_name[b->kind], scale);
    if (!d.overlap) {
        /* apart: the reference must not show an overlap beyond the band */
        if (rk != 2 && lo > 1e-9L * scale)
            fail_msg("%s: no overlap reported, reference depth %Lg", what, lo);
        return false;
    }
    st->n++;
    if (!(isfinite(d.depth) && kcbp_v3_is_finite(d.normal) && kcbp_v3_is_finite(d.point_a) &&
          kcbp_v3_is_finite(d.point_b)))
        fail_msg("%s: not finite", what);
    if (!d.exact)
        fail_msg("%s: EPA did not converge (depth %g, lower %g)", what, d.depth, d.depth_lower);
    assert_true(d.depth >= 0 && d.depth_lower == d.depth);
    if (fabs(kcbp_v3_len(d.normal) - 1) > 1e-12)
        fail_msg("%s: |normal| - 1 = %g", what, kcbp_v3_len(d.normal) - 1);
    kcbp_vec3 gap = kcbp_v3_sub(kcbp_v3_sub(d.point_a, d.point_b), kcbp_v3_scale(d.normal, d.depth));
    if (kcbp_v3_len(gap) > 1e-12 * scale)
        fail_msg("%s: |point_a - point_b - depth n| = %g (scale %g)", what, kcbp_v3_len(gap), scale);
    double offa = off_surface(a, d.point_a);
    kcbp_pose inv = kcbp_pose_inverse(pose);
    double offb = off_surface(b, kcbp_pose_apply(&inv, d.point_b));
    /* EPA pairs (a cylinder but against a sphere, or a hull): within 1e-6
     * of the scale (depth.h; 3.1e-7 measured, box-cylinder) */
    bool epa = (a->kind == CYLINDER && b->kind != SPHERE) || (b->kind == CYLINDER && a->kind != SPHERE) ||
               a->kind == HULL || b->kind == HULL;
    double wtol = epa ? 1e-6 : 1e-12;
    if (offa > wtol * scale || offb > wtol * scale)
        fail_msg("%s: witnesses off their surfaces by %g and %g (scale %g)", what, offa, offb, scale);
    /* the support along the normal is the depth (an upper bound attained) */
    ld along = exact_overlap(a, b, pose, d.normal);
    if (fabsl(along - d.depth) > 1e-9L * scale)
        fail_msg("%s: overlap along the normal %Lg, depth %g", what, along, d.depth);
    if (rk == 0) {
        st->exact_n++;
        double err = (double)fabsl(d.depth - lo) / scale;
        st->worst_err = fmax(st->worst_err, err);
        if (err > 1e-9)
            fail_msg("%s: depth %.17g, reference %.17Lg (error %g of the scale); pose t %.17g %.17g %.17g r0 %.17g %.17g %.17g r1 %.17g %.17g %.17g r2 %.17g %.17g %.17g; a %.17g %.17g b %.17g %.17g",
                     what, d.depth, lo, err, pose->trans.x, pose->trans.y, pose->trans.z, pose->rot.m[0][0], pose->rot.m[0][1], pose->rot.m[0][2], pose->rot.m[1][0], pose->rot.m[1][1], pose->rot.m[1][2], pose->rot.m[2][0], pose->rot.m[2][1], pose->rot.m[2][2], a->g.def.radius, a->g.def.length, b->g.half.x, b->g.half.y);
    } else if (rk == 1) {
        st->bracket_n++;
        if (d.depth < lo - 1e-9L * scale || d.depth > hi + 1e-9L * scale)
            fail_msg("%s: depth %.17g outside the prisms' [%.17Lg, %.17Lg]", what, d.depth, lo, hi);
    }
    if (a->kind == CYLINDER || b->kind == CYLINDER || rk == 2) {
        /* local optimality: tilted normals give no smaller overlap */
        kcbp_vec3 p = kcbp_v3_cross(d.normal, fabs(d.normal.x) < 0.6 ? kcbp_v3(1, 0, 0) : kcbp_v3(0, 1, 0));
        p = kcbp_v3_scale(p, 1 / kcbp_v3_len(p));
        kcbp_vec3 q = kcbp_v3_cross(d.normal, p);
        for (double ang = 1e-2; ang > 1e-8; ang *= 0.1)
            for (int k = 0; k < 8; k++) {
                double t = k * M_PI / 4;
                kcbp_vec3 m = kcbp_v3_add(kcbp_v3_scale(d.normal, cos(ang)),
                                          kcbp_v3_scale(kcbp_v3_add(kcbp_v3_scale(p, cos(t)), kcbp_v3_scale(q, sin(t))), sin(ang)));
                m = kcbp_v3_scale(m, 1 / kcbp_v3_len(m));
                double below = (double)(d.depth - exact_overlap(a, b, pose, m)) / scale;
                st->worst_local = fmax(st->worst_local, below);
                if (below > 1e-9)
                    fail_msg("%s: a normal tilted by %g overlaps by %g less than the depth %g", what, ang,
                             below * scale, d.depth);
            }
    }
    /* moving B out by the depth separates them, just short of it does not */
    if (collide_moved(a, b, pose, kcbp_v3_scale(d.normal, d.depth + 1e-7 * scale)))
        fail_msg("%s: still colliding after moving B by depth + 1e-7 scale (depth %g)", what, d.depth);
    if (d.depth > 1e-7 * scale && !collide_moved(a, b, pose, kcbp_v3_scale(d.normal, d.depth - 1e-7 * scale)))
        fail_msg("%s: apart after moving B by depth - 1e-7 scale (depth %g)", what, d.depth);
    return true;
}

/* Random overlapping pairs of kinds ka, kb at the given scale. */
static void random_pairs(int ka, int kb, double scale, int want, uint64_t seed, stats *st)
{
    test_rng r = {seed};
    int got = 0;
    for (int tries = 0; got < want && tries < want * 20; tries++) {
        shape a, b;
        make_shape(&a, ka, &r, scale);
        make_shape(&b, kb, &r, scale);
        kcbp_pose pose = test_random_pose(&r, 0.8 * (a.g.reach + b.g.reach));
        if (check_pair(&a, &b, &pose, st))
            got++;
        free_shape(&a);
        free_shape(&b);
    }
    assert_true(got == want);
}

static void run_kinds(const int *kinds, int nk, int want)
{
    static const double scales[3] = {1, 1e6, 1e-6};
    for (int i = 0; i < nk; i++)
        for (int j = 0; j < nk; j++)
            for (int s = 0; s < 3; s++) {
                stats st;
                memset(&st, 0, sizeof st);
                random_pairs(kinds[i], kinds[j], scales[s], s == 0 ? want : want / 4,
                             0x9E3779B97F4A7C15ull * (uint64_t)(i * 16 + j * 4 + s + 1), &st);
                if (s == 0)
                    print_message("%-8s %-8s %4d pairs (%d exact refs, %d brackets): worst error %.2g, local %.2g of "
                                  "the scale\n",
                                  kind_name[kinds[i]], kind_name[kinds[j]], st.n, st.exact_n, st.bracket_n,
                                  st.worst_err, st.worst_local);
            }
}

static void test_core_pairs(void **state)
{
    (void)state;
    static const int k[] = {SPHERE, CAPSULE};
    run_kinds(k, 2, 400);
}

static void test_cores_and_boxes(void **state)
{
    (void)state;
    static const int k[] = {SPHERE, CAPSULE, BOX};
    run_kinds(k, 3, 300);
}

static void test_hulls(void **state)
{
    (void)state;
    static const int k[] = {BOX, HULL, SPHERE, CAPSULE};
    run_kinds(k, 4, 60);
}

static void test_cylinders(void **state)
{
    (void)state;
    static const int k[] = {CYLINDER, BOX, SPHERE, CAPSULE, HULL};
    for (int j = 0; j < 5; j++) {
        int pair[2] = {CYLINDER, k[j]};
        run_kinds(pair, 2, 40);
    }
}

/* ---- degenerate cases (depth.h) ---- */

static void shape_of(shape *s, kcbp_shape def)
{
    memset(s, 0, sizeof *s);
    s->kind = def.kind == KCBP_SHAPE_SPHERE ? SPHERE : def.kind == KCBP_SHAPE_CAPSULE ? CAPSULE
              : def.kind == KCBP_SHAPE_BOX  ? BOX
                                            : CYLINDER;
    kcbp_error err = {0};
    assert_int_equal(kcbp_shape_geom_init(&s->g, &def, &err), KCBP_OK);
}

static kcbp_pose at(double x, double y, double z)
{
    kcbp_pose p = kcbp_pose_identity();
    p.trans = kcbp_v3(x, y, z);
    return p;
}

static void expect(const shape *a, const shape *b, kcbp_pose pose, double depth, kcbp_vec3 n)
{
    kcbp_convex_depth d;
    kcbp_shape_pair_depth(&a->g, &b->g, &pose, &d);
    if (!(d.overlap && d.exact))
        fail_msg("%s-%s at (%g %g %g): overlap %d exact %d", kind_name[a->kind], kind_name[b->kind], pose.trans.x,
                 pose.trans.y, pose.trans.z, d.overlap, d.exact);
    double s = pair_scale(a, b, &pose);
    if (fabs(d.depth - depth) > 1e-12 * s || kcbp_v3_len(kcbp_v3_sub(d.normal, n)) > 1e-12)
        fail_msg("%s-%s: depth %.17g normal (%g %g %g), expected %.17g (%g %g %g)", kind_name[a->kind],
                 kind_name[b->kind], d.depth, d.normal.x, d.normal.y, d.normal.z, depth, n.x, n.y, n.z);
    stats st;
    memset(&st, 0, sizeof st);
    check_pair(a, b, &pose, &st);
}

static void test_degenerate(void **state)
{
    (void)state;
    for (double s = 0x1p-20; s <= 0x1p20; s *= 0x1p20) { /* powers of 2: touching stays exact */
        shape s1, s2, c1, c2, c0, b1, b2, cy;
        shape_of(&s1, kcbp_shape_sphere(1 * s));
        shape_of(&s2, kcbp_shape_sphere(0.5 * s));
        shape_of(&c1, kcbp_shape_capsule(0.5 * s, 2 * s));
        shape_of(&c2, kcbp_shape_capsule(0.25 * s, 2 * s));
        shape_of(&c0, kcbp_shape_capsule(0.3 * s, 0));
        shape_of(&b1, kcbp_shape_box(2 * s, 3 * s, 4 * s));
        shape_of(&b2, kcbp_shape_box(1 * s, 1 * s, 1 * s));
        shape_of(&cy, kcbp_shape_cylinder(1 * s, 2 * s));
        /* touching exactly: depth 0 along the centres */
        expect(&s1, &s2, at(1.5 * s, 0, 0), 0, kcbp_v3(1, 0, 0));
        expect(&b1, &b2, at(1.5 * s, 0, 0), 0, kcbp_v3(1, 0, 0));
        expect(&b1, &s2, at(0, 0, -2.5 * s), 0, kcbp_v3(0, 0, -1));
        expect(&s2, &b1, at(0, 0, -2.5 * s), 0, kcbp_v3(0, 0, -1));
        /* coincident centres: +z of A's frame, the radii's sum */
        expect(&s1, &s2, at(0, 0, 0), 1.5 * s, kcbp_v3(0, 0, 1));
        expect(&c0, &s2, at(0, 0, 0), 0.8 * s, kcbp_v3(0, 0, 1));
        /* identical coincident boxes: the smallest full side along its axis */
        expect(&b1, &b1, at(0, 0, 0), 2 * s, kcbp_v3(1, 0, 0));
        expect(&b2, &b2, at(0, 0, 0), 1 * s, kcbp_v3(1, 0, 0));
        /* capsules on one axis: the radii's sum, perpendicular() of z = +y */
        expect(&c1, &c2, at(0, 0, 0), 0.75 * s, kcbp_v3(0, 1, 0));
        expect(&c1, &c2, at(0, 0, 0.5 * s), 0.75 * s, kcbp_v3(0, 1, 0));
        /* crossing capsules: the radii's sum along the common normal */
        kcbp_pose cross = {{{{1, 0, 0}, {0, 0, -1}, {0, 1, 0}}}, {0, 0, 0.1 * s}}; /* 90 degrees about x, exactly */
        expect(&c1, &c2, cross, 0.75 * s, kcbp_v3(1, 0, 0));
        /* a sphere at a box's centre: the nearest face (x, half side 1) */
        expect(&b1, &s2, at(0, 0, 0), 1.5 * s, kcbp_v3(1, 0, 0));
        /* a capsule through a box along z: out through x (half 1 + 0.25) */
        expect(&b1, &c2, at(0, 0, 0), 1.25 * s, kcbp_v3(1, 0, 0));
        /* a sphere inside a cylinder (radius 1, half height 1): at the
         * centre a tie, out through the +z cap; else the nearer exit */
        expect(&cy, &s2, at(0, 0, 0), 1.5 * s, kcbp_v3(0, 0, 1));
        expect(&cy, &s2, at(0, 0, -0.5 * s), 1.0 * s, kcbp_v3(0, 0, -1));
        expect(&cy, &s2, at(0.25 * s, 0, 0), 1.25 * s, kcbp_v3(1, 0, 0));
        expect(&s2, &cy, at(0.25 * s, 0, 0), 1.25 * s, kcbp_v3(1, 0, 0));
        expect(&cy, &s2, at(1.5 * s, 0, 0), 0, kcbp_v3(1, 0, 0));
        /* a cylinder on a box's face, sunk by 0.25 */
        stats st;
        memset(&st, 0, sizeof st);
        kcbp_pose p = at(0, 0, 2.75 * s);
        check_pair(&b1, &cy, &p, &st);
        kcbp_convex_depth d;
        kcbp_shape_pair_depth(&b1.g, &cy.g, &p, &d);
        assert_true(fabs(d.depth - 0.25 * s) <= 1e-9 * 4 * s);
        /* concentric cylinders (EPA's degenerate start): 1.5 either way;
         * EPA may only bracket it, and then says so */
        shape cy2;
        shape_of(&cy2, kcbp_shape_cylinder(0.5 * s, 1 * s));
        p = at(0, 0, 0);
        kcbp_shape_pair_depth(&cy.g, &cy2.g, &p, &d);
        assert_true(d.overlap && d.depth_lower <= 1.5 * s * (1 + 1e-9) && d.depth >= 1.5 * s * (1 - 1e-9));
        assert_true(!d.exact || fabs(d.depth - 1.5 * s) <= 1e-9 * 2 * s);
        free_shape(&cy2);
        shape *all[] = {&s1, &s2, &c1, &c2, &c0, &b1, &b2, &cy};
        for (int i = 0; i < 8; i++)
            free_shape(all[i]);
    }
}

/* bench/depth_convex found it: a capsule whose segment enters a box had
 * its inside piece's end evaluated on the box's face, rounded outside by
 * an ulp, and was taken for a segment just outside (depth = its radius). */
static void test_regress_segment_entering_box(void **state)
{
    (void)state;
    shape c, b;
    shape_of(&c, kcbp_shape_capsule(0.48680586306166396, 1.221865866866795));
    shape_of(&b, kcbp_shape_box(2 * 0.78585264111554864, 2 * 0.2145169166212619, 2 * 0.70791126839101248));
    kcbp_pose p = {{{{-0.41309784659071824, -0.61593684107649105, 0.67079950577413605},
                     {-0.81532753075570485, -0.077999098492578023, -0.57372219603755148},
                     {0.40569839380248607, -0.78392470839938388, -0.4699690041130633}}},
                   {-0.1092020615198801, 0.15451744668080025, 0.20905586599499892}};
    stats st;
    memset(&st, 0, sizeof st);
    assert_true(check_pair(&c, &b, &p, &st));
    assert_int_equal(st.exact_n, 1);
    kcbp_pose inv = kcbp_pose_inverse(&p);
    assert_true(check_pair(&b, &c, &inv, &st));
    free_shape(&c);
    free_shape(&b);
}

/* Long capsules through boxes (both ends outside, the middle inside): the
 * configuration of the regression above, 2000 times, both orders. */
static void test_capsules_through_boxes(void **state)
{
    (void)state;
    test_rng r = {0xC0FFEEull};
    stats st;
    memset(&st, 0, sizeof st);
    int through = 0;
    for (int k = 0; k < 2000; k++) {
        double s = k % 3 == 0 ? 1 : k % 3 == 1 ? 1e6 : 1e-6;
        shape c, b;
        shape_of(&c, kcbp_shape_capsule(test_rng_range(&r, 0.05, 0.5) * s, test_rng_range(&r, 4, 6) * s));
        shape_of(&b, kcbp_shape_box(test_rng_range(&r, 0.5, 2) * s, test_rng_range(&r, 0.5, 2) * s,
                                    test_rng_range(&r, 0.5, 2) * s));
        kcbp_pose p = test_random_pose(&r, 0.4 * s);
        kcbp_pose inv = kcbp_pose_inverse(&p);
        bool o1 = check_pair(&b, &c, &p, &st), o2 = check_pair(&c, &b, &inv, &st);
        assert_true(o1 == o2);
        through += o1;
        free_shape(&c);
        free_shape(&b);
    }
    print_message("capsules through boxes: %d of 2000 overlapping\n", through);
    assert_true(through > 1000 && st.exact_n == 2 * through);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_degenerate),
        cmocka_unit_test(test_regress_segment_entering_box),
        cmocka_unit_test(test_capsules_through_boxes),
        cmocka_unit_test(test_core_pairs),
        cmocka_unit_test(test_cores_and_boxes),
        cmocka_unit_test(test_hulls),
        cmocka_unit_test(test_cylinders),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

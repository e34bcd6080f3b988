/* GJK with the signed-volume sub-algorithm. See gjk.h for the sources.
 *
 * Notation: the configuration-space obstacle (CSO) is core(A) - core(B), B
 * posed in A's frame. GJK keeps a simplex of CSO vertices and v, the point of
 * the simplex nearest the origin; |v| decreases strictly at every accepted
 * step (if rounding breaks that, we stop and keep the previous simplex). It
 * answers only what its upper bound |v| and lower bound v.w / |v| prove
 * (classify()). */
#include "gjk.h"

#include <float.h>
#include <string.h>

/* |v| at or below this fraction of the scale means "the origin lies on the
 * simplex": a few hundred ulps of the coordinates' magnitude. */
#define ON_SIMPLEX_REL 1e-13

kcbp_gjk_params kcbp_gjk_default_params(void)
{
    kcbp_gjk_params p = {KCBP_GJK_DEFAULT_MAX_ITERATIONS, KCBP_GJK_DEFAULT_REL_TOL};
    return p;
}

const char *kcbp_gjk_status_name(kcbp_gjk_status s)
{
    switch (s) {
    case KCBP_GJK_SEPARATED: return "separated";
    case KCBP_GJK_TOUCHING: return "touching";
    case KCBP_GJK_OVERLAPPING: return "overlapping";
    case KCBP_GJK_HIT_CAP: return "hit-cap";
    }
    return "unknown";
}

/* ---- Signed-volume distance sub-algorithm (Montanari et al. 2017) ------
 *
 * Given 1 to 4 points, find the point v of their convex hull nearest the
 * origin and the smallest subset whose hull contains it, with barycentric
 * weights. The paper's S3D/S2D/S1D: barycentric coordinates as ratios of
 * signed volumes (areas) that sum exactly to the total, so the "inside" test
 * is a sign comparison; in 2D the triangle is projected on the coordinate
 * plane where its area is largest, which keeps the ratios well conditioned.
 * Unlike the paper we do not rely on GJK's "newest vertex is in the answer"
 * property: every face whose sign disagrees is tried and the nearest kept,
 * which is correct for any simplex, including flat ones (a flat tetrahedron
 * is covered by its faces, a collinear triangle by its edges). */

typedef struct {
    int n;
    int idx[4];
    double lam[4];
    kcbp_vec3 v;
    double vv;
} sv_result;

/* Both positive or both negative (zero has no sign). Bitwise operators, not
 * && and ||: these signs are data-dependent and their branches mispredict. */
static inline int same_sign(double a, double b) { return ((a > 0) & (b > 0)) | ((a < 0) & (b < 0)); }

static void sv_point(const kcbp_vec3 *w, int i, sv_result *r)
{
    r->n = 1;
    r->idx[0] = i;
    r->lam[0] = 1;
    r->v = w[i];
    r->vv = kcbp_v3_len2(w[i]);
}

static void sv_set_v(const kcbp_vec3 *w, sv_result *r)
{
    kcbp_vec3 v = {0, 0, 0};
    for (int k = 0; k < r->n; k++)
        v = kcbp_v3_add(v, kcbp_v3_scale(w[r->idx[k]], r->lam[k]));
    r->v = v;
    r->vv = kcbp_v3_len2(v);
}

static void sv_keep_nearer(sv_result *best, const sv_result *cand)
{
    if (best->n == 0 || cand->vv < best->vv)
        *best = *cand;
}

static void s1d(const kcbp_vec3 *w, int i0, int i1, sv_result *r)
{
    kcbp_vec3 t = kcbp_v3_sub(w[i1], w[i0]);
    double tt = kcbp_v3_len2(t);
    if (!(tt > 0)) {
        sv_point(w, i0, r);
        return;
    }
    /* origin's projection on the line: w0 + u t */
    double u = -kcbp_v3_dot(w[i0], t) / tt;
    if (!(u > 0)) {
        sv_point(w, i0, r);
    } else if (!(u < 1)) {
        sv_point(w, i1, r);
    } else {
        r->n = 2;
        r->idx[0] = i0;
        r->idx[1] = i1;
        r->lam[0] = 1 - u;
        r->lam[1] = u;
        sv_set_v(w, r);
    }
}

/* The coordinates of v on the plane of axes (I + 1, I + 2) mod 3. */
static inline void proj2(kcbp_vec3 v, int I, double *j, double *k)
{
    switch (I) {
    case 0: *j = v.y; *k = v.z; break;
    case 1: *j = v.z; *k = v.x; break;
    default: *j = v.x; *k = v.y; break;
    }
}

/* Twice the signed area of the projected triangle (p, q, s). */
static inline double area2(double pj, double pk, double qj, double qk, double sj, double sk)
{
    qj -= pj, qk -= pk, sj -= pj, sk -= pk;
    return qj * sk - qk * sj;
}

static void s2d(const kcbp_vec3 *w, int i0, int i1, int i2, sv_result *r)
{
    const int id[3] = {i0, i1, i2};
    kcbp_vec3 a = w[i0], b = w[i1], c = w[i2];
    kcbp_vec3 ab = kcbp_v3_sub(b, a), ac = kcbp_v3_sub(c, a);
    kcbp_vec3 n = kcbp_v3_cross(ab, ac);
    double nn = kcbp_v3_len2(n);
    double C[3];
    double mu = 0;
    /* A triangle whose normal is rounding noise is treated as collinear:
     * every edge is tried. */
    if (nn > 64 * DBL_EPSILON * DBL_EPSILON * kcbp_v3_len2(ab) * kcbp_v3_len2(ac)) {
        kcbp_vec3 p = kcbp_v3_scale(n, kcbp_v3_dot(a, n) / nn);
        kcbp_vec3 an = kcbp_v3_abs(n);
        int I = an.x >= an.y && an.x >= an.z ? 0 : an.y >= an.z ? 1 : 2;
        double pj, pk, aj, ak, bj, bk, cj, ck;
        proj2(p, I, &pj, &pk);
        proj2(a, I, &aj, &ak);
        proj2(b, I, &bj, &bk);
        proj2(c, I, &cj, &ck);
        C[0] = area2(pj, pk, bj, bk, cj, ck);
        C[1] = area2(aj, ak, pj, pk, cj, ck);
        C[2] = area2(aj, ak, bj, bk, pj, pk);
        mu = C[0] + C[1] + C[2];
        if (same_sign(mu, C[0]) & same_sign(mu, C[1]) & same_sign(mu, C[2])) {
            r->n = 3;
            for (int k = 0; k < 3; k++) {
                r->idx[k] = id[k];
                r->lam[k] = C[k] / mu;
            }
            sv_set_v(w, r);
            return;
        }
    } else {
        C[0] = C[1] = C[2] = 0; /* never the same sign as mu = 0 */
    }
    r->n = 0;
    for (int j = 0; j < 3; j++) {
        if (same_sign(mu, C[j]))
            continue;
        sv_result e;
        s1d(w, id[(j + 1) % 3], id[(j + 2) % 3], &e);
        sv_keep_nearer(r, &e);
    }
}

/* Signed volume of (p0, p1, p2, p3): (p1-p0) . ((p2-p0) x (p3-p0)). */
static double vol(kcbp_vec3 p0, kcbp_vec3 p1, kcbp_vec3 p2, kcbp_vec3 p3)
{
    return kcbp_v3_dot(kcbp_v3_sub(p1, p0), kcbp_v3_cross(kcbp_v3_sub(p2, p0), kcbp_v3_sub(p3, p0)));
}

static void s3d(const kcbp_vec3 *w, sv_result *r)
{
    const kcbp_vec3 o = {0, 0, 0};
    double C[4];
    C[0] = vol(o, w[1], w[2], w[3]);
    C[1] = vol(w[0], o, w[2], w[3]);
    C[2] = vol(w[0], w[1], o, w[3]);
    C[3] = vol(w[0], w[1], w[2], o);
    double det = C[0] + C[1] + C[2] + C[3];
    if (same_sign(det, C[0]) & same_sign(det, C[1]) & same_sign(det, C[2]) & same_sign(det, C[3])) {
        r->n = 4;
        for (int k = 0; k < 4; k++) {
            r->idx[k] = k;
            r->lam[k] = C[k] / det;
        }
        sv_set_v(w, r);
        return;
    }
    /* The origin is beyond (or on) the face opposite each vertex j whose
     * sign disagrees; the nearest point lies on one of those faces. */
    static const int face[4][3] = {{1, 2, 3}, {0, 2, 3}, {0, 1, 3}, {0, 1, 2}};
    r->n = 0;
    for (int j = 0; j < 4; j++) {
        if (same_sign(det, C[j]))
            continue;
        sv_result f;
        s2d(w, face[j][0], face[j][1], face[j][2], &f);
        sv_keep_nearer(r, &f);
    }
}

/* The simplex: four vertex slots, of which slot[0..n) are in use (the bits
 * of `used`). A new support point goes to a free slot, so that neither
 * accepting nor rolling back a step copies vertices. */
typedef struct {
    kcbp_simplex_vertex v[4];
    int n;
    unsigned used;
    int slot[4];
    double lam[4];
} simplex;

/* The lowest free slot (n <= 3 when adding, so there is one). */
static inline int free_slot(const simplex *s)
{
    unsigned f = ~s->used;
    return (f & 1u) ? 0 : (f & 2u) ? 1 : (f & 4u) ? 2 : 3;
}

static inline uint64_t bits(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

/* Nonzero when the vertex in slot `add` (both of its points, bit for bit)
 * is already in the simplex; bitwise, so that only the loop branches. */
static inline int in_simplex(const simplex *s, int add)
{
    const kcbp_simplex_vertex *n = &s->v[add];
    int hit = 0;
    for (int k = 0; k < s->n; k++) {
        const kcbp_simplex_vertex *u = &s->v[s->slot[k]];
        uint64_t diff = (bits(u->a.x) ^ bits(n->a.x)) | (bits(u->a.y) ^ bits(n->a.y)) | (bits(u->a.z) ^ bits(n->a.z)) |
                        (bits(u->b.x) ^ bits(n->b.x)) | (bits(u->b.y) ^ bits(n->b.y)) | (bits(u->b.z) ^ bits(n->b.z));
        hit |= diff == 0;
    }
    return hit;
}

/* Adds slot `add` to the set and reduces the set to the sub-simplex nearest
 * the origin; returns |v|^2 and v. */
static double simplex_solve(simplex *s, int add, kcbp_vec3 *v)
{
    kcbp_vec3 w[4];
    int slots[4], n = s->n;
    /* all four (fixed-size copies, not a library memcpy of n) */
    memcpy(slots, s->slot, sizeof slots);
    for (int k = 0; k < n; k++)
        w[k] = s->v[slots[k]].w;
    slots[n] = add;
    w[n] = s->v[add].w;
    n++;
    sv_result r;
    switch (n) {
    case 1: sv_point(w, 0, &r); break;
    case 2: s1d(w, 0, 1, &r); break;
    case 3: s2d(w, 0, 1, 2, &r); break;
    default: s3d(w, &r); break;
    }
    s->n = r.n;
    s->used = 0;
    memcpy(s->lam, r.lam, sizeof s->lam);
    for (int k = 0; k < r.n; k++) {
        s->slot[k] = slots[r.idx[k]];
        s->used |= 1u << s->slot[k];
    }
    *v = r.v;
    return r.vv;
}

/* Plain maximum: fmax is a library call on x86-64 (for its NaN rules), and
 * the values here are finite. */
static inline double maxd(double a, double b) { return a > b ? a : b; }

static inline double max_abs_coord(kcbp_vec3 a, kcbp_vec3 b)
{
    return maxd(maxd(maxd(fabs(a.x), fabs(a.y)), fabs(a.z)), maxd(maxd(fabs(b.x), fabs(b.y)), fabs(b.z)));
}

static void witnesses(const simplex *s, kcbp_vec3 *pa, kcbp_vec3 *pb)
{
    kcbp_vec3 a = {0, 0, 0}, b = {0, 0, 0};
    for (int k = 0; k < s->n; k++) {
        a = kcbp_v3_add(a, kcbp_v3_scale(s->v[s->slot[k]].a, s->lam[k]));
        b = kcbp_v3_add(b, kcbp_v3_scale(s->v[s->slot[k]].b, s->lam[k]));
    }
    *pa = a;
    *pb = b;
}

static int finite3(kcbp_vec3 v) { return isfinite(v.x) && isfinite(v.y) && isfinite(v.z); }

/* The state GJK ends in; kcbp_gjk_distance turns it into a result, the
 * boolean queries read only what they need. */
typedef struct {
    simplex s;
    kcbp_vec3 v;  /* nearest point of the simplex to the origin */
    double vv;    /* |v|^2 */
    double scale; /* largest coordinate magnitude of the support points */
    double lower; /* best lower bound on the core distance */
    int overlap, capped, iter;
    int converged;       /* stopped because the bounds met (van den Bergen) */
    int separated_early; /* stopped by the exit_gap test */
} gjk_state;

/* exit_gap < 0: run to convergence. Otherwise also stop as soon as a
 * support plane proves the inflated shapes apart by more than
 * max(exit_gap, the touching tolerance): the lower bound dot(v, w) / |v| is
 * the gap along v, a valid lower bound on the distance (for
 * kcbp_gjk_intersect and kcbp_gjk_separated). */
static void gjk_run(const kcbp_convex *a, const kcbp_convex *b, const kcbp_pose *b_in_a,
                    const kcbp_gjk_params *params, kcbp_support_cache *cache, double exit_gap, gjk_state *st)
{
    kcbp_gjk_params prm = params ? *params : kcbp_gjk_default_params();
    if (prm.max_iterations < 1)
        prm.max_iterations = 1;
    if (!(prm.rel_tol > 0))
        prm.rel_tol = KCBP_GJK_DEFAULT_REL_TOL;
    kcbp_pose pose = b_in_a ? *b_in_a : kcbp_pose_identity();
    kcbp_support_cache local_cache = {{0, 0}};
    if (!cache)
        cache = &local_cache;

    /* First support point: A's point toward B's origin and B's toward A's,
     * a CSO point that is already near the origin's side. */
    kcbp_vec3 d = kcbp_v3_neg(pose.trans);
    if (!(kcbp_v3_len2(d) > 0))
        d = kcbp_v3(1, 0, 0);
    simplex *s = &st->s;
    s->n = 1;
    s->used = 1;
    s->slot[0] = 0, s->slot[1] = 1, s->slot[2] = 2, s->slot[3] = 3;
    s->v[0] = kcbp_gjk_support(a, b, &pose, kcbp_v3_neg(d), cache);
    s->lam[0] = 1;
    kcbp_vec3 v = s->v[0].w;
    double vv = kcbp_v3_len2(v);
    double scale = max_abs_coord(s->v[0].a, s->v[0].b);
    double lower = 0;
    int overlap = 0, capped = 1, converged = 0, iter = 0, early = 0;
    const double rsum = a->radius + b->radius;
    const int exits = exit_gap >= 0;

    while (iter < prm.max_iterations) {
        double tiny = ON_SIMPLEX_REL * scale;
        if (vv <= tiny * tiny) {
            overlap = 1;
            capped = 0;
            break;
        }
        iter++;
        int add = free_slot(s);
        kcbp_simplex_vertex *nvp = &s->v[add];
        *nvp = kcbp_gjk_support(a, b, &pose, kcbp_v3_neg(v), cache);
        scale = maxd(scale, max_abs_coord(nvp->a, nvp->b));
        double vw = kcbp_v3_dot(v, nvp->w);
        if (vw > 0)
            lower = maxd(lower, vw / sqrt(vv));
        if (exits && lower > rsum + maxd(exit_gap, KCBP_GJK_TOUCH_REL * (scale + rsum))) {
            /* the plane through w normal to v separates by more than that */
            capped = 0;
            early = 1;
            break;
        }
        /* van den Bergen: |v|^2 - v.w bounds |v| (|v| - dist) from above, so
         * the upper bound |v| and the lower bound v.w / |v| have met. */
        if (vv - vw <= prm.rel_tol * vv) {
            capped = 0;
            converged = 1;
            break;
        }
        /* A point already in the simplex, yet beyond v's plane: impossible
         * in exact arithmetic for polytope cores (v would be the nearest
         * point), so rounding made v other than the nearest point of its
         * own simplex. Stop; classify() trusts only the bounds. */
        if (in_simplex(s, add)) {
            capped = 0;
            break;
        }
        int old_n = s->n, old_slot[4];
        unsigned old_used = s->used;
        double old_lam[4];
        memcpy(old_slot, s->slot, sizeof old_slot);
        memcpy(old_lam, s->lam, sizeof old_lam);
        kcbp_vec3 nvv_v;
        double nvv = simplex_solve(s, add, &nvv_v);
        if (s->n == 4) { /* the origin is inside a tetrahedron */
            v = nvv_v;
            vv = nvv;
            overlap = 1;
            capped = 0;
            break;
        }
        if (!(nvv < vv)) { /* no progress: rounding; keep the better simplex */
            s->n = old_n;
            s->used = old_used;
            memcpy(s->slot, old_slot, sizeof old_slot);
            memcpy(s->lam, old_lam, sizeof old_lam);
            capped = 0;
            break;
        }
        v = nvv_v;
        vv = nvv;
    }
    /* An exit at exactly the last iteration by one of the tests above clears
     * `capped`; the loop condition failing leaves it set. */
    if (capped && vv <= (ON_SIMPLEX_REL * scale) * (ON_SIMPLEX_REL * scale)) {
        overlap = 1;
        capped = 0;
    }
    st->v = v;
    st->vv = vv;
    st->scale = scale;
    st->lower = lower;
    st->overlap = overlap;
    st->capped = capped;
    st->converged = converged;
    st->iter = iter;
    st->separated_early = early;
}

/* The status kcbp_gjk_distance reports for a finished run; *gap: the gap
 * between the inflated shapes (dist - rsum, dist = 0 when overlapping);
 * *gap_lower: a lower bound on it (the distance_lower of the result).
 *
 * The bounds decide, not the way the run ended: |v| is an upper bound on the
 * core distance (v is a point of the Minkowski difference, up to rounding of
 * the size of the coordinates) and st->lower a lower bound (the gap along v
 * of a support plane, valid for any v, however rounded). SEPARATED needs the
 * bounds to have met (the van den Bergen test), or to be within the touching
 * tolerance of each other and to prove a gap above it; a run that rounding
 * stopped short of that is HIT_CAP, like one the cap stopped: distance an
 * upper bound, distance_lower the lower bound, never a gap it did not
 * prove. */
static kcbp_gjk_status classify(const gjk_state *st, double rsum, double *gap, double *gap_lower)
{
    double dist = st->overlap ? 0 : sqrt(st->vv);
    double tol = KCBP_GJK_TOUCH_REL * (st->scale + rsum);
    kcbp_vec3 pa, pb;
    witnesses(&st->s, &pa, &pb);
    *gap = dist - rsum;
    *gap_lower = 0;
    if (!isfinite(dist) || !finite3(pa) || !finite3(pb))
        return KCBP_GJK_OVERLAPPING; /* only with invalid input: the safe answer */
    if (st->overlap || *gap < -tol)
        return KCBP_GJK_OVERLAPPING;
    if (*gap <= tol) {
        *gap_lower = fmax(*gap, 0);
        return KCBP_GJK_TOUCHING;
    }
    double lower = fmin(st->lower, dist);
    if (st->capped || (!st->converged && !(lower - rsum > tol && dist - lower <= tol))) {
        *gap_lower = fmax(0, lower - rsum);
        return KCBP_GJK_HIT_CAP;
    }
    *gap_lower = *gap;
    return KCBP_GJK_SEPARATED;
}

void kcbp_gjk_distance(const kcbp_convex *a, const kcbp_convex *b, const kcbp_pose *b_in_a,
                       const kcbp_gjk_params *params, kcbp_support_cache *cache, kcbp_gjk_result *out)
{
    gjk_state st;
    gjk_run(a, b, b_in_a, params, cache, -1, &st);
    const simplex *s = &st.s;
    memset(out, 0, sizeof *out);
    out->iterations = st.iter;
    out->simplex_count = s->n;
    for (int k = 0; k < s->n; k++) {
        out->simplex[k] = s->v[s->slot[k]];
        out->lambda[k] = s->lam[k];
    }
    double ra = a->radius, rb = b->radius, rsum = ra + rb;
    out->scale = st.scale + rsum;
    double gap, gap_lower;
    kcbp_gjk_status status = classify(&st, rsum, &gap, &gap_lower);
    out->status = status;
    double dist = st.overlap ? 0 : sqrt(st.vv);
    kcbp_vec3 pa, pb;
    witnesses(s, &pa, &pb);
    if (!isfinite(dist) || !finite3(pa) || !finite3(pb))
        return; /* only reachable with invalid input: the safe "overlap" */
    out->core_distance = dist;
    if (st.overlap) {
        out->point_a = pa;
        out->point_b = pb;
        return;
    }
    kcbp_vec3 n = kcbp_v3_scale(st.v, -1.0 / dist); /* pb - pa = -v */
    out->normal = n;
    out->point_a = kcbp_v3_add(pa, kcbp_v3_scale(n, ra));
    out->point_b = kcbp_v3_sub(pb, kcbp_v3_scale(n, rb));
    if (status != KCBP_GJK_OVERLAPPING) {
        out->distance = status == KCBP_GJK_TOUCHING ? gap_lower : gap;
        out->distance_lower = gap_lower;
    }
}

int kcbp_gjk_intersect(const kcbp_convex *a, const kcbp_convex *b, const kcbp_pose *b_in_a,
                       kcbp_support_cache *cache)
{
    gjk_state st;
    gjk_run(a, b, b_in_a, NULL, cache, 0, &st);
    if (st.separated_early)
        return 0;
    /* Not proven apart: a HIT_CAP here has a lower bound within the
     * touching tolerance (a larger one would have ended the run early). */
    double gap, gap_lower;
    return classify(&st, a->radius + b->radius, &gap, &gap_lower) != KCBP_GJK_SEPARATED;
}

int kcbp_gjk_separated(const kcbp_convex *a, const kcbp_convex *b, const kcbp_pose *b_in_a, double margin,
                       kcbp_support_cache *cache, double *distance_lower, int *iterations, kcbp_vec3 *axis)
{
    gjk_state st;
    double rsum = a->radius + b->radius;
    gjk_run(a, b, b_in_a, NULL, cache, margin > 0 ? margin : 0, &st);
    double lower = 0;
    int apart = 0;
    if (st.separated_early) {
        lower = st.lower - rsum;
        apart = 1;
    } else {
        double gap;
        kcbp_gjk_status status = classify(&st, rsum, &gap, &lower);
        apart = (status == KCBP_GJK_SEPARATED || status == KCBP_GJK_HIT_CAP) && lower > margin;
        if (!apart)
            lower = 0;
    }
    if (distance_lower)
        *distance_lower = lower;
    if (iterations)
        *iterations = st.iter;
    if (axis) {
        /* v is the point of the difference A - B nearest the origin found,
         * so B lies on the side of -v. */
        double len = sqrt(st.vv);
        *axis = apart && len > 0 ? kcbp_v3_scale(st.v, -1.0 / len) : kcbp_v3(0, 0, 0);
    }
    return apart;
}

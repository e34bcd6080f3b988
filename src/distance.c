/* kcbp_distance (include/kcbp/distance.h): world boxes, then the k-CBPs'
 * GJK distance, then a depth-first traversal of the two AABB trees with a
 * running upper bound. */
#include <kcbp/distance.h>

#include <math.h>
#include <string.h>

#include <kcbp/gjk.h>

/* Each tree is less than this deep (src/aabb_tree.c: STACK_PER_TREE), and
 * a depth-first step pops one node pair and pushes at most two one level
 * down in one tree, so the stack holds at most depth_a + depth_b + 1. */
enum { DIST_STACK = 2 * 96 + 4 };

/* The k-CBP stage's decision margin, as kcbp_collide's (src/collide.c,
 * cbp_margin): GJK's accuracy is relative to the coordinates it works
 * with, the k-CBPs', which can be larger than the meshes'. */
#define DIST_CBP_REL 1e-8

kcbp_distance_options kcbp_distance_options_default(void)
{
    kcbp_distance_options o = {.max_distance = INFINITY, .use_cbp = true};
    return o;
}

typedef struct {
    kcbp_mat3 r, abs_r;
    kcbp_vec3 t;
} rel_frame;

/* A lower bound on the squared distance between node a (A's frame) and
 * node b (B's frame), from d, b's centre minus a's in A's frame, db the
 * same in B's frame, rb the half-sizes of the box around b's posed box in
 * A's frame and ra those of a's in B's frame: the largest of the distances
 * between a's box and the box around b's (exact for those boxes, each of
 * which holds its node's triangles), the same in B's frame, and the gap
 * along the line through the centres (|d| minus the two boxes' half-widths
 * along it: often the best single axis for boxes not side by side). */
static inline double box_dist2(kcbp_vec3 d, kcbp_vec3 db, const kcbp_aabb_node *a, const kcbp_aabb_node *b,
                               kcbp_vec3 ra, kcbp_vec3 rb)
{
    double gx = fabs(d.x) - a->extent.x - rb.x, gy = fabs(d.y) - a->extent.y - rb.y,
           gz = fabs(d.z) - a->extent.z - rb.z;
    double s1 = (gx > 0 ? gx * gx : 0) + (gy > 0 ? gy * gy : 0) + (gz > 0 ? gz * gz : 0);
    gx = fabs(db.x) - b->extent.x - ra.x;
    gy = fabs(db.y) - b->extent.y - ra.y;
    gz = fabs(db.z) - b->extent.z - ra.z;
    double s2 = (gx > 0 ? gx * gx : 0) + (gy > 0 ? gy * gy : 0) + (gz > 0 ? gz * gz : 0);
    double d2 = kcbp_v3_len2(d);
    double g = d2 - kcbp_v3_dot(kcbp_v3_abs(d), a->extent) - kcbp_v3_dot(kcbp_v3_abs(db), b->extent);
    double s3 = g > 0 && d2 > 0 ? g * g / d2 : 0;
    double m = s1 > s2 ? s1 : s2;
    return m > s3 ? m : s3;
}

/* box_dist2 of a child of a against b, b's posed centre cb and box rb in
 * A's frame computed once for both children. */
static inline double child_a_dist2(const rel_frame *f, const kcbp_aabb_node *a, const kcbp_aabb_node *b, kcbp_vec3 cb,
                                   kcbp_vec3 rb)
{
    kcbp_vec3 d = kcbp_v3_sub(cb, a->center);
    return box_dist2(d, kcbp_mat3_tmul_v3(&f->r, d), a, b, kcbp_mat3_tmul_v3(&f->abs_r, a->extent), rb);
}

/* The same for a child of b: a's centre ca and box ra in B's frame. */
static inline double child_b_dist2(const rel_frame *f, const kcbp_aabb_node *a, const kcbp_aabb_node *b, kcbp_vec3 ca,
                                   kcbp_vec3 ra)
{
    kcbp_vec3 db = kcbp_v3_sub(b->center, ca);
    return box_dist2(kcbp_mat3_mul_v3(&f->r, db), db, a, b, ra, kcbp_mat3_mul_v3(&f->abs_r, b->extent));
}

static inline double root_dist2(const rel_frame *f, const kcbp_aabb_node *a, const kcbp_aabb_node *b)
{
    return child_a_dist2(f, a, b, kcbp_v3_add(kcbp_mat3_mul_v3(&f->r, b->center), f->t),
                         kcbp_mat3_mul_v3(&f->abs_r, b->extent));
}

/* A cheap lower bound on the squared distance of two triangles: their gap
 * along the line through their centroids (0 when they overlap there), to
 * skip most of the triangle pairs a leaf pair brings that cannot beat the
 * best distance found. */
static inline double tri_gap2(const kcbp_vec3 a[3], const kcbp_vec3 b[3])
{
    kcbp_vec3 u = kcbp_v3_sub(kcbp_v3_add(kcbp_v3_add(b[0], b[1]), b[2]), kcbp_v3_add(kcbp_v3_add(a[0], a[1]), a[2]));
    double a0 = kcbp_v3_dot(a[0], u), a1 = kcbp_v3_dot(a[1], u), a2 = kcbp_v3_dot(a[2], u);
    double b0 = kcbp_v3_dot(b[0], u), b1 = kcbp_v3_dot(b[1], u), b2 = kcbp_v3_dot(b[2], u);
    double bmin = b0 < b1 ? b0 : b1, amax = a0 > a1 ? a0 : a1;
    bmin = b2 < bmin ? b2 : bmin;
    amax = a2 > amax ? a2 : amax;
    double g = bmin - amax; /* (no fmin/fmax: a library call each without -ffinite-math) */
    double u2 = kcbp_v3_len2(u);
    /* The gap is rounded: keep a relative margin below it. */
    return g > 0 && u2 > 0 ? g * g / u2 * (1 - 1e-9) : 0;
}

static inline double node_size(const kcbp_aabb_node *n) { return n->extent.x + n->extent.y + n->extent.z; }

typedef struct {
    uint32_t a, b;
    double lb2;
} node_pair;

/* The slot of a triangle near point p: down the tree, always into the
 * child whose box is nearer p. */
static uint32_t dive(const kcbp_aabb_tree *t, kcbp_vec3 p)
{
    const kcbp_aabb_node *n = &t->nodes[0];
    while (!n->count) {
        const kcbp_aabb_node *c0 = &t->nodes[n->first], *c1 = c0 + 1;
        double d0 = 0, d1 = 0;
        kcbp_vec3 u0 = kcbp_v3_sub(kcbp_v3_abs(kcbp_v3_sub(p, c0->center)), c0->extent);
        kcbp_vec3 u1 = kcbp_v3_sub(kcbp_v3_abs(kcbp_v3_sub(p, c1->center)), c1->extent);
        d0 = kcbp_v3_len2(kcbp_v3_max(u0, kcbp_v3(0, 0, 0)));
        d1 = kcbp_v3_len2(kcbp_v3_max(u1, kcbp_v3(0, 0, 0)));
        n = d1 < d0 ? c1 : c0;
    }
    return n->first;
}

/* Squared distance between two world boxes. */
static double aabb_dist2(kcbp_aabb p, kcbp_aabb q)
{
    double s = 0;
    double lo[3] = {q.min.x - p.max.x, q.min.y - p.max.y, q.min.z - p.max.z};
    double hi[3] = {p.min.x - q.max.x, p.min.y - q.max.y, p.min.z - q.max.z};
    for (int i = 0; i < 3; i++) {
        double g = fmax(lo[i], hi[i]);
        s += g > 0 ? g * g : 0;
    }
    return s;
}

kcbp_status kcbp_distance(const kcbp_model *a, const kcbp_pose *pose_a, const kcbp_model *b,
                          const kcbp_pose *pose_b, const kcbp_distance_options *options,
                          kcbp_distance_result *result, kcbp_error *err)
{
    kcbp_distance_options o = options ? *options : kcbp_distance_options_default();
    memset(result, 0, sizeof *result);
    result->distance = INFINITY;
    result->decided_by = KCBP_STAGE_MESH;
    if (a->mesh.ntriangles == 0 || b->mesh.ntriangles == 0 || !a->tree.nodes || !b->tree.nodes)
        return kcbp_error_set(err, KCBP_ERR_INVALID, "distance: a model without triangles");
    if (a->tree.depth + b->tree.depth + 2 > DIST_STACK)
        return kcbp_error_set(err, KCBP_ERR_LIMIT, "distance: trees deeper than %d levels together", DIST_STACK - 2);
    bool limited = o.max_distance >= 0 && isfinite(o.max_distance);
    double limit = limited ? o.max_distance : INFINITY;
    kcbp_pose b_in_a = kcbp_pose_relative(pose_a, pose_b);
    double scale = fmax(fmax(a->scale, a->cbp_scale),
                        fmax(b->scale, b->cbp_scale) + kcbp_v3_len(b_in_a.trans));
    double margin = DIST_CBP_REL * scale;
    kcbp_pose b_to_a_inv = kcbp_pose_inverse(&b_in_a);
    bool have_witness = false;
    kcbp_vec3 witness_a = {0, 0, 0}, witness_b = {0, 0, 0};
    double lower = 0;

    /* Stage 1: the world boxes (only a decision with a limit). */
    bool cbp = o.use_cbp && kcbp_model_has_cbp(a) && kcbp_model_has_cbp(b);
    if (limited) {
        double d = sqrt(aabb_dist2(kcbp_model_world_bounds(a, pose_a), kcbp_model_world_bounds(b, pose_b)));
        /* The world boxes are of the k-CBPs' vertices, which may be pushed
         * inside the planes by rounding: keep the margin. */
        double box_lower = d - margin;
        lower = fmax(lower, box_lower);
        if (box_lower > limit) {
            result->decided_by = KCBP_STAGE_AABB;
            result->distance_lower = lower;
            return KCBP_OK;
        }
    }

    /* Stage 2: the k-CBPs' distance, a lower bound on the meshes'. */
    if (cbp) {
        kcbp_support_cache cache = {{0, 0}};
        kcbp_gjk_result g;
        kcbp_gjk_distance(&a->shape, &b->shape, &b_in_a, NULL, &cache, &g);
        result->cbp_tested = true;
        result->gjk_iterations = g.iterations;
        bool apart = g.status == KCBP_GJK_SEPARATED || g.status == KCBP_GJK_HIT_CAP;
        if (apart) {
            have_witness = true;
            witness_a = g.point_a;
            witness_b = kcbp_pose_apply(&b_to_a_inv, g.point_b);
        }
        result->cbp_distance = apart ? g.distance_lower : 0;
        lower = fmax(lower, result->cbp_distance - margin);
        if (limited && result->cbp_distance - margin > limit) {
            result->decided_by = KCBP_STAGE_CBP;
            result->distance_lower = lower;
            return KCBP_OK;
        }
    }

    /* Stage 3: the trees. best2 is the running upper bound (squared); a
     * node pair is kept only while its box distance is below it and, with
     * a limit, not above the limit. Depth-first, nearer child pair first
     * (as FCL's distance traversal): best-first with a binary heap was
     * tried, and on bunny-bunny (bench/distance.sh poses) it visited 60 %
     * fewer node pairs with 38 % fewer instructions (callgrind), but was no
     * faster in wall time (the heap's accesses miss the cache) and needs
     * an allocation. */
    rel_frame f = {b_in_a.rot, b_in_a.rot, b_in_a.trans};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            f.abs_r.m[i][j] = fabs(f.r.m[i][j]);
    double best2 = INFINITY, best = INFINITY, limit2 = limited ? limit * limit : INFINITY;
    /* The k-CBPs' distance, squared, minus its margin: once the best
     * triangle distance is down to it, nothing can be nearer. */
    double stop2 = lower > 0 ? lower * lower : 0;
    kcbp_vec3 best_pa = {0, 0, 0}, best_pb = {0, 0, 0};
    uint32_t best_ta = 0, best_tb = 0;
    uint64_t box_pairs = 0, tri_pairs = 0;
    if (have_witness) {
        /* A first upper bound: the triangles nearest the k-CBPs' closest
         * points (found by a greedy dive in each tree), which lie near the
         * meshes' closest points when those are on the hulls. */
        uint32_t sa = dive(&a->tree, witness_a), sb = dive(&b->tree, witness_b);
        kcbp_vec3 tb[3], pa, pb;
        for (int k = 0; k < 3; k++)
            tb[k] = kcbp_pose_apply(&b_in_a, b->tree.tri_verts[sb][k]);
        double d = kcbp_tri_distance(a->tree.tri_verts[sa], tb, &pa, &pb);
        tri_pairs++;
        if (d <= limit) {
            best = d;
            best2 = d * d;
            best_pa = pa;
            best_pb = pb;
            best_ta = a->tree.tri_ids[sa];
            best_tb = b->tree.tri_ids[sb];
        }
    }
    node_pair stack[DIST_STACK];
    size_t top = 0;
    stack[top++] = (node_pair){0, 0, root_dist2(&f, &a->tree.nodes[0], &b->tree.nodes[0])};
    box_pairs++;
    while (top > 0) {
        node_pair p = stack[--top];
        if (p.lb2 >= best2 || p.lb2 > limit2)
            continue;
        const kcbp_aabb_node *na = &a->tree.nodes[p.a], *nb = &b->tree.nodes[p.b];
        if (na->count && nb->count) {
            kcbp_vec3 tb[KCBP_AABB_LEAF_MAX][3];
            for (uint32_t j = 0; j < nb->count; j++)
                for (int k = 0; k < 3; k++)
                    tb[j][k] = kcbp_pose_apply(&b_in_a, b->tree.tri_verts[nb->first + j][k]);
            for (uint32_t i = 0; i < na->count; i++)
                for (uint32_t j = 0; j < nb->count; j++) {
                    kcbp_vec3 pa, pb;
                    const kcbp_vec3 *ta = a->tree.tri_verts[na->first + i];
                    double g2 = tri_gap2(ta, tb[j]);
                    if (g2 >= best2 || g2 > limit2)
                        continue;
                    tri_pairs++;
                    double d = kcbp_tri_distance(ta, tb[j], &pa, &pb);
                    if (d * d < best2) {
                        best = d;
                        best2 = d * d;
                        best_pa = pa;
                        best_pb = pb;
                        best_ta = a->tree.tri_ids[na->first + i];
                        best_tb = b->tree.tri_ids[nb->first + j];
                    }
                }
            if (best2 == 0 || best2 <= stop2)
                break;
            continue;
        }
        /* Descend the larger box (both sides shrink together); push the
         * farther child first so that the nearer one is searched first. */
        bool down_a = nb->count || (!na->count && node_size(na) >= node_size(nb));
        uint32_t first = down_a ? na->first : nb->first;
        node_pair c0 = {down_a ? first : p.a, down_a ? p.b : first, 0};
        node_pair c1 = {down_a ? first + 1 : p.a, down_a ? p.b : first + 1, 0};
        if (down_a) {
            kcbp_vec3 cb = kcbp_v3_add(kcbp_mat3_mul_v3(&f.r, nb->center), f.t);
            kcbp_vec3 rb = kcbp_mat3_mul_v3(&f.abs_r, nb->extent);
            c0.lb2 = child_a_dist2(&f, &a->tree.nodes[first], nb, cb, rb);
            c1.lb2 = child_a_dist2(&f, &a->tree.nodes[first + 1], nb, cb, rb);
        } else {
            kcbp_vec3 ca = kcbp_mat3_tmul_v3(&f.r, kcbp_v3_sub(na->center, f.t));
            kcbp_vec3 ra = kcbp_mat3_tmul_v3(&f.abs_r, na->extent);
            c0.lb2 = child_b_dist2(&f, na, &b->tree.nodes[first], ca, ra);
            c1.lb2 = child_b_dist2(&f, na, &b->tree.nodes[first + 1], ca, ra);
        }
        box_pairs += 2;
        if (c1.lb2 < c0.lb2) {
            node_pair t = c0;
            c0 = c1;
            c1 = t;
        }
        if (c1.lb2 < best2 && c1.lb2 <= limit2)
            stack[top++] = c1;
        if (c0.lb2 < best2 && c0.lb2 <= limit2)
            stack[top++] = c0;
    }
    result->tree.box_pairs = box_pairs;
    result->tree.tri_pairs = tri_pairs;
    if (!(best <= limit)) {
        /* Every node pair left was farther than the limit. */
        result->distance_lower = fmax(lower, limit);
        return KCBP_OK;
    }
    result->within = true;
    result->distance = best;
    result->distance_lower = best;
    result->point_a = kcbp_pose_apply(pose_a, best_pa);
    result->point_b = kcbp_pose_apply(pose_a, best_pb);
    result->tri_a = best_ta;
    result->tri_b = best_tb;
    return KCBP_OK;
}

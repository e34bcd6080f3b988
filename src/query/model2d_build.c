/* Building 2D models: the rings check, sets of polygons that only touch,
 * and polygons whose rings touch at single points as OGC Simple Features
 * allows (include/kcbp/polygon2d.h; the queries and the exact touching
 * test are model2d.c's). */
#include <kcbp/polygon2d.h>

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "convex/convex2d.h"
#include "mesh/polygon.h"
#include "query/model2d_internal.h"

static kcbp_status rings_only_touch(const kcbp2d_polygons *in, bool *ok, char *why, size_t why_len,
                                           kcbp_error *err);
static kcbp_status parts_only_touch(const kcbp2d_polygons *in, bool *ok, kcbp_error *err);

kcbp_status kcbp2d_model_build(const kcbp2d_polygons *in, kcbp2d_model **out, kcbp_error *err)
{
    if (out)
        *out = NULL;
    if (!in || !out || !in->points || !in->ring_end || !in->polygon_end || in->nrings == 0 || in->npolygons == 0)
        return kcbp_error_set(err, KCBP_ERR_INVALID, "2D model: no polygons");
    uint32_t n = in->ring_end[in->nrings - 1];
    if (n > KCBP2D_MODEL_MAX_VERTICES)
        return kcbp_error_set(err, KCBP_ERR_LIMIT, "2D model: %u vertices, more than %u", (unsigned)n,
                              KCBP2D_MODEL_MAX_VERTICES);
    if (in->polygon_end[in->npolygons - 1] != in->nrings)
        return kcbp_error_set(err, KCBP_ERR_INVALID, "2D model: the polygons hold %u rings, not %u",
                              (unsigned)in->polygon_end[in->npolygons - 1], (unsigned)in->nrings);
    for (uint32_t j = 0, r0 = 0; j < in->npolygons; j++) {
        if (in->polygon_end[j] <= r0)
            return kcbp_error_set(err, KCBP_ERR_INVALID, "2D model: polygon %u has no ring", (unsigned)j);
        r0 = in->polygon_end[j];
    }
    for (uint32_t r = 0, s = 0; r < in->nrings; r++) {
        if (in->ring_end[r] < s + 3)
            return kcbp_error_set(err, KCBP_ERR_INVALID, "2D model: ring %u has %d vertices, at least 3 needed",
                                  (unsigned)r, (int)in->ring_end[r] - (int)s);
        s = in->ring_end[r];
    }
    for (uint32_t i = 0; i < n; i++) {
        kcbp_vec2 p = in->points[i];
        if (!kcbp_v2_is_finite(p) || fabs(p.x) > KCBP_COORD_MAX || fabs(p.y) > KCBP_COORD_MAX)
            return kcbp_error_set(err, KCBP_ERR_INVALID, "2D model: vertex %u (%g, %g) is not finite or beyond %g",
                                  (unsigned)i, p.x, p.y, KCBP_COORD_MAX);
    }
    kcbp2d_model *m = calloc(1, sizeof *m);
    if (!m)
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "2D model: out of memory");
    m->nv = n, m->nrings = in->nrings;
    m->v = malloc((size_t)n * sizeof *m->v);
    m->next = malloc((size_t)n * sizeof *m->next);
    m->ring_first = malloc((size_t)in->nrings * sizeof *m->ring_first);
    m->ring_left = malloc((size_t)in->nrings);
    uint32_t *oriented = malloc((size_t)n * sizeof *oriented);
    double *uv = malloc(2 * (size_t)n * sizeof *uv);
    if (!m->v || !m->next || !m->ring_first || !m->ring_left || !oriented || !uv) {
        free(oriented), free(uv);
        kcbp2d_model_free(m);
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "2D model: out of memory for %u vertices", (unsigned)n);
    }
    memcpy(m->v, in->points, (size_t)n * sizeof *m->v);
    for (uint32_t i = 0; i < n; i++) {
        uv[2 * i] = m->v[i].x, uv[2 * i + 1] = m->v[i].y;
        m->scale = fmax(m->scale, kcbp_v2_max_abs(m->v[i]));
    }
    /* Rings in the input's order (the edges' numbering), and for the check
     * each ring turned counter-clockwise round what it encloses: outer
     * rings counter-clockwise, holes clockwise. A ring's orientation is
     * the turn at its lexicographically smallest vertex (exact for a simple
     * ring; a ring that is not simple fails the check whatever it is). */
    for (uint32_t j = 0, r = 0, s = 0; j < in->npolygons; j++) {
        for (; r < in->polygon_end[j]; r++) {
            uint32_t e = in->ring_end[r], lo = s;
            m->ring_first[r] = s;
            for (uint32_t i = s; i < e; i++) {
                m->next[i] = i + 1 < e ? i + 1 : s;
                if (kcbp2d_lex_less(m->v[i], m->v[lo]))
                    lo = i;
            }
            uint32_t prev = lo > s ? lo - 1 : e - 1, nxt = m->next[lo];
            int turn = kcbp2d_orient(m->v[prev], m->v[lo], m->v[nxt]);
            bool hole = r > (j ? in->polygon_end[j - 1] : 0);
            bool reverse = hole ? turn > 0 : turn < 0;
            m->ring_left[r] = !reverse;
            for (uint32_t i = s; i < e; i++)
                oriented[i] = reverse ? (i > s ? i - 1 : e - 1) : m->next[i];
            s = e;
        }
    }
    kcbp_polygon_scratch scratch;
    memset(&scratch, 0, sizeof scratch);
    bool ok = false;
    kcbp_status st = kcbp_polygon_rings_check(&scratch, uv, oriented, n, &ok);
    kcbp_polygon_scratch_free(&scratch);
    free(oriented);
    free(uv);
    if (st != KCBP_OK) {
        kcbp2d_model_free(m);
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "2D model: out of memory checking the rings");
    }
    char why[256] = "";
    if (!ok && in->npolygons == 1 && in->nrings > 1 &&
        (st = rings_only_touch(in, &ok, why, sizeof why, err)) != KCBP_OK) {
        kcbp2d_model_free(m);
        return st;
    }
    if (!ok && in->npolygons > 1 && (st = parts_only_touch(in, &ok, err)) != KCBP_OK) {
        kcbp2d_model_free(m);
        return st;
    }
    if (!ok && why[0]) {
        kcbp2d_model_free(m);
        return kcbp_error_set(err, KCBP_ERR_GEOMETRY, "2D model: the rings do not bound a region: %s", why);
    }
    if (!ok) {
        kcbp2d_model_free(m);
        return kcbp_error_set(err, KCBP_ERR_GEOMETRY,
                              "2D model: the rings do not bound a region simply (a ring crosses or touches itself "
                              "or another other than a hole at single points, two vertices of a ring coincide, "
                              "polygons overlap, or a hole lies outside its polygon)");
    }
    if ((st = kcbp2d_tree_build(&m->tree, m->v, m->next, n, err)) != KCBP_OK) {
        kcbp2d_model_free(m);
        return st;
    }
    *out = m;
    return KCBP_OK;
}

kcbp_status kcbp2d_model_build_polygon(const kcbp_vec2 *points, uint32_t n, kcbp2d_model **out, kcbp_error *err)
{
    uint32_t ring_end = n, polygon_end = 1;
    kcbp2d_polygons in = {points, &ring_end, 1, &polygon_end, 1};
    return kcbp2d_model_build(&in, out, err);
}

/* ---- sets of polygons that touch -------------------------------------------
 *
 * The rings check refuses any two edges that meet; polygons of a set (a
 * map's parcels) may share edges and vertices, or hold a vertex on
 * another's edge, as long as their interiors are disjoint. So when the
 * whole set fails the check: every polygon must pass it alone, and every
 * two whose boxes overlap must have disjoint interiors (interiors_meet,
 * exact, on the coordinates as given: the identity pose carries them
 * unchanged). */


static int part_cmp(const void *x, const void *y)
{
    double a = ((const part_box *)x)->lo.x, b = ((const part_box *)y)->lo.x;
    return (a > b) - (a < b);
}

static kcbp_status parts_only_touch(const kcbp2d_polygons *in, bool *ok, kcbp_error *err)
{
    *ok = false;
    kcbp_status st = KCBP_OK;
    uint32_t np = in->npolygons, nparts = 0;
    part_box *parts = calloc(np, sizeof *parts);
    uint32_t *ends = malloc((size_t)in->nrings * sizeof *ends);
    if (!parts || !ends) {
        st = kcbp_error_set(err, KCBP_ERR_NOMEM, "2D model: out of memory checking the polygons");
        goto out;
    }
    for (uint32_t j = 0, r0 = 0; j < np; r0 = in->polygon_end[j], j++) {
        uint32_t s = r0 ? in->ring_end[r0 - 1] : 0, k = in->polygon_end[j] - r0, one = k;
        for (uint32_t i = 0; i < k; i++)
            ends[i] = in->ring_end[r0 + i] - s;
        kcbp2d_polygons pj = {in->points + s, ends, k, &one, 1};
        kcbp_error e2;
        st = kcbp2d_model_build(&pj, &parts[nparts].m, &e2);
        if (st == KCBP_ERR_GEOMETRY) {
            st = KCBP_OK; /* not simple alone: the set's error stands */
            goto out;
        }
        if (st != KCBP_OK) {
            if (err)
                *err = e2;
            goto out;
        }
        kcbp2d_model_bounds(parts[nparts].m, &parts[nparts].lo, &parts[nparts].hi);
        nparts++;
    }
    qsort(parts, nparts, sizeof *parts, part_cmp);
    kcbp2d_pose id = kcbp2d_pose_identity();
    /* bounded work: a map's parcels overlap a few neighbours' boxes each;
     * boxes nested by the thousand (rings round rings) are refused */
    uint64_t checked = 0, budget = 64 * (uint64_t)nparts + 100000;
    for (uint32_t i = 0; i < nparts; i++)
        for (uint32_t k = i + 1; k < nparts && parts[k].lo.x <= parts[i].hi.x; k++) {
            if (parts[k].lo.y > parts[i].hi.y || parts[i].lo.y > parts[k].hi.y)
                continue;
            if (++checked > budget) {
                st = kcbp_error_set(err, KCBP_ERR_LIMIT,
                                    "2D model: the polygons touch, and more than %llu pairs of their boxes overlap "
                                    "(at most 64 a polygon are checked for overlaps)",
                                    (unsigned long long)budget);
                goto out;
            }
            pair_ctx c;
            bool meet = true;
            if ((st = kcbp2d_pair_make(parts[i].m, &id, parts[k].m, &id, 0.0, &c, err)) != KCBP_OK ||
                (st = kcbp2d_interiors_meet(&c, &meet, err)) != KCBP_OK || meet)
                goto out;
        }
    *ok = true;
out:
    for (uint32_t i = 0; parts && i < nparts; i++)
        kcbp2d_model_free(parts[i].m);
    free(parts);
    free(ends);
    return st;
}

/* ---- a polygon whose rings touch at points ----------------------------------
 *
 * OGC Simple Features' valid polygons: a hole may touch the shell, and
 * holes each other, at single points, as long as the interior stays
 * connected. When a polygon fails the rings check as a whole it is still
 * accepted when, decided exactly on the coordinates as given:
 *   - each ring is simple alone (the rings check on it);
 *   - each hole lies in the shell: the interiors of the hole's region and
 *     of the shell's outside do not meet (interiors_meet with A the
 *     complement) and no edge of the hole overlaps one of the shell along
 *     a segment;
 *   - no two holes' interiors meet, nor do their edges overlap along a
 *     segment (holes whose boxes overlap; at most 64 pairs a hole);
 *   - the interior is connected: in the graph of rings and the points
 *     where two rings meet (a ring joined to each point it passes through)
 *     there is no cycle (a hole touching the shell at two points, or a
 *     chain of holes closing a loop, cuts the interior in two).
 * Everything else that fails the rings check is refused, with the reason. */

typedef struct {
    kcbp_vec2 x;
    uint32_t ring;
} ring_point;

static int ring_point_cmp(const void *u, const void *v)
{
    const ring_point *a = u, *b = v;
    int c = kcbp2d_lex_cmp(a->x, b->x);
    return c ? c : (a->ring > b->ring) - (a->ring < b->ring);
}

typedef struct {
    double lo_x;
    uint32_t r;
} hole_key;

static int hole_key_cmp(const void *u, const void *v)
{
    double a = ((const hole_key *)u)->lo_x, b = ((const hole_key *)v)->lo_x;
    return (a > b) - (a < b);
}

static uint32_t uf_find(uint32_t *parent, uint32_t x)
{
    while (parent[x] != x)
        x = parent[x] = parent[parent[x]];
    return x;
}

typedef struct {
    ring_point *pts;
    size_t n, cap;
} ring_points;

static bool ring_points_add(ring_points *rp, const touch_point *t, size_t n, uint32_t r0, uint32_t r1)
{
    if (rp->n + 2 * n > rp->cap) {
        size_t cap = rp->cap ? rp->cap : 64;
        while (cap < rp->n + 2 * n)
            cap *= 2;
        ring_point *p = realloc(rp->pts, cap * sizeof *p);
        if (!p)
            return false;
        rp->pts = p, rp->cap = cap;
    }
    for (size_t i = 0; i < n; i++) {
        rp->pts[rp->n++] = (ring_point){t[i].x, r0};
        rp->pts[rp->n++] = (ring_point){t[i].x, r1};
    }
    return true;
}

/* One pair of rings (models ma, mb of rings ra, rb): A the shell's
 * outside (a_out) or another hole. *bad names what is wrong. */
static kcbp_status ring_pair_check(const kcbp2d_model *ma, const kcbp2d_model *mb, uint32_t ra, uint32_t rb,
                                   bool a_out, ring_points *rp, char *why, size_t why_len, bool *bad, kcbp_error *err)
{
    kcbp2d_pose id = kcbp2d_pose_identity();
    pair_ctx c;
    kcbp_status st = kcbp2d_pair_make(ma, &id, mb, &id, 0.0, &c, err);
    if (st != KCBP_OK)
        return st;
    touch_walk t;
    memset(&t, 0, sizeof t);
    t.c = &c, t.a_out = a_out, t.stop_on_overlap = true;
    bool meet = false;
    if ((st = kcbp2d_touch_walk_run(&t, &meet, err)) == KCBP_OK) {
        *bad = true;
        if (t.overlap)
            snprintf(why, why_len, a_out ? "the shell and hole %u share a segment" : "holes %u and %u share a segment",
                     (unsigned)(a_out ? rb : ra), (unsigned)rb);
        else if (meet && a_out)
            snprintf(why, why_len, "hole %u is not inside the shell (it crosses it or lies outside)", (unsigned)rb);
        else if (meet)
            snprintf(why, why_len, "holes %u and %u overlap", (unsigned)ra, (unsigned)rb);
        else if (!ring_points_add(rp, t.pts, t.npts, ra, rb))
            st = kcbp_error_set(err, KCBP_ERR_NOMEM, "2D model: out of memory checking the rings");
        else
            *bad = false;
    }
    kcbp2d_touch_walk_free(&t);
    return st;
}

static kcbp_status rings_only_touch(const kcbp2d_polygons *in, bool *ok, char *why, size_t why_len,
                                           kcbp_error *err)
{
    *ok = false;
    uint32_t k = in->nrings;
    kcbp_status st = KCBP_OK;
    part_box *rings = calloc(k, sizeof *rings);
    ring_points rp = {NULL, 0, 0};
    uint32_t *parent = NULL;
    if (!rings) {
        st = kcbp_error_set(err, KCBP_ERR_NOMEM, "2D model: out of memory checking the rings");
        goto out;
    }
    for (uint32_t r = 0, s = 0; r < k; s = in->ring_end[r], r++) {
        kcbp_error e2;
        st = kcbp2d_model_build_polygon(in->points + s, in->ring_end[r] - s, &rings[r].m, &e2);
        if (st == KCBP_ERR_GEOMETRY) {
            if (r)
                snprintf(why, why_len, "hole %u crosses or touches itself (or repeats a position)", (unsigned)r);
            else
                snprintf(why, why_len, "the outer ring crosses or touches itself (or repeats a position)");
            st = KCBP_OK;
            goto out;
        }
        if (st != KCBP_OK) {
            if (err)
                *err = e2;
            goto out;
        }
        kcbp2d_model_bounds(rings[r].m, &rings[r].lo, &rings[r].hi);
    }
    bool bad = false;
    for (uint32_t r = 1; r < k && !bad && st == KCBP_OK; r++)
        st = ring_pair_check(rings[0].m, rings[r].m, 0, r, true, &rp, why, why_len, &bad, err);
    if (bad || st != KCBP_OK)
        goto out;
    /* holes against holes whose boxes overlap, sorted by the box's left side */
    {
        part_box *h = rings + 1;
        uint32_t nh = k - 1;
        hole_key *keys = malloc((size_t)nh * sizeof *keys);
        if (!keys) {
            st = kcbp_error_set(err, KCBP_ERR_NOMEM, "2D model: out of memory checking the rings");
            goto out;
        }
        for (uint32_t i = 0; i < nh; i++)
            keys[i].lo_x = h[i].lo.x, keys[i].r = i + 1;
        qsort(keys, nh, sizeof *keys, hole_key_cmp);
        uint64_t checked = 0, budget = 64 * (uint64_t)nh + 100000;
        for (uint32_t i = 0; i < nh && !bad && st == KCBP_OK; i++) {
            const part_box *pi = &rings[keys[i].r];
            for (uint32_t j = i + 1; j < nh && rings[keys[j].r].lo.x <= pi->hi.x && !bad && st == KCBP_OK; j++) {
                const part_box *pj = &rings[keys[j].r];
                if (pj->lo.y > pi->hi.y || pi->lo.y > pj->hi.y)
                    continue;
                if (++checked > budget) {
                    free(keys);
                    st = kcbp_error_set(err, KCBP_ERR_LIMIT,
                                        "2D model: the rings touch, and more than %llu pairs of the holes' boxes "
                                        "overlap (at most 64 a hole are checked)",
                                        (unsigned long long)budget);
                    goto out;
                }
                uint32_t ra = keys[i].r < keys[j].r ? keys[i].r : keys[j].r, rb = keys[i].r ^ keys[j].r ^ ra;
                st = ring_pair_check(rings[ra].m, rings[rb].m, ra, rb, false, &rp, why, why_len, &bad, err);
            }
        }
        free(keys);
    }
    if (bad || st != KCBP_OK)
        goto out;
    /* connected interior: no cycle among rings and meeting points */
    qsort(rp.pts, rp.n, sizeof *rp.pts, ring_point_cmp);
    if (!(parent = malloc(((size_t)k + rp.n + 1) * sizeof *parent))) {
        st = kcbp_error_set(err, KCBP_ERR_NOMEM, "2D model: out of memory checking the rings");
        goto out;
    }
    for (size_t i = 0; i < (size_t)k + rp.n + 1; i++)
        parent[i] = (uint32_t)i;
    uint32_t node = k; /* the current point's node */
    for (size_t i = 0; i < rp.n; i++) {
        if (i && !ring_point_cmp(&rp.pts[i], &rp.pts[i - 1]))
            continue; /* the same ring at the same point */
        if (i && kcbp2d_lex_cmp(rp.pts[i].x, rp.pts[i - 1].x))
            node++;
        uint32_t a = uf_find(parent, rp.pts[i].ring), b = uf_find(parent, node);
        if (a == b) {
            snprintf(why, why_len,
                     "the interior is not connected: ring %u closes a loop of rings touching at points at (%.17g, %.17g)",
                     (unsigned)rp.pts[i].ring, rp.pts[i].x.x, rp.pts[i].x.y);
            goto out;
        }
        parent[a] = b;
    }
    *ok = true;
out:
    for (uint32_t r = 0; rings && r < k; r++)
        kcbp2d_model_free(rings[r].m);
    free(rings);
    free(rp.pts);
    free(parent);
    return st;
}


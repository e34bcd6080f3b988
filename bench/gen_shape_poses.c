/* gen_shape_poses: poses of a shape around a mesh's surface, at about the
 * shape's size from it, half of them touching (bench/shapes.sh).
 *
 * The shape's numbers are given relative to the mesh's size (the diagonal
 * of its box, D): KIND:A[:B[:C]] as on kcbp's command line, each number
 * times D. For each pose: a point p on the surface (a triangle drawn by
 * area, a uniform point in it), a uniformly random rotation of the shape and
 * a uniformly random direction u; with the shape's centre at p + s u, the
 * shape touches at s = 0 (its centre on the surface), and s_far, doubling
 * from the shape's size, is where kcbp_collide finds it apart; bisection
 * between them gives s*, a last contact along u. The pose is p + s* (1 +
 * delta) u, delta uniform in (0, SPREAD] with the sign alternating from
 * pose to pose: about half touch (delta < 0), half do not.
 *
 * Output: "# shape KIND:..." (the absolute numbers, %.17g: kcbp's spelling),
 * then one pose per line, "tx ty tz ax ay az deg" (%.17g), and a comment
 * with s* and delta. Deterministic for a seed.
 *
 * Usage: gen_shape_poses MESH KIND:REL... SEED COUNT [SPREAD=0.15] > poses */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kcbp/kcbp.h>

#include "bench_rng.h"

static void random_rotation(rng *r, kcbp_vec3 *axis, double *deg)
{
    double u1 = rng_unit(r), u2 = 2 * M_PI * rng_unit(r), u3 = 2 * M_PI * rng_unit(r);
    double a = sqrt(1 - u1), b = sqrt(u1);
    double w = a * sin(u2), x = a * cos(u2), y = b * sin(u3), z = b * cos(u3);
    if (w < 0)
        w = -w, x = -x, y = -y, z = -z;
    double s = sqrt(x * x + y * y + z * z);
    if (s < 1e-12) {
        *axis = kcbp_v3(1, 0, 0);
        *deg = 0;
        return;
    }
    *axis = kcbp_v3(x / s, y / s, z / s);
    *deg = 2 * atan2(s, w) * (180.0 / M_PI);
}

typedef struct {
    const kcbp_model *mesh, *shape;
    kcbp_vec3 p, u, axis;
    double deg;
    kcbp_collide_options opts;
    kcbp_collide_result res;
} search;

static int touches(search *q, double s, int *out)
{
    kcbp_error err;
    kcbp_pose pm = kcbp_pose_identity(), ps;
    kcbp_vec3 c = kcbp_v3_add(q->p, kcbp_v3_scale(q->u, s));
    if (kcbp_pose_from_axis_angle(c, q->axis, q->deg, &ps, &err) != KCBP_OK ||
        kcbp_collide(q->mesh, &pm, q->shape, &ps, &q->opts, &q->res, &err) != KCBP_OK) {
        fprintf(stderr, "gen_shape_poses: %s\n", err.msg);
        return -1;
    }
    *out = q->res.collide;
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 5 || argc > 6) {
        fprintf(stderr, "usage: %s MESH KIND:REL... SEED COUNT [SPREAD=0.15]\n", argv[0]);
        return 2;
    }
    long count = strtol(argv[4], NULL, 10);
    double spread = argc > 5 ? strtod(argv[5], NULL) : 0.15;
    if (count < 1 || !(spread > 0 && spread < 1)) {
        fprintf(stderr, "gen_shape_poses: COUNT >= 1 and SPREAD in (0, 1)\n");
        return 2;
    }
    kcbp_error err;
    kcbp_model mesh, shape;
    kcbp_model_options mo = kcbp_model_options_default();
    if (kcbp_model_load(&mesh, argv[1], &mo, &err) != KCBP_OK) {
        fprintf(stderr, "gen_shape_poses: %s\n", err.msg);
        return 3;
    }
    const kcbp_mesh *m = kcbp_model_mesh(&mesh);
    kcbp_aabb b = kcbp_mesh_bounds(m);
    double D = kcbp_v3_len(kcbp_v3_sub(b.max, b.min));
    kcbp_shape rel;
    if (kcbp_shape_parse(argv[2], &rel, &err) != KCBP_OK) {
        fprintf(stderr, "gen_shape_poses: %s\n", err.msg);
        return 2;
    }
    kcbp_shape abs_ = rel;
    abs_.radius *= D;
    abs_.length *= D;
    abs_.size = kcbp_v3_scale(rel.size, D);
    if (kcbp_model_build_shape(&shape, &abs_, &err) != KCBP_OK) {
        fprintf(stderr, "gen_shape_poses: %s\n", err.msg);
        return 2;
    }
    const char *kind = kcbp_shape_kind_name(abs_.kind);
    if (abs_.kind == KCBP_SHAPE_SPHERE)
        printf("# shape %s:%.17g\n", kind, abs_.radius);
    else if (abs_.kind == KCBP_SHAPE_BOX)
        printf("# shape %s:%.17g:%.17g:%.17g\n", kind, abs_.size.x, abs_.size.y, abs_.size.z);
    else
        printf("# shape %s:%.17g:%.17g\n", kind, abs_.radius, abs_.length);
    printf("# gen_shape_poses %s %s seed %s, %ld poses, spread %g (mesh diagonal %.17g)\n", argv[1], argv[2], argv[3],
           count, spread, D);
    /* the triangles' areas, cumulated, to draw surface points by area */
    uint32_t nt = kcbp_mesh_triangle_count(m);
    const kcbp_vec3 *v = kcbp_mesh_vertices(m);
    const kcbp_tri *t = kcbp_mesh_triangles(m);
    double *cum = malloc((size_t)nt * sizeof *cum);
    if (!cum)
        return 4;
    double total = 0;
    for (uint32_t i = 0; i < nt; i++) {
        kcbp_vec3 a = v[t[i].v[0]], e1 = kcbp_v3_sub(v[t[i].v[1]], a), e2 = kcbp_v3_sub(v[t[i].v[2]], a);
        total += kcbp_v3_len(kcbp_v3_cross(e1, e2));
        cum[i] = total;
    }
    double size = kcbp_v3_len(kcbp_aabb_extent(kcbp_shape_bounds(&abs_)));
    rng r = rng_seed(strtoull(argv[3], NULL, 10));
    search q = {.mesh = &mesh, .shape = &shape, .opts = kcbp_collide_options_default()};
    q.opts.contacts = KCBP_CONTACTS_NONE;
    double far_reach = 0;
    for (long k = 0; k < count;) {
        double pick = rng_unit(&r) * total;
        uint32_t lo = 0, hi = nt - 1;
        while (lo < hi) {
            uint32_t mid = lo + (hi - lo) / 2;
            if (cum[mid] < pick)
                lo = mid + 1;
            else
                hi = mid;
        }
        double a = rng_unit(&r), bb = rng_unit(&r);
        if (a + bb > 1)
            a = 1 - a, bb = 1 - bb;
        kcbp_vec3 t0 = v[t[lo].v[0]], t1 = v[t[lo].v[1]], t2 = v[t[lo].v[2]];
        q.p = kcbp_v3_add(t0, kcbp_v3_add(kcbp_v3_scale(kcbp_v3_sub(t1, t0), a), kcbp_v3_scale(kcbp_v3_sub(t2, t0), bb)));
        random_rotation(&r, &q.axis, &q.deg);
        q.u = random_direction(&r);
        double far = size;
        int hit = 1, steps = 0;
        while (hit && steps++ < 40) {
            if (touches(&q, far, &hit) != 0)
                return 3;
            if (hit)
                far *= 2;
        }
        if (hit)
            continue; /* always touching along u (inside a cavity): another draw */
        double in = 0, out = far;
        for (int it = 0; it < 60; it++) {
            double mid = 0.5 * (in + out);
            if (touches(&q, mid, &hit) != 0)
                return 3;
            if (hit)
                in = mid;
            else
                out = mid;
        }
        double s = 0.5 * (in + out);
        double delta = rng_range(&r, 0, spread);
        if (delta == 0)
            delta = spread / 2;
        if (k % 2 == 0)
            delta = -delta;
        kcbp_vec3 c = kcbp_v3_add(q.p, kcbp_v3_scale(q.u, s * (1 + delta)));
        far_reach = fmax(far_reach, kcbp_v3_len(c) + size);
        printf("%.17g %.17g %.17g %.17g %.17g %.17g %.17g # %.17g %.17g\n", c.x, c.y, c.z, q.axis.x, q.axis.y,
               q.axis.z, q.deg, s, delta);
        k++;
    }
    /* the pair's scale: the mesh's largest coordinate, or the farthest a
     * point of the shape gets from the origin */
    printf("# scale %.17g\n", fmax(fmax(kcbp_v3_max_abs(b.min), kcbp_v3_max_abs(b.max)), far_reach));
    free(cum);
    kcbp_collide_result_free(&q.res);
    kcbp_model_free(&shape);
    kcbp_model_free(&mesh);
    return 0;
}

/* pair_classes: what one pair test costs in a scene, by how it ends, with
 * the k-CBP filter and without (bench/README.md, "moving.sh").
 *
 *   pair_classes SCENE.json K [REPS=10]
 *
 * Runs every frame of the scene (K-plane greedy k-CBPs) and, for every pair
 * the broad phase keeps, times kcbp_collide REPS times in a row with the
 * k-CBP filter on and REPS times with it off, in an order alternating from
 * pair to pair (--contacts none; repeated, so the caches are mostly hot:
 * this is the cost of the work, not of the misses of a real frame loop). Pairs are put in three classes: the k-CBPs are apart
 * (the filter ends the test), the k-CBPs overlap but the meshes are apart,
 * the meshes collide. Prints per class: pairs, µs per test with the filter
 * and without, GJK iterations (filter on), node pairs and triangle pairs the
 * AABB trees tested (filter off). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <kcbp/kcbp.h>

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return 1e6 * (double)ts.tv_sec + 1e-3 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    long k = argc > 2 ? strtol(argv[2], NULL, 10) : 0;
    long reps = argc > 3 ? strtol(argv[3], NULL, 10) : 10;
    if (argc < 3 || argc > 4 || k < KCBP_CBP_K_MIN || k > KCBP_CBP_K_MAX || reps < 1 || reps > 1000) {
        fprintf(stderr, "usage: %s SCENE.json K [REPS=10]\n", argv[0]);
        return 2;
    }
    kcbp_error err;
    kcbp_scene *s;
    kcbp_model_options mo = kcbp_model_options_default();
    mo.k = (int)k;
    if (kcbp_scene_load(argv[1], &mo, &s, &err) != KCBP_OK) {
        fprintf(stderr, "pair_classes: %s\n", err.msg);
        return 3;
    }
    kcbp_collide_options on = kcbp_collide_options_default();
    on.contacts = KCBP_CONTACTS_NONE;
    on.cbp_measure = false; /* as kcbp scene does */
    on.use_cbp = true;
    kcbp_collide_options off = on;
    off.use_cbp = false;

    /* The pairs a scene's broad phase keeps: the world boxes, each padded
     * by its object's share of the pair test's tolerance (src/scene). */
    uint32_t nobj = kcbp_scene_object_count(s);
    kcbp_broadphase *bp;
    kcbp_pose *poses = malloc((size_t)nobj * sizeof *poses);
    kcbp_aabb *boxes = malloc((size_t)nobj * sizeof *boxes);
    kcbp_collide_result r;
    memset(&r, 0, sizeof r);
    if (!poses || !boxes || kcbp_broadphase_new(nobj, &bp, &err) != KCBP_OK) {
        fprintf(stderr, "pair_classes: out of memory\n");
        return 4;
    }
    enum { APART_CBP, APART_MESH, COLLIDE };
    static const char *const names[] = {"k-CBPs apart", "k-CBPs overlap, meshes apart", "colliding"};
    uint64_t n[3] = {0}, gjk_it[3] = {0}, box[3] = {0}, tri[3] = {0};
    double t_on[3] = {0}, t_off[3] = {0};
    for (uint32_t fr = 0; fr < kcbp_scene_frame_count(s); fr++) {
        for (uint32_t i = 0; i < nobj; i++) {
            const kcbp_model *m = kcbp_scene_model(s, kcbp_scene_object_model(s, i));
            poses[i] = kcbp_scene_object_pose(s, i, fr);
            kcbp_aabb box = kcbp_model_world_bounds(m, &poses[i]);
            double pad = kcbp_tri_tolerance(kcbp_model_scale(m) + kcbp_v3_len(poses[i].trans));
            boxes[i].min = kcbp_v3_sub(box.min, kcbp_v3(pad, pad, pad));
            boxes[i].max = kcbp_v3_add(box.max, kcbp_v3(pad, pad, pad));
        }
        if (kcbp_broadphase_update(bp, boxes, &err) != KCBP_OK) {
            fprintf(stderr, "pair_classes: %s\n", err.msg);
            return 3;
        }
        const kcbp_index_pair *pairs;
        size_t np = kcbp_broadphase_pairs(bp, &pairs);
        for (size_t p = 0; p < np; p++) {
            uint32_t a = pairs[p].a, b = pairs[p].b;
            const kcbp_model *ma = kcbp_scene_model(s, kcbp_scene_object_model(s, a));
            const kcbp_model *mb = kcbp_scene_model(s, kcbp_scene_object_model(s, b));
            /* Both settings, in an order that alternates from pair to pair:
             * the first calls of a pair pay its cache misses. */
            double t[2] = {0, 0};
            int c = APART_CBP, it = 0;
            uint64_t nbox = 0, ntri = 0;
            for (int half = 0; half < 2; half++) {
                int use_cbp = (half == 0) == (p % 2 == 0);
                double t0 = now_us();
                for (long i = 0; i < reps; i++)
                    if (kcbp_collide(ma, &poses[a], mb, &poses[b], use_cbp ? &on : &off, &r, &err) != KCBP_OK)
                        return 3;
                t[use_cbp] = (now_us() - t0) / (double)reps;
                if (use_cbp) {
                    c = r.decided_by == KCBP_STAGE_CBP ? APART_CBP : r.collide ? COLLIDE : APART_MESH;
                    it = r.cbp.gjk_iterations;
                } else {
                    nbox = r.tree.box_pairs;
                    ntri = r.tree.tri_pairs;
                }
            }
            n[c]++;
            t_on[c] += t[1];
            t_off[c] += t[0];
            gjk_it[c] += (uint64_t)it;
            box[c] += nbox;
            tri[c] += ntri;
        }
    }
    printf("| pairs | count | µs with the k-CBP filter | µs without | GJK iterations | tree node pairs | triangle pairs |\n");
    printf("|---|---|---|---|---|---|---|\n");
    for (int c = 0; c < 3; c++) {
        double d = n[c] ? (double)n[c] : 1;
        printf("| %s | %llu | %.2f | %.2f | %.1f | %.1f | %.1f |\n", names[c], (unsigned long long)n[c], t_on[c] / d,
               t_off[c] / d, (double)gjk_it[c] / d, (double)box[c] / d, (double)tri[c] / d);
    }
    printf("total ms: %.1f with the filter, %.1f without\n", (t_on[0] + t_on[1] + t_on[2]) / 1e3,
           (t_off[0] + t_off[1] + t_off[2]) / 1e3);
    kcbp_collide_result_free(&r);
    kcbp_broadphase_free(bp);
    free(poses);
    free(boxes);
    kcbp_scene_free(s);
    return 0;
}

/* kcbp_layout: the sizes and offsets of the public structs, as compiled
 * (layout.h). A constant table: no state. */
#include <kcbp/layout.h>

#include <string.h>

#include <kcbp/collide.h>
#include <kcbp/collide_cap.h>
#include <kcbp/collide2d.h>
#include <kcbp/contact_geom.h>
#include <kcbp/distance.h>
#include <kcbp/distance2d.h>
#include <kcbp/error.h>
#include <kcbp/manifold.h>
#include <kcbp/mesh.h>
#include <kcbp/polygon2d.h>
#include <kcbp/sweep2d.h>
#include <kcbp/pose.h>
#include <kcbp/scene.h>
#include <kcbp/scene2d.h>
#include <kcbp/shape.h>
#include <kcbp/signed_distance.h>
#include <kcbp/sweep.h>
#include <kcbp/world.h>

typedef struct {
    const char *name;
    size_t offset, size;
} layout_entry;

#define S(T) {#T, 0, sizeof(T)}
#define F(T, m) {#T "." #m, offsetof(T, m), sizeof(((T *)0)->m)}

static const layout_entry entries[] = {
    S(kcbp_error), F(kcbp_error, code), F(kcbp_error, msg),
    S(kcbp_vec3), S(kcbp_pose), F(kcbp_pose, rot), F(kcbp_pose, trans),
    /* the 2D layer (kcbp2d.h) */
    S(kcbp_vec2), S(kcbp2d_pose), F(kcbp2d_pose, c), F(kcbp2d_pose, s), F(kcbp2d_pose, trans),
    S(kcbp2d_shape), F(kcbp2d_shape, kind), F(kcbp2d_shape, radius), F(kcbp2d_shape, local), F(kcbp2d_shape, points),
    F(kcbp2d_shape, npoints),
    S(kcbp2d_collide_options), F(kcbp2d_collide_options, size), F(kcbp2d_collide_options, margin),
    S(kcbp2d_collide_result), F(kcbp2d_collide_result, collide), F(kcbp2d_collide_result, cores_intersect),
    F(kcbp2d_collide_result, decided_by), F(kcbp2d_collide_result, separating_shape),
    F(kcbp2d_collide_result, separating_edge),
    S(kcbp2d_distance_options), F(kcbp2d_distance_options, size), F(kcbp2d_distance_options, max_iterations),
    F(kcbp2d_distance_options, want_depth),
    S(kcbp2d_distance_result), F(kcbp2d_distance_result, status), F(kcbp2d_distance_result, distance),
    F(kcbp2d_distance_result, depth), F(kcbp2d_distance_result, signed_distance), F(kcbp2d_distance_result, normal),
    F(kcbp2d_distance_result, point_a), F(kcbp2d_distance_result, point_b), F(kcbp2d_distance_result, scale),
    F(kcbp2d_distance_result, iterations), F(kcbp2d_distance_result, depth_computed),
    S(kcbp2d_polygons), F(kcbp2d_polygons, points), F(kcbp2d_polygons, ring_end), F(kcbp2d_polygons, nrings),
    F(kcbp2d_polygons, polygon_end), F(kcbp2d_polygons, npolygons), S(kcbp2d_edge_pair),
    F(kcbp2d_edge_pair, a), F(kcbp2d_edge_pair, b), F(kcbp_vec2, x), F(kcbp_vec2, y),
    S(kcbp2d_model_collide_options), F(kcbp2d_model_collide_options, size), F(kcbp2d_model_collide_options, margin),
    F(kcbp2d_model_collide_options, contacts), F(kcbp2d_model_collide_options, contacts_capacity),
    S(kcbp2d_model_collide_result), F(kcbp2d_model_collide_result, collide),
    F(kcbp2d_model_collide_result, contained), F(kcbp2d_model_collide_result, ncontacts),
    F(kcbp2d_model_collide_result, contacts_truncated), F(kcbp2d_model_collide_result, edge_pairs),
    S(kcbp2d_model_distance_result), F(kcbp2d_model_distance_result, collide),
    F(kcbp2d_model_distance_result, distance), F(kcbp2d_model_distance_result, point_a),
    F(kcbp2d_model_distance_result, point_b), F(kcbp2d_model_distance_result, edge_a),
    F(kcbp2d_model_distance_result, edge_b), F(kcbp2d_model_distance_result, edge_pairs),
    S(kcbp2d_model_depth_options), F(kcbp2d_model_depth_options, size), F(kcbp2d_model_depth_options, directions),
    F(kcbp2d_model_depth_options, bisections), F(kcbp2d_model_depth_options, grid),
    S(kcbp2d_model_depth_result), F(kcbp2d_model_depth_result, collide), F(kcbp2d_model_depth_result, depth_lower),
    F(kcbp2d_model_depth_result, depth_upper), F(kcbp2d_model_depth_result, translation),
    F(kcbp2d_model_depth_result, normal), F(kcbp2d_model_depth_result, lower_center),
    F(kcbp2d_model_depth_result, lower_radius_a), F(kcbp2d_model_depth_result, lower_radius_b),
    F(kcbp2d_model_depth_result, steps), F(kcbp2d_model_depth_result, scale), F(kcbp2d_model_depth_result, touching),
    S(kcbp2d_motion), F(kcbp2d_motion, from), F(kcbp2d_motion, to), F(kcbp2d_motion, from_deg),
    F(kcbp2d_motion, to_deg),
    S(kcbp2d_sweep_options), F(kcbp2d_sweep_options, size), F(kcbp2d_sweep_options, t_tolerance),
    F(kcbp2d_sweep_options, max_iterations),
    S(kcbp2d_sweep_result), F(kcbp2d_sweep_result, hit), F(kcbp2d_sweep_result, undecided),
    F(kcbp2d_sweep_result, confirmed), F(kcbp2d_sweep_result, toi), F(kcbp2d_sweep_result, free_until),
    F(kcbp2d_sweep_result, distance), F(kcbp2d_sweep_result, point_a), F(kcbp2d_sweep_result, point_b),
    F(kcbp2d_sweep_result, normal), F(kcbp2d_sweep_result, edge_a), F(kcbp2d_sweep_result, edge_b),
    F(kcbp2d_sweep_result, motion_bound), F(kcbp2d_sweep_result, iterations),
    F(kcbp2d_sweep_result, distance_queries),
    /* 2D scenes (scene2d.h) */
    S(kcbp2d_scene_eval_options), F(kcbp2d_scene_eval_options, size), F(kcbp2d_scene_eval_options, margin),
    F(kcbp2d_scene_eval_options, max_contacts), F(kcbp2d_scene_eval_options, jobs),
    F(kcbp2d_scene_eval_options, shard_index), F(kcbp2d_scene_eval_options, shard_count),
    S(kcbp2d_scene_pair), F(kcbp2d_scene_pair, a), F(kcbp2d_scene_pair, b), F(kcbp2d_scene_pair, contacts),
    F(kcbp2d_scene_pair, ncontacts), F(kcbp2d_scene_pair, contacts_truncated), F(kcbp2d_scene_pair, contained),
    S(kcbp2d_scene_frame), F(kcbp2d_scene_frame, frame), F(kcbp2d_scene_frame, pairs),
    F(kcbp2d_scene_frame, broadphase), F(kcbp2d_scene_frame, colliding), F(kcbp2d_scene_frame, stopped),
    F(kcbp2d_scene_frame, threaded), F(kcbp2d_scene_frame, bounds_ms), F(kcbp2d_scene_frame, broadphase_ms),
    F(kcbp2d_scene_frame, pairs_ms),
    S(kcbp_tri), S(kcbp_contact), F(kcbp_contact, a), F(kcbp_contact, b),
    S(kcbp_aabb), F(kcbp_aabb, min), F(kcbp_aabb, max), S(kcbp_cbp_plane), F(kcbp_cbp_plane, n), F(kcbp_cbp_plane, d),
    S(kcbp_model_options), F(kcbp_model_options, k), F(kcbp_model_options, dirs), F(kcbp_model_options, k_fine),
    F(kcbp_model_options, solid),
    S(kcbp_model), F(kcbp_model, impl),
    S(kcbp_shape), F(kcbp_shape, kind), F(kcbp_shape, radius), F(kcbp_shape, length), F(kcbp_shape, size),
    S(kcbp_collide_options), F(kcbp_collide_options, contacts), F(kcbp_collide_options, use_cbp),
    F(kcbp_collide_options, cbp_measure), F(kcbp_collide_options, skip_bounds), F(kcbp_collide_options, solid),
    S(kcbp_collide_result), F(kcbp_collide_result, collide), F(kcbp_collide_result, decided_by),
    F(kcbp_collide_result, contacts), F(kcbp_collide_result, ncontacts), F(kcbp_collide_result, cbp.tested),
    F(kcbp_collide_result, cbp.separated), F(kcbp_collide_result, cbp.measured),
    F(kcbp_collide_result, cbp.distance_lower), F(kcbp_collide_result, cbp.distance),
    F(kcbp_collide_result, cbp.point_a), F(kcbp_collide_result, cbp.point_b), F(kcbp_collide_result, cbp.depth),
    F(kcbp_collide_result, cbp.direction), F(kcbp_collide_result, cbp.depth_exact),
    F(kcbp_collide_result, cbp.gjk_iterations), F(kcbp_collide_result, cbp.epa_iterations),
    F(kcbp_collide_result, tree.box_pairs), F(kcbp_collide_result, tree.tri_pairs), F(kcbp_collide_result, contained),
    S(kcbp_scene_object), F(kcbp_scene_object, name), F(kcbp_scene_object, mesh), F(kcbp_scene_object, scale),
    F(kcbp_scene_object, position), F(kcbp_scene_object, axis), F(kcbp_scene_object, angle_deg),
    F(kcbp_scene_object, velocity), F(kcbp_scene_object, spin_axis), F(kcbp_scene_object, spin_deg_per_s),
    S(kcbp_scene_build_times), F(kcbp_scene_build_times, load_ms), F(kcbp_scene_build_times, build_ms),
    S(kcbp_scene_hit), F(kcbp_scene_hit, a), F(kcbp_scene_hit, b), F(kcbp_scene_hit, first),
    F(kcbp_scene_hit, count),
    S(kcbp_scene_frame), F(kcbp_scene_frame, frame), F(kcbp_scene_frame, pairs), F(kcbp_scene_frame, broadphase),
    F(kcbp_scene_frame, mesh_tested), F(kcbp_scene_frame, colliding), F(kcbp_scene_frame, cbp_used),
    F(kcbp_scene_frame, hits), F(kcbp_scene_frame, contacts), F(kcbp_scene_frame, ncontacts),
    F(kcbp_scene_frame, time_ms.bounds), F(kcbp_scene_frame, time_ms.broadphase), F(kcbp_scene_frame, time_ms.filter),
    F(kcbp_scene_frame, time_ms.mesh),
    F(kcbp_scene_frame, cache_axis), F(kcbp_scene_frame, cache_contact), F(kcbp_scene_frame, cache_near),
    F(kcbp_scene_frame, cbp_skipped),
    S(kcbp_scene_eval_options), F(kcbp_scene_eval_options, collide), F(kcbp_scene_eval_options, coherent),
    F(kcbp_scene_eval_options, margin), F(kcbp_scene_eval_options, jobs), F(kcbp_scene_eval_options, shard_index),
    F(kcbp_scene_eval_options, shard_count), F(kcbp_scene_eval_options, cbp_adaptive),
    F(kcbp_scene_frame, pairs_ms), F(kcbp_scene_frame, cbp_adaptive_skips), F(kcbp_scene_frame, pair_caches),
    F(kcbp_scene_frame, pair_cache_bytes), F(kcbp_scene_hit, contained),
    S(kcbp_scene_pair), F(kcbp_scene_pair, a), F(kcbp_scene_pair, b), F(kcbp_scene_pair, contacts),
    F(kcbp_scene_pair, ncontacts), F(kcbp_scene_pair, contained),
    S(kcbp_world_options), F(kcbp_world_options, collide), F(kcbp_world_options, coherent),
    F(kcbp_world_options, cbp_adaptive), F(kcbp_world_options, jobs),
    S(kcbp_world_hit), F(kcbp_world_hit, a), F(kcbp_world_hit, b), F(kcbp_world_hit, first), F(kcbp_world_hit, count),
    F(kcbp_world_hit, contained),
    S(kcbp_world_hits), F(kcbp_world_hits, hits), F(kcbp_world_hits, nhits), F(kcbp_world_hits, cap_hits),
    F(kcbp_world_hits, contacts), F(kcbp_world_hits, ncontacts), F(kcbp_world_hits, cap_contacts),
    F(kcbp_world_hits, broadphase), F(kcbp_world_hits, mesh_tested), F(kcbp_world_hits, cache_hits),
    S(kcbp_world_distance_result), F(kcbp_world_distance_result, found), F(kcbp_world_distance_result, distance),
    F(kcbp_world_distance_result, a), F(kcbp_world_distance_result, b), F(kcbp_world_distance_result, point_a),
    F(kcbp_world_distance_result, point_b), F(kcbp_world_distance_result, tri_a), F(kcbp_world_distance_result, tri_b),
    F(kcbp_world_distance_result, measured),
    S(kcbp_motion), S(kcbp_sweep_options), F(kcbp_sweep_options, t_tolerance), F(kcbp_sweep_options, max_iterations),
    F(kcbp_sweep_options, use_cbp),
    S(kcbp_sweep_result), F(kcbp_sweep_result, hit), F(kcbp_sweep_result, undecided), F(kcbp_sweep_result, confirmed), F(kcbp_sweep_result, toi),
    F(kcbp_sweep_result, free_until), F(kcbp_sweep_result, distance), F(kcbp_sweep_result, point_a),
    F(kcbp_sweep_result, point_b), F(kcbp_sweep_result, tri_a), F(kcbp_sweep_result, tri_b),
    F(kcbp_sweep_result, motion_bound), F(kcbp_sweep_result, iterations), F(kcbp_sweep_result, cbp_steps),
    F(kcbp_sweep_result, distance_queries), F(kcbp_sweep_result, tree),
    S(kcbp_contact_geom), F(kcbp_contact_geom, a), F(kcbp_contact_geom, b), F(kcbp_contact_geom, npoints),
    F(kcbp_contact_geom, points),
    S(kcbp_contact_summary), F(kcbp_contact_summary, point), F(kcbp_contact_summary, normal),
    F(kcbp_contact_summary, has_normal),
    S(kcbp_distance_options), F(kcbp_distance_options, max_distance), F(kcbp_distance_options, use_cbp),
    S(kcbp_distance_result), F(kcbp_distance_result, within), F(kcbp_distance_result, distance),
    F(kcbp_distance_result, distance_lower), F(kcbp_distance_result, point_a), F(kcbp_distance_result, point_b),
    F(kcbp_distance_result, tri_a), F(kcbp_distance_result, tri_b), F(kcbp_distance_result, decided_by),
    F(kcbp_distance_result, cbp_tested), F(kcbp_distance_result, cbp_distance),
    F(kcbp_distance_result, gjk_iterations), F(kcbp_distance_result, tree),
    S(kcbp_collide_cap_options), F(kcbp_collide_cap_options, size), F(kcbp_collide_cap_options, collide),
    F(kcbp_collide_cap_options, max_contacts),
    S(kcbp_signed_distance_options), F(kcbp_signed_distance_options, size),
    F(kcbp_signed_distance_options, max_distance), F(kcbp_signed_distance_options, depth_tolerance),
    F(kcbp_signed_distance_options, max_steps), F(kcbp_signed_distance_options, use_cbp),
    S(kcbp_signed_distance_result), F(kcbp_signed_distance_result, status),
    F(kcbp_signed_distance_result, signed_distance), F(kcbp_signed_distance_result, distance_lower),
    F(kcbp_signed_distance_result, depth), F(kcbp_signed_distance_result, depth_lower),
    F(kcbp_signed_distance_result, depth_upper), F(kcbp_signed_distance_result, normal),
    F(kcbp_signed_distance_result, translation), F(kcbp_signed_distance_result, point_a),
    F(kcbp_signed_distance_result, point_b), F(kcbp_signed_distance_result, feature_a),
    F(kcbp_signed_distance_result, feature_b), F(kcbp_signed_distance_result, decided_by),
    F(kcbp_signed_distance_result, lower_center), F(kcbp_signed_distance_result, lower_radius_a),
    F(kcbp_signed_distance_result, lower_radius_b), F(kcbp_signed_distance_result, steps),
    F(kcbp_signed_distance_result, ms),
    S(kcbp_manifold_options), F(kcbp_manifold_options, size), F(kcbp_manifold_options, max_points),
    F(kcbp_manifold_options, use_cbp),
    S(kcbp_manifold_point), F(kcbp_manifold_point, point_a), F(kcbp_manifold_point, point_b),
    F(kcbp_manifold_point, separation), F(kcbp_manifold_point, feature_a), F(kcbp_manifold_point, feature_b),
    S(kcbp_manifold), F(kcbp_manifold, normal), F(kcbp_manifold, depth), F(kcbp_manifold, npoints),
    F(kcbp_manifold, points), F(kcbp_manifold, ncontacts), F(kcbp_manifold, depth_exact),
    S(kcbp_manifold_set), F(kcbp_manifold_set, collide), F(kcbp_manifold_set, manifolds),
    F(kcbp_manifold_set, nmanifolds), F(kcbp_manifold_set, capacity), F(kcbp_manifold_set, ncontacts),
};

bool kcbp_layout(const char *name, size_t *offset, size_t *size)
{
    if (!name)
        return false;
    for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++) {
        if (!strcmp(entries[i].name, name)) {
            if (offset)
                *offset = entries[i].offset;
            if (size)
                *size = entries[i].size;
            return true;
        }
    }
    return false;
}

/* Self-intersection of one triangle mesh: the pairs of its triangles that
 * meet other than along the edges and vertices they share (the meaning of
 * CGAL's Polygon_mesh_processing::does_self_intersect and
 * self_intersections), exact for the mesh's double coordinates. */
#ifndef KCBP_SELF_H
#define KCBP_SELF_H

#include <stddef.h>

#include "collide.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The triangle pairs of model->mesh that intersect other than along what
 * they share, found by traversing its AABB tree against itself. Vertices
 * are identified by their coordinates (exact equality), so that a mesh
 * whose faces repeat their vertices is read as the surface it draws. Two
 * triangles
 *   - sharing no vertex intersect when kcbp_tri_intersect says so;
 *   - sharing one vertex, when the edge of either opposite that vertex
 *     meets the other triangle;
 *   - sharing an edge, when they lie in one plane on the same side of it
 *     (they overlap), or, both degenerate, extend past the same end of it;
 *   - sharing three vertices (a repeated face), always.
 * Triangles with a repeated vertex (after identification) are segments or
 * points drawn by their neighbours' edges: they are skipped. Every sign is
 * exact (kcbp_tri_intersect's predicates).
 *
 * Cost. Before the traversal, whole sets of pairs are proved apart, exactly,
 * so that the traversal skips them instead of testing them: the pairs
 * inside a flat patch (coplanar triangles joined by edges whose boundary
 * bounds a region simply: a big polygon's triangles, a flat face's fan);
 * the pairs round a vertex whose fan of triangles lies on one side of a
 * plane through it and whose link is a simple polygon seen from it (cone
 * tips, countersinks); and the pairs of a flat patch with the triangles
 * that rest on it (touching its plane only in its own vertex or edge:
 * strips standing on a face). Boxes of such triangles all overlap (fans,
 * long slivers), which made them quadratic; with the certificates, a
 * 30,000-sided flat star costs O(n log n) (its patch's boundary is swept
 * once), a cone of 20,000 slivers about linear. What remains is tested as
 * before. stats->tri_pairs counts the pairs tested, not those proved apart.
 *
 * mode: KCBP_CONTACTS_NONE or FIRST stop at the first pair found (*npairs
 * is then 0 or 1; NONE still returns it), ALL finds every one. *pairs
 * (malloc'ed, free it; NULL when there is none) holds {a, b} with a < b,
 * sorted. stats (may be NULL) receives the node pairs and triangle pairs
 * tested. KCBP_ERR_NOMEM when memory runs out. */
KCBP_API kcbp_status kcbp_self_intersections(const kcbp_model *model, kcbp_contacts_mode mode, kcbp_contact **pairs,
                                             size_t *npairs, kcbp_tree_stats *stats, kcbp_error *err);

/* Added in 1.2: the same, ALL stopping once max_pairs (> 0) pairs are
 * found, so that a caller listing N asks for N + 1 and knows whether there
 * were more in time bounded by what it lists: *npairs is then max_pairs, a
 * lower bound of the mesh's, and the pairs (sorted) are the first the
 * search met, not necessarily the smallest. Fewer than max_pairs: the
 * whole list, as kcbp_self_intersections. max_pairs 0: no cap; NONE and
 * FIRST: unchanged. */
KCBP_API kcbp_status kcbp_self_intersections_capped(const kcbp_model *model, kcbp_contacts_mode mode,
                                                    uint64_t max_pairs, kcbp_contact **pairs, size_t *npairs,
                                                    kcbp_tree_stats *stats, kcbp_error *err);

#ifdef __cplusplus
}
#endif
#endif

/* The topology of a mesh's surface (internal, src/mesh/topology.c): the
 * closedness check of include/kcbp/solid.h, and what solids and
 * self-intersection need of it. */
#ifndef KCBP_TOPOLOGY_H
#define KCBP_TOPOLOGY_H

#include <stdint.h>

#include <kcbp/error.h>
#include <kcbp/solid.h>

#include "mesh_internal.h"

/* For each vertex, the smallest index of a vertex with the same
 * coordinates (exact equality). malloc'ed; NULL when memory runs out. */
uint32_t *kcbp_mesh_weld_map(const kcbp_mesh *mesh);

/* One vertex index per connected piece of the surface (triangles sharing a
 * welded vertex are connected), in *reps (malloc'ed, *n of them). */
kcbp_status kcbp_mesh_components(const kcbp_mesh *mesh, uint32_t **reps, uint32_t *n, kcbp_error *err);

#endif

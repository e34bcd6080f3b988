/* kcbp: exact collision detection between triangle meshes, with k-direction
 * convex bounding polytopes (k-CBPs) in front of the exact test.
 *
 * The umbrella header of the public API: #include <kcbp/kcbp.h> and link with
 * `pkg-config --cflags --libs kcbp`. The layers, each using only those above:
 *
 *   base.h error.h vec3.h pose.h      version, errors, vector math, rigid poses
 *   mesh.h obj.h mesh_io.h            triangle meshes, reading them (OBJ, STL, PLY, OFF, glTF)
 *   tritri.h cbp.h                    the exact triangle test (Möller's plane rejection, then
 *                                     exact orientation tests), k-CBPs
 *   support.h gjk.h epa.h             convex shapes, GJK, EPA
 *   convex_hull.h                     convex hulls (qhull)
 *   shape.h                           spheres, capsules, boxes, cylinders (models of them: model.h)
 *   model.h collide.h                 models (their AABB trees inside) and the staged pair test
 *   distance.h                        distance between posed meshes and triangles
 *   signed_distance.h                 signed distance, penetration depth and its direction
 *   sweep.h                           time of impact of two moving meshes
 *   solid.h self.h                    closed solids, point in solid; self-intersection
 *   contact_geom.h                    intersection segments, contact point and normal
 *   broadphase.h scene.h world.h      a box tree over many objects, scenes, worlds
 *   batch.h layout.h                  many poses in one call; struct layouts for bindings
 *
 * No header needs anything but the C standard library (no cJSON, no qhull).
 * Conventions: every call that can fail returns a kcbp_status and fills an
 * optional kcbp_error; the library never prints and never exits; it keeps no
 * global mutable state, so calls on different data may run in parallel. */
#ifndef KCBP_KCBP_H
#define KCBP_KCBP_H

#include "base.h"
#include "error.h"
#include "vec3.h"
#include "pose.h"
#include "mesh.h"
#include "obj.h"
#include "mesh_io.h"
#include "tritri.h"
#include "cbp.h"
#include "shape.h"
#include "model.h"
#include "support.h"
#include "gjk.h"
#include "epa.h"
#include "convex_hull.h"
#include "collide.h"
#include "collide_cap.h"
#include "distance.h"
#include "signed_distance.h"
#include "sweep.h"
#include "solid.h"
#include "self.h"
#include "contact_geom.h"
#include "manifold.h"
#include "broadphase.h"
#include "scene.h"
#include "world.h"
#include "batch.h"
#include "layout.h"
#include "text.h"

#endif

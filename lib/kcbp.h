/* kcbp: mesh collision detection with k-direction convex bounding polytopes.
 * The one public header: it includes every module's header. */
#ifndef KCBP_H
#define KCBP_H

#include "error.h"
#include "vec3.h"
#include "pose.h"
#include "mesh.h"
#include "obj.h"
#include "tritri.h"
#include "aabb_tree.h"
#include "cbp.h"
#include "support.h"
#include "gjk.h"
#include "epa.h"
#include "collide.h"
#include "broadphase.h"
#include "scene.h"
#include "report.h"
#include "utf8.h"
#include "bv.h"
#include "hitrate.h"

#endif

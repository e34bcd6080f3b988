/* kcbp's 2D layer: convex shapes (circles, capsules, segments, boxes,
 * convex polygons, each optionally rounded), rigid 2D poses, and exact
 * collision, distance and depth queries between them. Separate from kcbp.h
 * (the 3D library); both may be included together. Names start with
 * kcbp2d_ (style §4.2); kcbp_status and kcbp_error are shared. */
#ifndef KCBP_KCBP2D_H
#define KCBP_KCBP2D_H

#include "collide2d.h"
#include "distance2d.h"
#include "error.h"
#include "polygon2d.h"
#include "pose2d.h"
#include "scene2d.h"
#include "shape2d.h"
#include "sweep2d.h"
#include "vec2.h"

#endif

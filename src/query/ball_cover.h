/* Whether a union of balls covers a ball around the origin (internal:
 * ball_cover.c), the multi-ball lower bound of the depth bracket
 * (depth_bracket.c). */
#ifndef KCBP_BALL_COVER_H
#define KCBP_BALL_COVER_H

#include <stdbool.h>
#include <stddef.h>

#include <kcbp/error.h>
#include <kcbp/vec3.h>

typedef struct {
    kcbp_vec3 c;
    double r;
} kcbp_ball;

/* Whether the closed ball of radius rho around the origin lies in the
 * union of the open balls balls[0 .. n), proven by an octree over the cube
 * [-rho, rho]^3: a cell is covered when it lies in one ball (its centre's
 * distance to the ball's centre plus its half-diagonal below the radius),
 * ignored when its box misses the ball of radius rho, split otherwise, up
 * to max_depth levels; *covered false when a cell of the last level is
 * neither, or when more than max_cells cells were visited (then nothing is
 * claimed). Every comparison is in double on numbers of the size of rho
 * and the balls: the caller shrinks the radii by a margin above their
 * rounding (1e-12 of the magnitude is far above it). KCBP_ERR_NOMEM when
 * the scratch lists cannot be had. */
kcbp_status kcbp_ball_cover(const kcbp_ball *balls, size_t n, double rho, int max_depth, size_t max_cells,
                            bool *covered, kcbp_error *err);

#endif

/* Independent oracles for GJK and EPA, built on qhull rather than on the
 * library's own code: the convex hull of a point set (vertices and edge
 * adjacency), and the distance or penetration depth of two polytopes from
 * the hull of their Minkowski difference (every a_i - pose(b_j)). Shared by
 * tests/test_gjk.c and tests/stress/gjk_stress.c. */
#ifndef KCBP_TESTS_CSO_ORACLE_H
#define KCBP_TESTS_CSO_ORACLE_H

#include <stdio.h>

#include <kcbp/kcbp.h>

/* Where qhull's messages go: /dev/null, opened once. */
FILE *oracle_devnull(void);

typedef struct {
    kcbp_vec3 *v;         /* the hull's vertices */
    uint32_t nv;
    uint32_t *start, *adj; /* their CSR adjacency along hull edges */
} oracle_hull;

/* 1 on success; 0 when qhull fails (fewer than 4 points, flat input).
 * Free with oracle_hull_free, also after a failure. */
int oracle_hull_build(const kcbp_vec3 *p, int n, oracle_hull *h);
void oracle_hull_free(oracle_hull *h);

typedef struct {
    int ok;        /* qhull succeeded */
    int inside;    /* the origin is strictly inside the difference */
    double dist;   /* outside: the distance */
    double depth;  /* inside: the penetration depth (nearest facet plane) */
    kcbp_vec3 n;   /* inside: that facet's outward normal */
    double second; /* inside: the nearest plane with a different normal */
    double scale;  /* largest coordinate magnitude of the difference */
} cso_oracle_result;

cso_oracle_result cso_oracle(const kcbp_vec3 *pa, int na, const kcbp_vec3 *pb, int nb, const kcbp_pose *pose);

#endif

/* gen_cones: pairs of nested surfaces at (nearly) constant clearance, the
 * family of issue 33 item 1, written as two OBJ files in one world frame
 * (query them at the identity pose). No dependency on kcbp.
 *
 *   cones  N LIFT HALF_DEG SPIN  two identical pointed cones of height 1,
 *                                each a fan of N slivers from the apex
 *                                (apex, rim k, rim k+1; no base), half-angle
 *                                HALF_DEG at the apex; B lifted by LIFT
 *                                (fraction of the height) along the axis and
 *                                turned about it by SPIN sectors (0: the
 *                                vertices of B lie above A's; 0.37: off)
 *   cyl    N LIFT M SPIN         a bore (open tube of radius 1, length 2, N
 *                                sectors, each a strip of 2 triangles over
 *                                the whole length) and a shaft in it (open
 *                                tube of radius 1 - LIFT, length 1.6, M
 *                                sectors, turned by SPIN of its sectors)
 *   shells N LIFT M SPIN         two concentric UV spheres (N and M sectors,
 *                                N/2 and M/2 rings, fans at the poles),
 *                                radii 1 and 1 - LIFT, B turned by SPIN of
 *                                its sectors about z and 0.1 rad about x
 *   fans   N LIFT M SPIN         two flat discs of radius 1 fanned from
 *                                their centres (N and M slivers), B LIFT
 *                                above A, turned by SPIN of its sectors
 *
 *   gen_cones posed N CLEAR HALF_DEG SPIN TILT_DEG SHIFT BASE HB NB A.obj B.obj
 *                                a pointed cone of height 1 (N slivers,
 *                                half-angle HALF_DEG, BASE 1: closed by a
 *                                fan from the base's centre) and in it a
 *                                cone of height HB (NB slivers, the same
 *                                half-angle and BASE) turned by SPIN of its
 *                                sectors about its axis, tilted by TILT_DEG
 *                                about a horizontal axis, moved sideways by
 *                                SHIFT (fraction of the height) and lifted
 *                                until the least gap between B's vertices
 *                                and A's side planes is CLEAR (fraction of
 *                                the height; where B rises above A's rim the
 *                                clearance may be larger). Fails when B
 *                                does not fit (crosses A's base).
 *
 * Usage: gen_cones KIND N LIFT P SPIN A.obj B.obj (P: HALF_DEG for cones,
 * M for the others). Deterministic; %.17g coordinates. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

typedef struct {
    FILE *f;
    long nv;
} obj;

static void die(const char *m)
{
    fprintf(stderr, "gen_cones: %s\n", m);
    exit(1);
}

static obj obj_open(const char *path)
{
    obj o = {fopen(path, "w"), 0};
    if (!o.f)
        die("cannot write an output file");
    return o;
}

static long vert(obj *o, double x, double y, double z)
{
    fprintf(o->f, "v %.17g %.17g %.17g\n", x, y, z);
    return ++o->nv;
}

static void face(obj *o, long a, long b, long c) { fprintf(o->f, "f %ld %ld %ld\n", a, b, c); }

static void obj_close(obj *o)
{
    if (fclose(o->f) != 0)
        die("write failed");
}

/* A fan of n slivers from apex (0, 0, z0) to a ring of radius r at height
 * z1, the ring turned by phase (radians). */
static void cone(obj *o, int n, double z0, double z1, double r, double phase)
{
    long apex = vert(o, 0, 0, z0), first = o->nv + 1;
    for (int k = 0; k < n; k++) {
        double t = phase + 2 * M_PI * k / n;
        vert(o, r * cos(t), r * sin(t), z1);
    }
    for (int k = 0; k < n; k++)
        face(o, apex, first + k, first + (k + 1) % n);
}

static void tube(obj *o, int n, double r, double z0, double z1, double phase)
{
    long b = o->nv + 1;
    for (int k = 0; k < n; k++) {
        double t = phase + 2 * M_PI * k / n;
        vert(o, r * cos(t), r * sin(t), z0);
        vert(o, r * cos(t), r * sin(t), z1);
    }
    for (int k = 0; k < n; k++) {
        long p0 = b + 2 * k, p1 = p0 + 1, q0 = b + 2 * ((k + 1) % n), q1 = q0 + 1;
        face(o, p0, q0, q1);
        face(o, p0, q1, p1);
    }
}

/* A UV sphere of radius r: n sectors, n/2 rings, turned by phase about z
 * and by tilt about x. */
static void sphere(obj *o, int n, double r, double phase, double tilt)
{
    int rings = n / 2 > 2 ? n / 2 : 2;
    double ct = cos(tilt), st = sin(tilt);
#define PUT(x, y, z) vert(o, (x), (y) * ct - (z) * st, (y) * st + (z) * ct)
    long south = PUT(0, 0, -r), b = o->nv + 1;
    for (int i = 1; i < rings; i++) {
        double p = -M_PI / 2 + M_PI * i / rings;
        for (int k = 0; k < n; k++) {
            double t = phase + 2 * M_PI * k / n;
            PUT(r * cos(p) * cos(t), r * cos(p) * sin(t), r * sin(p));
        }
    }
    long north = PUT(0, 0, r);
#undef PUT
    for (int k = 0; k < n; k++) {
        int k1 = (k + 1) % n;
        face(o, south, b + k1, b + k);
        for (int i = 0; i + 2 < rings; i++) {
            long r0 = b + (long)i * n, r1 = r0 + n;
            face(o, r0 + k, r0 + k1, r1 + k1);
            face(o, r0 + k, r1 + k1, r1 + k);
        }
        long last = b + (long)(rings - 2) * n;
        face(o, north, last + k, last + k1);
    }
}

/* A disc of radius r at height z fanned from its centre (flip: the
 * faces' order reversed). */
static void disc(obj *o, int n, double z, double phase, double r, int flip)
{
    long c = vert(o, 0, 0, z), first = o->nv + 1;
    for (int k = 0; k < n; k++) {
        double t = phase + 2 * M_PI * k / n;
        vert(o, r * cos(t), r * sin(t), z);
    }
    for (int k = 0; k < n; k++) {
        if (flip)
            face(o, c, first + (k + 1) % n, first + k);
        else
            face(o, c, first + k, first + (k + 1) % n);
    }
}

/* B of the posed pair: vertices in B's frame (apex at the origin, axis
 * +z) are moved by rotation rot and translation (sx, sy, lift). */
typedef struct {
    int nb, base;
    double r, hb, phase, rot[3][3], sx, sy;
} posed_b;

static void posed_apply(const posed_b *b, double lift, const double l[3], double w[3])
{
    for (int i = 0; i < 3; i++)
        w[i] = b->rot[i][0] * l[0] + b->rot[i][1] * l[1] + b->rot[i][2] * l[2];
    w[0] += b->sx;
    w[1] += b->sy;
    w[2] += lift;
}

static void posed_rim(const posed_b *b, int k, double l[3])
{
    double t = b->phase + 2 * M_PI * k / b->nb;
    l[0] = b->hb * b->r * cos(t);
    l[1] = b->hb * b->r * sin(t);
    l[2] = b->hb;
}

/* B's rim's support along world direction d (max over the rim vertices of
 * d . w, w at lift 0 without the shift): the vertices next to the
 * direction's angle. */
static double posed_rim_support(const posed_b *b, const double d[3])
{
    double m[3];
    for (int i = 0; i < 3; i++)
        m[i] = b->rot[0][i] * d[0] + b->rot[1][i] * d[1] + b->rot[2][i] * d[2];
    double sector = 2 * M_PI / b->nb, t = atan2(m[1], m[0]) - b->phase;
    long k0 = lround(t / sector), best_k = 0;
    double s = -INFINITY;
    for (long k = k0 - 2; k <= k0 + 2; k++) {
        int kk = (int)(((k % b->nb) + b->nb) % b->nb);
        double l[3];
        posed_rim(b, kk, l);
        double v = m[0] * l[0] + m[1] * l[1] + m[2] * l[2];
        if (v > s) {
            s = v;
            best_k = kk;
        }
    }
    (void)best_k;
    return s;
}

/* The least, over A's side planes (n sides, rim radius r at height 1,
 * apex at the origin), of the gap to B's vertices at lift; *top: B's
 * highest z. */
static double posed_gap(int n, double r, const posed_b *b, double lift, double *top)
{
    double up[3] = {0, 0, 1};
    double az = b->rot[2][2] * b->hb * 0; /* the apex's z at lift 0: 0 */
    *top = lift + az;
    double rt = lift + posed_rim_support(b, up);
    *top = rt > *top ? rt : *top;
    double best = INFINITY;
    for (int k = 0; k < n; k++) {
        double t0 = 2 * M_PI * k / n, t1 = 2 * M_PI * (k + 1) / n;
        double p[3] = {r * cos(t0), r * sin(t0), 1}, q[3] = {r * cos(t1), r * sin(t1), 1};
        double nn[3] = {p[1] * q[2] - p[2] * q[1], p[2] * q[0] - p[0] * q[2], p[0] * q[1] - p[1] * q[0]};
        double len = sqrt(nn[0] * nn[0] + nn[1] * nn[1] + nn[2] * nn[2]);
        if (nn[2] > 0) /* outward: away from the axis, down */
            len = -len;
        for (int i = 0; i < 3; i++)
            nn[i] /= len;
        /* B's support along nn: its apex or its rim */
        double sh = nn[0] * b->sx + nn[1] * b->sy + nn[2] * lift;
        double sr = posed_rim_support(b, nn);
        double s = sh + (sr > 0 ? sr : 0);
        best = -s < best ? -s : best;
    }
    return best;
}

static int posed(int argc, char **argv)
{
    if (argc != 13)
        die("usage: gen_cones posed N CLEAR HALF_DEG SPIN TILT_DEG SHIFT BASE HB NB A.obj B.obj");
    int n = atoi(argv[2]), base = atoi(argv[8]), nb = atoi(argv[10]);
    double clear = strtod(argv[3], NULL), half = strtod(argv[4], NULL), spin = strtod(argv[5], NULL);
    double tilt = strtod(argv[6], NULL) * M_PI / 180, shift = strtod(argv[7], NULL), hb = strtod(argv[9], NULL);
    if (n < 3 || nb < 3 || !(clear > 0) || !(half > 0 && half < 89) || !(hb > 0))
        die("posed: N, NB >= 3, CLEAR > 0, 0 < HALF_DEG < 89, HB > 0");
    double r = tan(half * M_PI / 180);
    posed_b b = {nb, base, r, hb, spin * 2 * M_PI / nb, {{0}}, shift * cos(1.1), shift * sin(1.1)};
    /* tilt about the horizontal axis at 0.3 rad (Rodrigues) */
    double ax[3] = {cos(0.3), sin(0.3), 0}, c = cos(tilt), s = sin(tilt);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            b.rot[i][j] = (i == j ? c : 0) + (1 - c) * ax[i] * ax[j];
    b.rot[0][1] -= s * ax[2];
    b.rot[0][2] += s * ax[1];
    b.rot[1][0] += s * ax[2];
    b.rot[1][2] -= s * ax[0];
    b.rot[2][0] -= s * ax[1];
    b.rot[2][1] += s * ax[0];
    /* lift: the gap grows with it (every side plane faces down) */
    double lo = -2, hi = 4, top;
    if (!(posed_gap(n, r, &b, hi, &top) > clear) || !(posed_gap(n, r, &b, lo, &top) < clear))
        die("posed: no lift gives that clearance");
    for (int it = 0; it < 80; it++) {
        double mid = 0.5 * (lo + hi);
        if (posed_gap(n, r, &b, mid, &top) < clear)
            lo = mid;
        else
            hi = mid;
    }
    posed_gap(n, r, &b, hi, &top);
    if (base && !(top <= 1 - clear))
        die("posed: B crosses A's base (a smaller HB)");
    obj fa = obj_open(argv[11]), fb = obj_open(argv[12]);
    cone(&fa, n, 0, 1, r, 0);
    if (base)
        disc(&fa, n, 1, 0, r, 1);
    double o[3] = {0, 0, 0}, w[3];
    posed_apply(&b, hi, o, w);
    long apex = vert(&fb, w[0], w[1], w[2]), first = fb.nv + 1;
    for (int k = 0; k < nb; k++) {
        double l[3];
        posed_rim(&b, k, l);
        posed_apply(&b, hi, l, w);
        vert(&fb, w[0], w[1], w[2]);
    }
    for (int k = 0; k < nb; k++)
        face(&fb, apex, first + k, first + (k + 1) % nb);
    if (base) {
        double l[3] = {0, 0, hb};
        posed_apply(&b, hi, l, w);
        long ctr = vert(&fb, w[0], w[1], w[2]);
        for (int k = 0; k < nb; k++)
            face(&fb, ctr, first + (k + 1) % nb, first + k);
    }
    obj_close(&fa);
    obj_close(&fb);
    printf("lift %.17g top %.17g\n", hi, top);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "posed"))
        return posed(argc, argv);
    if (argc != 8)
        die("usage: gen_cones cones|cyl|shells|fans N LIFT P SPIN A.obj B.obj");
    const char *kind = argv[1];
    int n = atoi(argv[2]);
    double lift = strtod(argv[3], NULL), p = strtod(argv[4], NULL), spin = strtod(argv[5], NULL);
    if (n < 3 || !(lift > 0) || !(p > 0))
        die("N >= 3, LIFT > 0 and P > 0");
    obj a = obj_open(argv[6]), b = obj_open(argv[7]);
    int m = (int)p;
    if (!strcmp(kind, "cones")) {
        double r = tan(p * M_PI / 180);
        cone(&a, n, 0, 1, r, 0);
        cone(&b, n, lift, 1 + lift, r, spin * 2 * M_PI / n);
    } else if (!strcmp(kind, "cyl")) {
        if (m < 3 || lift >= 1)
            die("cyl: M >= 3, LIFT < 1");
        tube(&a, n, 1, -1, 1, 0);
        tube(&b, m, 1 - lift, -0.8, 0.8, spin * 2 * M_PI / m);
    } else if (!strcmp(kind, "shells")) {
        if (m < 4 || lift >= 1)
            die("shells: M >= 4, LIFT < 1");
        sphere(&a, n, 1, 0, 0);
        sphere(&b, m, 1 - lift, spin * 2 * M_PI / m, 0.1);
    } else if (!strcmp(kind, "fans")) {
        if (m < 3)
            die("fans: M >= 3");
        disc(&a, n, 0, 0, 1, 0);
        disc(&b, m, lift, spin * 2 * M_PI / m, 1, 0);
    } else {
        die("KIND: cones, cyl, shells or fans");
    }
    obj_close(&a);
    obj_close(&b);
    return 0;
}

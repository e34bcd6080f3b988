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

static void disc(obj *o, int n, double z, double phase)
{
    long c = vert(o, 0, 0, z), first = o->nv + 1;
    for (int k = 0; k < n; k++) {
        double t = phase + 2 * M_PI * k / n;
        vert(o, cos(t), sin(t), z);
    }
    for (int k = 0; k < n; k++)
        face(o, c, first + k, first + (k + 1) % n);
}

int main(int argc, char **argv)
{
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
        disc(&a, n, 0, 0);
        disc(&b, m, lift, spin * 2 * M_PI / m);
    } else {
        die("KIND: cones, cyl, shells or fans");
    }
    obj_close(&a);
    obj_close(&b);
    return 0;
}

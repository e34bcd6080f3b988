/* gen_holdout: held-out pairs for the 3D distance and collide hunt (branch
 * hunt3d, issue 33 item 1): classes bench/cones.sh does not have, each
 * written as two OBJ files in one world frame (query them at the identity
 * pose). No dependency on kcbp.
 *
 *   gen_holdout KIND N M GAP SCALE OFF A.obj B.obj
 *
 * GAP is the clearance in the unscaled frame (0: touching, negative:
 * overlapping by that much); every coordinate is written as
 * x * SCALE + OFF (huge and tiny scales, far from the origin). KIND:
 *
 *   plates   two closed slabs 2 x 2 x 0.2 face to face, A's faces gridded
 *            N x N cells, B's M x M, B shifted by 0.37 of its cell along
 *            x and y (every pair of the facing faces that overlap in plan
 *            is at GAP)
 *   cavity   A a closed box [-1.5, 1.5]^3 with a cubic cavity [-1, 1]^3
 *            (the cavity's walls gridded N x N), B a cube in it gridded
 *            M x M a face, GAP from every wall (six faces at the clearance)
 *   tori     two nested closed tori, major radius 1, A's tube radius 0.3
 *            (N major x N/4 minor segments), B's 0.3 - GAP (M x M/4),
 *            B turned by 0.37 of its segment
 *   rcone    nested cones with a rounded apex (half-angle 30 deg, A's cap
 *            radius 0.05 in 16 rings of N sectors, then the flank to
 *            height 1; B the inner offset by GAP: cap 0.05 - GAP, M
 *            sectors, 12 rings, turned 0.37 sector), open at the top
 *   slivers  two flat ribbons of N and M slivers (1 long, 1e-6 wide:
 *            aspect 1e6), B GAP above A, crossed at 90 deg (every sliver
 *            of one over every sliver of the other: N*M pairs at GAP)
 *   pslivers the same, B parallel to A, shifted by 0.37 of a sliver
 *   hourglass two wide cones (half-angle 80 deg) of N and M slivers tip
 *            to tip, GAP between the apexes (every pair holds both apexes)
 *   halffans two coplanar half-discs fanned from their centres (N and M
 *            slivers), B's apex GAP from A's across the common diameter
 *   shourglass, shalffans  the same, B moved sideways too (by GAP along
 *            x and 0.7 GAP along y; the half-discs by GAP along x)
 *   helix    two coaxial helicoids (radii 0.2..1, two turns, pitch 0.5;
 *            N and M steps along the turn, 4 and 3 strips across), B
 *            lifted GAP along the axis
 *   shaft    A a closed bushing (bore radius 1, outer 1.5, length 2, N
 *            sectors), B a closed shaft (radius 1 - GAP, length 1.6, M
 *            sectors, capped by fans), moved off the axis by GAP / 2
 *
 * Deterministic; %.17g coordinates. */
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
    double scale, off;
    double sx, sy; /* a shift of the unscaled x and y (the s- kinds) */
} obj;

static void die(const char *m)
{
    fprintf(stderr, "gen_holdout: %s\n", m);
    exit(1);
}

static obj obj_open(const char *path, double scale, double off)
{
    obj o = {fopen(path, "w"), 0, scale, off, 0, 0};
    if (!o.f)
        die("cannot write an output file");
    return o;
}

static long vert(obj *o, double x, double y, double z)
{
    x += o->sx;
    y += o->sy;
    fprintf(o->f, "v %.17g %.17g %.17g\n", x * o->scale + o->off, y * o->scale + o->off, z * o->scale + o->off);
    return ++o->nv;
}

static void face(obj *o, long a, long b, long c) { fprintf(o->f, "f %ld %ld %ld\n", a, b, c); }

static void obj_close(obj *o)
{
    if (fclose(o->f) != 0)
        die("write failed");
}

/* A closed box surface lo..hi, its faces gridded n[0] x n[1] x n[2] cells
 * along x, y, z (shared vertices along the edges), outward (flip 0) or
 * inward (flip 1: the walls of a cavity). */
static void gridbox(obj *o, const double lo[3], const double hi[3], const int n[3], int flip)
{
    long nx = n[0] + 1, ny = n[1] + 1, nz = n[2] + 1;
    long *id = calloc((size_t)(nx * ny * nz), sizeof *id);
    if (!id)
        die("out of memory");
#define ID(i, j, k) id[((long)(i) * ny + (j)) * nz + (k)]
    for (long i = 0; i < nx; i++)
        for (long j = 0; j < ny; j++)
            for (long k = 0; k < nz; k++)
                if (i == 0 || i == n[0] || j == 0 || j == n[1] || k == 0 || k == n[2])
                    ID(i, j, k) = vert(o, lo[0] + (hi[0] - lo[0]) * i / n[0], lo[1] + (hi[1] - lo[1]) * j / n[1],
                                       lo[2] + (hi[2] - lo[2]) * k / n[2]);
    /* each face: axis a fixed at side s (0 low, 1 high), u and v the
     * other two in right-handed order; outward normal along +a for s 1 */
    for (int a = 0; a < 3; a++) {
        int u = (a + 1) % 3, v = (a + 2) % 3;
        for (int s = 0; s < 2; s++) {
            int out = s ^ flip; /* 1: the (u, v) order faces +a */
            for (int p = 0; p < n[u]; p++)
                for (int q = 0; q < n[v]; q++) {
                    int c[4][3];
                    int du[4] = {0, 1, 1, 0}, dv[4] = {0, 0, 1, 1};
                    for (int t = 0; t < 4; t++) {
                        c[t][a] = s ? n[a] : 0;
                        c[t][u] = p + du[t];
                        c[t][v] = q + dv[t];
                    }
                    long w[4];
                    for (int t = 0; t < 4; t++)
                        w[t] = ID(c[t][0], c[t][1], c[t][2]);
                    if (out) {
                        face(o, w[0], w[1], w[2]);
                        face(o, w[0], w[2], w[3]);
                    } else {
                        face(o, w[0], w[2], w[1]);
                        face(o, w[0], w[3], w[2]);
                    }
                }
        }
    }
#undef ID
    free(id);
}

/* A torus about z: major radius R, tube radius r, n x m segments, phase
 * on the major circle. */
static void torus(obj *o, int n, int m, double R, double r, double phase)
{
    long b = o->nv + 1;
    for (int i = 0; i < n; i++) {
        double t = phase + 2 * M_PI * i / n;
        for (int j = 0; j < m; j++) {
            double p = 2 * M_PI * j / m;
            double rr = R + r * cos(p);
            vert(o, rr * cos(t), rr * sin(t), r * sin(p));
        }
    }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++) {
            long p00 = b + (long)i * m + j, p01 = b + (long)i * m + (j + 1) % m;
            long p10 = b + (long)((i + 1) % n) * m + j, p11 = b + (long)((i + 1) % n) * m + (j + 1) % m;
            face(o, p00, p10, p11);
            face(o, p00, p11, p01);
        }
}

/* A cone of half-angle al opening up, its apex rounded by a sphere of
 * radius rho centred at (0, 0, zc), rings rings on the cap, n sectors,
 * the flank up to height ztop. Open at the top. */
static void rcone(obj *o, int n, int rings, double al, double rho, double zc, double ztop, double phase)
{
    long bottom = vert(o, 0, 0, zc - rho), b = o->nv + 1;
    /* the cap from the bottom (polar angle 0) to the tangent circle
     * (polar angle pi/2 - al from the downward axis) */
    double pmax = M_PI / 2 - al;
    for (int i = 1; i <= rings; i++) {
        double p = pmax * i / rings, rr = rho * sin(p), z = zc - rho * cos(p);
        for (int k = 0; k < n; k++) {
            double t = phase + 2 * M_PI * k / n;
            vert(o, rr * cos(t), rr * sin(t), z);
        }
    }
    /* the flank's top ring: the tangent circle moved along the cone */
    double zt = zc - rho * cos(pmax), rt = rho * sin(pmax) + (ztop - zt) * tan(al);
    for (int k = 0; k < n; k++) {
        double t = phase + 2 * M_PI * k / n;
        vert(o, rt * cos(t), rt * sin(t), ztop);
    }
    for (int k = 0; k < n; k++) {
        int k1 = (k + 1) % n;
        face(o, bottom, b + k1, b + k);
        for (int i = 0; i < rings; i++) {
            long r0 = b + (long)i * n, r1 = r0 + n;
            face(o, r0 + k, r0 + k1, r1 + k1);
            face(o, r0 + k, r1 + k1, r1 + k);
        }
    }
}

/* A flat ribbon of n slivers along direction (cx, cy) (length 1), width
 * w a sliver, at height z, its slivers side by side across: a zig-zag
 * strip of n triangles. */
static void ribbon(obj *o, int n, double w, double cx, double cy, double shift, double z)
{
    /* across direction (-cy, cx); two rails: the near end and the far */
    int m = n / 2 + 1;
    long b = o->nv + 1;
    for (int i = 0; i <= m; i++) {
        double s = (i + shift) * w;
        vert(o, -cy * s - 0.5 * cx, cx * s - 0.5 * cy, z);
        vert(o, -cy * s + 0.5 * cx, cx * s + 0.5 * cy, z);
    }
    int made = 0;
    for (int i = 0; i < m && made < n; i++) {
        long p0 = b + 2 * i, p1 = p0 + 1, q0 = p0 + 2, q1 = p0 + 3;
        /* two slivers a cell, long as the ribbon: p0-p1-q1 and p0-q1-q0 */
        face(o, p0, p1, q1);
        if (++made < n)
            face(o, p0, q1, q0), made++;
    }
}

/* A fan of n slivers from apex (0, 0, z0), the rim of radius r at height
 * z1 (sign picks up or down), angles a0..a1. */
static void fan(obj *o, int n, double z0, double z1, double r, double a0, double a1, int closed, double phase)
{
    long apex = vert(o, 0, 0, z0), first = o->nv + 1;
    int nr = closed ? n : n + 1;
    for (int k = 0; k < nr; k++) {
        double t = phase + a0 + (a1 - a0) * k / n;
        vert(o, r * cos(t), r * sin(t), z1);
    }
    for (int k = 0; k < n; k++)
        face(o, apex, first + k, first + (closed ? (k + 1) % n : k + 1));
}

/* A helicoid: radii r0..r1 in nr strips, two turns in n steps, pitch p,
 * lifted by z. */
static void helicoid(obj *o, int n, int nr, double r0, double r1, double p, double z)
{
    long b = o->nv + 1;
    for (int i = 0; i <= n; i++) {
        double t = 4 * M_PI * i / n;
        for (int j = 0; j <= nr; j++) {
            double r = r0 + (r1 - r0) * j / nr;
            vert(o, r * cos(t), r * sin(t), z + p * t / (2 * M_PI));
        }
    }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < nr; j++) {
            long a = b + (long)i * (nr + 1) + j, c = a + nr + 1;
            face(o, a, c, c + 1);
            face(o, a, c + 1, a + 1);
        }
}

/* A closed cylinder (radius r, z0..z1, n sectors, capped by fans from the
 * caps' centres), its axis at (cx, cy); inward 1: the faces reversed (a
 * bore's wall). Without caps when caps is 0. */
static void cylinder(obj *o, int n, double r, double z0, double z1, double cx, double cy, double phase, int inward, int caps)
{
    long b = o->nv + 1;
    for (int k = 0; k < n; k++) {
        double t = phase + 2 * M_PI * k / n;
        vert(o, cx + r * cos(t), cy + r * sin(t), z0);
        vert(o, cx + r * cos(t), cy + r * sin(t), z1);
    }
    for (int k = 0; k < n; k++) {
        long p0 = b + 2 * k, p1 = p0 + 1, q0 = b + 2 * ((k + 1) % n), q1 = q0 + 1;
        if (inward) {
            face(o, p0, q1, q0);
            face(o, p0, p1, q1);
        } else {
            face(o, p0, q0, q1);
            face(o, p0, q1, p1);
        }
    }
    if (caps) {
        long c0 = vert(o, cx, cy, z0), c1 = vert(o, cx, cy, z1);
        for (int k = 0; k < n; k++) {
            long p0 = b + 2 * k, q0 = b + 2 * ((k + 1) % n);
            face(o, c0, q0, p0);
            face(o, c1, p0 + 1, q0 + 1);
        }
    }
}

int main(int argc, char **argv)
{
    if (argc != 9)
        die("usage: gen_holdout KIND N M GAP SCALE OFF A.obj B.obj");
    const char *kind = argv[1];
    int n = atoi(argv[2]), m = atoi(argv[3]);
    double gap = strtod(argv[4], NULL), scale = strtod(argv[5], NULL), off = strtod(argv[6], NULL);
    if (n < 1 || m < 1 || !(scale > 0) || !isfinite(gap) || !isfinite(off))
        die("N, M >= 1, SCALE > 0, GAP and OFF finite");
    obj a = obj_open(argv[7], scale, off), b = obj_open(argv[8], scale, off);
    if (!strcmp(kind, "plates")) {
        double cell = 2.0 / m, s = 0.37 * cell;
        double alo[3] = {-1, -1, -0.2}, ahi[3] = {1, 1, 0}, blo[3] = {-1 + s, -1 + s, gap}, bhi[3] = {1 + s, 1 + s, gap + 0.2};
        int na[3] = {n, n, 1}, nb[3] = {m, m, 1};
        gridbox(&a, alo, ahi, na, 0);
        gridbox(&b, blo, bhi, nb, 0);
    } else if (!strcmp(kind, "cavity")) {
        if (!(gap < 0.5))
            die("cavity: GAP < 0.5");
        double olo[3] = {-1.5, -1.5, -1.5}, ohi[3] = {1.5, 1.5, 1.5}, ilo[3] = {-1, -1, -1}, ihi[3] = {1, 1, 1};
        double blo[3] = {-1 + gap, -1 + gap, -1 + gap}, bhi[3] = {1 - gap, 1 - gap, 1 - gap};
        int one[3] = {1, 1, 1}, na[3] = {n, n, n}, nb[3] = {m, m, m};
        gridbox(&a, olo, ohi, one, 0);
        gridbox(&a, ilo, ihi, na, 1);
        gridbox(&b, blo, bhi, nb, 0);
    } else if (!strcmp(kind, "tori")) {
        if (n < 12 || m < 12 || !(gap < 0.3))
            die("tori: N, M >= 12, GAP < 0.3");
        torus(&a, n, n / 4, 1, 0.3, 0);
        torus(&b, m, m / 4, 1, 0.3 - gap, 0.37 * 2 * M_PI / m);
    } else if (!strcmp(kind, "rcone")) {
        if (n < 8 || m < 8 || !(gap < 0.05))
            die("rcone: N, M >= 8, GAP < 0.05");
        double al = M_PI / 6, rho = 0.05, zc = rho / sin(al);
        rcone(&a, n, 16, al, rho, zc, 1, 0);
        rcone(&b, m, 12, al, rho - gap, zc, 1, 0.37 * 2 * M_PI / m);
    } else if (!strcmp(kind, "slivers") || !strcmp(kind, "pslivers")) {
        int crossed = !strcmp(kind, "slivers");
        ribbon(&a, n, 1e-6, 1, 0, 0, 0);
        ribbon(&b, m, 1e-6, crossed ? 0 : 1, crossed ? 1 : 0, crossed ? -0.25 * m : 0.37, gap);
    } else if (!strcmp(kind, "hourglass") || !strcmp(kind, "shourglass")) {
        double r = tan(80 * M_PI / 180);
        fan(&a, n, 0, -1, r, 0, 2 * M_PI, 1, 0);
        if (kind[0] == 's')
            b.sx = gap, b.sy = 0.7 * gap;
        fan(&b, m, gap, gap + 1, r, 0, 2 * M_PI, 1, 0.37 * 2 * M_PI / m);
    } else if (!strcmp(kind, "halffans") || !strcmp(kind, "shalffans")) {
        fan(&a, n, 0, 0, 1, 0, M_PI, 0, 0);
        if (kind[0] == 's')
            b.sx = gap;
        /* B below the diameter, its apex at (0, -GAP) */
        long apex = vert(&b, 0, -gap, 0), first = b.nv + 1;
        for (int k = 0; k <= m; k++) {
            double t = M_PI + M_PI * k / m;
            vert(&b, cos(t), -gap + sin(t), 0);
        }
        for (int k = 0; k < m; k++)
            face(&b, apex, first + k, first + k + 1);
    } else if (!strcmp(kind, "helix")) {
        helicoid(&a, n, 4, 0.2, 1, 0.5, 0);
        helicoid(&b, m, 3, 0.2, 1, 0.5, gap);
    } else if (!strcmp(kind, "shaft")) {
        if (!(gap > 0 && gap < 0.5))
            die("shaft: 0 < GAP < 0.5");
        /* the bushing: outer wall, bore (inward), annular end caps */
        long base = a.nv + 1;
        cylinder(&a, n, 1.5, -1, 1, 0, 0, 0, 0, 0);
        cylinder(&a, n, 1, -1, 1, 0, 0, 0, 1, 0);
        long inner = base + 2L * n;
        for (int k = 0; k < n; k++) {
            long o0 = base + 2 * k, o1 = base + 2 * ((k + 1) % n), i0 = inner + 2 * k, i1 = inner + 2 * ((k + 1) % n);
            face(&a, o0, i1, o1); /* bottom, facing -z */
            face(&a, o0, i0, i1);
            face(&a, o0 + 1, o1 + 1, i1 + 1); /* top, facing +z */
            face(&a, o0 + 1, i1 + 1, i0 + 1);
        }
        cylinder(&b, m, 1 - gap, -0.8, 0.8, 0.5 * gap * cos(0.7), 0.5 * gap * sin(0.7), 0.37 * 2 * M_PI / m, 0, 1);
    } else {
        die("KIND: plates cavity tori rcone slivers pslivers hourglass shourglass halffans shalffans helix shaft");
    }
    obj_close(&a);
    obj_close(&b);
    return 0;
}

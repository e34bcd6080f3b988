/* gen_self: the meshes of bench/self.sh (kcbp self against CGAL's
 * does_self_intersect), written as OBJ, deterministic, no dependency:
 *
 *   star-1k.obj ... star-100k.obj  a flat star of 1,000 to 100,000 sides
 *                                  (radii 1 and 0.5, in z = 0), one `f` line:
 *                                  the reader splits it (src/mesh/polygon.h);
 *   star-30k-tilted.obj            the 30,000-sided star in the plane
 *                                  z = x + 2 y, exactly (coordinates on a
 *                                  grid of 2^-20): coplanar, but no axis
 *                                  plane;
 *   fan-disc.obj                   a flat disc of 20,000 triangles, all from
 *                                  its centre (explicit triangles);
 *   cone-fan.obj                   a cone of 20,000 slivers from its apex, its
 *                                  base one 20,000-sided `f` line (closed);
 *   gear.obj                       an extruded gear of 120 teeth (2,400-sided
 *                                  non-convex top and bottom faces, one `f`
 *                                  line each; quads round the side): a CAD
 *                                  prism with huge faces;
 *   plate-holes.obj                a 100 x 60 x 5 plate with 4 round holes
 *                                  of 256 sides in a row: top and bottom
 *                                  each one `f` line, the holes joined by
 *                                  bridges (weakly simple: the reader's ear
 *                                  clipping); quads round the sides and the
 *                                  holes' walls;
 *   fins.obj                       a comb of 40 thin fins on a base, its two
 *                                  end faces one 162-sided `f` line each,
 *                                  its long faces quads split along their
 *                                  length (long slivers, as CAD exports);
 *   star-2k-fold.obj               the 2,000-sided star cut by kcbp 1.0's
 *                                  rule (a fan: the reader today splits it
 *                                  right, so its triangles are written out):
 *                                  overlapping triangles, self-intersecting.
 *
 * Usage: gen_self OUTDIR */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static FILE *open_out(const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "gen_self: cannot write %s: %s\n", path, strerror(errno));
        exit(1);
    }
    fprintf(f, "# gen_self: %s\n", name);
    return f;
}

static void close_out(FILE *f)
{
    if (ferror(f) || fclose(f) != 0) {
        fprintf(stderr, "gen_self: write error\n");
        exit(1);
    }
}

static void v(FILE *f, double x, double y, double z) { fprintf(f, "v %.17g %.17g %.17g\n", x, y, z); }

/* One `f` line over vertices first .. first + n - 1 (1-based), forwards or
 * backwards. */
static void face_range(FILE *f, long first, long n, int backwards)
{
    fputc('f', f);
    for (long i = 0; i < n; i++)
        fprintf(f, " %ld", backwards ? first + n - 1 - i : first + i);
    fputc('\n', f);
}

static void star(const char *dir, const char *name, long n, int tilted)
{
    FILE *f = open_out(dir, name);
    for (long i = 0; i < n; i++) {
        double a = 2 * M_PI * (double)i / (double)n, r = i % 2 ? 0.5 : 1;
        double x = r * cos(a), y = r * sin(a);
        if (tilted) {
            x = nearbyint(x * 0x1p20) * 0x1p-20;
            y = nearbyint(y * 0x1p20) * 0x1p-20;
        }
        v(f, x, y, tilted ? x + 2 * y : 0);
    }
    face_range(f, 1, n, 0);
    close_out(f);
}

static void fan_disc(const char *dir, long n)
{
    FILE *f = open_out(dir, "fan-disc.obj");
    v(f, 0, 0, 0);
    for (long i = 0; i < n; i++)
        v(f, cos(2 * M_PI * (double)i / (double)n), sin(2 * M_PI * (double)i / (double)n), 0);
    for (long i = 0; i < n; i++)
        fprintf(f, "f 1 %ld %ld\n", 2 + i, 2 + (i + 1) % n);
    close_out(f);
}

static void cone_fan(const char *dir, long n)
{
    FILE *f = open_out(dir, "cone-fan.obj");
    v(f, 0, 0, 1);
    for (long i = 0; i < n; i++)
        v(f, cos(2 * M_PI * (double)i / (double)n), sin(2 * M_PI * (double)i / (double)n), 0);
    for (long i = 0; i < n; i++)
        fprintf(f, "f 1 %ld %ld\n", 2 + i, 2 + (i + 1) % n);
    face_range(f, 2, n, 1); /* the base, seen from below */
    close_out(f);
}

/* A prism over the closed profile (x[i], y[i]), i < n, counter-clockwise,
 * from z = 0 to z = h: bottom and top one face each, quads round. */
static void prism(FILE *f, const double *x, const double *y, long n, double h)
{
    for (long i = 0; i < n; i++)
        v(f, x[i], y[i], 0);
    for (long i = 0; i < n; i++)
        v(f, x[i], y[i], h);
    face_range(f, 1, n, 1);
    face_range(f, n + 1, n, 0);
    for (long i = 0; i < n; i++) {
        long j = (i + 1) % n;
        fprintf(f, "f %ld %ld %ld %ld\n", 1 + i, 1 + j, n + 1 + j, n + 1 + i);
    }
}

static void gear(const char *dir, int teeth, int per_tooth)
{
    long n = (long)teeth * per_tooth;
    double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    if (!x || !y)
        exit(1);
    for (long i = 0; i < n; i++) {
        double a = 2 * M_PI * (double)i / (double)n, phase = fmod((double)i / per_tooth, 1.0);
        double r = phase < 0.25 ? 50 : phase < 0.5 ? 50 + 24 * (phase - 0.25) : phase < 0.75 ? 56 : 56 - 24 * (phase - 0.75);
        x[i] = r * cos(a);
        y[i] = r * sin(a);
    }
    FILE *f = open_out(dir, "gear.obj");
    prism(f, x, y, n, 10);
    close_out(f);
    free(x);
    free(y);
}

/* A plate with round holes in a row, its top and bottom each one face
 * (seen from above: the border counter-clockwise, the holes clockwise),
 * the holes joined by bridges along the row's axis y = H / 2: from the
 * border's left side to hole 0's leftmost point, over the top of each hole
 * to its rightmost point and on to the next hole's leftmost, round the last
 * hole, then back under the bottoms of the holes (each bridge gone along
 * twice, once each way: weakly simple). */
static void plate_holes(const char *dir)
{
    const int nh = 4, hs = 256; /* hs even: each hole has a leftmost and a rightmost vertex */
    const double W = 100, H = 60, T = 5, R = 6;
    FILE *f = open_out(dir, "plate-holes.obj");
    long per = 5 + (long)nh * hs; /* vertices per layer: 4 corners, the border's left midpoint, the holes */
    for (int layer = 0; layer < 2; layer++) {
        double z = layer ? T : 0;
        v(f, 0, 0, z);
        v(f, W, 0, z);
        v(f, W, H, z);
        v(f, 0, H, z);
        v(f, 0, H / 2, z);
        for (int h = 0; h < nh; h++) /* vertex k at angle pi - 2 pi k / hs: clockwise from the leftmost */
            for (int k = 0; k < hs; k++)
                v(f, 20 + 20 * h + R * cos(M_PI - 2 * M_PI * k / hs), H / 2 + R * sin(M_PI - 2 * M_PI * k / hs), z);
    }
    for (int layer = 0; layer < 2; layer++) {
        long base = 1 + layer * per, *loop = malloc((per + 2 * nh + 8) * sizeof *loop), m = 0;
#define HOLE(h, k) (base + 5 + (long)(h) * hs + (k) % hs)
        loop[m++] = base + 4; /* the left midpoint */
        for (int h = 0; h < nh; h++) /* the tops, leftmost (k = 0) to rightmost (k = hs / 2) */
            for (int k = 0; k <= hs / 2; k++)
                loop[m++] = HOLE(h, k);
        for (int h = nh - 1; h >= 0; h--) { /* the bottoms, back: the last hole's bottom first */
            for (int k = hs / 2 + 1; k <= hs; k++)
                loop[m++] = HOLE(h, k);
            if (h > 0)
                loop[m++] = HOLE(h - 1, hs / 2);
        }
        loop[m++] = base + 4; /* then down the left side, round the border */
        loop[m++] = base;
        loop[m++] = base + 1;
        loop[m++] = base + 2;
        loop[m++] = base + 3;
#undef HOLE
        /* the loop: counter-clockwise seen from above, as the top face
         * wants it; the bottom face's is reversed */
        fputc('f', f);
        for (long i = 0; i < m; i++)
            fprintf(f, " %ld", layer ? loop[i] : loop[m - 1 - i]);
        fputc('\n', f);
        free(loop);
    }
    /* walls along the loop's edges a -> b (border counter-clockwise, holes
     * clockwise): (a, b, b', a') faces out of the material; the left side
     * is two walls, split at its midpoint (vertex 5) */
    const long border[5][2] = {{5, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}};
    for (int i = 0; i < 5; i++)
        fprintf(f, "f %ld %ld %ld %ld\n", border[i][0], border[i][1], border[i][1] + per, border[i][0] + per);
    for (int h = 0; h < nh; h++)
        for (int k = 0; k < hs; k++) {
            long a = 6 + (long)h * hs + k, b = 6 + (long)h * hs + (k + 1) % hs;
            fprintf(f, "f %ld %ld %ld %ld\n", a, b, b + per, a + per);
        }
    close_out(f);
}

/* A base 2 high with fins 30 high and 0.6 thick every 2.5 along x, 40
 * long along z: the profile (x, y) as one face at each end, the long faces
 * quads along z, each split by the reader into two slivers. */
static void fins(const char *dir, int nf)
{
    long n = 4 * (long)nf + 2;
    double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    if (!x || !y)
        exit(1);
    long m = 0;
    double L = 2.5 * nf;
    x[m] = 0, y[m++] = 0;
    x[m] = L, y[m++] = 0;
    for (int i = nf - 1; i >= 0; i--) { /* back along the top, fin by fin */
        double x0 = 2.5 * i + 0.95, x1 = x0 + 0.6;
        x[m] = x1, y[m++] = 2;
        x[m] = x1, y[m++] = 32;
        x[m] = x0, y[m++] = 32;
        x[m] = x0, y[m++] = 2;
    }
    FILE *f = open_out(dir, "fins.obj");
    prism(f, x, y, m, 40);
    close_out(f);
    free(x);
    free(y);
}

/* The 2,000-sided star split the way kcbp 1.0 split it (the fan from
 * vertex 0, its rule above 1,024 sides): triangles written out. */
static void star_fold(const char *dir, long n)
{
    FILE *f = open_out(dir, "star-2k-fold.obj");
    for (long i = 0; i < n; i++) {
        double a = 2 * M_PI * (double)i / (double)n, r = i % 2 ? 0.5 : 1;
        v(f, r * cos(a), r * sin(a), 0);
    }
    for (long i = 1; i + 1 < n; i++)
        fprintf(f, "f 1 %ld %ld\n", 1 + i, 2 + i);
    close_out(f);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: gen_self OUTDIR\n");
        return 2;
    }
    const char *dir = argv[1];
    star(dir, "star-1k.obj", 1000, 0);
    star(dir, "star-10k.obj", 10000, 0);
    star(dir, "star-30k.obj", 30000, 0);
    star(dir, "star-100k.obj", 100000, 0);
    star(dir, "star-30k-tilted.obj", 30000, 1);
    fan_disc(dir, 20000);
    cone_fan(dir, 20000);
    gear(dir, 120, 20);
    plate_holes(dir);
    fins(dir, 40);
    star_fold(dir, 2000);
    return 0;
}

/* gen_gltf: large glTF scene graphs for the reader's growth test
 * (bench/gltf_growth.sh, issue 33), written as .glb, deterministic, no
 * dependency. Every shape places one small triangle many times:
 *
 *   nodes     N nodes, no scene: every node a root, each with mesh 0 and a
 *             translation;
 *   scene     the same N nodes listed as the roots of scenes[0];
 *   children  one root node whose children are the N others;
 *   chain     N nodes, each the only child of the one before (nested 900
 *             deep at most: a forest of chains under one root);
 *   prims     one node, one mesh of N primitives, each with its own
 *             POSITION accessor (N accessors on one buffer view);
 *   meshes    N nodes, each with its own mesh of one primitive.
 *
 * Usage: gen_gltf SHAPE N OUT.glb */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    char *s;
    size_t n, cap;
} sbuf;

static void put(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(sbuf *b, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int k = vsnprintf(b->s ? b->s + b->n : NULL, b->s ? b->cap - b->n : 0, fmt, ap);
        va_end(ap);
        if (k < 0)
            exit(1);
        if (b->s && b->n + (size_t)k < b->cap) {
            b->n += (size_t)k;
            return;
        }
        size_t cap = b->cap ? b->cap * 2 : 1 << 16;
        while (cap < b->n + (size_t)k + 1)
            cap *= 2;
        char *s = realloc(b->s, cap);
        if (!s) {
            fprintf(stderr, "gen_gltf: out of memory\n");
            exit(1);
        }
        b->s = s;
        b->cap = cap;
    }
}

static void le32(unsigned char *p, unsigned v)
{
    p[0] = (unsigned char)v, p[1] = (unsigned char)(v >> 8), p[2] = (unsigned char)(v >> 16),
    p[3] = (unsigned char)(v >> 24);
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: gen_gltf nodes|scene|children|chain|prims|meshes N OUT.glb\n");
        return 2;
    }
    const char *shape = argv[1];
    long n = strtol(argv[2], NULL, 10);
    if (n < 1 || n > 10000000) {
        fprintf(stderr, "gen_gltf: N from 1 to 10^7\n");
        return 2;
    }
    sbuf j = {0};
    put(&j, "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":36}],"
            "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36}],");
    int prims = !strcmp(shape, "prims"), meshes = !strcmp(shape, "meshes");
    /* accessors */
    long nacc = prims ? n : 1;
    put(&j, "\"accessors\":[");
    for (long i = 0; i < nacc; i++)
        put(&j, "%s{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"}", i ? "," : "");
    put(&j, "],\"meshes\":[");
    if (prims) {
        put(&j, "{\"primitives\":[");
        for (long i = 0; i < n; i++)
            put(&j, "%s{\"attributes\":{\"POSITION\":%ld}}", i ? "," : "", i);
        put(&j, "]}");
    } else {
        long nm = meshes ? n : 1;
        for (long i = 0; i < nm; i++)
            put(&j, "%s{\"primitives\":[{\"attributes\":{\"POSITION\":0}}]}", i ? "," : "");
    }
    put(&j, "],\"nodes\":[");
    if (prims) {
        put(&j, "{\"mesh\":0}]");
    } else if (!strcmp(shape, "nodes") || !strcmp(shape, "scene") || meshes) {
        for (long i = 0; i < n; i++)
            put(&j, "%s{\"mesh\":%ld,\"translation\":[%ld,0,0]}", i ? "," : "", meshes ? i : 0, i);
        put(&j, "]");
        if (!strcmp(shape, "scene")) {
            put(&j, ",\"scene\":0,\"scenes\":[{\"nodes\":[");
            for (long i = 0; i < n; i++)
                put(&j, "%s%ld", i ? "," : "", i);
            put(&j, "]}]");
        }
    } else if (!strcmp(shape, "children")) {
        put(&j, "{\"children\":[");
        for (long i = 1; i <= n; i++)
            put(&j, "%s%ld", i > 1 ? "," : "", i);
        put(&j, "]}");
        for (long i = 1; i <= n; i++)
            put(&j, ",{\"mesh\":0,\"translation\":[%ld,0,0]}", i);
        put(&j, "]");
    } else if (!strcmp(shape, "chain")) {
        /* Node 0 the root; chains of 900 under it. */
        long chains = (n + 899) / 900;
        put(&j, "{\"children\":[");
        for (long c = 0; c < chains; c++)
            put(&j, "%s%ld", c ? "," : "", 1 + c * 900);
        put(&j, "]}");
        for (long i = 1; i <= n; i++) {
            long next = (i % 900 != 0 && i < n) ? i + 1 : 0;
            if (next)
                put(&j, ",{\"mesh\":0,\"translation\":[0.5,0,0],\"children\":[%ld]}", next);
            else
                put(&j, ",{\"mesh\":0,\"translation\":[0.5,0,0]}");
        }
        put(&j, "]");
    } else {
        fprintf(stderr, "gen_gltf: unknown shape %s\n", shape);
        return 2;
    }
    put(&j, "}");
    while (j.n % 4)
        put(&j, " ");
    static const float tri[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    unsigned total = 12 + 8 + (unsigned)j.n + 8 + 36;
    unsigned char h[20];
    le32(h, 0x46546C67u);
    le32(h + 4, 2);
    le32(h + 8, total);
    le32(h + 12, (unsigned)j.n);
    le32(h + 16, 0x4E4F534Au);
    FILE *f = fopen(argv[3], "wb");
    if (!f) {
        perror(argv[3]);
        return 1;
    }
    unsigned char bh[8];
    le32(bh, 36);
    le32(bh + 4, 0x004E4942u);
    unsigned char bin[36];
    for (int i = 0; i < 9; i++) {
        unsigned u;
        memcpy(&u, &tri[i], 4);
        le32(bin + 4 * i, u);
    }
    if (fwrite(h, 1, 20, f) != 20 || fwrite(j.s, 1, j.n, f) != j.n || fwrite(bh, 1, 8, f) != 8 ||
        fwrite(bin, 1, 36, f) != 36 || fclose(f) != 0) {
        perror(argv[3]);
        return 1;
    }
    free(j.s);
    return 0;
}

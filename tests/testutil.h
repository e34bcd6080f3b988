/* Helpers shared by the test programs: a seeded random generator, random
 * poses, synthetic meshes, and the brute-force contact oracle. */
#ifndef KCBP_TESTUTIL_H
#define KCBP_TESTUTIL_H

#include <stdbool.h>
#include <stdint.h>

#include <kcbp/kcbp.h>

/* The tests see the library's internals (white-box): the structs behind
 * the public handles, and the caller-storage functions behind them. */
#include "bvh/aabb_tree.h"
#include "convex/cbp_internal.h"
#include "mesh/mesh_internal.h"
#include "mesh/topology.h"
#include "query/collide_internal.h"
#include "query/model_internal.h"
#include "query/solid_internal.h"
#include "scene/scene_internal.h"
#include "scene/scene_json.h"

/* xorshift64*: deterministic across platforms, unlike rand(). */
typedef struct {
    uint64_t s;
} test_rng;

double test_rng_uniform(test_rng *r); /* in [0, 1) */
double test_rng_range(test_rng *r, double lo, double hi);
kcbp_vec3 test_rng_unit_vector(test_rng *r);
/* A random rotation with translation uniform in [-reach, reach]^3. */
kcbp_pose test_random_pose(test_rng *r, double reach);

/* Builds a model from literal arrays; fails the test on error. */
void test_model_from_arrays(kcbp_model *m, const kcbp_vec3 *v, size_t nv, const kcbp_tri *t, size_t nt);
/* The axis-aligned box [lo, hi] as 12 triangles. */
void test_model_box(kcbp_model *m, kcbp_vec3 lo, kcbp_vec3 hi);
/* Loads meshes/<name> (tests run from the repository root). */
void test_model_load(kcbp_model *m, const char *name);
/* Loads meshes/<name> centred on its box centre and scaled so that its
 * largest half-extent is 1 (the thesis's normalisation), so that meshes made
 * in different units can meet. */
void test_model_load_unit(kcbp_model *m, const char *name);

/* kcbp_scene_thesis and kcbp_scene_density (eval/scene_layout.h) into the
 * caller's storage, with the models assigned (names checked), as a parsed
 * scene has them. */
kcbp_status test_scene_thesis(kcbp_scene *s, const char *mesh, kcbp_aabb bounds, uint32_t n, uint64_t seed,
                              kcbp_error *err);
kcbp_status test_scene_density(kcbp_scene *s, const char *mesh, kcbp_aabb bounds, uint32_t n, uint64_t seed,
                               kcbp_error *err);

/* "<dir>/<name>" in one of 8 rotating buffers, so that a few paths can be
 * held at once. */
const char *test_tmp_path(const char *dir, const char *name);
/* Writes len bytes to test_tmp_path(dir, name); returns that path. */
const char *test_tmp_write(const char *dir, const char *name, const void *data, size_t len);
/* The same for a NUL-terminated text. */
const char *test_tmp_write_text(const char *dir, const char *name, const char *text);

/* Every intersecting triangle pair of a (at pose_a) and b (at pose_b), by
 * testing all pairs with kcbp_tri_intersect in A's frame and the tolerance
 * of kcbp_collide: the oracle for the AABB trees. Sorted by (a, b); returns
 * the count and sets *out (malloc'ed). */
/* Whether triangle pair c is one of the contacts kcbp_collide finds with
 * contacts ALL (the exhaustive search, itself checked against brute force):
 * for a contact listed with contacts FIRST through a pair cache, which may
 * be another than kcbp_collide's first. */
bool test_contact_is_true(const kcbp_model *a, const kcbp_pose *pose_a, const kcbp_model *b, const kcbp_pose *pose_b,
                          kcbp_contact c);
size_t test_brute_force_contacts(const kcbp_model *a, const kcbp_pose *pose_a, const kcbp_model *b,
                                 const kcbp_pose *pose_b, kcbp_contact **out);

/* Runs the kcbp program (./kcbp, or $KCBP_EXE: the sanitizer build sets it;
 * tests run from the repository root) with argv[0..] (NULL terminated,
 * without the program name); captures its exit status (a crash fails the
 * test) and its whole stdout and stderr (malloc'ed, NUL-ended). */
typedef struct {
    int status;
    char *out, *err;
    size_t out_len;
    bool timed_out;
    long maxrss_kb; /* the program's peak resident memory (getrusage's ru_maxrss) */
} test_run_result;
const char *test_kcbp_exe(void);
void test_run(test_run_result *r, const char *const *argv);
/* The same, killing the program after `seconds` (> 0), which fails the test
 * as a hang; 0: no limit. */
void test_run_timeout(test_run_result *r, const char *const *argv, double seconds);
/* The same with standard input read from stdin_path (NULL: inherited). */
void test_run_stdin(test_run_result *r, const char *const *argv, double seconds, const char *stdin_path);
/* ... and standard output written to stdout_path (NULL: captured in r->out). */
void test_run_io(test_run_result *r, const char *const *argv, double seconds, const char *stdin_path,
                 const char *stdout_path);
void test_run_free(test_run_result *r);
/* test_run with the arguments listed (NULL-terminated, at most 39),
 * replacing r's previous output. */
void test_run_args(test_run_result *r, const char *arg0, ...);

/* A test program's scratch folder: makes it from the template (mkdtemp)
 * and removes it with all it holds; 0 on success, as cmocka's group
 * fixtures return. TEST_TMPDIR_FIXTURES(dir) defines those fixtures,
 * setup and teardown, for a char dir[] template. */
int test_tmpdir_make(char *template_);
int test_tmpdir_remove(const char *dir);
#define TEST_TMPDIR_FIXTURES(dir)                                                                                   \
    static int setup(void **state) { return (void)state, test_tmpdir_make(dir); }                                   \
    static int teardown(void **state) { return (void)state, test_tmpdir_remove(dir); }
/* Peak-memory limits hold for the plain build only: a sanitizer build (named
 * by $KCBP_EXE) adds its shadow memory. */
bool test_memory_checked(void);

#endif

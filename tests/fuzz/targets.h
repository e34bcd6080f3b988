/* The fuzz targets: each takes any bytes, runs one reader or the collision
 * test on them and checks what must hold whatever the input. A violated
 * property prints what went wrong and aborts, which libFuzzer reports as a
 * crash and cmocka (tests/test_fuzz_corpus.c, replaying the corpus and the
 * crash reproducers in `make test`) as a failed test.
 *
 *   obj      kcbp_obj_parse: a mesh with valid indices, finite coordinates and
 *            bounds that hold them, or an error naming the file; small meshes
 *            are also built into models (AABB tree and k-CBP) and tested
 *            against themselves.
 *   stl, ply, off  kcbp_mesh_parse with a name of that extension: the same
 *            checks as obj.
 *   scene    kcbp_scene_parse: objects, models and motion in range, finite
 *            poses at the first and last frame, and a JSON round trip
 *            (kcbp_scene_to_text, then parse again) that gives the same scene.
 *   pose     kcbp_pose_parse on the bytes as a string, and kcbp_pose_load_file
 *            on them as a file, and as a sweeps file (two poses a line), in
 *            the three forms (plain, quat, matrix): rotations orthonormal
 *            (to the matrix form's tolerance) and proper, translations
 *            finite, and each pose written as a "matrix" line of 17-digit
 *            numbers reads back as the very same pose.
 *   collide  a few triangles per mesh and the poses decoded from the bytes:
 *            kcbp_collide (every contact, with and without the k-CBP stage,
 *            and the yes/no answer) must agree with kcbp_tri_intersect over
 *            all pairs of triangles; hill-climbing on each k-CBP's
 *            adjacency must reach the maximum support found by scanning.
 *   geojson, svg  kcbp2d_model_parse_geojson and kcbp2d_model_parse_svg
 *            (targets2d.c): an error naming the input, or a model whose
 *            vertices are finite and in its box and whose edges close each
 *            ring; a model of up to 96 vertices against copies of itself
 *            (moved by fractions of its size, turned) must get collide,
 *            every meeting edge pair, containment and distance as brute
 *            force over all edge pairs with exact orientation signs. */
#ifndef KCBP_FUZZ_TARGETS_H
#define KCBP_FUZZ_TARGETS_H

#include <stddef.h>
#include <stdint.h>

int kcbp_fuzz_obj(const uint8_t *data, size_t size);
int kcbp_fuzz_scene(const uint8_t *data, size_t size);
int kcbp_fuzz_pose(const uint8_t *data, size_t size);
int kcbp_fuzz_collide(const uint8_t *data, size_t size);
int kcbp_fuzz_stl(const uint8_t *data, size_t size);
int kcbp_fuzz_ply(const uint8_t *data, size_t size);
int kcbp_fuzz_off(const uint8_t *data, size_t size);
int kcbp_fuzz_geojson(const uint8_t *data, size_t size);
int kcbp_fuzz_svg(const uint8_t *data, size_t size);

#endif

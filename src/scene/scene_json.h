/* The JSON format of scene files (scene_json.c), over scene_desc.h: a
 * scene parsed into the caller's storage, from text or read from a stream
 * in chunks. Internal: not installed. */
#ifndef KCBP_SCENE_JSON_H
#define KCBP_SCENE_JSON_H

#include "base/input.h"
#include "scene_desc.h"

/* kcbp_scene_parse into the caller's storage (scene_json.c); with a lower
 * object limit (tests); and from an input stream, read in chunks (never
 * held whole). */
kcbp_status kcbp_scene_parse_into(kcbp_scene *s, const char *name, const char *dir, const char *text, size_t len,
                                  kcbp_error *err);
kcbp_status kcbp_scene_parse_into_limit(kcbp_scene *s, const char *name, const char *dir, const char *text, size_t len,
                                        uint32_t max_objects, kcbp_error *err);
kcbp_status kcbp_scene_parse_stream_into(kcbp_scene *s, const char *name, const char *dir, kcbp_input *in,
                                         kcbp_error *err);

#endif

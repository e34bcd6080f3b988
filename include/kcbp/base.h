/* kcbp: the version and the export macro every public header uses.
 *
 * KCBP_API marks the functions of the public API. The library is compiled
 * with -fvisibility=hidden, so the shared library exports exactly these;
 * everything else (the qhull wrapper, number parsing, ...) stays internal. */
#ifndef KCBP_BASE_H
#define KCBP_BASE_H

#define KCBP_VERSION_MAJOR 1
#define KCBP_VERSION_MINOR 1
#define KCBP_VERSION_PATCH 0
#define KCBP_VERSION_STRING "1.1.0"
/* MAJOR * 10000 + MINOR * 100 + PATCH, for #if comparisons. */
#define KCBP_VERSION (KCBP_VERSION_MAJOR * 10000 + KCBP_VERSION_MINOR * 100 + KCBP_VERSION_PATCH)

#if defined(_WIN32) && defined(KCBP_SHARED_BUILD)
#define KCBP_API __declspec(dllexport)
#elif defined(__GNUC__) || defined(__clang__)
#define KCBP_API __attribute__((visibility("default")))
#else
#define KCBP_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The version of the library actually linked (KCBP_VERSION_STRING at its
 * build), for programs that want to compare it with the headers'. */
KCBP_API const char *kcbp_version(void);

#ifdef __cplusplus
}
#endif
#endif

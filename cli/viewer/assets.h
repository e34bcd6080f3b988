/* The viewer page's pieces, compiled into the program (the Makefile writes
 * them with cli/viewer/embed.c): three.js and its OrbitControls (Debian's
 * libjs-three, found at build time), and kcbp's own script and style
 * (cli/viewer/). Each is NUL-ended; _len excludes the NUL. */
#ifndef KCBP_VIEWER_ASSETS_H
#define KCBP_VIEWER_ASSETS_H

#include <stddef.h>

extern const char kcbp_asset_three[], kcbp_asset_orbit[], kcbp_asset_viewer_js[], kcbp_asset_viewer_css[];
extern const size_t kcbp_asset_three_len, kcbp_asset_orbit_len, kcbp_asset_viewer_js_len, kcbp_asset_viewer_css_len;

#endif

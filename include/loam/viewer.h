/* loam viewer: a window that shows a simulation as it runs (GLFW and OpenGL 3.3), for `loam view`
 * and Python's render_mode="human". It lives in its own library, libloam_viewer, built only where
 * GLFW and OpenGL are found (Debian: libglfw3-dev, libgl-dev), so libloam itself never needs a
 * display or a GL driver.
 *
 * Each frame: draw what to show (loam_viewer_draw_granular, loam_viewer_draw_triangles), then
 * loam_viewer_present; between frames loam_viewer_poll reads the mouse and keyboard:
 *   left drag: orbit   right or middle drag: pan   wheel: zoom   R: frame everything again
 *   space: pause / run   N or Right arrow: one step while paused   Esc or Q: close
 * One viewer per thread that created it (GLFW's rule: create, poll and destroy on the main thread). */
#ifndef LOAM_VIEWER_H
#define LOAM_VIEWER_H

#include "loam/granular.h"
#include "loam/render.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct loam_viewer loam_viewer;

typedef struct loam_viewer_options {
    int width, height; /* window size in screen pixels, 64..8192; default 1024 x 640 */
    const char* title; /* window title before loam_viewer_set_status; default "loam" */
} loam_viewer_options;

LOAM_API loam_viewer_options loam_viewer_default_options(void);

/* Open the window. NULL with err set: LOAM_ERR_INPUT for bad options, LOAM_ERR_IO when there is no
 * display (the message says so and names $DISPLAY) or OpenGL 3.3 is not available. */
LOAM_API loam_viewer* loam_viewer_create(const loam_viewer_options* options, loam_error* err);
/* Close the window and free everything. NULL is fine. */
LOAM_API void loam_viewer_destroy(loam_viewer* viewer);

/* Look from eye at target (m, z up) instead of framing the first thing drawn; R returns here.
 * LOAM_ERR_INPUT when a coordinate is not finite or eye and target coincide. */
LOAM_API loam_status loam_viewer_look_at(loam_viewer* viewer, loam_vec3 eye, loam_vec3 target, loam_error* err);

/* Queue a granular world for the next present: its particles (coloured by height, the range fixed by
 * the first world drawn) and its bodies' surfaces (loam_shapes_surface) at their current poses,
 * fixed bodies grey and moving ones orange, translucent so particles show through walls. The first
 * world drawn frames the camera. The world is only read, and not kept past the call. */
LOAM_API loam_status loam_viewer_draw_granular(loam_viewer* viewer, const loam_world* world, loam_error* err);
/* Queue triangles (soft-body surfaces), coloured as loam_render_triangles says. Copied. */
LOAM_API loam_status loam_viewer_draw_triangles(loam_viewer* viewer, const loam_render_triangles* triangles, loam_error* err);
/* Draw what was queued since the last present and show it. screenshot_png: when not NULL, the drawn
 * picture is also written there as a PNG (atomically). */
LOAM_API loam_status loam_viewer_present(loam_viewer* viewer, const char* screenshot_png, loam_error* err);

typedef struct loam_viewer_input {
    int close;  /* the window was closed, or Esc / Q pressed */
    int paused; /* space toggles it; starts 0 */
    int steps;  /* single steps asked for (N, Right arrow) since the last poll */
} loam_viewer_input;

/* Handle window events (never blocks) and report the user's requests. */
LOAM_API loam_status loam_viewer_poll(loam_viewer* viewer, loam_viewer_input* input, loam_error* err);
/* Text after the title, e.g. "812 steps/s, t = 1.20 s": shown in the window's title bar. */
LOAM_API void loam_viewer_set_status(loam_viewer* viewer, const char* text);

#ifdef __cplusplus
}
#endif
#endif

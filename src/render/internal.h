/* Private pieces shared by the render sources: the camera reduced to an orthonormal frame, screen
 * rectangles, and per-shape tracing state. Camera coordinates are (right, up, forward), so the
 * third coordinate of a point is its depth. */
#ifndef LOAM_RENDER_INTERNAL_H
#define LOAM_RENDER_INTERNAL_H

#include "core/vec.h"
#include "loam/render.h"

typedef struct rview {
    loam_vec3 eye, right, up, fwd;  /* world */
    int ortho;
    int width, height;
    /* Screen coordinate of pixel centre (px, py) is sx = px * sx_step + sx0, sy = py * sy_step + sy0:
     * the slope of the ray (perspective) or the offset from the eye in metres (orthographic). */
    float sx_step, sx0, sy_step, sy0;
    float footprint;                /* size of a pixel at depth 1 (perspective) or anywhere (ortho) */
    loam_vec3 light;                /* unit vector towards the light, world */
    loam_vec3 light_cam;            /* the same in camera coordinates */
} rview;

/* A pixel rectangle, inclusive; empty when x0 > x1. */
typedef struct rrect { int x0, y0, x1, y1; } rrect;

#define RENDER_AMBIENT 0.35f
#define RENDER_DIFFUSE 0.65f

void rview_init(rview* v, const loam_camera* cam);

static inline float rview_sx(const rview* v, int px) { return (float)px * v->sx_step + v->sx0; }
static inline float rview_sy(const rview* v, int py) { return (float)py * v->sy_step + v->sy0; }
/* Continuous pixel coordinate of a screen coordinate (inverse of the above). */
static inline float rview_px(const rview* v, float sx) { return (sx - v->sx0) / v->sx_step; }
static inline float rview_py(const rview* v, float sy) { return (sy - v->sy0) / v->sy_step; }

static inline loam_vec3 rview_to_cam(const rview* v, loam_vec3 world) {
    loam_vec3 d = v3_sub(world, v->eye);
    return v3(v3_dot(d, v->right), v3_dot(d, v->up), v3_dot(d, v->fwd));
}

/* Pixel rectangle covering screen-coordinate bounds, padded by a pixel and clipped to the image. */
rrect rview_clip_rect(const rview* v, float sx_lo, float sx_hi, float sy_lo, float sy_hi);

static inline float render_shade(loam_vec3 n, loam_vec3 light) {
    float d = v3_dot(n, light);
    return RENDER_AMBIENT + RENDER_DIFFUSE * (d > 0.0f ? d : 0.0f);
}

static inline uint8_t render_byte(float c) {
    if (!(c > 0.0f)) return 0; /* NaN included: converting it to an integer is undefined */
    if (c > 255.0f) return 255;
    return (uint8_t)(c + 0.5f);
}

/* A shape prepared for tracing: the camera and light carried into its local frame once, so each
 * pixel's ray costs no pose arithmetic. */
typedef struct rshape {
    const loam_shape* shape;
    loam_vec3 eye, right, up, fwd, light;  /* local frame */
    loam_vec3 lo, hi;                      /* local bounds */
    float zmin;                            /* nearest depth of the bounds: pixels already showing
                                              something nearer skip the shape */
    float color[3];
    rrect rect;
} rshape;

/* Fills s; returns 0 when the shape cannot be seen at all. */
int rshape_prepare(rshape* s, const rview* v, const loam_shape* shape, loam_pose pose,
                   const uint8_t* rgb);
/* Trace the ray of pixel (px, py) against s, stopping beyond max_depth. On a hit returns 1 and
 * writes the view depth and the shaded colour (0..255 floats). */
int rshape_trace(const rshape* s, const rview* v, int px, int py, float max_depth, float* depth,
                 float rgb[3]);

/* Draw everything into out (raster.c); `shapes` are the visible ones, prepared, in input order. */
loam_status render_draw(const rview* v, const loam_render_particles* particles,
                        const rshape* shapes, int shape_count, float alpha, loam_image* out,
                        loam_error* err);

#endif

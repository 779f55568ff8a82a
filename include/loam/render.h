/* loam render: a CPU software renderer for granular scenes, PNG output and MP4 assembly.
 *
 * Input is plain data (particle arrays, shapes with world poses), not a world, so a host can render
 * anything it can describe that way. Particles are exact ray-sphere hits, shapes are sphere-traced
 * through their signed distance functions (geom.h). The same input gives the same bytes for every
 * thread count. */
#ifndef LOAM_RENDER_H
#define LOAM_RENDER_H

#include <stdint.h>

#include "loam/geom.h"

#ifdef __cplusplus
extern "C" {
#endif

/* An RGB8 picture plus the depth of what each pixel shows. Rows top to bottom. */
typedef struct loam_image {
    int width, height;
    uint8_t* rgb;   /* 3 * width * height bytes */
    float* depth;   /* width * height: distance from the eye along the view axis (m) of the nearest
                       opaque surface; INFINITY where only background (or translucent shapes) is seen */
} loam_image;

/* Sides of at most LOAM_IMAGE_MAX_SIDE pixels. On failure *img is left empty (NULL buffers). */
#define LOAM_IMAGE_MAX_SIDE 16384
LOAM_API loam_status loam_image_alloc(loam_image* img, int width, int height, loam_error* err);
/* Safe on an empty or already freed image. */
LOAM_API void loam_image_destroy(loam_image* img);

/* Written atomically (io.h): a failed write never leaves a partial file under `path`. */
LOAM_API loam_status loam_image_write_png(const loam_image* img, const char* path, loam_error* err);

typedef struct loam_camera {
    loam_vec3 eye, target, up;  /* m; up need not be orthogonal to the view, only not parallel */
    float fov_deg;              /* vertical field of view in (0, 179]; <= 0 means orthographic */
    float ortho_height;         /* orthographic: height of the view in world units (m) */
    int width, height;          /* pixels */
} loam_camera;

/* 960x540, fov 40, looking at the origin from (1.5, -2.5, 1.2) with z up. */
LOAM_API loam_camera loam_camera_default(void);
LOAM_API loam_status loam_camera_validate(const loam_camera* cam, loam_error* err);

typedef enum loam_colormap {
    LOAM_COLORMAP_VIRIDIS = 0,  /* perceptually uniform, colour-blind safe */
    LOAM_COLORMAP_TURBO,        /* rainbow-like with fewer artefacts than jet */
    LOAM_COLORMAP_COUNT
} loam_colormap;

/* Colour of t in [0, 1] (clamped; NaN gives mid grey). */
LOAM_API void loam_colormap_eval(loam_colormap map, float t, uint8_t rgb[3]);

/* Particles as structure-of-arrays; spheres with a non-finite centre or radius <= 0 are skipped
 * (a diverged step still renders). Spheres that reach behind the eye are skipped too. */
typedef struct loam_render_particles {
    int count;
    const float *x, *y, *z, *radius;  /* m */
    const float* scalar;       /* optional per-particle value to colour by; NULL: all `color` */
    float scalar_min, scalar_max; /* mapped to the ends of the colormap */
    loam_colormap colormap;
    uint8_t color[3];          /* used when scalar is NULL */
} loam_render_particles;

/* Shapes with their world poses (body pose composed with shape.local). */
typedef struct loam_render_shapes {
    int count;
    const loam_shape* shapes;
    const loam_pose* world_poses;
    const uint8_t* rgb;        /* 3 bytes per shape; NULL: light grey for all */
    float alpha;               /* opacity in (0, 1]; below 1 shapes are drawn over particles without
                                  hiding them and do not write depth */
} loam_render_shapes;

/* Defaults: no particles/shapes, viridis, a sand colour, opaque shapes. */
LOAM_API loam_render_particles loam_render_particles_default(void);
LOAM_API loam_render_shapes loam_render_shapes_default(void);

/* Draw into `out`, which must have been allocated with the camera's width and height. Either
 * scene part may be NULL. Threads: loam_set_threads / OpenMP; the bytes do not depend on it. */
LOAM_API loam_status loam_render(const loam_camera* cam, const loam_render_particles* particles,
                        const loam_render_shapes* shapes, loam_image* out, loam_error* err);

/* Triangle meshes (soft-robot surfaces), drawn over an image that loam_render filled: depth-tested
 * against out->depth, flat shaded (both sides lit, as the camera sees them), coloured by the mean of
 * the corners' scalars or by `color`. Triangles reaching behind the eye (perspective) are skipped.
 * Serial: the bytes never depend on threads. */
typedef struct loam_render_triangles {
    int count;                 /* triangles */
    const int32_t* index;      /* 3 vertex indices per triangle */
    int vertex_count;
    const float *x, *y, *z;    /* vertex positions, m */
    const float* scalar;       /* optional per-vertex value; NULL: all `color` */
    float scalar_min, scalar_max;
    loam_colormap colormap;
    uint8_t color[3];
} loam_render_triangles;

LOAM_API loam_render_triangles loam_render_triangles_default(void);
LOAM_API loam_status loam_render_triangles_draw(const loam_camera* cam, const loam_render_triangles* tris, loam_image* out,
                                       loam_error* err);

/* Sensors for observations (sensors.c): cheap, particles only, serial (observation images are
 * small; the bytes never depend on threads).
 * Depth camera: for each pixel the view-axis depth (m) of the nearest particle surface on its ray,
 * INFINITY where the ray meets none; `depth` holds cam->width * cam->height floats, rows top to
 * bottom. Perspective or orthographic, as the camera says. */
LOAM_API loam_status loam_depth_image(const loam_camera* cam, const loam_render_particles* particles, float* depth,
                             loam_error* err);
/* Height map seen from above: width x height cells over the box [x0, x1] x [y0, y1] (rows from +y
 * at the top to -y at the bottom, columns from x0 to x1), each the highest particle surface above
 * the cell's centre, or floor_z where there is none. */
LOAM_API loam_status loam_height_map(const loam_render_particles* particles, float x0, float y0, float x1, float y1,
                            float floor_z, int width, int height, float* out, loam_error* err);

/* MP4 from a numbered PNG sequence by running the `ffmpeg` executable (H.264 when ffmpeg has
 * libx264, else MPEG-4 part 2; yuv420p; odd sizes padded to even). */
typedef struct loam_video_params {
    const char* pattern;       /* printf-style with one %d or %0Nd, e.g. "out/frame_%05d.png" */
    int first_index;           /* number of the first frame, >= 0 */
    double fps;                /* frames per second, in (0, 1000] */
    const char* output;        /* e.g. "out/movie.mp4"; written to a temporary name, renamed when done */
} loam_video_params;

/* Writes the full path of `ffmpeg` found on PATH into buf and returns 1, or returns 0. */
LOAM_API int loam_ffmpeg_find(char* buf, size_t size);

/* When ffmpeg is not on PATH this returns LOAM_ERR_IO with a "ffmpeg not found" message and sets
 * *ffmpeg_missing (nullable) to 1, so a caller can print a notice and carry on; every other failure
 * leaves it 0. No partial MP4 is ever left under `output`. */
LOAM_API loam_status loam_video_encode(const loam_video_params* params, int* ffmpeg_missing, loam_error* err);

#ifdef __cplusplus
}
#endif
#endif

/* Depth images and height maps from particles (loam/render.h): each particle is splatted into the
 * pixels its silhouette can cover, and each of those pixels intersects its ray with the sphere
 * exactly, keeping the nearest (depth) or highest (height) surface. */
#include <math.h>

#include "render/internal.h"

static int usable(const loam_render_particles* p, int i) {
    return isfinite(p->x[i]) && isfinite(p->y[i]) && isfinite(p->z[i]) && p->radius[i] > 0.0f && isfinite(p->radius[i]);
}

loam_status loam_depth_image(const loam_camera* cam, const loam_render_particles* p, float* depth, loam_error* err) {
    if (!cam || !depth) return loam_error_set(err, LOAM_ERR_INPUT, "depth image: null camera or output");
    loam_status st = loam_camera_validate(cam, err);
    if (st != LOAM_OK) return st;
    rview v;
    rview_init(&v, cam);
    size_t pixels = (size_t)cam->width * (size_t)cam->height;
    for (size_t k = 0; k < pixels; ++k) depth[k] = INFINITY;
    if (!p) return LOAM_OK;
    for (int i = 0; i < p->count; ++i) {
        if (!usable(p, i)) continue;
        float r = p->radius[i];
        loam_vec3 c = rview_to_cam(&v, v3(p->x[i], p->y[i], p->z[i]));
        if (!(c.z - r > 0.0f)) continue; /* reaches behind the eye: skipped, as the renderer does */
        rrect box = v.ortho ? rview_clip_rect(&v, c.x - r, c.x + r, c.y - r, c.y + r)
                            : rview_clip_rect(&v, (c.x - r) / (c.z - r), (c.x + r) / (c.z - r), (c.y - r) / (c.z - r),
                                              (c.y + r) / (c.z - r));
        for (int py = box.y0; py <= box.y1; ++py)
            for (int px = box.x0; px <= box.x1; ++px) {
                float sx = rview_sx(&v, px), sy = rview_sy(&v, py), t;
                if (v.ortho) {
                    float dx = sx - c.x, dy = sy - c.y, h2 = r * r - dx * dx - dy * dy;
                    if (h2 < 0.0f) continue;
                    t = c.z - sqrtf(h2);
                } else { /* ray t (sx, sy, 1): its third coordinate is the view depth */
                    float dd = sx * sx + sy * sy + 1.0f, dc = sx * c.x + sy * c.y + c.z;
                    float disc = dc * dc - dd * (v3_dot(c, c) - r * r);
                    if (disc < 0.0f) continue;
                    t = (dc - sqrtf(disc)) / dd;
                }
                float* d = &depth[(size_t)py * (size_t)cam->width + (size_t)px];
                if (t < *d) *d = t;
            }
    }
    return LOAM_OK;
}

loam_status loam_height_map(const loam_render_particles* p, float x0, float y0, float x1, float y1, float floor_z,
                            int width, int height, float* out, loam_error* err) {
    if (!out) return loam_error_set(err, LOAM_ERR_INPUT, "height map: null output");
    if (width < 1 || height < 1 || width > LOAM_IMAGE_MAX_SIDE || height > LOAM_IMAGE_MAX_SIDE)
        return loam_error_set(err, LOAM_ERR_INPUT, "height map: %d x %d cells, expected 1 to %d a side", width, height,
                              LOAM_IMAGE_MAX_SIDE);
    if (!(x1 > x0) || !(y1 > y0) || !isfinite(x0) || !isfinite(x1) || !isfinite(y0) || !isfinite(y1) || !isfinite(floor_z))
        return loam_error_set(err, LOAM_ERR_INPUT, "height map: box [%g, %g] x [%g, %g] must be finite and non-empty", x0,
                              x1, y0, y1);
    float cw = (x1 - x0) / (float)width, ch = (y1 - y0) / (float)height;
    for (size_t k = 0; k < (size_t)width * (size_t)height; ++k) out[k] = floor_z;
    if (!p) return LOAM_OK;
    for (int i = 0; i < p->count; ++i) {
        if (!usable(p, i)) continue;
        float r = p->radius[i], cx = p->x[i], cy = p->y[i];
        /* Columns and rows whose centres can lie within r of the particle. */
        float fc0 = ceilf((cx - r - x0) / cw - 0.5f), fc1 = floorf((cx + r - x0) / cw - 0.5f);
        float fr0 = ceilf((y1 - (cy + r)) / ch - 0.5f), fr1 = floorf((y1 - (cy - r)) / ch - 0.5f);
        if (!(fc1 >= 0.0f && fc0 <= (float)(width - 1) && fr1 >= 0.0f && fr0 <= (float)(height - 1))) continue;
        int c0 = (int)fmaxf(fc0, 0.0f), c1 = (int)fminf(fc1, (float)(width - 1)); /* clamped before converting */
        int r0 = (int)fmaxf(fr0, 0.0f), r1 = (int)fminf(fr1, (float)(height - 1));
        for (int row = r0; row <= r1; ++row)
            for (int col = c0; col <= c1; ++col) {
                float dx = x0 + ((float)col + 0.5f) * cw - cx, dy = y1 - ((float)row + 0.5f) * ch - cy;
                float h2 = r * r - dx * dx - dy * dy;
                if (h2 < 0.0f) continue;
                float top = p->z[i] + sqrtf(h2);
                float* o = &out[(size_t)row * (size_t)width + (size_t)col];
                if (top > *o) *o = top;
            }
    }
    return LOAM_OK;
}

/* Cameras: defaults, validation, and the reduction to an orthonormal frame plus the affine map from
 * pixel index to screen coordinate that every other render source shares. */
#include <math.h>

#include "render/internal.h"

loam_camera loam_camera_default(void) {
    loam_camera c;
    c.eye = v3(1.5f, -2.5f, 1.2f);
    c.target = v3(0.0f, 0.0f, 0.0f);
    c.up = v3(0.0f, 0.0f, 1.0f);
    c.fov_deg = 40.0f;
    c.ortho_height = 1.0f;
    c.width = 960;
    c.height = 540;
    return c;
}

loam_status loam_camera_validate(const loam_camera* c, loam_error* err) {
    if (!c) return loam_error_set(err, LOAM_ERR_INPUT, "render: camera is NULL");
    if (c->width < 1 || c->height < 1 || c->width > LOAM_IMAGE_MAX_SIDE ||
        c->height > LOAM_IMAGE_MAX_SIDE)
        return loam_error_set(err, LOAM_ERR_INPUT, "render: camera size %dx%d outside 1..%d",
                              c->width, c->height, LOAM_IMAGE_MAX_SIDE);
    if (!v3_is_finite(c->eye) || !v3_is_finite(c->target) || !v3_is_finite(c->up))
        return loam_error_set(err, LOAM_ERR_INPUT, "render: camera eye, target or up is not finite");
    if (!isfinite(c->fov_deg) || c->fov_deg > 179.0f)
        return loam_error_set(err, LOAM_ERR_INPUT, "render: camera fov_deg = %g, want <= 179",
                              (double)c->fov_deg);
    if (c->fov_deg <= 0.0f && !(isfinite(c->ortho_height) && c->ortho_height > 0.0f))
        return loam_error_set(err, LOAM_ERR_INPUT,
                              "render: orthographic camera needs ortho_height > 0, got %g",
                              (double)c->ortho_height);
    /* Distances this small cannot be normalised reliably in float. */
    float dist = v3_length(v3_sub(c->target, c->eye));
    if (!(dist > 1e-9f) || !isfinite(dist))
        return loam_error_set(err, LOAM_ERR_INPUT, "render: camera eye and target coincide");
    float up = v3_length(c->up);
    if (!(up > 0.0f) || !isfinite(up))
        return loam_error_set(err, LOAM_ERR_INPUT, "render: camera up is zero");
    loam_vec3 f = v3_normalize(v3_sub(c->target, c->eye));
    if (v3_length(v3_cross(f, v3_scale(c->up, 1.0f / up))) < 1e-4f)
        return loam_error_set(err, LOAM_ERR_INPUT, "render: camera up is parallel to the view");
    return LOAM_OK;
}

void rview_init(rview* v, const loam_camera* c) {
    v->eye = c->eye;
    v->fwd = v3_normalize(v3_sub(c->target, c->eye));
    v->right = v3_normalize(v3_cross(v->fwd, c->up));
    v->up = v3_cross(v->right, v->fwd);
    v->ortho = c->fov_deg <= 0.0f;
    v->width = c->width;
    v->height = c->height;
    float half_h = v->ortho ? 0.5f * c->ortho_height
                            : (float)tan(0.5 * (double)c->fov_deg * 3.14159265358979323846 / 180.0);
    float half_w = half_h * (float)c->width / (float)c->height;
    v->sx_step = 2.0f * half_w / (float)c->width;
    v->sx0 = 0.5f * v->sx_step - half_w;
    v->sy_step = -2.0f * half_h / (float)c->height;
    v->sy0 = half_h + 0.5f * v->sy_step;
    v->footprint = 2.0f * half_h / (float)c->height;
    /* Tied to the view (over the left shoulder, from above) so every camera sees lit faces, but
     * leaning on world up so tops of heaps read as tops. */
    loam_vec3 world_up = v3(0.0f, 0.0f, 1.0f);
    v->light = v3_normalize(v3_sub(v3_sub(v3_scale(world_up, 0.7f), v3_scale(v->fwd, 0.5f)),
                                   v3_scale(v->right, 0.3f)));
    v->light_cam = v3(v3_dot(v->light, v->right), v3_dot(v->light, v->up), v3_dot(v->light, v->fwd));
}

static int clamp_index(float p, int n) {
    /* Clamp in float first: casting an out-of-range float to int is undefined. */
    if (!(p > -1.0f)) return -1;
    if (p > (float)n) return n;
    return (int)p;
}

rrect rview_clip_rect(const rview* v, float sx_lo, float sx_hi, float sy_lo, float sy_hi) {
    float ax = rview_px(v, sx_lo), bx = rview_px(v, sx_hi);
    float ay = rview_py(v, sy_lo), by = rview_py(v, sy_hi);
    rrect r;
    r.x0 = clamp_index(floorf(fminf(ax, bx)) - 1.0f, v->width);
    r.x1 = clamp_index(ceilf(fmaxf(ax, bx)) + 1.0f, v->width);
    r.y0 = clamp_index(floorf(fminf(ay, by)) - 1.0f, v->height);
    r.y1 = clamp_index(ceilf(fmaxf(ay, by)) + 1.0f, v->height);
    if (r.x0 < 0) r.x0 = 0;
    if (r.y0 < 0) r.y0 = 0;
    if (r.x1 > v->width - 1) r.x1 = v->width - 1;
    if (r.y1 > v->height - 1) r.y1 = v->height - 1;
    return r;
}

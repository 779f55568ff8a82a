/* Triangle meshes over a rendered image: projected, rasterised with edge functions at pixel centres,
 * depth-tested against the image's view-axis depth, flat shaded with the renderer's light. */
#include <math.h>
#include <string.h>

#include "render/internal.h"

loam_render_triangles loam_render_triangles_default(void) {
    loam_render_triangles t;
    memset(&t, 0, sizeof t);
    t.scalar_min = 0.0f;
    t.scalar_max = 1.0f;
    t.colormap = LOAM_COLORMAP_VIRIDIS;
    t.color[0] = 200, t.color[1] = 120, t.color[2] = 90;
    return t;
}

static loam_status check(const loam_camera* cam, const loam_render_triangles* t, const loam_image* out,
                         loam_error* err) {
    loam_status st = loam_camera_validate(cam, err);
    if (st) return st;
    if (!t || !out || !out->rgb || !out->depth)
        return loam_error_set(err, LOAM_ERR_INPUT, "render triangles: NULL triangles or image");
    if (out->width != cam->width || out->height != cam->height)
        return loam_error_set(err, LOAM_ERR_INPUT, "render triangles: image %dx%d, camera %dx%d", out->width,
                              out->height, cam->width, cam->height);
    if (t->count < 0 || t->vertex_count < 0 || (t->count > 0 && (!t->index || !t->x || !t->y || !t->z)))
        return loam_error_set(err, LOAM_ERR_INPUT, "render triangles: bad counts or NULL arrays");
    for (int k = 0; k < 3 * t->count; ++k)
        if (t->index[k] < 0 || t->index[k] >= t->vertex_count)
            return loam_error_set(err, LOAM_ERR_INPUT, "render triangles: triangle %d names vertex %d of %d", k / 3,
                                  (int)t->index[k], t->vertex_count);
    return LOAM_OK;
}

/* Pixel position of a camera-space point; 0 when it is behind the eye. */
static int project(const rview* v, loam_vec3 c, float* px, float* py) {
    if (!v->ortho && !(c.z > 1e-6f)) return 0;
    float sx = v->ortho ? c.x : c.x / c.z, sy = v->ortho ? c.y : c.y / c.z;
    *px = rview_px(v, sx);
    *py = rview_py(v, sy);
    return isfinite(*px) && isfinite(*py);
}

loam_status loam_render_triangles_draw(const loam_camera* cam, const loam_render_triangles* t, loam_image* out,
                                       loam_error* err) {
    loam_status st = check(cam, t, out, err);
    if (st) return st;
    rview v;
    rview_init(&v, cam);
    float span = t->scalar_max - t->scalar_min;
    for (int f = 0; f < t->count; ++f) {
        const int32_t* id = t->index + 3 * f;
        loam_vec3 w[3], c[3];
        float px[3], py[3];
        int ok = 1;
        for (int k = 0; k < 3 && ok; ++k) {
            w[k] = v3(t->x[id[k]], t->y[id[k]], t->z[id[k]]);
            c[k] = rview_to_cam(&v, w[k]);
            ok = v3_is_finite(w[k]) && project(&v, c[k], &px[k], &py[k]);
        }
        if (!ok) continue;
        float area = (px[1] - px[0]) * (py[2] - py[0]) - (px[2] - px[0]) * (py[1] - py[0]);
        if (!(fabsf(area) > 1e-12f)) continue;
        loam_vec3 n = v3_normalize(v3_cross(v3_sub(w[1], w[0]), v3_sub(w[2], w[0])));
        if (v3_dot(n, v3_sub(v.eye, w[0])) < 0.0f) n = v3_scale(n, -1.0f);
        float shade = render_shade(n, v.light);
        uint8_t base[3] = {t->color[0], t->color[1], t->color[2]};
        if (t->scalar) {
            float s = (t->scalar[id[0]] + t->scalar[id[1]] + t->scalar[id[2]]) / 3.0f;
            loam_colormap_eval(t->colormap, span != 0.0f ? (s - t->scalar_min) / span : 0.5f, base);
        }
        int x0 = (int)fmaxf(0.0f, floorf(fminf(px[0], fminf(px[1], px[2]))));
        int x1 = (int)fminf((float)(out->width - 1), ceilf(fmaxf(px[0], fmaxf(px[1], px[2]))));
        int y0 = (int)fmaxf(0.0f, floorf(fminf(py[0], fminf(py[1], py[2]))));
        int y1 = (int)fminf((float)(out->height - 1), ceilf(fmaxf(py[0], fmaxf(py[1], py[2]))));
        float inv_area = 1.0f / area;
        for (int y = y0; y <= y1; ++y)
            for (int x = x0; x <= x1; ++x) {
                float qx = (float)x, qy = (float)y; /* pixel centres sit at integer pixel coordinates */
                float b0 = ((px[1] - qx) * (py[2] - qy) - (px[2] - qx) * (py[1] - qy)) * inv_area;
                float b1 = ((px[2] - qx) * (py[0] - qy) - (px[0] - qx) * (py[2] - qy)) * inv_area;
                float b2 = 1.0f - b0 - b1;
                if (b0 < 0.0f || b1 < 0.0f || b2 < 0.0f) continue;
                /* view-axis depth: 1/z is linear on the screen in perspective, z in orthographic */
                float z = v.ortho ? b0 * c[0].z + b1 * c[1].z + b2 * c[2].z
                                  : 1.0f / (b0 / c[0].z + b1 / c[1].z + b2 / c[2].z);
                size_t idx = (size_t)y * out->width + x;
                if (!(z < out->depth[idx])) continue;
                out->depth[idx] = z;
                for (int k = 0; k < 3; ++k) out->rgb[3 * idx + k] = render_byte(shade * (float)base[k]);
            }
    }
    return LOAM_OK;
}

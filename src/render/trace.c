/* Shapes by sphere tracing their exact SDFs in the shape's local frame. The march starts where the
 * ray enters the shape's local bounding box, so a box hits on the first step and round shapes take a
 * handful; planes, being unbounded, are intersected analytically instead. */
#include <math.h>

#include "render/internal.h"

#define TRACE_MAX_STEPS 128

static loam_vec3 rotate_into(loam_pose pose, loam_vec3 dir) {
    pose.p = v3(0.0f, 0.0f, 0.0f);
    return loam_pose_apply_inverse(pose, dir);
}

int rshape_prepare(rshape* s, const rview* v, const loam_shape* shape, loam_pose pose,
                   const uint8_t* rgb) {
    pose.q = quat_normalize(pose.q);
    s->shape = shape;
    s->eye = loam_pose_apply_inverse(pose, v->eye);
    s->right = rotate_into(pose, v->right);
    s->up = rotate_into(pose, v->up);
    s->fwd = rotate_into(pose, v->fwd);
    s->light = rotate_into(pose, v->light);
    for (int k = 0; k < 3; ++k) s->color[k] = rgb ? (float)rgb[k] : 205.0f;
    loam_shape_local_bounds(shape, &s->lo, &s->hi);
    if (shape->type == LOAM_SHAPE_PLANE) {
        s->zmin = -INFINITY;
        s->rect = rview_clip_rect(v, rview_sx(v, 0), rview_sx(v, v->width - 1),
                                  rview_sy(v, v->height - 1), rview_sy(v, 0));
        return 1;
    }
    /* Pad so the slab entry lies strictly outside the surface of shapes that fill their box. */
    loam_vec3 pad = v3_scale(v3_sub(s->hi, s->lo), 1e-4f);
    pad = v3_add(pad, v3(1e-6f, 1e-6f, 1e-6f));
    s->lo = v3_sub(s->lo, pad);
    s->hi = v3_add(s->hi, pad);
    float zmin = INFINITY, zmax = -INFINITY;
    float sx_lo = INFINITY, sx_hi = -INFINITY, sy_lo = INFINITY, sy_hi = -INFINITY;
    int straddles = 0;
    for (int c = 0; c < 8; ++c) {
        loam_vec3 corner = v3(c & 1 ? s->hi.x : s->lo.x, c & 2 ? s->hi.y : s->lo.y,
                              c & 4 ? s->hi.z : s->lo.z);
        loam_vec3 p = rview_to_cam(v, loam_pose_apply(pose, corner));
        zmin = fminf(zmin, p.z);
        zmax = fmaxf(zmax, p.z);
        if (!v->ortho) {
            if (p.z <= 1e-6f) {
                straddles = 1;
                continue;
            }
            p.x /= p.z;
            p.y /= p.z;
        }
        sx_lo = fminf(sx_lo, p.x);
        sx_hi = fmaxf(sx_hi, p.x);
        sy_lo = fminf(sy_lo, p.y);
        sy_hi = fmaxf(sy_hi, p.y);
    }
    if (!(zmax > 0.0f)) return 0;
    s->zmin = zmin;
    if (straddles) { /* the box reaches behind the eye: its projection is unbounded */
        sx_lo = rview_sx(v, 0);
        sx_hi = rview_sx(v, v->width - 1);
        sy_lo = rview_sy(v, v->height - 1);
        sy_hi = rview_sy(v, 0);
    }
    s->rect = rview_clip_rect(v, sx_lo, sx_hi, sy_lo, sy_hi);
    return s->rect.x0 <= s->rect.x1 && s->rect.y0 <= s->rect.y1;
}

/* Ray parameter interval inside the box [lo, hi]; 0 when the ray misses it. */
static int slab(loam_vec3 o, loam_vec3 d, loam_vec3 lo, loam_vec3 hi, float* s0, float* s1) {
    float a = *s0, b = *s1;
    for (int k = 0; k < 3; ++k) {
        float ok = v3_get(o, k), dk = v3_get(d, k), l = v3_get(lo, k), h = v3_get(hi, k);
        if (dk == 0.0f) {
            if (ok < l || ok > h) return 0;
            continue;
        }
        float t0 = (l - ok) / dk, t1 = (h - ok) / dk;
        if (t0 > t1) {
            float t = t0;
            t0 = t1;
            t1 = t;
        }
        /* Plain compares: fminf/fmaxf are libm calls here and this runs per pixel per shape. */
        a = t0 > a ? t0 : a;
        b = t1 < b ? t1 : b;
    }
    *s0 = a;
    *s1 = b;
    return a <= b;
}

int rshape_trace(const rshape* s, const rview* v, int px, int py, float max_depth, float* depth,
                 float rgb[3]) {
    float sx = rview_sx(v, px), sy = rview_sy(v, py);
    loam_vec3 o, d;
    float per_s = 1.0f; /* view depth per unit of ray length */
    if (v->ortho) {
        o = v3_add(s->eye, v3_add(v3_scale(s->right, sx), v3_scale(s->up, sy)));
        d = s->fwd;
    } else {
        o = s->eye;
        d = v3_add(s->fwd, v3_add(v3_scale(s->right, sx), v3_scale(s->up, sy)));
        float len = v3_length(d);
        d = v3_scale(d, 1.0f / len);
        per_s = 1.0f / len;
    }
    float smax = max_depth / per_s;
    float hit;
    loam_vec3 n;
    if (s->shape->type == LOAM_SHAPE_PLANE) {
        if (d.z == 0.0f) return 0;
        hit = -o.z / d.z;
        if (!(hit > 0.0f && hit < smax)) return 0;
        n = v3(0.0f, 0.0f, 1.0f);
    } else {
        float s0 = 0.0f, s1 = smax;
        if (!slab(o, d, s->lo, s->hi, &s0, &s1)) return 0;
        /* Below this distance float positions near o are noise, so stepping further cannot help. */
        float floor_eps = 1e-6f * (fabsf(o.x) + fabsf(o.y) + fabsf(o.z));
        float t = s0;
        int found = 0;
        for (int it = 0; it < TRACE_MAX_STEPS; ++it) {
            float f = loam_shape_sdf(s->shape, v3_add(o, v3_scale(d, t)), NULL);
            float eps = 0.1f * v->footprint * (v->ortho ? 1.0f : t * per_s) + floor_eps + 1e-6f * t;
            if (f < eps) {
                /* Negative at the eye itself: the camera is inside the shape, which then stays
                 * invisible rather than filling the screen. */
                found = !(it == 0 && s0 == 0.0f && f < -eps);
                break;
            }
            t += f;
            if (t > s1) break;
        }
        if (!found) return 0;
        hit = t;
        loam_shape_sdf(s->shape, v3_add(o, v3_scale(d, hit)), &n);
    }
    if (v3_dot(n, d) > 0.0f) n = v3_scale(n, -1.0f); /* seen from behind (under a plane) */
    float shade = render_shade(n, s->light);
    for (int k = 0; k < 3; ++k) rgb[k] = s->color[k] * shade;
    *depth = hit * per_s;
    return 1;
}

/* What a frame holds: worlds and triangles turn into plain float arrays here, drawn at present. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/vec.h"
#include "loam/output.h"
#include "viewer/viewer_internal.h"

int viewer_floats_push(viewer_floats* a, const float* values, size_t count) {
    if (a->count + count > a->capacity) {
        size_t cap = a->capacity ? a->capacity : 4096;
        while (cap < a->count + count) cap *= 2;
        float* bigger = realloc(a->data, cap * sizeof *bigger);
        if (!bigger) return 0;
        a->data = bigger;
        a->capacity = cap;
    }
    memcpy(a->data + a->count, values, count * sizeof *values);
    a->count += count;
    return 1;
}

static void free_bodies(loam_viewer* v) {
    for (int b = 0; b < v->body_count; ++b) loam_mesh_destroy(&v->bodies[b].surface);
    free(v->bodies);
    v->bodies = NULL;
    v->body_count = 0;
}

void viewer_scene_free(loam_viewer* v) {
    free_bodies(v);
    free(v->particles.data);
    free(v->opaque.data);
    free(v->translucent.data);
    memset(&v->particles, 0, sizeof v->particles);
    memset(&v->opaque, 0, sizeof v->opaque);
    memset(&v->translucent, 0, sizeof v->translucent);
}

/* Surfaces are made once per body definition: a world's bodies keep theirs, a new world (a reset
 * environment) brings new ones. Floors are squares reaching well past the particles. */
static loam_status body_surfaces(loam_viewer* v, const loam_world* w, loam_vec3 centre, float half, loam_error* err) {
    int n = loam_world_body_count(w);
    int same = n == v->body_count;
    for (int b = 0; same && b < n; ++b) same = v->bodies[b].def == (const void*)loam_world_body_def(w, b);
    if (same) return LOAM_OK;
    free_bodies(v);
    v->bodies = calloc((size_t)n + 1, sizeof *v->bodies);
    if (!v->bodies) return loam_error_set(err, LOAM_ERR_NOMEM, "viewer: out of memory for %d bodies", n);
    v->body_count = n;
    for (int b = 0; b < n; ++b) {
        const loam_body_def* d = loam_world_body_def(w, b);
        loam_vec3 local = loam_pose_apply_inverse(loam_world_body_state(w, b)->pose, centre);
        loam_status st = loam_shapes_surface(d->shapes, d->shape_count, local, half, &v->bodies[b].surface, err);
        if (st != LOAM_OK) return st;
        v->bodies[b].def = d;
        int moving = d->motion != LOAM_MOTION_FIXED; /* as `loam run` renders them: the eye finds the tool */
        uint8_t rgb[3] = {moving ? 230 : 150, moving ? 120 : 155, moving ? 40 : 165};
        memcpy(v->bodies[b].rgb, rgb, 3);
    }
    return LOAM_OK;
}

/* The orbit camera: `dir` from the target towards the eye (unit), `distance` along it. */
static void place_camera(loam_viewer* v, loam_vec3 target, loam_vec3 dir, float distance) {
    v->distance = distance;
    v->yaw = atan2f(dir.y, dir.x);
    v->pitch = asinf(fmaxf(-0.999f, fminf(0.999f, dir.z)));
    v->target[0] = target.x, v->target[1] = target.y, v->target[2] = target.z;
    float home[5] = {v->yaw, v->pitch, v->distance, target.x, target.y};
    memcpy(v->home, home, sizeof home);
    v->home_z = target.z;
    v->framed = 1;
}

/* Orbit the bounding box from the front-left, above, as `loam run` frames its pictures. */
static void frame_camera(loam_viewer* v, loam_vec3 lo, loam_vec3 hi) {
    float size = v3_length(v3_sub(hi, lo));
    place_camera(v, v3_scale(v3_add(lo, hi), 0.5f), v3_normalize(v3(0.55f, -1.0f, 0.6f)),
                 (size > 0.0f ? size : 1.0f) * 0.6f / tanf(0.5f * 40.0f * 3.14159265f / 180.0f));
}

loam_status loam_viewer_look_at(loam_viewer* v, loam_vec3 eye, loam_vec3 target, loam_error* err) {
    if (!v) return loam_error_set(err, LOAM_ERR_INPUT, "viewer: viewer is NULL");
    float d = v3_length(v3_sub(eye, target));
    if (!v3_is_finite(eye) || !v3_is_finite(target) || !(d > 0.0f) || !isfinite(d))
        return loam_error_set(err, LOAM_ERR_INPUT, "viewer: look_at from (%g, %g, %g) to (%g, %g, %g): need two distinct finite points",
                              (double)eye.x, (double)eye.y, (double)eye.z, (double)target.x, (double)target.y, (double)target.z);
    place_camera(v, target, v3_scale(v3_sub(eye, target), 1.0f / d), d);
    return LOAM_OK;
}

loam_status loam_viewer_draw_granular(loam_viewer* v, const loam_world* w, loam_error* err) {
    if (!v || !w) return loam_error_set(err, LOAM_ERR_INPUT, "viewer: %s is NULL", v ? "world" : "viewer");
    loam_particles p = loam_world_particles((loam_world*)w);
    loam_vec3 lo = v3(INFINITY, INFINITY, INFINITY), hi = v3(-INFINITY, -INFINITY, -INFINITY);
    for (int i = 0; i < p.count; ++i) {
        if (!isfinite(p.x[i]) || !isfinite(p.y[i]) || !isfinite(p.z[i])) continue;
        lo = v3_min(lo, v3(p.x[i], p.y[i], p.z[i]));
        hi = v3_max(hi, v3(p.x[i], p.y[i], p.z[i]));
    }
    if (!(hi.x >= lo.x)) lo = hi = v3(0, 0, 0);
    if (!v->height_set) {
        v->height_lo = lo.z;
        v->height_hi = hi.z > lo.z ? hi.z : lo.z + 1.0f;
        v->height_set = 1;
    }
    loam_status st = body_surfaces(v, w, v3_scale(v3_add(lo, hi), 0.5f), fmaxf(0.75f * v3_length(v3_sub(hi, lo)), 0.5f), err);
    if (st != LOAM_OK) return st;
    for (int i = 0; i < p.count; ++i) {
        uint8_t rgb[3];
        loam_colormap_eval(LOAM_COLORMAP_VIRIDIS, (p.z[i] - v->height_lo) / (v->height_hi - v->height_lo), rgb);
        float item[7] = {p.x[i], p.y[i], p.z[i], p.radius[i], rgb[0] / 255.0f, rgb[1] / 255.0f, rgb[2] / 255.0f};
        if (!viewer_floats_push(&v->particles, item, 7))
            return loam_error_set(err, LOAM_ERR_NOMEM, "viewer: out of memory for %d particles", p.count);
    }
    /* Bodies' corners in world coordinates; the camera frames them too, floors aside. */
    for (int b = 0; b < v->body_count; ++b) {
        const loam_mesh* m = &v->bodies[b].surface;
        const loam_body_def* d = loam_world_body_def(w, b);
        int floor = d->shape_count == 1 && d->shapes[0].type == LOAM_SHAPE_PLANE;
        loam_pose pose = loam_world_body_state(w, b)->pose;
        for (int t = 0; t < m->triangle_count; ++t)
            for (int c = 0; c < 3; ++c) {
                const float* x = &m->vertices[3 * (size_t)m->triangles[3 * (size_t)t + c]];
                loam_vec3 q = loam_pose_apply(pose, v3(x[0], x[1], x[2]));
                if (!floor) lo = v3_min(lo, q), hi = v3_max(hi, q);
                const uint8_t* rgb = v->bodies[b].rgb;
                float item[7] = {q.x, q.y, q.z, rgb[0] / 255.0f, rgb[1] / 255.0f, rgb[2] / 255.0f, floor ? 0.35f : 0.5f};
                if (!viewer_floats_push(&v->translucent, item, 7))
                    return loam_error_set(err, LOAM_ERR_NOMEM, "viewer: out of memory for body %d's surface", b);
            }
    }
    if (!v->framed) frame_camera(v, lo, hi);
    return LOAM_OK;
}

loam_status loam_viewer_draw_triangles(loam_viewer* v, const loam_render_triangles* t, loam_error* err) {
    if (!v || !t) return loam_error_set(err, LOAM_ERR_INPUT, "viewer: %s is NULL", v ? "triangles" : "viewer");
    if (t->count < 0 || t->vertex_count < 0 || (t->count > 0 && (!t->index || !t->x || !t->y || !t->z)))
        return loam_error_set(err, LOAM_ERR_INPUT, "viewer: %d triangles over %d vertices with missing arrays", t->count,
                              t->vertex_count);
    if ((unsigned)t->colormap >= LOAM_COLORMAP_COUNT)
        return loam_error_set(err, LOAM_ERR_INPUT, "viewer: colormap %d is not a colormap", (int)t->colormap);
    for (size_t k = 0; k < 3 * (size_t)t->count; ++k)
        if (t->index[k] < 0 || t->index[k] >= t->vertex_count)
            return loam_error_set(err, LOAM_ERR_INPUT, "viewer: triangle %zu: vertex %d is not in 0..%d", k / 3,
                                  (int)t->index[k], t->vertex_count - 1);
    float span = t->scalar_max > t->scalar_min ? t->scalar_max - t->scalar_min : 1.0f;
    loam_vec3 lo = v3(INFINITY, INFINITY, INFINITY), hi = v3(-INFINITY, -INFINITY, -INFINITY);
    for (int k = 0; k < t->count; ++k) {
        float s = 0.0f;
        if (t->scalar)
            for (int c = 0; c < 3; ++c) s += t->scalar[t->index[3 * k + c]] / 3.0f;
        uint8_t rgb[3] = {t->color[0], t->color[1], t->color[2]};
        if (t->scalar) loam_colormap_eval(t->colormap, (s - t->scalar_min) / span, rgb);
        for (int c = 0; c < 3; ++c) {
            int i = t->index[3 * k + c];
            float item[7] = {t->x[i], t->y[i], t->z[i], rgb[0] / 255.0f, rgb[1] / 255.0f, rgb[2] / 255.0f, 1.0f};
            if (!viewer_floats_push(&v->opaque, item, 7))
                return loam_error_set(err, LOAM_ERR_NOMEM, "viewer: out of memory for %d triangles", t->count);
            if (isfinite(item[0]) && isfinite(item[1]) && isfinite(item[2]))
                lo = v3_min(lo, v3(item[0], item[1], item[2])), hi = v3_max(hi, v3(item[0], item[1], item[2]));
        }
    }
    if (!v->framed && hi.x >= lo.x) frame_camera(v, lo, hi);
    return LOAM_OK;
}

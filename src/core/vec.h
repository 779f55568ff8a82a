/* Inline vector and quaternion arithmetic on the public loam_vec3/loam_quat types. Private: the
 * public API passes these types but does not need the operators. */
#ifndef LOAM_CORE_VEC_H
#define LOAM_CORE_VEC_H

#include <math.h>

#include "loam/core.h"

static inline loam_vec3 v3(float x, float y, float z) { loam_vec3 r = {x, y, z}; return r; }
static inline loam_vec3 v3_add(loam_vec3 a, loam_vec3 b) { return v3(a.x + b.x, a.y + b.y, a.z + b.z); }
static inline loam_vec3 v3_sub(loam_vec3 a, loam_vec3 b) { return v3(a.x - b.x, a.y - b.y, a.z - b.z); }
static inline loam_vec3 v3_scale(loam_vec3 a, float s) { return v3(a.x * s, a.y * s, a.z * s); }
static inline float v3_dot(loam_vec3 a, loam_vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static inline loam_vec3 v3_cross(loam_vec3 a, loam_vec3 b) {
    return v3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
static inline float v3_length(loam_vec3 a) { return sqrtf(v3_dot(a, a)); }
static inline loam_vec3 v3_normalize(loam_vec3 a) {
    float len = v3_length(a);
    return len > 0.0f ? v3_scale(a, 1.0f / len) : v3(0.0f, 0.0f, 1.0f);
}
static inline loam_vec3 v3_abs(loam_vec3 a) { return v3(fabsf(a.x), fabsf(a.y), fabsf(a.z)); }
static inline loam_vec3 v3_max(loam_vec3 a, loam_vec3 b) {
    return v3(fmaxf(a.x, b.x), fmaxf(a.y, b.y), fmaxf(a.z, b.z));
}
static inline loam_vec3 v3_min(loam_vec3 a, loam_vec3 b) {
    return v3(fminf(a.x, b.x), fminf(a.y, b.y), fminf(a.z, b.z));
}
static inline float v3_get(loam_vec3 a, int axis) { return axis == 0 ? a.x : axis == 1 ? a.y : a.z; }
static inline int v3_is_finite(loam_vec3 a) { return isfinite(a.x) && isfinite(a.y) && isfinite(a.z); }

static inline loam_quat quat(float w, float x, float y, float z) { loam_quat q = {w, x, y, z}; return q; }
static inline loam_quat quat_mul(loam_quat a, loam_quat b) {
    return quat(a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
                a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
                a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w);
}
static inline loam_quat quat_conj(loam_quat q) { return quat(q.w, -q.x, -q.y, -q.z); }
static inline loam_quat quat_normalize(loam_quat q) {
    float n = sqrtf(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z);
    return n > 0.0f ? quat(q.w / n, q.x / n, q.y / n, q.z / n) : quat(1.0f, 0.0f, 0.0f, 0.0f);
}
/* Rotate v by unit q: v + 2w(u x v) + 2 u x (u x v), u the vector part. */
static inline loam_vec3 quat_rotate(loam_quat q, loam_vec3 v) {
    loam_vec3 u = v3(q.x, q.y, q.z);
    loam_vec3 t = v3_scale(v3_cross(u, v), 2.0f);
    return v3_add(v3_add(v, v3_scale(t, q.w)), v3_cross(u, t));
}

#endif

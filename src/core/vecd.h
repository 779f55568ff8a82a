/* Double-precision 3-vectors, 3x3 matrices and quaternions on the public loam_vec3d/loam_quatd/
 * loam_posed types: the multibody module and the solvers work in double (DESIGN.md principle 4).
 * The float twins are in core/vec.h. */
#ifndef LOAM_CORE_VECD_H
#define LOAM_CORE_VECD_H

#include <math.h>

#include "loam/core.h"

static inline loam_vec3d d3(double x, double y, double z) { loam_vec3d r = {x, y, z}; return r; }
static inline loam_vec3d d3_add(loam_vec3d a, loam_vec3d b) { return d3(a.x + b.x, a.y + b.y, a.z + b.z); }
static inline loam_vec3d d3_sub(loam_vec3d a, loam_vec3d b) { return d3(a.x - b.x, a.y - b.y, a.z - b.z); }
static inline loam_vec3d d3_scale(loam_vec3d a, double s) { return d3(a.x * s, a.y * s, a.z * s); }
static inline loam_vec3d d3_neg(loam_vec3d a) { return d3(-a.x, -a.y, -a.z); }
static inline double d3_dot(loam_vec3d a, loam_vec3d b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static inline loam_vec3d d3_cross(loam_vec3d a, loam_vec3d b) {
    return d3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
static inline double d3_norm(loam_vec3d a) { return sqrt(d3_dot(a, a)); }
/* A right-handed contact frame (n, t1, t2) around a unit normal n: t1 from n and the first axis
 * that is not near it, t2 = n x t1. The one tangent frame of every double-precision contact. */
static inline void d3_tangents(loam_vec3d n, loam_vec3d* t1, loam_vec3d* t2) {
    loam_vec3d a = fabs(n.x) < 0.57 ? d3(1, 0, 0) : fabs(n.y) < 0.57 ? d3(0, 1, 0) : d3(0, 0, 1);
    *t1 = d3_cross(n, a);
    *t1 = d3_scale(*t1, 1.0 / d3_norm(*t1));
    *t2 = d3_cross(n, *t1);
}
static inline int d3_is_finite(loam_vec3d a) { return isfinite(a.x) && isfinite(a.y) && isfinite(a.z); }
static inline double d3_get(loam_vec3d a, int i) { return i == 0 ? a.x : i == 1 ? a.y : a.z; }
static inline loam_vec3d d3_load(const double* p) { return d3(p[0], p[1], p[2]); }
static inline void d3_store(double* p, loam_vec3d a) { p[0] = a.x; p[1] = a.y; p[2] = a.z; }

/* Row-major 3x3 matrix. */
typedef struct mat3d { double m[3][3]; } mat3d;

static inline mat3d m3_identity(void) { mat3d r = {{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}; return r; }
static inline mat3d m3_zero(void) { mat3d r = {{{0, 0, 0}, {0, 0, 0}, {0, 0, 0}}}; return r; }
static inline loam_vec3d m3_apply(const mat3d* a, loam_vec3d v) {
    return d3(a->m[0][0] * v.x + a->m[0][1] * v.y + a->m[0][2] * v.z, a->m[1][0] * v.x + a->m[1][1] * v.y + a->m[1][2] * v.z,
              a->m[2][0] * v.x + a->m[2][1] * v.y + a->m[2][2] * v.z);
}
static inline loam_vec3d m3_apply_t(const mat3d* a, loam_vec3d v) {
    return d3(a->m[0][0] * v.x + a->m[1][0] * v.y + a->m[2][0] * v.z, a->m[0][1] * v.x + a->m[1][1] * v.y + a->m[2][1] * v.z,
              a->m[0][2] * v.x + a->m[1][2] * v.y + a->m[2][2] * v.z);
}
static inline mat3d m3_mul(const mat3d* a, const mat3d* b) {
    mat3d r;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) r.m[i][j] = a->m[i][0] * b->m[0][j] + a->m[i][1] * b->m[1][j] + a->m[i][2] * b->m[2][j];
    return r;
}
static inline mat3d m3_transpose(const mat3d* a) {
    mat3d r;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) r.m[i][j] = a->m[j][i];
    return r;
}
/* [a]x, the matrix of a x (.). */
static inline mat3d m3_skew(loam_vec3d a) {
    mat3d r = {{{0, -a.z, a.y}, {a.z, 0, -a.x}, {-a.y, a.x, 0}}};
    return r;
}
/* R A R^T: a tensor (inertia) carried into other axes. */
static inline mat3d m3_rotate_tensor(const mat3d* R, const mat3d* A) {
    mat3d t = m3_mul(R, A), rt = m3_transpose(R);
    return m3_mul(&t, &rt);
}

static inline loam_quatd qd_make(double w, double x, double y, double z) { loam_quatd q = {w, x, y, z}; return q; }
static inline loam_quatd qd_identity(void) { return qd_make(1, 0, 0, 0); }
static inline loam_quatd qd_mul(loam_quatd a, loam_quatd b) {
    return qd_make(a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z, a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                   a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x, a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w);
}
static inline loam_quatd qd_conj(loam_quatd q) { return qd_make(q.w, -q.x, -q.y, -q.z); }
static inline double qd_norm(loam_quatd q) { return sqrt(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z); }
static inline loam_quatd qd_normalize(loam_quatd q) {
    double n = qd_norm(q);
    return n > 0.0 ? qd_make(q.w / n, q.x / n, q.y / n, q.z / n) : qd_identity();
}
static inline loam_vec3d qd_rotate(loam_quatd q, loam_vec3d v) {
    loam_vec3d u = d3(q.x, q.y, q.z), t = d3_scale(d3_cross(u, v), 2.0);
    return d3_add(d3_add(v, d3_scale(t, q.w)), d3_cross(u, t));
}
static inline loam_quatd qd_from_axis_angle(loam_vec3d unit_axis, double angle) {
    double s = sin(0.5 * angle);
    return qd_make(cos(0.5 * angle), unit_axis.x * s, unit_axis.y * s, unit_axis.z * s);
}
/* exp of a rotation vector (axis times angle); exact for any size, series near zero. */
static inline loam_quatd qd_exp(loam_vec3d rv) {
    double a = d3_norm(rv);
    if (a < 1e-8) return qd_normalize(qd_make(1.0, 0.5 * rv.x, 0.5 * rv.y, 0.5 * rv.z));
    return qd_from_axis_angle(d3_scale(rv, 1.0 / a), a);
}
static inline mat3d qd_to_mat(loam_quatd q) {
    double w = q.w, x = q.x, y = q.y, z = q.z;
    mat3d r = {{{1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)},
                {2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)},
                {2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)}}};
    return r;
}
/* URDF's roll-pitch-yaw: R = Rz(yaw) Ry(pitch) Rx(roll). */
static inline loam_quatd qd_from_rpy(double roll, double pitch, double yaw) {
    loam_quatd qx = qd_from_axis_angle(d3(1, 0, 0), roll), qy = qd_from_axis_angle(d3(0, 1, 0), pitch);
    loam_quatd qz = qd_from_axis_angle(d3(0, 0, 1), yaw);
    return qd_mul(qz, qd_mul(qy, qx));
}
static inline int qd_is_finite(loam_quatd q) { return isfinite(q.w) && isfinite(q.x) && isfinite(q.y) && isfinite(q.z); }

static inline loam_posed pd_identity(void) { loam_posed p = {{0, 0, 0}, {1, 0, 0, 0}}; return p; }
/* a * b: b's frame given in a's, composed. */
static inline loam_posed pd_mul(loam_posed a, loam_posed b) {
    loam_posed r = {d3_add(a.p, qd_rotate(a.q, b.p)), qd_mul(a.q, b.q)};
    return r;
}
static inline loam_vec3d pd_apply(loam_posed a, loam_vec3d v) { return d3_add(a.p, qd_rotate(a.q, v)); }

#endif

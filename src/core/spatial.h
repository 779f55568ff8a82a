/* Spatial (6D) algebra in double, Featherstone's conventions ("Rigid Body Dynamics Algorithms",
 * 2008, ch. 2): a motion vector is [angular; linear] = [w; v], v the velocity of the point at the
 * coordinate origin; a force vector is [moment about the origin; force] = [n; f]. */
#ifndef LOAM_CORE_SPATIAL_H
#define LOAM_CORE_SPATIAL_H

#include "core/vecd.h"

typedef struct sv6 { loam_vec3d ang, lin; } sv6;

/* A coordinate transform from frame A to frame B, where B's axes are E^T in A's and B's origin sits
 * at r in A (so E rotates A-coordinates into B-coordinates). */
typedef struct sxform { mat3d E; loam_vec3d r; } sxform;

/* A rigid-body inertia about the coordinate origin: mass m, first moment h = m c (c the centre of
 * mass) and the rotational inertia Ibar about the origin. Closed under addition (composite bodies). */
typedef struct sinertia { double m; loam_vec3d h; mat3d Ibar; } sinertia;

static inline sv6 sv6_zero(void) { sv6 r = {{0, 0, 0}, {0, 0, 0}}; return r; }
static inline sv6 sv6_make(loam_vec3d ang, loam_vec3d lin) { sv6 r = {ang, lin}; return r; }
static inline sv6 sv6_add(sv6 a, sv6 b) { return sv6_make(d3_add(a.ang, b.ang), d3_add(a.lin, b.lin)); }
static inline sv6 sv6_sub(sv6 a, sv6 b) { return sv6_make(d3_sub(a.ang, b.ang), d3_sub(a.lin, b.lin)); }
static inline sv6 sv6_scale(sv6 a, double s) { return sv6_make(d3_scale(a.ang, s), d3_scale(a.lin, s)); }
/* The pairing of a motion and a force vector (power). */
static inline double sv6_dot(sv6 m, sv6 f) { return d3_dot(m.ang, f.ang) + d3_dot(m.lin, f.lin); }
static inline double sv6_get(sv6 a, int i) { return i < 3 ? d3_get(a.ang, i) : d3_get(a.lin, i - 3); }

/* v x m (motion cross motion). */
static inline sv6 sv6_cross_m(sv6 v, sv6 m) {
    return sv6_make(d3_cross(v.ang, m.ang), d3_add(d3_cross(v.ang, m.lin), d3_cross(v.lin, m.ang)));
}
/* v x* f (motion cross force). */
static inline sv6 sv6_cross_f(sv6 v, sv6 f) {
    return sv6_make(d3_add(d3_cross(v.ang, f.ang), d3_cross(v.lin, f.lin)), d3_cross(v.ang, f.lin));
}

/* X m: a motion vector from A-coordinates into B-coordinates. */
static inline sv6 sx_apply_motion(const sxform* X, sv6 m) {
    return sv6_make(m3_apply(&X->E, m.ang), m3_apply(&X->E, d3_sub(m.lin, d3_cross(X->r, m.ang))));
}
/* X^-1 m: a motion vector from B back into A. */
static inline sv6 sx_inverse_motion(const sxform* X, sv6 m) {
    loam_vec3d w = m3_apply_t(&X->E, m.ang);
    return sv6_make(w, d3_add(m3_apply_t(&X->E, m.lin), d3_cross(X->r, w)));
}
/* X^T f: a force vector from B-coordinates back into A (how children push on parents). */
static inline sv6 sx_transpose_force(const sxform* X, sv6 f) {
    loam_vec3d fl = m3_apply_t(&X->E, f.lin);
    return sv6_make(d3_add(m3_apply_t(&X->E, f.ang), d3_cross(X->r, fl)), fl);
}

/* I v: the momentum of a body moving with v. */
static inline sv6 si_apply(const sinertia* I, sv6 v) {
    return sv6_make(d3_add(m3_apply(&I->Ibar, v.ang), d3_cross(I->h, v.lin)), d3_sub(d3_scale(v.lin, I->m), d3_cross(I->h, v.ang)));
}
/* From mass, centre of mass and the rotational inertia about the centre of mass (same axes). */
static inline sinertia si_from_com(double m, loam_vec3d c, const mat3d* Ic) {
    sinertia I;
    I.m = m;
    I.h = d3_scale(c, m);
    double cc = d3_dot(c, c);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            I.Ibar.m[i][j] = Ic->m[i][j] + m * ((i == j ? cc : 0.0) - d3_get(c, i) * d3_get(c, j));
    return I;
}
static inline sinertia si_add(const sinertia* a, const sinertia* b) {
    sinertia r;
    r.m = a->m + b->m;
    r.h = d3_add(a->h, b->h);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) r.Ibar.m[i][j] = a->Ibar.m[i][j] + b->Ibar.m[i][j];
    return r;
}
/* X^T I X: an inertia given in B-coordinates, expressed in A (no division by the mass, so massless
 * links pass through). With hh = E^T h: Ibar_A = E^T Ibar E + m(|r|^2 1 - r r^T) + 2(r.hh) 1 - r hh^T - hh r^T. */
static inline sinertia si_to_parent(const sxform* X, const sinertia* I) {
    sinertia r;
    r.m = I->m;
    loam_vec3d hh = m3_apply_t(&X->E, I->h);
    r.h = d3_add(hh, d3_scale(X->r, I->m));
    mat3d Et = m3_transpose(&X->E);
    r.Ibar = m3_rotate_tensor(&Et, &I->Ibar);
    double rr = d3_dot(X->r, X->r), rh = d3_dot(X->r, hh);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            double ri = d3_get(X->r, i), rj = d3_get(X->r, j), hi = d3_get(hh, i), hj = d3_get(hh, j);
            r.Ibar.m[i][j] += I->m * ((i == j ? rr : 0.0) - ri * rj) + (i == j ? 2.0 * rh : 0.0) - ri * hj - hi * rj;
        }
    return r;
}

#endif

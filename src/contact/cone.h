/* The Coulomb cone, written once for every solver and both precisions.
 *
 * A contact impulse has a normal part l_n and a tangential part t. Every loam solver projects it
 * the same way: the normal is clamped at zero and the tangent is scaled radially onto the disk of
 * radius mu l_n (paper 000's per-row projection, paper 004's eq. (20), PGS, PJ). This is the
 * "disk" projection, not the Euclidean projection onto the cone: it keeps the tangent's direction,
 * so a sliding contact's friction stays opposite to its slip (maximal dissipation).
 *
 * The functions are instantiated for float (granular rows: loam_*_f) and double (multibody and
 * the contact problem of cp.h: loam_*_d) from one body each, so both precisions do the same
 * operations in the same order. The AVX2 kernel's lane-wise form is in cone_avx2.h, and
 * test_cone checks that it gives these bits. The comparison is on squares (|t|^2 > cap^2), so a
 * sticking contact, the common case in a bed at rest, needs no square root. */
#ifndef LOAM_CONTACT_CONE_H
#define LOAM_CONTACT_CONE_H

#include <math.h>

#define LOAM_CONE_FUNCTIONS(real, sfx, sqrt_fn)                                                        \
    /* Whether a tangent of squared length t2 lies outside the disk of radius cap >= 0 (sliding). */ \
    static inline int loam_disk_slides_##sfx(real t2, real cap) { return t2 > cap * cap; }           \
    /* The factor that takes that tangent onto the disk: 1 when it sticks, cap / |t| when it slides. */ \
    static inline real loam_disk_scale_##sfx(real t2, real cap) {                                    \
        return loam_disk_slides_##sfx(t2, cap) ? cap / sqrt_fn(t2) : (real)1;                        \
    }                                                                                                \
    /* In the contact frame: l = (normal, tangent 1, tangent 2) onto the cone of friction mu. */     \
    static inline void loam_cone_project_##sfx(real mu, const real l[3], real out[3]) {              \
        real n = l[0] > (real)0 ? l[0] : (real)0;                                                    \
        real s = loam_disk_scale_##sfx(l[1] * l[1] + l[2] * l[2], mu * n);                           \
        out[0] = n, out[1] = l[1] * s, out[2] = l[2] * s;                                            \
    }                                                                                                \
    /* In world axes: l a world vector, n the unit normal. A normal part <= 0 gives zero; a NaN one  \
     * is not <= 0 and passes through, so the divergence checks see it. */                           \
    static inline void loam_cone_project_world_##sfx(real mu, const real n[3], const real l[3], real out[3]) { \
        real ln = l[0] * n[0] + l[1] * n[1] + l[2] * n[2];                                           \
        if (ln <= (real)0) {                                                                         \
            out[0] = out[1] = out[2] = (real)0;                                                      \
            return;                                                                                  \
        }                                                                                            \
        real tx = l[0] - n[0] * ln, ty = l[1] - n[1] * ln, tz = l[2] - n[2] * ln;                    \
        real s = loam_disk_scale_##sfx(tx * tx + ty * ty + tz * tz, mu * ln);                        \
        out[0] = ln * n[0] + tx * s, out[1] = ln * n[1] + ty * s, out[2] = ln * n[2] + tz * s;       \
    }

LOAM_CONE_FUNCTIONS(float, f, sqrtf)
LOAM_CONE_FUNCTIONS(double, d, sqrt)

#undef LOAM_CONE_FUNCTIONS

#endif

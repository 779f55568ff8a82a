/* The box's signed distance, written once for both precisions: float for per-particle queries
 * (geom/shapes.c, loam_shape_sdf) and double for rigid-body collision (multibody/collide_convex.c),
 * as docs/architecture.md's precision policy says. p is a point in the box's frame, h its half
 * extents; the normal (optional) is the outward unit gradient: along the nearest point's direction
 * outside, along the nearest face's axis inside. */
#ifndef LOAM_GEOM_BOX_SDF_H
#define LOAM_GEOM_BOX_SDF_H

#include <math.h>
#include <stddef.h>

#define LOAM_BOX_SDF(real, sfx, sqrt_fn, fabs_fn)                                                      \
    static inline real loam_box_sdf_##sfx(const real p[3], const real h[3], real normal[3]) {       \
        real q[3], out[3], sign[3];                                                                  \
        for (int k = 0; k < 3; ++k) {                                                                \
            q[k] = fabs_fn(p[k]) - h[k];                                                             \
            out[k] = q[k] > (real)0 ? q[k] : (real)0;                                                \
            sign[k] = p[k] < (real)0 ? (real)-1 : (real)1;                                           \
        }                                                                                            \
        real outside = sqrt_fn(out[0] * out[0] + out[1] * out[1] + out[2] * out[2]);                 \
        if (outside > (real)0) {                                                                     \
            if (normal)                                                                              \
                for (int k = 0; k < 3; ++k) normal[k] = sign[k] * out[k] / outside;                  \
            return outside;                                                                          \
        }                                                                                            \
        /* inside: the nearest face is the one with the largest (least negative) q */               \
        int axis = q[0] >= q[1] && q[0] >= q[2] ? 0 : (q[1] >= q[2] ? 1 : 2);                        \
        if (normal)                                                                                  \
            for (int k = 0; k < 3; ++k) normal[k] = k == axis ? sign[k] : (real)0;                   \
        return q[axis];                                                                              \
    }

LOAM_BOX_SDF(float, f, sqrtf, fabsf)
LOAM_BOX_SDF(double, d, sqrt, fabs)

#undef LOAM_BOX_SDF

#endif

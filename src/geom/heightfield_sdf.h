/* The height field's surface and signed distance, written once for both precisions like the box's
 * (geom/box_sdf.h): float for particles and soft-body masses (loam_shape_sdf), double for rigid
 * bodies. Heights are stored as float either way. The definitions (grid placement, border rule,
 * what the distance is and its error bound) are in loam/geom.h above loam_heightfield. */
#ifndef LOAM_GEOM_HEIGHTFIELD_SDF_H
#define LOAM_GEOM_HEIGHTFIELD_SDF_H

#include <math.h>
#include <stddef.h>

#include "loam/geom.h"

/* Cell index and fraction of sample coordinate u in [0, n - 1] (clamped; *out set when clamped, so
 * the gradient across the border is 0). (1 - t) a + t b below is exact at t = 0 and t = 1, so the
 * interpolant returns a sample's height bit for bit at the sample. */
#define LOAM_HEIGHTFIELD_SDF(real, sfx, sqrt_fn)                                                      \
    static inline int loam_hf_cell_##sfx(real u, int n, real* t, int* out) {                         \
        *out = 0;                                                                                    \
        if (!(u > (real)0)) u = (real)0, *out = 1; /* NaN too: a finite answer, never an index */    \
        if (u > (real)(n - 1)) u = (real)(n - 1), *out = 1;                                          \
        int i = (int)u;                                                                              \
        if (i > n - 2) i = n - 2;                                                                    \
        *t = u - (real)i;                                                                            \
        return i;                                                                                    \
    }                                                                                                \
    static inline real loam_hf_height_##sfx(const loam_heightfield* hf, real x, real y, real g[2]) { \
        real dx = (real)hf->dx, dy = (real)hf->dy, s, t;                                             \
        int ox, oy;                                                                                  \
        int i = loam_hf_cell_##sfx(x / dx + (real)0.5 * (real)(hf->nx - 1), hf->nx, &s, &ox);        \
        int j = loam_hf_cell_##sfx(y / dy + (real)0.5 * (real)(hf->ny - 1), hf->ny, &t, &oy);        \
        const float* row0 = hf->heights + (size_t)j * (size_t)hf->nx + i;                            \
        const float* row1 = row0 + hf->nx;                                                           \
        real h00 = row0[0], h10 = row0[1], h01 = row1[0], h11 = row1[1];                             \
        real a = ((real)1 - s) * h00 + s * h10, b = ((real)1 - s) * h01 + s * h11;                  \
        if (g) {                                                                                     \
            g[0] = ox ? (real)0 : (((real)1 - t) * (h10 - h00) + t * (h11 - h01)) / dx;              \
            g[1] = oy ? (real)0 : (b - a) / dy;                                                      \
        }                                                                                            \
        return ((real)1 - t) * a + t * b;                                                            \
    }                                                                                                \
    static inline real loam_heightfield_sdf_##sfx(const loam_heightfield* hf, const real p[3],       \
                                                  real normal[3]) {                                  \
        real g[2];                                                                                   \
        real h = loam_hf_height_##sfx(hf, p[0], p[1], g);                                            \
        real nz = (real)1 / sqrt_fn((real)1 + g[0] * g[0] + g[1] * g[1]);                            \
        if (normal) normal[0] = -g[0] * nz, normal[1] = -g[1] * nz, normal[2] = nz;                  \
        return (p[2] - h) * nz;                                                                      \
    }

LOAM_HEIGHTFIELD_SDF(float, f, sqrtf)
LOAM_HEIGHTFIELD_SDF(double, d, sqrt)

#undef LOAM_HEIGHTFIELD_SDF

#endif

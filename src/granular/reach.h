/* The neighbour-list build's candidate test (detect.c), shared with its AVX2 version
 * (reach_avx2.c) so that both keep exactly the same candidates. */
#ifndef LOAM_GRANULAR_REACH_H
#define LOAM_GRANULAR_REACH_H

#include <stdint.h>

/* Whether particle p (x, y, z, r) and a candidate are within r_p + r + margin, the short way
 * along the periodic axis (as loam_pair_offset wraps; axis < 0: none). */
static inline int loam_within_reach(const float* p, float x, float y, float z, float r, float margin, int axis,
                                    float len) {
    float d[3] = {p[0] - x, p[1] - y, p[2] - z};
    if (axis >= 0) d[axis] -= d[axis] > 0.5f * len ? len : (d[axis] < -0.5f * len ? -len : 0.0f);
    float cut = p[3] + r + margin;
    return d[0] * d[0] + d[1] * d[1] + d[2] * d[2] < cut * cut;
}

/* The candidates among n (coordinates cx, cy, cz, radii cr, indices idx) within reach of p whose
 * index is above `above`, appended to out in candidate order (out holds n entries, and is written
 * past the count); returns how many. */
int loam_reach_filter_avx2(const float p[4], const float* cx, const float* cy, const float* cz, const float* cr,
                           const int32_t* idx, int n, int32_t above, float margin, int axis, float len, int32_t* out);

#endif

/* AVX2 version of the neighbour-list build's candidate test (detect.c, find_neighbors): 8 gathered
 * candidates per batch against one particle. Every operation is the scalar test's, in its order
 * (d = p - c per axis, the periodic image, (dx dx + dy dy) + dz dz < (r_p + r + margin)^2), with no
 * fused multiply-add (the build uses -ffp-contract=off), so both keep the same candidates; the
 * survivors are appended in candidate order as the scalar loop appends them. Compiled with -mavx2
 * and only called after a run-time check of the CPU. */
#include <immintrin.h>

#include "granular/reach.h"

int loam_reach_filter_avx2(const float p[4], const float* cx, const float* cy, const float* cz, const float* cr,
                           const int32_t* idx, int n, int32_t above, float margin, int axis, float len, int32_t* out) {
    const __m256 px = _mm256_set1_ps(p[0]), py = _mm256_set1_ps(p[1]), pz = _mm256_set1_ps(p[2]);
    const __m256 pr = _mm256_set1_ps(p[3]), mg = _mm256_set1_ps(margin);
    const __m256 half = _mm256_set1_ps(0.5f * len), nhalf = _mm256_set1_ps(-0.5f * len);
    const __m256 plen = _mm256_set1_ps(len), nlen = _mm256_set1_ps(-len), zero = _mm256_setzero_ps();
    const __m256i lower = _mm256_set1_epi32(above);
    int count = 0, s = 0;
    for (; s + 8 <= n; s += 8) {
        __m256 d[3] = {_mm256_sub_ps(px, _mm256_loadu_ps(cx + s)), _mm256_sub_ps(py, _mm256_loadu_ps(cy + s)),
                       _mm256_sub_ps(pz, _mm256_loadu_ps(cz + s))};
        if (axis >= 0) {
            /* d -= d > len/2 ? len : (d < -len/2 ? -len : 0), as the scalar test. */
            __m256 a = d[axis];
            __m256 shift = _mm256_blendv_ps(zero, nlen, _mm256_cmp_ps(a, nhalf, _CMP_LT_OQ));
            shift = _mm256_blendv_ps(shift, plen, _mm256_cmp_ps(a, half, _CMP_GT_OQ));
            d[axis] = _mm256_sub_ps(a, shift);
        }
        __m256 cut = _mm256_add_ps(_mm256_add_ps(pr, _mm256_loadu_ps(cr + s)), mg);
        __m256 d2 = _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(d[0], d[0]), _mm256_mul_ps(d[1], d[1])),
                                  _mm256_mul_ps(d[2], d[2]));
        __m256i id = _mm256_loadu_si256((const __m256i*)(idx + s));
        __m256 keep = _mm256_and_ps(_mm256_cmp_ps(d2, _mm256_mul_ps(cut, cut), _CMP_LT_OQ),
                                    _mm256_castsi256_ps(_mm256_cmpgt_epi32(id, lower)));
        unsigned mask = (unsigned)_mm256_movemask_ps(keep);
        for (int l = 0; l < 8; ++l) { /* branch-free append, as the scalar loop */
            out[count] = idx[s + l];
            count += (int)((mask >> l) & 1u);
        }
    }
    for (; s < n; ++s) {
        out[count] = idx[s];
        count += loam_within_reach(p, cx[s], cy[s], cz[s], cr[s], margin, axis, len) & (idx[s] > above);
    }
    return count;
}

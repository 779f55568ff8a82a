/* contact/cone.h's world-axes projection on 8 float lanes (AVX2): the same operations in the same
 * order as loam_cone_project_world_f, so every lane gives that function's bits (test_cone checks
 * it on random rows). The functions carry target("avx2") so that a file built without -mavx2 (a
 * test) can call them after a run-time CPU check (core/cpu.h). */
#ifndef LOAM_CONTACT_CONE_AVX2_H
#define LOAM_CONTACT_CONE_AVX2_H

#include <immintrin.h>

/* loam_disk_scale_f per lane. A bed at rest mostly sticks: when no lane slides, the root is skipped. */
static inline __attribute__((always_inline, target("avx2"))) __m256 loam_disk_scale8(__m256 t2, __m256 cap) {
    const __m256 one = _mm256_set1_ps(1.0f);
    __m256 sliding = _mm256_cmp_ps(t2, _mm256_mul_ps(cap, cap), _CMP_GT_OQ);
    if (_mm256_testz_ps(sliding, sliding)) return one;
    return _mm256_blendv_ps(one, _mm256_div_ps(cap, _mm256_sqrt_ps(t2)), sliding);
}

/* loam_cone_project_world_f per lane: l and n as x, y, z lanes; the result in out. */
static inline __attribute__((always_inline, target("avx2"))) void loam_cone_project_world8(__m256 mu, const __m256 n[3],
                                                                                          const __m256 l[3], __m256 out[3]) {
    const __m256 zero = _mm256_setzero_ps();
    __m256 ln = _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(l[0], n[0]), _mm256_mul_ps(l[1], n[1])), _mm256_mul_ps(l[2], n[2]));
    __m256 pushing = _mm256_cmp_ps(ln, zero, _CMP_NLE_UQ); /* !(ln <= 0): NaN passes as in the scalar form */
    __m256 t[3], t2 = zero;
    for (int k = 0; k < 3; ++k) {
        t[k] = _mm256_sub_ps(l[k], _mm256_mul_ps(n[k], ln));
        t2 = k == 0 ? _mm256_mul_ps(t[0], t[0]) : _mm256_add_ps(t2, _mm256_mul_ps(t[k], t[k]));
    }
    __m256 s = loam_disk_scale8(t2, _mm256_mul_ps(mu, ln));
    for (int k = 0; k < 3; ++k) out[k] = _mm256_and_ps(_mm256_add_ps(_mm256_mul_ps(ln, n[k]), _mm256_mul_ps(t[k], s)), pushing);
}

#endif

/* Four float lanes for the passes over every particle (margins, list validity, packing, the
 * divergence check, integration): SSE2 wherever the compiler targets it (every x86-64 build),
 * plain C elsewhere. Each operation is the scalar one lane by lane, in the same order: min and max
 * are `a < b ? a : b` and `a > b ? a : b` (what MINPS / MAXPS compute, NaN included), there is no
 * fused multiply-add, so a pass gives the same bits as its scalar loop did. GCC does not vectorise
 * those loops itself: their float min / max reductions and the structure-of-arrays to
 * (x, y, z, w) row transposes keep them scalar, at 36-62 instructions a particle each (callgrind).
 *
 * Masks are lanes of all ones (true) or all zeros (false). Loads and stores of m < 4 lanes (a
 * range's tail) fill the missing lanes with the last one, which changes no minimum, maximum or
 * any-lane test. */
#ifndef LOAM_CORE_LANES_H
#define LOAM_CORE_LANES_H

/* A pass's body over lanes [i, i + m), written once and inlined twice by its loop, for m = 4 (the
 * compiler folds the tail handling away) and for the range's last m < 4:
 *     for (int i = 0; i < n; i += 4) n - i >= 4 ? body(..., i, 4) : body(..., i, n - i);    */
#if defined(__GNUC__)
#define LOAM_LANES_INLINE static inline __attribute__((always_inline))
#else
#define LOAM_LANES_INLINE static inline
#endif

#include <math.h>
#include <stdint.h>
#include <string.h>

#if defined(__SSE2__) && !defined(LOAM_LANES_SCALAR) /* LOAM_LANES_SCALAR: the plain C lanes (tests) */
#include <emmintrin.h>

typedef __m128 loam_f4;

static inline loam_f4 f4_load(const float* p) { return _mm_loadu_ps(p); }
static inline void f4_store(float* p, loam_f4 a) { _mm_storeu_ps(p, a); }
static inline loam_f4 f4_splat(float s) { return _mm_set1_ps(s); }
static inline loam_f4 f4_add(loam_f4 a, loam_f4 b) { return _mm_add_ps(a, b); }
static inline loam_f4 f4_sub(loam_f4 a, loam_f4 b) { return _mm_sub_ps(a, b); }
static inline loam_f4 f4_mul(loam_f4 a, loam_f4 b) { return _mm_mul_ps(a, b); }
static inline loam_f4 f4_div(loam_f4 a, loam_f4 b) { return _mm_div_ps(a, b); }
static inline loam_f4 f4_min(loam_f4 a, loam_f4 b) { return _mm_min_ps(a, b); }
static inline loam_f4 f4_max(loam_f4 a, loam_f4 b) { return _mm_max_ps(a, b); }
static inline loam_f4 f4_abs(loam_f4 a) { return _mm_andnot_ps(_mm_set1_ps(-0.0f), a); }
static inline loam_f4 f4_le(loam_f4 a, loam_f4 b) { return _mm_cmple_ps(a, b); }
static inline loam_f4 f4_and(loam_f4 a, loam_f4 b) { return _mm_and_ps(a, b); }
/* mask ? b : a */
static inline loam_f4 f4_select(loam_f4 mask, loam_f4 a, loam_f4 b) {
    return _mm_or_ps(_mm_and_ps(mask, b), _mm_andnot_ps(mask, a));
}
/* Bit k set where lane k of the mask is true. */
static inline int f4_bits(loam_f4 mask) { return _mm_movemask_ps(mask); }
/* Round to the nearest integer, ties to even, as rintf in the default rounding mode (for
 * |a| < 2^31; beyond that no particle position means anything). */
static inline loam_f4 f4_round(loam_f4 a) { return _mm_cvtepi32_ps(_mm_cvtps_epi32(a)); }
/* Lanes where the 32-bit integers at p equal v. */
static inline loam_f4 f4_int_eq(const int32_t* p, int32_t v) {
    return _mm_castsi128_ps(_mm_cmpeq_epi32(_mm_loadu_si128((const __m128i*)p), _mm_set1_epi32(v)));
}
static inline void f4_transpose(loam_f4* r0, loam_f4* r1, loam_f4* r2, loam_f4* r3) { _MM_TRANSPOSE4_PS(*r0, *r1, *r2, *r3); }

#else

typedef struct loam_f4 {
    float v[4];
} loam_f4;

static inline loam_f4 f4_load(const float* p) {
    loam_f4 r;
    memcpy(r.v, p, sizeof r.v);
    return r;
}
static inline void f4_store(float* p, loam_f4 a) { memcpy(p, a.v, sizeof a.v); }
static inline loam_f4 f4_splat(float s) { return (loam_f4){{s, s, s, s}}; }
#define LOAM_F4_LANES(expr)                  \
    loam_f4 r;                               \
    for (int k = 0; k < 4; ++k) r.v[k] = expr; \
    return r
static inline loam_f4 f4_add(loam_f4 a, loam_f4 b) { LOAM_F4_LANES(a.v[k] + b.v[k]); }
static inline loam_f4 f4_sub(loam_f4 a, loam_f4 b) { LOAM_F4_LANES(a.v[k] - b.v[k]); }
static inline loam_f4 f4_mul(loam_f4 a, loam_f4 b) { LOAM_F4_LANES(a.v[k] * b.v[k]); }
static inline loam_f4 f4_div(loam_f4 a, loam_f4 b) { LOAM_F4_LANES(a.v[k] / b.v[k]); }
static inline loam_f4 f4_min(loam_f4 a, loam_f4 b) { LOAM_F4_LANES(a.v[k] < b.v[k] ? a.v[k] : b.v[k]); }
static inline loam_f4 f4_max(loam_f4 a, loam_f4 b) { LOAM_F4_LANES(a.v[k] > b.v[k] ? a.v[k] : b.v[k]); }
static inline loam_f4 f4_abs(loam_f4 a) { LOAM_F4_LANES(fabsf(a.v[k])); }
static inline float f4_from_bool(int t) {
    uint32_t u = t ? 0xffffffffu : 0u;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}
static inline uint32_t f4_lane_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}
static inline loam_f4 f4_le(loam_f4 a, loam_f4 b) { LOAM_F4_LANES(f4_from_bool(a.v[k] <= b.v[k])); }
static inline loam_f4 f4_and(loam_f4 a, loam_f4 b) { LOAM_F4_LANES(f4_from_bool(f4_lane_bits(a.v[k]) && f4_lane_bits(b.v[k]))); }
static inline loam_f4 f4_select(loam_f4 mask, loam_f4 a, loam_f4 b) { LOAM_F4_LANES(f4_lane_bits(mask.v[k]) ? b.v[k] : a.v[k]); }
static inline int f4_bits(loam_f4 mask) {
    int bits = 0;
    for (int k = 0; k < 4; ++k) bits |= (f4_lane_bits(mask.v[k]) != 0) << k;
    return bits;
}
static inline loam_f4 f4_round(loam_f4 a) { LOAM_F4_LANES(rintf(a.v[k])); }
static inline loam_f4 f4_int_eq(const int32_t* p, int32_t v) { LOAM_F4_LANES(f4_from_bool(p[k] == v)); }
#undef LOAM_F4_LANES
static inline void f4_transpose(loam_f4* r0, loam_f4* r1, loam_f4* r2, loam_f4* r3) {
    loam_f4* r[4] = {r0, r1, r2, r3};
    for (int a = 0; a < 4; ++a)
        for (int b = a + 1; b < 4; ++b) {
            float t = r[a]->v[b];
            r[a]->v[b] = r[b]->v[a];
            r[b]->v[a] = t;
        }
}

#endif

/* The m (1..4) floats at p, the last repeated into the missing lanes. */
static inline loam_f4 f4_load_upto(const float* p, int m) {
    if (m == 4) return f4_load(p);
    float t[4];
    for (int k = 0; k < 4; ++k) t[k] = p[k < m ? k : m - 1];
    return f4_load(t);
}

/* The first m (1..4) lanes of a, to p. */
static inline void f4_store_upto(float* p, loam_f4 a, int m) {
    if (m == 4) {
        f4_store(p, a);
        return;
    }
    float t[4];
    f4_store(t, a);
    memcpy(p, t, sizeof(float) * (size_t)m);
}

/* Lanes where the m (1..4) integers at p equal v (the last repeated). */
static inline loam_f4 f4_int_eq_upto(const int32_t* p, int m, int32_t v) {
    if (m == 4) return f4_int_eq(p, v);
    int32_t t[4];
    for (int k = 0; k < 4; ++k) t[k] = p[k < m ? k : m - 1];
    return f4_int_eq(t, v);
}

/* Columns c[0..3] of the m (1..4) rows of four floats at p (rows m.. repeat the last): the
 * (x, y, z, w) records of m particles as four lanes each of x, y, z and w. */
static inline void f4_load_rows(const float* p, int m, loam_f4 c[4]) {
    for (int k = 0; k < 4; ++k) c[k] = f4_load(&p[4 * (k < m ? k : m - 1)]);
    f4_transpose(&c[0], &c[1], &c[2], &c[3]);
}

/* The inverse: m (1..4) rows of four floats to p from columns c. */
static inline void f4_store_rows(float* p, int m, loam_f4 c0, loam_f4 c1, loam_f4 c2, loam_f4 c3) {
    f4_transpose(&c0, &c1, &c2, &c3);
    loam_f4 r[4] = {c0, c1, c2, c3};
    for (int k = 0; k < m; ++k) f4_store(&p[4 * k], r[k]);
}

/* Largest and smallest lane (order-free: max and min of the same values). */
static inline float f4_hmax(loam_f4 a) {
    float t[4];
    f4_store(t, a);
    float m = t[0];
    for (int k = 1; k < 4; ++k) m = t[k] > m ? t[k] : m;
    return m;
}
static inline float f4_hmin(loam_f4 a) {
    float t[4];
    f4_store(t, a);
    float m = t[0];
    for (int k = 1; k < 4; ++k) m = t[k] < m ? t[k] : m;
    return m;
}

/* A box from lane-wise bounds: each axis' smallest lo lane and largest hi lane. */
static inline void f4_box(const loam_f4 lo4[3], const loam_f4 hi4[3], float lo[3], float hi[3]) {
    for (int a = 0; a < 3; ++a) {
        lo[a] = f4_hmin(lo4[a]);
        hi[a] = f4_hmax(hi4[a]);
    }
}

#endif

/* AVX2 versions of the pair kernels in rows.h: 8 rows of one colour per batch.
 * Rows of a colour share no particle, so a batch loads its 16 particles' (velocity, inverse mass)
 * records, updates all 8 rows, and stores them back without any two lanes touching one record.
 * Every operation is the scalar kernel's, in its order, with no fused multiply-add (the build uses
 * -ffp-contract=off), and IEEE division and square root are exact in both, so the bits match the
 * scalar path; tests/test_rows_simd.c checks it. This file is compiled with -mavx2 and only called
 * after a run-time check of the CPU. */
#include <immintrin.h>

#include "contact/cone_avx2.h"
#include "granular/rows.h"

/* (x, y, z, w) records of 8 particles, as four 8-wide vectors: load8 by particle number, load8_off
 * by a row's 16-bit offset from a block's first record (base then points there). */
#define LOAM_DEFINE_LOAD8(name, index_type)                                                                   \
    static inline void name(const float* base, const index_type* idx, __m256* x, __m256* y, __m256* z,       \
                            __m256* w) {                                                                      \
        __m256 r0 = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_load_ps(base + 4 * (size_t)idx[0])),     \
                                         _mm_load_ps(base + 4 * (size_t)idx[4]), 1);                          \
        __m256 r1 = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_load_ps(base + 4 * (size_t)idx[1])),     \
                                         _mm_load_ps(base + 4 * (size_t)idx[5]), 1);                          \
        __m256 r2 = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_load_ps(base + 4 * (size_t)idx[2])),     \
                                         _mm_load_ps(base + 4 * (size_t)idx[6]), 1);                          \
        __m256 r3 = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_load_ps(base + 4 * (size_t)idx[3])),     \
                                         _mm_load_ps(base + 4 * (size_t)idx[7]), 1);                          \
        __m256 t0 = _mm256_unpacklo_ps(r0, r1); /* x0 x1 y0 y1 | x4 x5 y4 y5 */                               \
        __m256 t1 = _mm256_unpackhi_ps(r0, r1); /* z0 z1 w0 w1 | z4 z5 w4 w5 */                               \
        __m256 t2 = _mm256_unpacklo_ps(r2, r3);                                                               \
        __m256 t3 = _mm256_unpackhi_ps(r2, r3);                                                               \
        *x = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0));                                              \
        *y = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));                                              \
        *z = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0));                                              \
        *w = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2));                                              \
    }
LOAM_DEFINE_LOAD8(load8, int32_t)
LOAM_DEFINE_LOAD8(load8_off, uint16_t)

#define LOAM_DEFINE_STORE8(name, index_type)                                                                  \
    static inline void name(float* base, const index_type* idx, __m256 x, __m256 y, __m256 z, __m256 w) {    \
        __m256 t0 = _mm256_unpacklo_ps(x, y); /* x0 y0 x1 y1 | x4 y4 x5 y5 */                                 \
        __m256 t1 = _mm256_unpackhi_ps(x, y); /* x2 y2 x3 y3 | x6 y6 x7 y7 */                                 \
        __m256 t2 = _mm256_unpacklo_ps(z, w);                                                                 \
        __m256 t3 = _mm256_unpackhi_ps(z, w);                                                                 \
        __m256 r0 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0)); /* particle 0 | particle 4 */         \
        __m256 r1 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));                                       \
        __m256 r2 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0));                                       \
        __m256 r3 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2));                                       \
        _mm_store_ps(base + 4 * (size_t)idx[0], _mm256_castps256_ps128(r0));                                  \
        _mm_store_ps(base + 4 * (size_t)idx[1], _mm256_castps256_ps128(r1));                                  \
        _mm_store_ps(base + 4 * (size_t)idx[2], _mm256_castps256_ps128(r2));                                  \
        _mm_store_ps(base + 4 * (size_t)idx[3], _mm256_castps256_ps128(r3));                                  \
        _mm_store_ps(base + 4 * (size_t)idx[4], _mm256_extractf128_ps(r0, 1));                                \
        _mm_store_ps(base + 4 * (size_t)idx[5], _mm256_extractf128_ps(r1, 1));                                \
        _mm_store_ps(base + 4 * (size_t)idx[6], _mm256_extractf128_ps(r2, 1));                                \
        _mm_store_ps(base + 4 * (size_t)idx[7], _mm256_extractf128_ps(r3, 1));                                \
    }
LOAM_DEFINE_STORE8(store8, int32_t)
LOAM_DEFINE_STORE8(store8_off, uint16_t)

/* 8 normal components from 16-bit fixed point (loam_normal_unpack). */
static inline __m256 load_normal8(const int16_t* p) {
    __m256 v = _mm256_cvtepi32_ps(_mm256_cvtepi16_epi32(_mm_loadu_si128((const __m128i*)p)));
    return _mm256_mul_ps(v, _mm256_set1_ps(1.0f / LOAM_NORMAL_ONE));
}

/* 8 normal components to 16-bit fixed point (loam_normal_pack: the conversion rounds to nearest, as
 * lrintf does), written only in the lanes of keep. */
static inline void store_normal8(int16_t* p, __m256 v, __m256i keep) {
    __m256i q = _mm256_cvtps_epi32(_mm256_mul_ps(v, _mm256_set1_ps(LOAM_NORMAL_ONE)));
    __m128i packed = _mm_packs_epi32(_mm256_castsi256_si128(q), _mm256_extracti128_si256(q, 1));
    __m128i mask = _mm_packs_epi32(_mm256_castsi256_si128(keep), _mm256_extracti128_si256(keep, 1));
    __m128i old = _mm_loadu_si128((const __m128i*)p);
    _mm_storeu_si128((__m128i*)p, _mm_blendv_epi8(old, packed, mask));
}

#define ADD _mm256_add_ps
#define SUB _mm256_sub_ps
#define MUL _mm256_mul_ps

/* A batch's 16 live records (sv: velocity and inverse mass, which take the rows' changes), and the
 * relative velocity and summed inverse masses the rows solve with, from prev: the same records for
 * Gauss-Seidel (jacobi = 0: no second load), the sweep before's with mass-split masses for Jacobi. */
typedef struct batch {
    __m256 ax, ay, az, wi, bx, by, bz, wj; /* live records of i and j */
    __m256 rx, ry, rz, wsum;              /* prev_i - prev_j, and prev's w_i + w_j */
} batch;

/* The particles i of rows [q, q + 8): their offsets plus base, the first particle of their block. */
static inline __m256i particles_i(const loam_rows* r, int q, int base) {
    __m128i off = _mm_loadu_si128((const __m128i*)&r->i[q]);
    return _mm256_add_epi32(_mm256_cvtepu16_epi32(off), _mm256_set1_epi32(base));
}

static inline __attribute__((always_inline)) void load_batch(const loam_rows* r, int q, int base, float* sv,
                                                             const float* prev, int jacobi, batch* t) {
    load8_off(sv + 4 * (size_t)base, &r->i[q], &t->ax, &t->ay, &t->az, &t->wi);
    load8(sv, &r->j[q], &t->bx, &t->by, &t->bz, &t->wj);
    if (!jacobi) {
        t->rx = SUB(t->ax, t->bx), t->ry = SUB(t->ay, t->by), t->rz = SUB(t->az, t->bz), t->wsum = ADD(t->wi, t->wj);
        return;
    }
    __m256 pax, pay, paz, si, pbx, pby, pbz, sj;
    load8_off(prev + 4 * (size_t)base, &r->i[q], &pax, &pay, &paz, &si);
    load8(prev, &r->j[q], &pbx, &pby, &pbz, &sj);
    t->rx = SUB(pax, pbx), t->ry = SUB(pay, pby), t->rz = SUB(paz, pbz), t->wsum = ADD(si, sj);
}

/* loam_row_mass, 8 rows at once. */
static inline __attribute__((always_inline)) __m256 row_mass(__m256 omega, __m256 ws, __m256 wp, int jacobi) {
    if (!jacobi) return _mm256_div_ps(omega, ws);
    __m256 excess = SUB(omega, _mm256_set1_ps(1.0f));
    return _mm256_div_ps(SUB(omega, MUL(excess, _mm256_div_ps(wp, ws))), ws);
}

static inline __attribute__((always_inline)) float pair_rows(loam_rows* r, int lo, int hi, int base, float* sv,
                                                             const float* prev, int jacobi, float mu, float inv_dt,
                                                             float alpha, float most) {
    const __m256 zero = _mm256_setzero_ps(), vmu = _mm256_set1_ps(mu), vinv = _mm256_set1_ps(inv_dt);
    const __m256 valpha = _mm256_set1_ps(alpha), vomega = _mm256_set1_ps(r->omega);
    __m256 vmost = _mm256_set1_ps(most);
    int q = lo;
    for (; q + 8 <= hi; q += 8) {
        batch t;
        load_batch(r, q, base, sv, prev, jacobi, &t);
        __m256 nx = load_normal8(&r->nx[q]), ny = load_normal8(&r->ny[q]), nz = load_normal8(&r->nz[q]);
        __m256 m = row_mass(vomega, t.wsum, ADD(t.wi, t.wj), jacobi), gap = _mm256_loadu_ps(&r->gap[q]);
        __m256 ox = _mm256_loadu_ps(&r->lx[q]), oy = _mm256_loadu_ps(&r->ly[q]), oz = _mm256_loadu_ps(&r->lz[q]);
        /* loam_row_bias */
        __m256 bias = _mm256_blendv_ps(MUL(MUL(valpha, gap), vinv), MUL(gap, vinv), _mm256_cmp_ps(gap, zero, _CMP_GT_OQ));
        __m256 lx = SUB(ox, MUL(m, ADD(t.rx, MUL(bias, nx))));
        __m256 ly = SUB(oy, MUL(m, ADD(t.ry, MUL(bias, ny))));
        __m256 lz = SUB(oz, MUL(m, ADD(t.rz, MUL(bias, nz))));
        __m256 n[3] = {nx, ny, nz}, l[3] = {lx, ly, lz}, nl[3];
        loam_cone_project_world8(vmu, n, l, nl);
        __m256 nlx = nl[0], nly = nl[1], nlz = nl[2];
        _mm256_storeu_ps(&r->lx[q], nlx);
        _mm256_storeu_ps(&r->ly[q], nly);
        _mm256_storeu_ps(&r->lz[q], nlz);
        __m256 dx = SUB(nlx, ox), dy = SUB(nly, oy), dz = SUB(nlz, oz);
        store8_off(sv + 4 * (size_t)base, &r->i[q], ADD(t.ax, MUL(t.wi, dx)), ADD(t.ay, MUL(t.wi, dy)), ADD(t.az, MUL(t.wi, dz)), t.wi);
        store8(sv, &r->j[q], SUB(t.bx, MUL(t.wj, dx)), SUB(t.by, MUL(t.wj, dy)), SUB(t.bz, MUL(t.wj, dz)), t.wj);
        __m256 wmax = _mm256_max_ps(t.wi, t.wj);
        __m256 d2 = MUL(MUL(ADD(ADD(MUL(dx, dx), MUL(dy, dy)), MUL(dz, dz)), wmax), wmax);
        vmost = _mm256_max_ps(d2, vmost);
    }
    float lanes[8];
    _mm256_storeu_ps(lanes, vmost);
    for (int k = 0; k < 8; ++k) most = lanes[k] > most ? lanes[k] : most;
    return loam_rows_velocity(r, q, hi, base, sv, prev, mu, inv_dt, alpha, most);
}

float loam_rows_velocity_avx2(loam_rows* r, int lo, int hi, int base, float* sv, const float* prev, float mu,
                              float inv_dt, float alpha, float most) {
    if (prev == sv) return pair_rows(r, lo, hi, base, sv, sv, 0, mu, inv_dt, alpha, most);
    return pair_rows(r, lo, hi, base, sv, prev, 1, mu, inv_dt, alpha, most);
}

static inline __attribute__((always_inline)) void pair_pushes(loam_rows* r, int lo, int hi, int base, float* u,
                                                              const float* prev, int jacobi, float rate) {
    const __m256 zero = _mm256_setzero_ps(), vrate = _mm256_set1_ps(rate), vomega = _mm256_set1_ps(r->omega);
    int q = lo;
    for (; q + 8 <= hi; q += 8) {
        __m256 gap = _mm256_loadu_ps(&r->gap[q]);
        __m256 active = _mm256_cmp_ps(gap, zero, _CMP_LT_OQ);
        if (_mm256_testz_ps(active, active)) continue; /* no overlap among these 8 */
        batch t;
        load_batch(r, q, base, u, prev, jacobi, &t);
        __m256 nx = load_normal8(&r->nx[q]), ny = load_normal8(&r->ny[q]), nz = load_normal8(&r->nz[q]);
        __m256 old = _mm256_loadu_ps(&r->push[q]);
        __m256 un = ADD(ADD(MUL(nx, t.rx), MUL(ny, t.ry)), MUL(nz, t.rz));
        __m256 p = SUB(old, MUL(row_mass(vomega, t.wsum, ADD(t.wi, t.wj), jacobi), ADD(un, MUL(vrate, gap))));
        p = _mm256_blendv_ps(zero, p, _mm256_cmp_ps(p, zero, _CMP_GT_OQ)); /* p > 0 ? p : 0 */
        p = _mm256_blendv_ps(old, p, active);
        __m256 dp = SUB(p, old);
        _mm256_storeu_ps(&r->push[q], p);
        __m256 di = MUL(t.wi, dp), dj = MUL(t.wj, dp);
        /* Lanes without overlap keep their exact values (the scalar kernel skips them). */
        store8_off(u + 4 * (size_t)base, &r->i[q], _mm256_blendv_ps(t.ax, ADD(t.ax, MUL(di, nx)), active),
               _mm256_blendv_ps(t.ay, ADD(t.ay, MUL(di, ny)), active), _mm256_blendv_ps(t.az, ADD(t.az, MUL(di, nz)), active),
               t.wi);
        store8(u, &r->j[q], _mm256_blendv_ps(t.bx, SUB(t.bx, MUL(dj, nx)), active),
               _mm256_blendv_ps(t.by, SUB(t.by, MUL(dj, ny)), active), _mm256_blendv_ps(t.bz, SUB(t.bz, MUL(dj, nz)), active),
               t.wj);
    }
    loam_rows_push(r, q, hi, base, u, prev, rate);
}

void loam_rows_push_avx2(loam_rows* r, int lo, int hi, int base, float* u, const float* prev, float rate) {
    if (prev == u) pair_pushes(r, lo, hi, base, u, u, 0, rate);
    else pair_pushes(r, lo, hi, base, u, prev, 1, rate);
}

float loam_rows_geometry_avx2(loam_rows* r, int lo, int hi, int base, const float* pos, int axis, float len, float worst) {
    const __m256 zero = _mm256_setzero_ps(), one = _mm256_set1_ps(1.0f), vlen = _mm256_set1_ps(len);
    const __m256 half = _mm256_set1_ps(0.5f * len), mhalf = _mm256_set1_ps(-0.5f * len);
    __m256 vworst = _mm256_set1_ps(worst);
    int q = lo;
    for (; q + 8 <= hi; q += 8) {
        __m256i vj = _mm256_loadu_si256((const __m256i*)&r->j[q]);
        __m256i vi = particles_i(r, q, base);
        /* Body rows (j < 0) load their own particle twice and are not stored. */
        __m256 body = _mm256_castsi256_ps(_mm256_cmpgt_epi32(_mm256_setzero_si256(), vj));
        int32_t jj[8];
        _mm256_storeu_si256((__m256i*)jj, _mm256_blendv_epi8(vj, vi, _mm256_castps_si256(body)));
        __m256 ax, ay, az, ar, bx, by, bz, br;
        load8_off(pos + 4 * (size_t)base, &r->i[q], &ax, &ay, &az, &ar);
        load8(pos, jj, &bx, &by, &bz, &br);
        __m256 o[3] = {SUB(ax, bx), SUB(ay, by), SUB(az, bz)};
        if (axis >= 0) {
            __m256 d = o[axis];
            __m256 up = _mm256_cmp_ps(d, half, _CMP_GT_OQ), down = _mm256_cmp_ps(d, mhalf, _CMP_LT_OQ);
            o[axis] = _mm256_blendv_ps(_mm256_blendv_ps(d, ADD(d, vlen), down), SUB(d, vlen), up);
        }
        __m256 dist = _mm256_sqrt_ps(ADD(ADD(MUL(o[0], o[0]), MUL(o[1], o[1])), MUL(o[2], o[2])));
        __m256 inv = _mm256_div_ps(one, dist), apart = _mm256_cmp_ps(dist, zero, _CMP_GT_OQ);
        __m256 nx = _mm256_blendv_ps(zero, MUL(o[0], inv), apart);
        __m256 ny = _mm256_blendv_ps(zero, MUL(o[1], inv), apart);
        __m256 nz = _mm256_blendv_ps(one, MUL(o[2], inv), apart);
        __m256 gap = SUB(SUB(dist, ar), br);
        __m256i keep = _mm256_castps_si256(_mm256_xor_ps(body, _mm256_castsi256_ps(_mm256_set1_epi32(-1))));
        store_normal8(&r->nx[q], nx, keep);
        store_normal8(&r->ny[q], ny, keep);
        store_normal8(&r->nz[q], nz, keep);
        _mm256_maskstore_ps(&r->gap[q], keep, gap);
        __m256 over = _mm256_blendv_ps(SUB(zero, gap), zero, body);
        vworst = _mm256_max_ps(over, vworst);
    }
    float lanes[8];
    _mm256_storeu_ps(lanes, vworst);
    for (int k = 0; k < 8; ++k) worst = lanes[k] > worst ? lanes[k] : worst;
    return loam_rows_geometry(r, q, hi, base, pos, axis, len, worst);
}

void loam_rows_warm_avx2(const loam_rows* r, int lo, int hi, int base, float* sv) {
    int q = lo;
    for (; q + 8 <= hi; q += 8) {
        __m256 ax, ay, az, wi, bx, by, bz, wj;
        load8_off(sv + 4 * (size_t)base, &r->i[q], &ax, &ay, &az, &wi);
        load8(sv, &r->j[q], &bx, &by, &bz, &wj);
        __m256 lx = _mm256_loadu_ps(&r->lx[q]), ly = _mm256_loadu_ps(&r->ly[q]), lz = _mm256_loadu_ps(&r->lz[q]);
        store8_off(sv + 4 * (size_t)base, &r->i[q], ADD(ax, MUL(wi, lx)), ADD(ay, MUL(wi, ly)), ADD(az, MUL(wi, lz)), wi);
        store8(sv, &r->j[q], SUB(bx, MUL(wj, lx)), SUB(by, MUL(wj, ly)), SUB(bz, MUL(wj, lz)), wj);
    }
    loam_rows_warm(r, q, hi, base, sv);
}

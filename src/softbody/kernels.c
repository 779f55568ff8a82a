/* The solvers' hot loops, written per mass (gather) instead of per spring (scatter) so they
 * vectorise without write conflicts: every mass sums its own springs and faces from a padded table
 * (slot j of mass i at [j * n + i]). Each spring is evaluated from both ends, with the same
 * arithmetic on the same squared length, so the two forces are exact negatives.
 *
 * Compiled with -fno-math-errno (sqrtf must not set errno to vectorise) and, with gcc, cloned for
 * AVX-512, AVX2 and baseline x86-64, picked at load time. Lanes do the scalar operations in the
 * scalar order and -ffp-contract=off forbids fused multiply-adds, so every clone gives the same
 * bytes (checked by hand: the same final state with and without clones; SB_NO_CLONES builds the
 * baseline loops only). */
#include "softbody/internal.h"

/* clang 14 emits target_clones' resolver only where the function is called in the same file, so
 * callers in other files fail to link: clang builds get the baseline loops (same bytes). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(SB_NO_CLONES)
#define SB_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define SB_CLONES
#endif

/* One slot row: passive is a compile-time constant in each caller, so each loop is straight-line. */
/* A spring's force per unit offset, k (len - rest) / len, 0 for coincident masses. It divides
 * unconditionally by a safe length and selects after: a conditional division is control flow the
 * vectoriser refuses. The rest length is L0 (1 + dL0 sin(.)); a passive robot skips that gather
 * (L0 x 1 is L0 exactly). */
static inline float sb_spring_coeff(float dx, float dy, float dz, float k, float rest) {
    float len = __builtin_sqrtf(dx * dx + dy * dy + dz * dz);
    float safe = len > 0.0f ? len : 1.0f;
    float q = k * (len - rest) / safe;
    return len > 0.0f ? q : 0.0f;
}

#define SB_SPRING_ROW(PASSIVE)                                                                         \
    for (int i = 0; i < n; ++i) {                                                                      \
        int o = nb[i];                                                                                 \
        float dx = x[o] - x[i], dy = y[o] - y[i], dz = z[o] - z[i];                                    \
        float c = sb_spring_coeff(dx, dy, dz, kk[i], PASSIVE ? ll[i] : ll[i] * act[ms[i]]);            \
        fx[i] += c * dx;                                                                               \
        fy[i] += c * dy;                                                                               \
        fz[i] += c * dz;                                                                               \
    }

SB_CLONES void sb_gather_springs(int n, int deg, const int32_t* restrict nbr, const float* restrict kslot,
                                 const float* restrict lslot, const int32_t* restrict mslot, const float* restrict act,
                                 const float* restrict x, const float* restrict y, const float* restrict z,
                                 float* restrict fx, float* restrict fy, float* restrict fz) {
    for (int j = 0; j < deg; ++j) {
        const int32_t* restrict nb = nbr + (size_t)j * n;
        const int32_t* restrict ms = mslot + (size_t)j * n;
        const float* restrict kk = kslot + (size_t)j * n;
        const float* restrict ll = lslot + (size_t)j * n;
        if (act) {
            SB_SPRING_ROW(0)
        } else {
            SB_SPRING_ROW(1)
        }
    }
}

/* Offset rows: the other mass of row j is i + off[j], read with contiguous loads. */
#define SB_OFFSET_ROW(PASSIVE)                                                                         \
    for (int i = lo; i < hi; ++i) {                                                                    \
        float dx = xo[i] - x[i], dy = yo[i] - y[i], dz = zo[i] - z[i];                                 \
        float c = sb_spring_coeff(dx, dy, dz, kk[i], PASSIVE ? ll[i] : ll[i] * act[ms[i]]);            \
        fx[i] += c * dx;                                                                               \
        fy[i] += c * dy;                                                                               \
        fz[i] += c * dz;                                                                               \
    }

SB_CLONES void sb_offset_springs(int n, int rows, const int32_t* restrict off, const float* restrict kslot,
                                 const float* restrict lslot, const int32_t* restrict mslot, const float* restrict act,
                                 const float* restrict x, const float* restrict y, const float* restrict z,
                                 float* restrict fx, float* restrict fy, float* restrict fz) {
    for (int j = 0; j < rows; ++j) {
        int o = off[j], lo = o < 0 ? -o : 0, hi = o > 0 ? n - o : n;
        const float *xo = x + o, *yo = y + o, *zo = z + o; /* only [lo, hi) is read: in bounds */
        const int32_t* restrict ms = mslot + (size_t)j * n;
        const float* restrict kk = kslot + (size_t)j * n;
        const float* restrict ll = lslot + (size_t)j * n;
        if (act) {
            SB_OFFSET_ROW(0)
        } else {
            SB_OFFSET_ROW(1)
        }
    }
}

/* XPBD with mass splitting, per mass: the spring from i to o with split inverse masses wsplit gets
 * dlambda = (-C - alpha~ lambda) / (wsplit_i + wsplit_o + alpha~); i moves by -w_i n dlambda. The
 * other end computes the same dlambda from the same numbers (the sum of two floats commutes), so the
 * two copies of lambda stay equal and the corrections are equal and opposite per unit mass. */
#define SB_XPBD_ROW(OTHER, PASSIVE)                                                                    \
    for (int i = lo; i < hi; ++i) {                                                                    \
        int o = OTHER;                                                                                 \
        float dx = x[o] - x[i], dy = y[o] - y[i], dz = z[o] - z[i];                                    \
        float len = __builtin_sqrtf(dx * dx + dy * dy + dz * dz);                                      \
        float rest = PASSIVE ? ll[i] : ll[i] * act[ms[i]];                                             \
        float at = aa[i];                                                                              \
        /* padding (k 0) and coincident masses move nothing; safe denominators keep the lanes that   \
         * are thrown away finite, and straight-line code vectorises */                               \
        float den = wsplit[i] + wsplit[o] + at;                                                        \
        float live = kk[i] > 0.0f ? 1.0f : 0.0f;                                                       \
        live = len > 0.0f ? live : 0.0f;                                                               \
        live = den > 0.0f ? live : 0.0f;                                                               \
        float dl = live * ((rest - len - at * lm[i]) / (den > 0.0f ? den : 1.0f));                     \
        lm[i] += dl;                                                                                   \
        float q = w[i] * dl / (len > 0.0f ? len : 1.0f);                                               \
        cx[i] -= q * dx;                                                                               \
        cy[i] -= q * dy;                                                                               \
        cz[i] -= q * dz;                                                                               \
    }

SB_CLONES void sb_xpbd_rows(int n, int rows, const int32_t* restrict off, const int32_t* restrict nbr,
                            const float* restrict kslot, const float* restrict aslot, const float* restrict lslot,
                            const int32_t* restrict mslot, const float* restrict act, const float* restrict wsplit,
                            const float* restrict w, float* restrict lam, const float* restrict x,
                            const float* restrict y, const float* restrict z, float* restrict cx, float* restrict cy,
                            float* restrict cz) {
    for (int j = 0; j < rows; ++j) {
        size_t b = (size_t)j * n;
        const int32_t* restrict ms = mslot + b;
        const float *restrict kk = kslot + b, *restrict aa = aslot + b, *restrict ll = lslot + b;
        float* restrict lm = lam + b;
        if (off) {
            int d = off[j], lo = d < 0 ? -d : 0, hi = d > 0 ? n - d : n;
            if (act) {
                SB_XPBD_ROW(i + d, 0)
            } else {
                SB_XPBD_ROW(i + d, 1)
            }
        } else {
            const int32_t* restrict nb = nbr + b;
            int lo = 0, hi = n;
            if (act) {
                SB_XPBD_ROW(nb[i], 0)
            } else {
                SB_XPBD_ROW(nb[i], 1)
            }
        }
    }
}

/* XPBD Gauss-Seidel over one colour [k0, k1) of the spring graph: no two of its springs share a
 * mass, so the iterations are independent and `ivdep` lets the compiler gather and scatter them as
 * vectors; the result is the scalar sweep's, bit for bit. */
/* gcc only: clang's assume_safety hint is an error under -Werror wherever it cannot vectorise (its
 * baseline x86-64 build has no gathers), and clang builds have no clones to use it in. */
#if defined(__GNUC__) && !defined(__clang__)
#define SB_IVDEP _Pragma("GCC ivdep")
#else
#define SB_IVDEP
#endif

SB_CLONES void sb_xpbd_color(int k0, int k1, const uint16_t* restrict s0, const uint16_t* restrict s1,
                             const float* restrict rest, const uint8_t* restrict mat, const float* restrict act,
                             const float* restrict alpha, const float* restrict w, float* restrict lambda,
                             float* restrict x, float* restrict y, float* restrict z) {
SB_IVDEP
    for (int k = k0; k < k1; ++k) {
        int a = s0[k], b = s1[k], m = mat[k];
        float dx = x[b] - x[a], dy = y[b] - y[a], dz = z[b] - z[a];
        float len = __builtin_sqrtf(dx * dx + dy * dy + dz * dz);
        float at = alpha[m];
        float den = w[a] + w[b] + at;
        float live = len > 0.0f ? 1.0f : 0.0f;
        live = den > 0.0f ? live : 0.0f;
        float dl = live * ((rest[k] * act[m] - len - at * lambda[k]) / (den > 0.0f ? den : 1.0f));
        lambda[k] += dl;
        float q = dl / (len > 0.0f ? len : 1.0f), qa = w[a] * q, qb = w[b] * q;
        x[a] -= qa * dx, y[a] -= qa * dy, z[a] -= qa * dz;
        x[b] += qb * dx, y[b] += qb * dy, z[b] += qb * dz;
    }
}

/* Equation 1 per face into g (a third of the face's force, for each corner). */
SB_CLONES void sb_face_forces(int nf, const int32_t* restrict fa, const int32_t* restrict fb, const int32_t* restrict fc,
                              const float* restrict x, const float* restrict y,
                              const float* restrict z, const float* restrict vx, const float* restrict vy,
                              const float* restrict vz, float h, float cdl, float cl, float* restrict gx,
                              float* restrict gy, float* restrict gz) {
    const float third = 1.0f / 3.0f;
    for (int f = 0; f < nf; ++f) {
        int a = fa[f], b = fb[f], c = fc[f];
        float ux = x[b] - x[a], uy = y[b] - y[a], uz = z[b] - z[a];
        float wx = x[c] - x[a], wy = y[c] - y[a], wz = z[c] - z[a];
        float nx = uy * wz - uz * wy, ny = uz * wx - ux * wz, nz = ux * wy - uy * wx;
        float n2 = __builtin_sqrtf(nx * nx + ny * ny + nz * nz); /* twice the area */
        float inv = (n2 > 0.0f ? 1.0f : 0.0f) / (n2 > 0.0f ? n2 : 1.0f);
        float fvx = (vx[a] + vx[b] + vx[c]) * third;
        float fvy = (vy[a] + vy[b] + vy[c]) * third;
        float fvz = (vz[a] + vz[b] + vz[c]) * third;
        nx *= inv, ny *= inv, nz *= inv;
        float vn = fvx * nx + fvy * ny + fvz * nz;
        float sg = vn < 0.0f ? -1.0f : 1.0f; /* turn n along v */
        nx *= sg, ny *= sg, nz *= sg, vn *= sg;
        float v2 = fvx * fvx + fvy * fvy + fvz * fvz;
        float q = -h * (0.5f * n2) * third;
        gx[f] = q * (cdl * vn * fvx + cl * v2 * nx);
        gy[f] = q * (cdl * vn * fvy + cl * v2 * ny);
        gz[f] = q * (cdl * vn * fvz + cl * v2 * nz);
    }
}

/* Surface mass q sums its faces' shares (padding points at a zero entry past the last face). */
SB_CLONES void sb_gather_faces(int nsurf, int deg, const int32_t* restrict fof, const float* restrict gx,
                               const float* restrict gy, const float* restrict gz, float* restrict sx,
                               float* restrict sy, float* restrict sz) {
    for (int q = 0; q < nsurf; ++q) sx[q] = sy[q] = sz[q] = 0.0f;
    for (int j = 0; j < deg; ++j) {
        const int32_t* fl = fof + (size_t)j * nsurf;
        for (int q = 0; q < nsurf; ++q) {
            int f = fl[q];
            sx[q] += gx[f];
            sy[q] += gy[f];
            sz[q] += gz[f];
        }
    }
}

/* v += dt (F/m + g), x' = x + dt v (see step.c); fixed masses (w = 0) stay. */
SB_CLONES void sb_predict(int n, float dt, float gx, float gy, float gz, const float* restrict w, float* restrict x,
                          float* restrict y, float* restrict z, float* restrict vx, float* restrict vy,
                          float* restrict vz, const float* restrict fx, const float* restrict fy,
                          const float* restrict fz, float* restrict px, float* restrict py, float* restrict pz) {
    for (int i = 0; i < n; ++i) {
        float wi = w[i], on = wi > 0.0f ? 1.0f : 0.0f;
        px[i] = x[i], py[i] = y[i], pz[i] = z[i];
        vx[i] = on * (vx[i] + dt * (fx[i] * wi + gx));
        vy[i] = on * (vy[i] + dt * (fy[i] * wi + gy));
        vz[i] = on * (vz[i] + dt * (fz[i] * wi + gz));
        x[i] = px[i] + dt * vx[i];
        y[i] = py[i] + dt * vy[i];
        z[i] = pz[i] + dt * vz[i];
    }
}

/* v = zeta (v + c / dt), c what the land constraints moved x away from its prediction (px + dt v,
 * recomputed bit for bit). Returns nonzero when a position is beyond the bound or a velocity is not
 * finite (NaN fails both comparisons). */
SB_CLONES int sb_finish_force(int n, float dt, float zeta, float bound, const float* restrict x, const float* restrict y,
                              const float* restrict z, const float* restrict px, const float* restrict py,
                              const float* restrict pz, float* restrict vx, float* restrict vy, float* restrict vz) {
    float q = 1.0f / dt;
    int bad = 0;
    for (int i = 0; i < n; ++i) {
        float ux = zeta * (vx[i] + q * (x[i] - (px[i] + dt * vx[i])));
        float uy = zeta * (vy[i] + q * (y[i] - (py[i] + dt * vy[i])));
        float uz = zeta * (vz[i] + q * (z[i] - (pz[i] + dt * vz[i])));
        vx[i] = ux, vy[i] = uy, vz[i] = uz;
        int ok = (__builtin_fabsf(x[i]) <= bound) & (__builtin_fabsf(y[i]) <= bound) & (__builtin_fabsf(z[i]) <= bound) &
                 (__builtin_fabsf(ux) < __builtin_inff()) & (__builtin_fabsf(uy) < __builtin_inff()) &
                 (__builtin_fabsf(uz) < __builtin_inff());
        bad |= !ok;
    }
    return bad;
}

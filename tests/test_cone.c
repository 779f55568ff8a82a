/* The Coulomb cone of contact/cone.h, the one projection every solver uses:
 * - what a projection onto the disk cone must do: the result lies in the cone, a point inside is
 *   left as it is, a sliding tangent keeps its direction and lands on the rim, a separating normal
 *   gives zero, and projecting twice changes nothing;
 * - the float and double instances agree to float rounding, and the world-axes form is the
 *   contact-frame form rotated;
 * - the AVX2 lane-wise form (contact/cone_avx2.h) gives the scalar float form's bits on random rows,
 *   sticking, sliding, separating and degenerate ones. */
#include <math.h>
#include <string.h>

#include "contact/cone.h"
#include "core/cpu.h"
#ifdef LOAM_HAVE_AVX2
#include "contact/cone_avx2.h"
#endif
#include "test_util.h"

static double uniform(unsigned* s, double lo, double hi) {
    *s = *s * 1664525u + 1013904223u;
    return lo + (hi - lo) * (double)(*s >> 8) / 16777216.0;
}

/* A unit normal and two tangents completing a right-handed frame. */
static void random_frame(unsigned* s, double n[3], double t1[3], double t2[3]) {
    double len;
    do {
        for (int k = 0; k < 3; ++k) n[k] = uniform(s, -1.0, 1.0);
        len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    } while (len < 0.1);
    for (int k = 0; k < 3; ++k) n[k] /= len;
    double a[3] = {fabs(n[0]) < 0.9 ? 1.0 : 0.0, fabs(n[0]) < 0.9 ? 0.0 : 1.0, 0.0};
    t1[0] = n[1] * a[2] - n[2] * a[1], t1[1] = n[2] * a[0] - n[0] * a[2], t1[2] = n[0] * a[1] - n[1] * a[0];
    len = sqrt(t1[0] * t1[0] + t1[1] * t1[1] + t1[2] * t1[2]);
    for (int k = 0; k < 3; ++k) t1[k] /= len;
    t2[0] = n[1] * t1[2] - n[2] * t1[1], t2[1] = n[2] * t1[0] - n[0] * t1[2], t2[2] = n[0] * t1[1] - n[1] * t1[0];
}

static void check_cone_laws(void) {
    unsigned s = 12345u;
    for (int it = 0; it < 20000; ++it) {
        double mu = it % 7 == 0 ? 0.0 : uniform(&s, 0.0, 1.5);
        double l[3] = {uniform(&s, -1.0, 2.0), uniform(&s, -3.0, 3.0), uniform(&s, -3.0, 3.0)}, out[3], again[3];
        loam_cone_project_d(mu, l, out);
        double tn = hypot(out[1], out[2]), tin = hypot(l[1], l[2]);
        CHECK(out[0] >= 0.0 && out[0] == fmax(l[0], 0.0), "normal %g -> %g", l[0], out[0]);
        CHECK(tn <= mu * out[0] * (1.0 + 1e-15) + 1e-300, "|t| %g > mu n %g", tn, mu * out[0]);
        if (tin <= mu * out[0]) CHECK(out[1] == l[1] && out[2] == l[2], "a sticking tangent moved");
        else {
            CHECK(fabs(tn - mu * out[0]) <= 1e-14 * (1.0 + mu * out[0]), "sliding tangent %g not on the rim %g", tn, mu * out[0]);
            CHECK(out[1] * l[2] - out[2] * l[1] == 0.0 || fabs(out[1] * l[2] - out[2] * l[1]) <= 1e-14 * tin * tin,
                  "sliding tangent turned");
            CHECK(out[1] * l[1] + out[2] * l[2] >= 0.0, "sliding tangent reversed");
        }
        loam_cone_project_d(mu, out, again);
        for (int k = 0; k < 3; ++k) CHECK(fabs(again[k] - out[k]) <= 1e-15 * (1.0 + fabs(out[k])), "not idempotent: %g -> %g", out[k], again[k]);
        /* float instance: the same to float rounding */
        float lf[3] = {(float)l[0], (float)l[1], (float)l[2]}, of[3];
        loam_cone_project_f((float)mu, lf, of);
        for (int k = 0; k < 3; ++k) CHECK(fabs(of[k] - out[k]) <= 1e-5 * (1.0 + fabs(out[k])), "float %g vs double %g", of[k], out[k]);
        /* world axes: the frame form rotated */
        double n[3], t1[3], t2[3], w[3], wout[3];
        random_frame(&s, n, t1, t2);
        for (int k = 0; k < 3; ++k) w[k] = l[0] * n[k] + l[1] * t1[k] + l[2] * t2[k];
        loam_cone_project_world_d(mu, n, w, wout);
        for (int k = 0; k < 3; ++k) {
            double want = out[0] * n[k] + out[1] * t1[k] + out[2] * t2[k];
            CHECK(fabs(wout[k] - want) <= 1e-12 * (1.0 + fabs(want)), "world %g vs frame %g", wout[k], want);
        }
    }
    double n[3] = {0.0, 0.0, 1.0}, out[3];
    loam_cone_project_world_d(0.5, n, (double[3]){0.0, 0.0, NAN}, out);
    CHECK(isnan(out[2]), "a NaN impulse must pass through (the divergence checks look for it)");
}

#ifdef LOAM_HAVE_AVX2
/* 8 rows a batch through the lane-wise form, each compared bit for bit with the scalar float form. */
__attribute__((target("avx2"))) static void check_avx2_bits(void) {
    unsigned s = 777u;
    int rows = 0, sliding = 0, sticking = 0, apart = 0;
    for (int it = 0; it < 20000; ++it) {
        float n[3][8], l[3][8], mu[8];
        for (int lane = 0; lane < 8; ++lane) {
            double nd[3], t1[3], t2[3];
            random_frame(&s, nd, t1, t2);
            for (int k = 0; k < 3; ++k) n[k][lane] = (float)nd[k];
            int kind = (int)uniform(&s, 0.0, 6.0);
            for (int k = 0; k < 3; ++k) l[k][lane] = (float)uniform(&s, -2.0, 2.0);
            if (kind == 0) /* a pure normal push: sticking with zero tangent */
                for (int k = 0; k < 3; ++k) l[k][lane] = n[k][lane] * (float)uniform(&s, 0.0, 2.0);
            if (kind == 1) /* exactly zero */
                for (int k = 0; k < 3; ++k) l[k][lane] = 0.0f;
            mu[lane] = kind == 2 ? 0.0f : (float)uniform(&s, 0.0, 1.2);
        }
        __m256 vn[3], vl[3], vo[3];
        for (int k = 0; k < 3; ++k) vn[k] = _mm256_loadu_ps(n[k]), vl[k] = _mm256_loadu_ps(l[k]);
        /* one mu per call, as the kernels use it: lane 0's, and every lane scalar with the same */
        loam_cone_project_world8(_mm256_set1_ps(mu[0]), vn, vl, vo);
        float o[3][8];
        for (int k = 0; k < 3; ++k) _mm256_storeu_ps(o[k], vo[k]);
        for (int lane = 0; lane < 8; ++lane) {
            float nn[3] = {n[0][lane], n[1][lane], n[2][lane]}, ll[3] = {l[0][lane], l[1][lane], l[2][lane]}, want[3];
            loam_cone_project_world_f(mu[0], nn, ll, want);
            CHECK(memcmp(want, (float[3]){o[0][lane], o[1][lane], o[2][lane]}, sizeof want) == 0,
                  "row %d lane %d: scalar (%a %a %a) avx2 (%a %a %a)", it, lane, want[0], want[1], want[2], o[0][lane], o[1][lane],
                  o[2][lane]);
            float ln = ll[0] * nn[0] + ll[1] * nn[1] + ll[2] * nn[2];
            float tx = ll[0] - nn[0] * ln, ty = ll[1] - nn[1] * ln, tz = ll[2] - nn[2] * ln;
            ++rows;
            if (!(ln > 0.0f)) ++apart;
            else if (loam_disk_slides_f(tx * tx + ty * ty + tz * tz, mu[0] * ln)) ++sliding;
            else ++sticking;
        }
    }
    CHECK(sliding > rows / 10 && sticking > rows / 10 && apart > rows / 10, "regimes not all covered: %d sliding, %d sticking, %d apart of %d",
          sliding, sticking, apart, rows);
}
#endif

int main(void) {
    check_cone_laws();
#ifdef LOAM_HAVE_AVX2
    if (loam_cpu_has_avx2()) check_avx2_bits();
    else fprintf(stderr, "test_cone: no AVX2 on this CPU, lane-wise check skipped\n");
#endif
    TEST_MAIN_END();
}

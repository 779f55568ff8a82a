/* Nesterov restart and Anderson acceleration of the ADMM fixed-point map (admm_accel.h). Both cost a
 * few passes over the state per iteration (Anderson about 4 + 3 CP_AA_MEM), against the handful
 * a SubADMM iteration on free spheres costs, so Anderson's memory is kept small. */
#include "contact/admm_accel.h"

#include <math.h>
#include <string.h>

#include "core/dense.h"
#include "loam/core.h"

/* Nesterov: a restart when the residual does not fall by this factor (Goldstein et al.'s 0.999). */
static const double ETA = 0.999;
/* Rollbacks (Nesterov's restarts, Anderson's dropped steps) after which a solve goes on plain: with
 * exact Coulomb friction the map is not a contraction in any norm, plain steps' residuals rise now
 * and then, and on a hard sphere-bed step both accelerations cycled at a residual above 1e-4 m/s for
 * 4096 iterations where the plain iteration converges. */
enum { MAX_ROLLBACKS = 10 };

int cp_accel_begin(cp_accel* acc, int kind, int len) {
    size_t need = (size_t)len * (kind == CP_ACCEL_ANDERSON ? 5 + 2 * CP_AA_MEM : 3);
    acc->kind = kind, acc->len = len, acc->rollbacks = 0;
    if (kind != CP_ACCEL_NONE && need > acc->cap) {
        loam_free(acc->buf);
        if (!(acc->buf = loam_malloc(sizeof(double) * need))) return acc->cap = 0, 0;
        acc->cap = need;
    }
    cp_accel_reset(acc);
    if (kind == CP_ACCEL_NONE) return 1; /* no buffer (offsets from a null one are undefined) */
    double* b = acc->buf;
    acc->w = b, acc->s0 = b + len, acc->sold = b + 2 * (size_t)len;
    acc->g = acc->sold;
    if (kind == CP_ACCEL_ANDERSON) {
        acc->f = b + 3 * (size_t)len;
        acc->dG = b + 4 * (size_t)len;
        acc->dF = acc->dG + (size_t)CP_AA_MEM * (size_t)len;
    }
    return 1;
}

void cp_accel_reset(cp_accel* acc) {
    acc->n = acc->head = 0;
    acc->reset = 1;
    acc->t = 1.0, acc->c = 0.0;
}

void cp_accel_before(cp_accel* acc, const double* s) { memcpy(acc->s0, s, sizeof(double) * (size_t)acc->len); }

static void nesterov(cp_accel* acc, double* s) {
    int len = acc->len;
    const double* w = acc->w;
    double r = 0.0;
    for (int i = 0; i < len; ++i) {
        double d = w[i] * (s[i] - acc->s0[i]);
        r += d * d;
    }
    if (!acc->reset && acc->n && !(r < ETA * acc->c)) {
        /* an extrapolated state whose residual did not fall: a restart from the last iterate, as
         * Goldstein et al. do (only keeping the momentum off left one sphere-bed step unconverged
         * after 4096 iterations); its plain step is taken unchecked */
        memcpy(s, acc->sold, sizeof(double) * (size_t)len);
        acc->t = 1.0, acc->reset = 1;
        if (++acc->rollbacks >= MAX_ROLLBACKS) acc->kind = CP_ACCEL_NONE;
        return;
    }
    if (acc->reset || !(r < ETA * acc->c)) { /* first step, a plain step: no momentum */
        memcpy(acc->sold, s, sizeof(double) * (size_t)len);
        acc->t = 1.0, acc->c = r, acc->reset = 0, acc->n = 0;
        return;
    }
    double tn = 0.5 * (1.0 + sqrt(1.0 + 4.0 * acc->t * acc->t)), gam = (acc->t - 1.0) / tn;
    for (int i = 0; i < len; ++i) {
        double v = s[i];
        s[i] = v + gam * (v - acc->sold[i]);
        acc->sold[i] = v;
    }
    acc->t = tn, acc->c = r, acc->n = gam > 0.0; /* n: the next state is extrapolated */
}

static void anderson(cp_accel* acc, double* s) {
    int len = acc->len, M = CP_AA_MEM;
    const double* w = acc->w;
    double r = 0.0;
    for (int i = 0; i < len; ++i) {
        double d = w[i] * (s[i] - acc->s0[i]);
        r += d * d;
    }
    /* the safeguard: an extrapolated state whose residual did not fall is dropped for the plain image
     * of the last accepted one (a plain step is always taken: dropping it would repeat it) */
    if (!acc->reset && !(r < acc->c)) {
        memcpy(s, acc->g, sizeof(double) * (size_t)len);
        acc->reset = 1;
        if (++acc->rollbacks >= MAX_ROLLBACKS) acc->kind = CP_ACCEL_NONE;
        return;
    }
    double *dG = acc->dG + (size_t)acc->head * (size_t)len, *dF = acc->dF + (size_t)acc->head * (size_t)len;
    int first = acc->n == 0 && acc->c == 0.0; /* no accepted state before: nothing to difference */
    if (!first) {
        for (int i = 0; i < len; ++i) {
            double fw = w[i] * (s[i] - acc->s0[i]);
            dG[i] = s[i] - acc->g[i], dF[i] = fw - acc->f[i];
            acc->f[i] = fw;
        }
        for (int j = 0; j < M; ++j) { /* the new difference's row of the Gram matrix */
            if (j >= acc->n && j != acc->head) continue;
            const double* o = acc->dF + (size_t)j * (size_t)len;
            double d = 0.0;
            for (int i = 0; i < len; ++i) d += dF[i] * o[i];
            acc->gram[acc->head * M + j] = acc->gram[j * M + acc->head] = d;
        }
        if (acc->n < M) ++acc->n;
        acc->head = (acc->head + 1) % M;
    } else
        for (int i = 0; i < len; ++i) acc->f[i] = w[i] * (s[i] - acc->s0[i]);
    memcpy(acc->g, s, sizeof(double) * (size_t)len);
    acc->c = r > 0.0 ? r : 1e-300, acc->reset = 0;
    int n = acc->n;
    acc->reset = 1; /* until an extrapolation below */
    if (n == 0) return;
    /* theta = argmin |f - dF theta|: normal equations, lightly regularized against collinear steps */
    double G[CP_AA_MEM * CP_AA_MEM], th[CP_AA_MEM], tr = 0.0;
    for (int j = 0; j < n; ++j) tr += acc->gram[j * M + j];
    for (int j = 0; j < n; ++j) {
        for (int k = 0; k < n; ++k) G[j * n + k] = acc->gram[j * M + k];
        G[j * n + j] += 1e-10 * tr;
        const double* o = acc->dF + (size_t)j * (size_t)len;
        double d = 0.0;
        for (int i = 0; i < len; ++i) d += o[i] * acc->f[i];
        th[j] = d;
    }
    if (dense_cholesky(G, n) >= 0) return; /* singular: keep the plain step */
    dense_cholesky_solve(G, n, th);
    acc->reset = 0;
    for (int j = 0; j < n; ++j) {
        const double* o = acc->dG + (size_t)j * (size_t)len;
        for (int i = 0; i < len; ++i) s[i] -= th[j] * o[i];
    }
}

void cp_accel_after(cp_accel* acc, double* s) {
    if (acc->kind == CP_ACCEL_NESTEROV) nesterov(acc, s);
    else if (acc->kind == CP_ACCEL_ANDERSON) anderson(acc, s);
}

void cp_accel_free(cp_accel* acc) {
    loam_free(acc->buf);
    memset(acc, 0, sizeof *acc);
}

/* The constraint kinds' cold parts (kinds.h): names, the reserved kinds' rejection, and each kind's
 * Alart-Curnier residual with its generalized Jacobian for the nonsmooth Newton solver. */
#include "contact/kinds.h"

#include <math.h>
#include <stddef.h>

const char* cp_kind_name(cp_kind kind) {
    switch (kind) {
    case CP_UNILATERAL: return "unilateral";
    case CP_EQUALITY: return "equality";
    case CP_CONTACT: return "contact";
    case CP_SAP_CONE: return "sap_cone";
    case CP_WRENCH_POLYTOPE: return "wrench_polytope";
    default: return "unknown";
    }
}

int cp_kind_supported(cp_kind kind) { return kind == CP_UNILATERAL || kind == CP_EQUALITY || kind == CP_CONTACT; }

int cp_kinds_check(const cp_block* block, int nblock) {
    for (int b = 0; b < nblock; ++b)
        if (!cp_kind_supported(block[b].kind)) return b;
    return -1;
}

/* rho times row r of W into G's row gr (m wide). */
static void scaled_row(int m, const double* W, int r, double rho, double* G, int gr) {
    for (int j = 0; j < m; ++j) G[(size_t)gr * (size_t)m + j] = rho * W[(size_t)r * (size_t)m + j];
}

void cp_kind_ac_residual(const cp_block* k, double rho, int m, const double* W, const double* lambda, const double* w, double* F, double* G) {
    int r = k->row;
    if (k->kind == CP_EQUALITY) { /* w + c lambda = 0 */
        F[r] = rho * (w[r] + k->compliance * lambda[r]);
        if (G) {
            scaled_row(m, W, r, rho, G, r);
            G[(size_t)r * (size_t)m + r] += rho * k->compliance;
        }
        return;
    }
    /* unilateral, and a contact's normal: lambda - max(0, lambda - rho w) */
    double gam = lambda[r] - rho * w[r];
    int active = gam > 0.0;
    F[r] = active ? rho * w[r] : lambda[r];
    if (G) {
        if (active) scaled_row(m, W, r, rho, G, r);
        else G[(size_t)r * (size_t)m + r] = 1.0;
    }
    if (k->kind != CP_CONTACT) return;
    /* the tangents: lambda_t - proj_disk(mu g)(lambda_t - rho w_t), g = max(0, gam) */
    double g = fmax(gam, 0.0), radius = k->mu * g;
    double y[2] = {lambda[r + 1] - rho * w[r + 1], lambda[r + 2] - rho * w[r + 2]};
    double t2 = y[0] * y[0] + y[1] * y[1];
    if (!(radius > 0.0)) { /* no normal impulse: no friction, F_t = lambda_t */
        for (int q = 0; q < 2; ++q) {
            F[r + 1 + q] = lambda[r + 1 + q];
            if (G) G[(size_t)(r + 1 + q) * (size_t)m + r + 1 + q] = 1.0;
        }
        return;
    }
    if (!loam_disk_slides_d(t2, radius)) { /* sticking: F_t = rho w_t */
        for (int q = 0; q < 2; ++q) {
            F[r + 1 + q] = rho * w[r + 1 + q];
            if (G) scaled_row(m, W, r + 1 + q, rho, G, r + 1 + q);
        }
        return;
    }
    /* sliding: F_t = lambda_t - proj(y) = lambda_t - c y, with c = radius / |y| (contact/cone.h) */
    double c = loam_disk_scale_d(t2, radius), len = sqrt(t2), yh[2] = {y[0] / len, y[1] / len};
    for (int q = 0; q < 2; ++q) F[r + 1 + q] = lambda[r + 1 + q] - y[q] * c;
    if (!G) return;
    /* dF_t = E_t - c (I - yh yh^T)(E_t - rho W_t) - yh mu dg, dg = (E_n - rho W_n) if active */
    const double* Wr = W + (size_t)r * (size_t)m;
    for (int q = 0; q < 2; ++q)
        for (int j = 0; j < m; ++j) {
            double v = (j == r + 1 + q) ? 1.0 : 0.0;
            for (int t = 0; t < 2; ++t) {
                double P = (q == t ? 1.0 : 0.0) - yh[q] * yh[t];
                double dy = (j == r + 1 + t ? 1.0 : 0.0) - rho * W[(size_t)(r + 1 + t) * (size_t)m + j];
                v -= c * P * dy;
            }
            if (active) v -= yh[q] * k->mu * ((j == r ? 1.0 : 0.0) - rho * Wr[j]);
            G[(size_t)(r + 1 + q) * (size_t)m + j] = v;
        }
}

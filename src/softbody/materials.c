/* Materials of paper 002, Table I, and the 231 two-part composites (Mercury's 254 ids). */
#include <math.h>

#include "loam/softbody.h"

static const float k_two_pi = 6.2831853071795864769f;
static const float k_pi = 3.1415926535897932385f;

/* Composite ids run over pairs (a, b), 1 <= a < b <= 22, in order of a then b. */
int loam_softbody_composite_id(int a, int b) {
    const int n = LOAM_SB_BASE_COUNT - 1; /* 22 base materials */
    if (a < 1 || b < 1 || a > n || b > n) return -1;
    if (a == b) return a;
    if (a > b) {
        int t = a;
        a = b;
        b = t;
    }
    /* pairs before row a: sum over r = 1..a-1 of (n - r) */
    int before = (a - 1) * n - (a - 1) * a / 2;
    return LOAM_SB_BASE_COUNT + before + (b - a - 1);
}

void loam_softbody_materials_mix(loam_softbody_materials* mats) {
    if (!mats) return;
    for (int a = 1; a < LOAM_SB_BASE_COUNT; ++a)
        for (int b = a + 1; b < LOAM_SB_BASE_COUNT; ++b) {
            const loam_softbody_material* p = &mats->m[a];
            const loam_softbody_material* q = &mats->m[b];
            loam_softbody_material c = {0.5f * (p->k + q->k), 0.5f * (p->dL0 + q->dL0),
                                        0.5f * (p->omega + q->omega), 0.5f * (p->phi + q->phi)};
            mats->m[loam_softbody_composite_id(a, b)] = c;
        }
}

loam_softbody_materials loam_softbody_default_materials(float k_scale) {
    loam_softbody_materials t;
    t.m[LOAM_SB_AIR] = (loam_softbody_material){0.0f, 0.0f, 0.0f, 0.0f};
    for (int i = 0; i < LOAM_SB_MUSCLES; ++i) {
        float x = i < 10 ? 1.0f : 2.0f;  /* f(x) = x omega */
        float y = (float)(i % 10) / 5.0f; /* f(y) = y pi, ten phases over a period */
        t.m[LOAM_SB_MUSCLE_FIRST + i] = (loam_softbody_material){50.0f * k_scale, 0.14f, x * k_two_pi, y * k_pi};
    }
    t.m[LOAM_SB_TISSUE] = (loam_softbody_material){40.0f * k_scale, 0.0f, 0.0f, 0.0f};
    t.m[LOAM_SB_BONE] = (loam_softbody_material){100.0f * k_scale, 0.0f, 0.0f, 0.0f};
    loam_softbody_materials_mix(&t);
    return t;
}

loam_status loam_softbody_materials_validate(const loam_softbody_materials* mats, loam_error* err) {
    if (!mats) return loam_error_set(err, LOAM_ERR_INPUT, "softbody materials: NULL table");
    for (int i = 0; i < LOAM_SB_MATERIAL_COUNT; ++i) {
        const loam_softbody_material* m = &mats->m[i];
        if (!isfinite(m->k) || !isfinite(m->dL0) || !isfinite(m->omega) || !isfinite(m->phi))
            return loam_error_set(err, LOAM_ERR_INPUT, "softbody material %d: non-finite value", i);
        if (i != LOAM_SB_AIR && !(m->k > 0.0f))
            return loam_error_set(err, LOAM_ERR_INPUT, "softbody material %d: k = %g N/m must be > 0", i, (double)m->k);
        if (!(fabsf(m->dL0) < 1.0f))
            return loam_error_set(err, LOAM_ERR_INPUT, "softbody material %d: dL0 = %g must lie in (-1, 1)", i,
                                  (double)m->dL0);
    }
    return LOAM_OK;
}

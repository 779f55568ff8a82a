/* Muscle activation per mass (activation.h). */
#include "app/activation.h"

#include <math.h>

void app_muscle_activation(const loam_softbody_robot* r, const loam_softbody_materials* m, double t, float* out, int* n) {
    for (int i = 0; i < r->mass_count; ++i) out[i] = 0.0f, n[i] = 0;
    for (int s = 0; s < r->spring_count; ++s) {
        const loam_softbody_material* q = &m->m[r->material[s]];
        if (q->dL0 == 0.0f) continue;
        float a = (float)sin(q->omega * t + q->phi);
        out[r->s0[s]] += a, ++n[r->s0[s]];
        out[r->s1[s]] += a, ++n[r->s1[s]];
    }
    for (int i = 0; i < r->mass_count; ++i) out[i] = n[i] ? out[i] / (float)n[i] : 0.0f;
}

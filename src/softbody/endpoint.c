/* Soft-body masses as contact endpoints (contact/endpoint.h): index = robot, sub = mass. A mass is
 * a point mass: its velocity, J / m for an impulse, W = 1 / m (0 for a pinned mass, w = 0). The
 * operations act on the population's state between steps. */
#include "contact/endpoint.h"
#include "softbody/internal.h"

static void mass_velocity(const void* owner, loam_endpoint e, const double p[3], double v[3]) {
    const sb_slot* s = &((const loam_softbody_pop*)owner)->slots[e.index];
    (void)p;
    v[0] = s->vx[e.sub], v[1] = s->vy[e.sub], v[2] = s->vz[e.sub];
}

static void mass_apply(void* owner, loam_endpoint e, const double p[3], const double impulse[3]) {
    sb_slot* s = &((loam_softbody_pop*)owner)->slots[e.index];
    (void)p;
    double w = s->w[e.sub];
    s->vx[e.sub] = (float)(s->vx[e.sub] + w * impulse[0]);
    s->vy[e.sub] = (float)(s->vy[e.sub] + w * impulse[1]);
    s->vz[e.sub] = (float)(s->vz[e.sub] + w * impulse[2]);
}

static double mass_delassus(const void* owner, loam_endpoint e, const double p[3], const double n[3]) {
    (void)p, (void)n;
    return ((const loam_softbody_pop*)owner)->slots[e.index].w[e.sub];
}

const loam_endpoint_ops loam_soft_mass_endpoint_ops = {LOAM_ENDPOINT_SOFT_MASS, mass_velocity, mass_apply, mass_delassus};

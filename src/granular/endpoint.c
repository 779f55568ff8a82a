/* Granular particles as contact endpoints (contact/endpoint.h). A particle is a point mass in
 * paper 000's translational model: its velocity is the same at every point of it, an impulse J
 * changes it by J / m, and W = 1 / m along any direction. index is the particle's slot (slots are
 * renumbered every params.reorder_interval steps: loam_world_particles' id says who is where). The
 * operations read and write the state as it stands between steps; a sleeping particle
 * (params.sleep_speed) must be woken first (loam_world_wake_all). */
#include "contact/endpoint.h"
#include "granular/world_internal.h"

static void particle_velocity(const void* owner, loam_endpoint e, const double p[3], double v[3]) {
    const loam_world* w = owner;
    (void)p;
    v[0] = w->vx[e.index], v[1] = w->vy[e.index], v[2] = w->vz[e.index];
}

static void particle_apply(void* owner, loam_endpoint e, const double p[3], const double impulse[3]) {
    loam_world* w = owner;
    (void)p;
    double im = w->inv_mass[e.index];
    w->vx[e.index] = (float)(w->vx[e.index] + im * impulse[0]);
    w->vy[e.index] = (float)(w->vy[e.index] + im * impulse[1]);
    w->vz[e.index] = (float)(w->vz[e.index] + im * impulse[2]);
}

static double particle_delassus(const void* owner, loam_endpoint e, const double p[3], const double n[3]) {
    const loam_world* w = owner;
    (void)p, (void)n;
    return w->inv_mass[e.index];
}

const loam_endpoint_ops loam_particle_endpoint_ops = {LOAM_ENDPOINT_PARTICLE, particle_velocity, particle_apply, particle_delassus};

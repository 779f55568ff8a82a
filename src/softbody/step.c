/* One step of one robot: environment forces, then the force solver (paper 002 Algorithm 1) or XPBD
 * (Algorithm 2 as in Macklin et al. 2016: several sweeps, multipliers accumulated over the step),
 * then land constraints, then the velocities, damped by zeta. */
#include <math.h>
#include <string.h>

#include "softbody/internal.h"

/* Actuation of the materials this robot uses: L = L0 (1 + dL0 sin(omega t + phi)). Double inside
 * sin so long runs keep their phase. */
static void actuate(const loam_softbody_pop* p, sb_slot* s, double t) {
    for (int u = 0; u < s->nused; ++u) {
        int id = s->used[u];
        const loam_softbody_material* m = &p->mats.m[id];
        s->act[id] = m->dL0 == 0.0f ? 1.0f : (float)(1.0 + (double)m->dL0 * sin((double)m->omega * t + (double)m->phi));
    }
}

/* Hooke forces, equation 2, added into f, gathered per mass (kernels.c). Zero-length springs have no
 * direction: no force. */
static void spring_forces(sb_slot* s) {
    const float* act = s->active ? s->act : NULL;
    if (s->offset_rows)
        sb_offset_springs(s->nm, s->offset_rows, s->off, s->kslot, s->lslot, s->mslot, act, s->x, s->y, s->z, s->fx, s->fy,
                          s->fz);
    else
        sb_gather_springs(s->nm, s->deg, s->nbr, s->kslot, s->lslot, s->mslot, act, s->x, s->y, s->z, s->fx, s->fy, s->fz);
}

/* v += dt (F/m + g), x' = x + dt v: Algorithm 1's x' = x + dt v + dt^2 F/m with the velocity kept
 * as a state rather than recovered as (x' - x)/dt, which in float32 cancels most of its digits when
 * v dt is a few hundred ulps of x. Fixed masses (w = 0) stay. */
static void predict(sb_slot* s, float dt, const float g[3]) {
    sb_predict(s->nm, dt, g[0], g[1], g[2], s->w, s->x, s->y, s->z, s->vx, s->vy, s->vz, s->fx, s->fy, s->fz, s->px, s->py,
               s->pz);
}

/* XPBD multiplier update (Macklin et al. 2016, eq. 18) for a spring with inverse masses wa, wb:
 * dlambda = (-C - alpha~ lambda) / (wa + wb + alpha~), alpha~ = 1 / (k dt^2); Gauss-Seidel by colour
 * (kernels.c, sb_xpbd_color), so springs of one colour, which share no mass, update together. */
static void xpbd_gauss_seidel(sb_slot* s) {
    for (int c = 0; c < s->ncolor; ++c)
        sb_xpbd_color(s->color_start[c], s->color_start[c + 1], s->s0, s->s1, s->rest, s->mat, s->act, s->alpha, s->w,
                      s->lambda, s->x, s->y, s->z);
}

/* Every constraint from the same positions, with mass splitting: a mass in n springs lends each of
 * them 1/n of its mass (inverse mass n w, in cnt), so the summed corrections neither overshoot nor,
 * as plain averaging does, leave lambda out of step with the positions: averaging settled a cube
 * at 7x the sag of its springs. Runs per mass on the force solver's tables (kernels.c). */
static void xpbd_jacobi(sb_slot* s) {
    memset(s->fx, 0, sizeof(float) * (size_t)s->nm);
    memset(s->fy, 0, sizeof(float) * (size_t)s->nm);
    memset(s->fz, 0, sizeof(float) * (size_t)s->nm);
    sb_xpbd_rows(s->nm, s->offset_rows ? s->offset_rows : s->deg, s->offset_rows ? s->off : NULL, s->nbr, s->kslot,
                 s->aslot, s->lslot, s->mslot, s->active ? s->act : NULL, s->cnt, s->w, s->lamslot, s->x, s->y, s->z,
                 s->fx, s->fy, s->fz);
    for (int i = 0; i < s->nm; ++i) s->x[i] += s->fx[i], s->y[i] += s->fy[i], s->z[i] += s->fz[i];
}

static int find_bad(const sb_slot* s, float bound) {
    for (int i = 0; i < s->nm; ++i)
        if (!(fabsf(s->x[i]) <= bound) || !(fabsf(s->y[i]) <= bound) || !(fabsf(s->z[i]) <= bound) ||
            !isfinite(s->vx[i]) || !isfinite(s->vy[i]) || !isfinite(s->vz[i]))
            return i;
    return 0;
}

/* !(|x| <= bound) is also true for NaN; infinite velocities fail |v| < inf. */
#define SB_BAD(i)                                                                                           \
    (!(fabsf(s->x[i]) <= bound) | !(fabsf(s->y[i]) <= bound) | !(fabsf(s->z[i]) <= bound) |                \
     !(fabsf(s->vx[i]) < INFINITY) | !(fabsf(s->vy[i]) < INFINITY) | !(fabsf(s->vz[i]) < INFINITY))

/* Force solver: v = zeta (v + c / dt), c what the land constraints moved x away from its prediction
 * (px + dt v, recomputed bit for bit). Returns the first bad mass, or -1. */
static int finish_force(sb_slot* s, float dt, float zeta, float bound) {
    int bad = sb_finish_force(s->nm, dt, zeta, bound, s->x, s->y, s->z, s->px, s->py, s->pz, s->vx, s->vy, s->vz);
    return bad ? find_bad(s, bound) : -1;
}

/* XPBD: v = zeta (x' - x) / dt. */
static int finish_xpbd(sb_slot* s, float dt, float zeta, float bound) {
    float q = zeta / dt;
    int bad = 0;
    for (int i = 0; i < s->nm; ++i) {
        s->vx[i] = q * (s->x[i] - s->px[i]);
        s->vy[i] = q * (s->y[i] - s->py[i]);
        s->vz[i] = q * (s->z[i] - s->pz[i]);
        bad |= SB_BAD(i);
    }
    return bad ? find_bad(s, bound) : -1;
}

int sb_step_slot(const loam_softbody_pop* p, sb_slot* s, double t) {
    const loam_softbody_def* d = &p->def;
    float dt = (float)d->dt;
    float g[3] = {0.0f, 0.0f, 0.0f};
    if (d->env == LOAM_SB_LAND) g[0] = d->gravity.x, g[1] = d->gravity.y, g[2] = d->gravity.z;
    /* Forces are explicit (rest lengths at the step's start); XPBD constraints hold at its end. */
    actuate(p, s, d->solver == LOAM_SB_FORCE ? t : t + d->dt);
    memset(s->fx, 0, sizeof(float) * (size_t)s->nm);
    memset(s->fy, 0, sizeof(float) * (size_t)s->nm);
    memset(s->fz, 0, sizeof(float) * (size_t)s->nm);
    sb_env_forces(d, s);
    if (d->solver == LOAM_SB_FORCE) {
        spring_forces(s);
        predict(s, dt, g);
    } else {
        predict(s, dt, g);
        if (s->ns) memset(s->lambda, 0, sizeof(float) * (size_t)s->ns);
        if (d->solver == LOAM_SB_XPBD_JACOBI)
            memset(s->lamslot, 0, sizeof(float) * (size_t)s->deg * (size_t)s->nm);
        for (int it = 0; it < d->iterations; ++it) {
            if (d->solver == LOAM_SB_XPBD_GS) xpbd_gauss_seidel(s);
            else xpbd_jacobi(s);
        }
    }
    if (d->env == LOAM_SB_LAND) sb_land_constraints(d, s);
    if (d->solver == LOAM_SB_FORCE) return finish_force(s, dt, d->zeta, d->bound);
    return finish_xpbd(s, dt, d->zeta, d->bound);
}

/* Environments: water (equation 1 per face), linear drag, and land's constraints (mass-mass contact
 * through the shared spatial hash, a floor with static and kinetic friction). */
#include <math.h>
#include <string.h>

#include "softbody/internal.h"

/* Equation 1 of paper 002 on every face: F = -1/2 rho A ((C_D - C_L)(v.n) v + C_L |v|^2 n), with v
 * the centroid velocity and n the unit normal turned to point along v, a third to each corner.
 * Computed per face, then summed per surface mass (kernels.c): no two faces write one mass. */
static void water(const loam_softbody_def* d, sb_slot* s) {
    if (!s->nsurf) return;
    sb_face_forces(s->nf, s->fa, s->fb, s->fc, s->x, s->y, s->z, s->vx, s->vy, s->vz, 0.5f * d->rho,
                   d->drag_coefficient - d->lift_coefficient, d->lift_coefficient, s->gx, s->gy, s->gz);
    s->gx[s->nf] = s->gy[s->nf] = s->gz[s->nf] = 0.0f;
    sb_gather_faces(s->nsurf, s->fdeg, s->fof, s->gx, s->gy, s->gz, s->sx, s->sy, s->sz);
    for (int q = 0; q < s->nsurf; ++q) {
        int i = s->surf[q];
        s->fx[i] += s->sx[q], s->fy[i] += s->sy[q], s->fz[i] += s->sz[q];
    }
}

void sb_env_forces(const loam_softbody_def* d, sb_slot* s) {
    if (d->env == LOAM_SB_WATER) water(d, s);
    else if (d->env == LOAM_SB_LINEAR_DRAG) {
        float c = d->linear_drag;
        for (int i = 0; i < s->nm; ++i) s->fx[i] -= c * s->vx[i], s->fy[i] -= c * s->vy[i], s->fz[i] -= c * s->vz[i];
    }
}

/* Mass-mass contact as a position constraint: masses closer than two contact radii are pushed apart,
 * each by its inverse-mass share of the overlap, all from the same positions (Jacobi). A mass sums
 * its partners in index order, so the result does not depend on the hash's chain order. */
static void mass_contacts(sb_slot* s) {
    int n = s->nm;
    float r2 = 2.0f * s->contact_r, r2sq = r2 * r2;
    loam_hash_build_serial(&s->hash, n, s->x, s->y, s->z);
    float *cx = s->fx, *cy = s->fy, *cz = s->fz; /* forces are used by now: scratch */
    for (int i = 0; i < n; ++i) {
        int32_t buckets[27], partner[SB_MAX_CONTACTS];
        int nb = loam_hash_neighbor_buckets(&s->hash, s->x[i], s->y[i], s->z[i], buckets), np = 0;
        for (int q = 0; q < nb; ++q)
            for (int j = s->hash.head[buckets[q]]; j >= 0; j = s->hash.next[j]) {
                if (j == i) continue;
                float dx = s->x[i] - s->x[j], dy = s->y[i] - s->y[j], dz = s->z[i] - s->z[j];
                if (dx * dx + dy * dy + dz * dz >= r2sq) continue;
                /* keep the SB_MAX_CONTACTS lowest indices, sorted (insertion) */
                int at = np < SB_MAX_CONTACTS ? np++ : SB_MAX_CONTACTS;
                while (at > 0 && partner[at - 1] > j) {
                    if (at < SB_MAX_CONTACTS) partner[at] = partner[at - 1];
                    --at;
                }
                if (at < SB_MAX_CONTACTS) partner[at] = j;
            }
        float sx = 0.0f, sy = 0.0f, sz = 0.0f, wi = s->w[i];
        for (int q = 0; q < np; ++q) {
            int j = partner[q];
            float wsum = wi + s->w[j];
            float dx = s->x[i] - s->x[j], dy = s->y[i] - s->y[j], dz = s->z[i] - s->z[j];
            float len = sqrtf(dx * dx + dy * dy + dz * dz);
            if (!(len > 0.0f) || !(wsum > 0.0f)) continue;
            float push = wi / wsum * (r2 - len) / len;
            sx += push * dx, sy += push * dy, sz += push * dz;
        }
        cx[i] = sx, cy[i] = sy, cz[i] = sz;
    }
    for (int i = 0; i < n; ++i) s->x[i] += cx[i], s->y[i] += cy[i], s->z[i] += cz[i];
}

/* The floor as a position constraint with friction at the position level (Macklin et al. 2014): the
 * depth d pushed out this step is the normal impulse times dt/m; a tangential move over the step
 * shorter than mu_s d is undone (sticking), a longer one is shortened by mu_k d (sliding). */
static void floor_friction(const loam_softbody_def* d, sb_slot* s) {
    const float fz = d->floor_z, ms = d->mu_static, mk = d->mu_kinetic;
    for (int i = 0; i < s->nm; ++i) {
        float depth = fz - s->z[i];
        if (!(depth > 0.0f) || s->w[i] == 0.0f) continue;
        s->z[i] = fz;
        float tx = s->x[i] - s->px[i], ty = s->y[i] - s->py[i];
        float t = sqrtf(tx * tx + ty * ty);
        if (t <= ms * depth) {
            s->x[i] = s->px[i], s->y[i] = s->py[i];
        } else {
            float keep = 1.0f - mk * depth / t;
            s->x[i] = s->px[i] + keep * tx, s->y[i] = s->py[i] + keep * ty;
        }
    }
}

void sb_land_constraints(const loam_softbody_def* d, sb_slot* s) {
    if (s->has_hash) mass_contacts(s);
    floor_friction(d, s);
}

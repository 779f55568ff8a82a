/* Environments: water (equation 1 per face), linear drag, and land's constraints (mass-mass contact
 * through the shared spatial hash, a floor with static and kinetic friction). */
#include <math.h>
#include <string.h>

#include "collide/pair_list.h"
#include "core/vec.h"
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
 * each by its inverse-mass share of the overlap, all from the same positions (Jacobi). Candidates
 * come from a Verlet pair list (collide/pair_list.h: pairs within 2 r + skin, rebuilt from the
 * spatial hash when a mass has moved skin / 2): a robot at rest rebuilds rarely and checks few
 * pairs, where querying 27 buckets per mass every step cost eight spring passes. Each mass sums its
 * partners in index order (pairs are sorted), so the result does not depend on the hash's chain
 * order. build_pairs returns 0 when a mass has more than SB_MAX_CONTACTS candidates or the list is
 * full. */
static int build_pairs(sb_slot* s) {
    int n = s->nm, np = loam_pairs_within(&s->hash, n, s->x, s->y, s->z, 2.0f * s->contact_r + s->skin, SB_MAX_CONTACTS, s->pairs,
                                          s->pair_cap);
    if (np < 0) return 0;
    s->npairs = np;
    memcpy(s->bx, s->x, sizeof(float) * (size_t)n);
    memcpy(s->by, s->y, sizeof(float) * (size_t)n);
    memcpy(s->bz, s->z, sizeof(float) * (size_t)n);
    return 1;
}

/* The push of pair (a, b) on mass a: its inverse-mass share of the overlap along b -> a. */
static inline void push(const sb_slot* s, int a, int b, float r2, float* cx, float* cy, float* cz) {
    float wsum = s->w[a] + s->w[b];
    float dx = s->x[a] - s->x[b], dy = s->y[a] - s->y[b], dz = s->z[a] - s->z[b];
    float len2 = dx * dx + dy * dy + dz * dz;
    if (!(len2 < r2 * r2)) return;
    float len = sqrtf(len2);
    if (!(len > 0.0f) || !(wsum > 0.0f)) return;
    float q = s->w[a] / wsum * (r2 - len) / len;
    cx[a] += q * dx, cy[a] += q * dy, cz[a] += q * dz;
}

static void mass_contacts(sb_slot* s) {
    int n = s->nm;
    if (s->npairs < 0 || loam_pairs_moved_past(n, s->x, s->y, s->z, s->bx, s->by, s->bz, 0.5f * s->skin))
        if (!build_pairs(s)) {
            /* too crowded for the list (a collapsed robot): no contact this step rather than a
             * partial one; retried next step */
            s->npairs = -1;
            return;
        }
    float r2 = 2.0f * s->contact_r;
    float *cx = s->fx, *cy = s->fy, *cz = s->fz; /* forces are used by now: scratch */
    memset(cx, 0, sizeof(float) * (size_t)n);
    memset(cy, 0, sizeof(float) * (size_t)n);
    memset(cz, 0, sizeof(float) * (size_t)n);
    /* pairs sorted by (i, j): mass m meets partners k < m (as j) before partners j > m (as i),
     * each group ascending, so every mass sums its partners in index order */
    for (int q = 0; q < s->npairs; ++q) {
        int i = s->pairs[2 * q], j = s->pairs[2 * q + 1];
        push(s, i, j, r2, cx, cy, cz);
        push(s, j, i, r2, cx, cy, cz);
    }
    for (int i = 0; i < n; ++i) s->x[i] += cx[i], s->y[i] += cy[i], s->z[i] += cz[i];
}

/* The floor as a position constraint with friction at the position level (Macklin et al. 2014): the
 * depth d pushed out this step is the normal impulse times dt/m; a tangential move over the step
 * shorter than mu_s d is undone (sticking), a longer one is shortened by mu_k d (sliding). This is
 * ground_shape's rule for the normal e_z, kept as its own loop over plain coordinates so the
 * default floor (and any unrotated plane) keeps the bits it always had: the general rule's vector
 * arithmetic rounds differently. */
static void floor_friction(float fz, float ms, float mk, sb_slot* s) {
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

/* Any ground shape: a mass inside (signed distance f < 0) moves out along the shape's normal n by
 * d = -f, then the same friction acts on its move over the step projected into the tangent plane
 * of n. For a plane, box face or height field this is exact; on a mesh grid it is within the grid's
 * accuracy (loam/sdf_grid.h). */
static void ground_shape(const loam_shape* g, float ms, float mk, sb_slot* s) {
    loam_quat to_local = quat_conj(g->local.q);
    for (int i = 0; i < s->nm; ++i) {
        if (s->w[i] == 0.0f) continue;
        loam_vec3 x = v3(s->x[i], s->y[i], s->z[i]), nl;
        float f = loam_shape_sdf(g, quat_rotate(to_local, v3_sub(x, g->local.p)), &nl);
        if (!(f < 0.0f)) continue;
        float depth = -f;
        loam_vec3 n = quat_rotate(g->local.q, nl);
        loam_vec3 q = v3_add(x, v3_scale(n, depth));
        loam_vec3 u = v3_sub(q, v3(s->px[i], s->py[i], s->pz[i]));
        loam_vec3 ut = v3_sub(u, v3_scale(n, v3_dot(u, n)));
        float t = v3_length(ut);
        q = t <= ms * depth ? v3_sub(q, ut) : v3_sub(q, v3_scale(ut, mk * depth / t));
        s->x[i] = q.x, s->y[i] = q.y, s->z[i] = q.z;
    }
}

void sb_land_constraints(const loam_softbody_def* d, sb_slot* s) {
    if (s->has_hash) mass_contacts(s);
    if (d->ground_count == 0) {
        floor_friction(d->floor_z, d->mu_static, d->mu_kinetic, s);
        return;
    }
    for (int k = 0; k < d->ground_count; ++k) {
        const loam_shape* g = &d->ground[k];
        loam_quat q = g->local.q;
        if (g->type == LOAM_SHAPE_PLANE && q.w == 1.0f && q.x == 0.0f && q.y == 0.0f && q.z == 0.0f)
            floor_friction(g->local.p.z, d->mu_static, d->mu_kinetic, s);
        else
            ground_shape(g, d->mu_static, d->mu_kinetic, s);
    }
}

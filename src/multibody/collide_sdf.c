/* Spheres and capsules against a signed distance grid (a mesh geom's loam_sdf_grid, in the geom's
 * frame): the grid answers distance and gradient by trilinear interpolation, so a sphere of radius r
 * at c overlaps by r - phi(c) along the normal grad phi / |grad phi| (exact on flat parts of the
 * surface, within about a cell at edges). A capsule is sampled along its axis at most a cell (or its
 * radius, if larger) apart; its two ends and every strict local minimum of phi between them become
 * sphere contacts, so a capsule lying on a floor rests on two points and one across a ridge touches
 * it where it sinks deepest. */
#include <math.h>

#include "multibody/collide_internal.h"

/* phi and the unit world normal at world point c; returns phi. */
static double sdf_at(loam_posed G, const loam_sdf_grid* grid, loam_vec3d c, loam_vec3d* n) {
    loam_vec3d l = qd_rotate(qd_conj(G.q), d3_sub(c, G.p));
    loam_vec3 g;
    double phi = loam_sdf_grid_query(grid, (loam_vec3){(float)l.x, (float)l.y, (float)l.z}, &g);
    loam_vec3d gl = d3(g.x, g.y, g.z);
    double len = d3_norm(gl);
    /* a flat spot of the interpolant (the medial axis): any direction is as good; take the frame's z */
    *n = qd_rotate(G.q, len > 1e-12 ? d3_scale(gl, 1.0 / len) : d3(0, 0, 1));
    return phi;
}

void mb_sphere_sdf(mb_sink* k, int gs, loam_vec3d c, double r, int gm, loam_posed G, const loam_sdf_grid* grid) {
    loam_vec3d n;
    double gap = sdf_at(G, grid, c, &n) - r;
    mb_emit(k, gs, gm, d3_sub(c, d3_scale(n, r + 0.5 * gap)), n, -gap);
}

enum { MAX_SAMPLES = 33 };

void mb_capsule_sdf(mb_sink* k, int gc, loam_posed C, double r, double hc, int gm, loam_posed G, const loam_sdf_grid* grid) {
    loam_vec3d d = qd_rotate(C.q, d3(0, 0, 1)), e0 = d3_sub(C.p, d3_scale(d, hc));
    double spacing = fmax((double)grid->cell, r);
    int ns = (int)ceil(2.0 * hc / spacing) + 1;
    if (ns < 2) ns = 2;
    if (ns > MAX_SAMPLES) ns = MAX_SAMPLES;
    double phi[MAX_SAMPLES];
    loam_vec3d n[MAX_SAMPLES], p[MAX_SAMPLES];
    for (int i = 0; i < ns; ++i) {
        p[i] = d3_add(e0, d3_scale(d, 2.0 * hc * i / (ns - 1)));
        phi[i] = sdf_at(G, grid, p[i], &n[i]);
    }
    /* flat stretches (a capsule on a floor) must not report their middle samples: a minimum has to be
     * lower than both neighbours by more than float noise of the grid. Around the deepest sample, the
     * run of samples within the contact margin of it is reported by its two ends: a capsule lying
     * across a floor with both ends overhanging, slightly tilted, then keeps a (speculative) contact at
     * its higher edge too instead of seesawing between single points at alternate edges. */
    double tol = 1e-4 * ((double)grid->cell + r);
    int imin = 0;
    for (int i = 1; i < ns; ++i)
        if (phi[i] < phi[imin]) imin = i;
    int lo = imin, hi = imin;
    while (lo > 0 && phi[lo - 1] <= phi[imin] + k->m->opt.contact_margin) --lo;
    while (hi < ns - 1 && phi[hi + 1] <= phi[imin] + k->m->opt.contact_margin) ++hi;
    for (int i = 0; i < ns; ++i) {
        int end = i == 0 || i == ns - 1 || i == lo || i == hi;
        int minimum = phi[i] <= phi[i - (i > 0)] && phi[i] <= phi[i + (i < ns - 1)] && (phi[i] < phi[i - (i > 0)] - tol || phi[i] < phi[i + (i < ns - 1)] - tol);
        if (!end && !minimum) continue;
        double gap = phi[i] - r;
        mb_emit(k, gc, gm, d3_sub(p[i], d3_scale(n[i], r + 0.5 * gap)), n[i], -gap);
    }
}

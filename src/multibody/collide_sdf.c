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

/* A mesh's surface points against another shape: each point's gap and outward normal from the
 * other shape; the points within the contact margin are kept, then at most four of them reported:
 * the deepest, then each time the one farthest from those already chosen (a mesh lying on a floor
 * rests on a spread support polygon, like a box's four corners, instead of hundreds of vertices). */
typedef struct probe_hit {
    loam_vec3d p, n;
    double gap;
} probe_hit;

enum { MAX_POINT_CONTACTS = 4 };

static void reduce_emit(mb_sink* k, int ga, int gb, probe_hit* h, int nh) {
    if (nh == 0) return;
    int chosen[MAX_POINT_CONTACTS], nc = 0, best = 0;
    for (int i = 1; i < nh; ++i)
        if (h[i].gap < h[best].gap) best = i;
    chosen[nc++] = best;
    while (nc < MAX_POINT_CONTACTS && nc < nh) {
        int far = -1;
        double far_d = 1e-12; /* points that coincide with a chosen one add nothing */
        for (int i = 0; i < nh; ++i) {
            double dmin = INFINITY;
            for (int c = 0; c < nc; ++c) dmin = fmin(dmin, d3_norm(d3_sub(h[i].p, h[chosen[c]].p)));
            if (dmin > far_d) far_d = dmin, far = i;
        }
        if (far < 0) break;
        chosen[nc++] = far;
    }
    for (int c = 0; c < nc; ++c) {
        const probe_hit* x = &h[chosen[c]];
        mb_emit(k, ga, gb, d3_sub(x->p, d3_scale(x->n, 0.5 * x->gap)), x->n, -x->gap);
    }
}

/* Signed distance of world point p from box B (half extents e) and the outward normal there. */
static double box_distance(loam_posed B, loam_vec3d e, loam_vec3d p, loam_vec3d* n) {
    loam_vec3d l = qd_rotate(qd_conj(B.q), d3_sub(p, B.p));
    loam_vec3d q = d3(fmax(-e.x, fmin(e.x, l.x)), fmax(-e.y, fmin(e.y, l.y)), fmax(-e.z, fmin(e.z, l.z)));
    loam_vec3d d = d3_sub(l, q);
    double dist = d3_norm(d);
    if (dist > 1e-12) {
        *n = qd_rotate(B.q, d3_scale(d, 1.0 / dist));
        return dist;
    }
    int axis = 0; /* inside: out through the nearest face */
    double room = INFINITY;
    for (int a = 0; a < 3; ++a) {
        double r = d3_get(e, a) - fabs(d3_get(l, a));
        if (r < room) room = r, axis = a;
    }
    double sgn = d3_get(l, axis) >= 0 ? 1.0 : -1.0;
    *n = qd_rotate(B.q, d3(axis == 0 ? sgn : 0, axis == 1 ? sgn : 0, axis == 2 ? sgn : 0));
    return -room;
}

void mb_points_shape(mb_sink* k, int gm, loam_posed G, const float* pts, int npts, int go, loam_posed O, const mb_geom* other) {
    probe_hit h[MB_MAX_MESH_POINTS + 8];
    int nh = 0;
    double margin = k->m->opt.contact_margin;
    for (int i = 0; i < npts && i < MB_MAX_MESH_POINTS; ++i) {
        loam_vec3d p = pd_apply(G, d3(pts[3 * i], pts[3 * i + 1], pts[3 * i + 2])), n;
        double gap;
        if (other->type == LOAM_SHAPE_PLANE) {
            n = qd_rotate(O.q, d3(0, 0, 1));
            gap = d3_dot(n, d3_sub(p, O.p));
        } else if (other->type == LOAM_SHAPE_BOX) {
            gap = box_distance(O, other->size, p, &n);
        } else if (other->type == LOAM_SHAPE_MESH && other->sdf) {
            gap = sdf_at(O, other->sdf, p, &n);
        } else {
            return;
        }
        if (gap <= margin) h[nh++] = (probe_hit){p, n, gap};
    }
    /* A box's corners against the mesh's grid too: a box edge can dig into a mesh face between the
     * mesh's vertices. (n: from the mesh towards the box, as the mesh's points' normals are reversed.) */
    if (other->type == LOAM_SHAPE_BOX && mb_geom_at(k->m, gm)->sdf) {
        probe_hit hb[8];
        int nb = 0;
        loam_vec3d e = other->size;
        for (int i = 0; i < 8; ++i) {
            loam_vec3d c = pd_apply(O, d3(i & 1 ? e.x : -e.x, i & 2 ? e.y : -e.y, i & 4 ? e.z : -e.z)), n;
            double gap = sdf_at(G, mb_geom_at(k->m, gm)->sdf, c, &n);
            if (gap <= margin) hb[nb++] = (probe_hit){c, n, gap};
        }
        reduce_emit(k, go, gm, hb, nb);
    }
    reduce_emit(k, gm, go, h, nh);
}

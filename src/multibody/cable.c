/* Cables as rigid segments joined by constraints (see loam/multibody.h). Segment i is a floating body
 * whose frame sits at the segment's centre with x along the cable; joint i (between segments i - 1
 * and i) holds their shared end together (hard POINT) and resists bending with E I / l (soft ANGULAR):
 * for a rod of rigid segments with springs at the joints, the moment at a joint bends the two
 * neighbours by M l / (E I), which is Euler-Bernoulli's curvature M / (E I) over one segment. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/vecd.h"
#include "loam/multibody.h"

loam_mb_cable_def loam_mb_cable_default_def(void) {
    loam_mb_cable_def c;
    memset(&c, 0, sizeof c);
    snprintf(c.name, sizeof c.name, "cable");
    c.segments = 10;
    c.length = 1.0;
    c.radius = 0.01;
    c.density = 1000.0;
    c.young = 1e7;
    c.poisson = 0.5;
    c.friction = 0.5;
    c.start = pd_identity();
    return c;
}

loam_status loam_mb_cable_build(const loam_mb_cable_def* d, int first_body, loam_mb_body_def* bodies, loam_mb_geom_def* geoms,
                                loam_mb_constraint_def* cons, loam_error* err) {
    if (!d || !bodies || !geoms || (!cons && d->segments > 1)) return loam_error_set(err, LOAM_ERR_INPUT, "cable: null definition or output array");
    const char* n = memchr(d->name, 0, sizeof d->name) ? d->name : "(unterminated)";
#define BAD(...) return loam_error_set(err, LOAM_ERR_INPUT, __VA_ARGS__)
    if (d->segments < 1 || d->segments > 100000) BAD("cable '%s': segments = %d, expected 1 to 100000", n, d->segments);
    if (!(d->length > 0 && isfinite(d->length))) BAD("cable '%s': length = %g m, expected > 0", n, d->length);
    if (!(d->radius > 0 && isfinite(d->radius))) BAD("cable '%s': radius = %g m, expected > 0", n, d->radius);
    if (!(d->density > 0 && isfinite(d->density))) BAD("cable '%s': density = %g kg/m^3, expected > 0", n, d->density);
    if (!(d->young > 0 && isfinite(d->young))) BAD("cable '%s': young = %g Pa, expected > 0", n, d->young);
    if (!(d->poisson > -1.0 && d->poisson <= 0.5)) BAD("cable '%s': poisson = %g, expected in (-1, 0.5]", n, d->poisson);
    if (d->cosserat != 0 && d->cosserat != 1) BAD("cable '%s': cosserat = %d, expected 0 or 1", n, d->cosserat);
    if (!(d->damping >= 0 && isfinite(d->damping))) BAD("cable '%s': damping = %g N m s/rad, expected >= 0", n, d->damping);
    if (!(d->friction >= 0 && isfinite(d->friction))) BAD("cable '%s': friction = %g, expected >= 0", n, d->friction);
    if (!d3_is_finite(d->start.p) || !qd_is_finite(d->start.q) || !(qd_norm(d->start.q) > 1e-9)) BAD("cable '%s': start is not a finite pose", n);
    if (first_body < 0) BAD("cable '%s': first_body = %d, expected >= 0", n, first_body);
#undef BAD
    int s = d->segments;
    double l = d->length / s, r = d->radius, m = d->density * M_PI * r * r * l;
    double EI = d->young * M_PI * r * r * r * r / 4.0, EA = d->young * M_PI * r * r, G = d->young / (2.0 * (1.0 + d->poisson));
    double GA = G * M_PI * r * r, GJ = G * M_PI * r * r * r * r / 2.0;
    loam_posed start = {d->start.p, qd_normalize(d->start.q)};
    for (int i = 0; i < s; ++i) {
        loam_mb_body_def* b = &bodies[i];
        *b = loam_mb_body_default_def();
        snprintf(b->name, sizeof b->name, "%s_%d", n, i);
        b->joint = LOAM_JOINT_FLOATING;
        b->placement = pd_mul(start, (loam_posed){{(i + 0.5) * l, 0, 0}, {1, 0, 0, 0}});
        b->mass = m;
        /* a solid cylinder along x: m r^2 / 2 about its axis, m (3 r^2 + l^2) / 12 across */
        b->inertia[0] = 0.5 * m * r * r;
        b->inertia[1] = b->inertia[2] = m * (3 * r * r + l * l) / 12.0;
        loam_mb_geom_def* g = &geoms[i];
        *g = loam_mb_geom_default_def();
        g->body = first_body + i;
        g->shape.type = LOAM_SHAPE_CAPSULE;
        loam_quatd q = qd_from_axis_angle(d3(0, 1, 0), 0.5 * M_PI); /* the capsule's axis (local z) onto x */
        g->shape.local.q = (loam_quat){(float)q.w, (float)q.x, (float)q.y, (float)q.z};
        g->shape.size = (loam_vec3){(float)r, 0.0f, (float)(0.5 * l)};
        g->shape.friction = (float)d->friction;
    }
    for (int i = 1; i < s; ++i) {
        loam_mb_constraint_def* p = &cons[2 * (i - 1)];
        *p = loam_mb_constraint_default_def();
        snprintf(p->name, sizeof p->name, "%s_joint%d", n, i);
        p->side[0] = loam_mb_side_body(first_body + i), p->side[1] = loam_mb_side_body(first_body + i - 1);
        p->anchor[0] = d3(-0.5 * l, 0, 0), p->anchor[1] = d3(0.5 * l, 0, 0);
        loam_mb_constraint_def* a = &cons[2 * (i - 1) + 1];
        *a = *p;
        snprintf(a->name, sizeof a->name, "%s_bend%d", n, i);
        a->type = LOAM_CONSTRAINT_ANGULAR;
        if (d->cosserat) { /* per axis of segment i's frame: x along the cable */
            p->axis_stiffness = d3(EA / l, GA / l, GA / l);
            a->axis_stiffness = d3(GJ / l, EI / l, EI / l);
            a->axis_damping = d3(d->damping, d->damping, d->damping);
        } else {
            a->stiffness = EI / l;
            a->damping = d->damping;
        }
    }
    return LOAM_OK;
}

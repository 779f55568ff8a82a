/* Contacts of FEM surface nodes against the model's geoms: each node is a point tested against the
 * geom's signed distance (loam/geom.h's SDFs for boxes, spheres, capsules and cylinders, evaluated in
 * the geom's frame; planes in double). A node closer than contact_margin makes a contact whose normal
 * is the SDF gradient (from the geom towards the node), so its three rows act on the node's velocity
 * and on the geom's tree. A bounding sphere per piece skips far geoms. No FEM-FEM contact yet. */
#include <math.h>

#include "core/vecd.h"
#include "multibody/fem.h"
#include "multibody/mb_internal.h"

static double geom_radius(const mb_geom* g) {
    switch (g->type) {
    case LOAM_SHAPE_BOX: return d3_norm(g->size);
    case LOAM_SHAPE_SPHERE: return g->size.x;
    case LOAM_SHAPE_CAPSULE:
    case LOAM_SHAPE_CYLINDER: return g->size.x + g->size.z;
    default: return INFINITY;
    }
}

/* Signed distance of world point x to geom g at world pose P, with the world normal. */
static double geom_sdf(const mb_geom* g, loam_posed P, loam_vec3d x, loam_vec3d* n) {
    loam_vec3d l = qd_rotate(qd_conj(P.q), d3_sub(x, P.p));
    if (g->type == LOAM_SHAPE_PLANE) {
        *n = qd_rotate(P.q, d3(0, 0, 1));
        return l.z;
    }
    loam_shape sh = {0};
    sh.type = g->type;
    sh.local = loam_pose_identity();
    sh.size = (loam_vec3){(float)g->size.x, (float)g->size.y, (float)g->size.z};
    loam_vec3 nl;
    double d = loam_shape_sdf(&sh, (loam_vec3){(float)l.x, (float)l.y, (float)l.z}, &nl);
    loam_vec3d nd = d3(nl.x, nl.y, nl.z);
    double len = d3_norm(nd);
    *n = qd_rotate(P.q, len > 0 ? d3_scale(nd, 1.0 / len) : d3(0, 0, 1));
    return d;
}

int mb_fem_collide(const loam_mb_model* m, loam_mb_state* s) {
    int lost = 0;
    double margin = m->opt.contact_margin;
    for (int fi = 0; fi < m->nfem; ++fi) {
        const loam_mb_fem* f = &m->fem[fi];
        const mb_fem_data* p = mb_fem_priv(f);
        const double* x = s->fem_x + 3 * (size_t)f->node_adr;
        loam_vec3d lo = d3_load(x), hi = lo;
        for (int i = 1; i < f->def.nnode; ++i) {
            loam_vec3d q = d3_load(x + 3 * i);
            lo = d3(fmin(lo.x, q.x), fmin(lo.y, q.y), fmin(lo.z, q.z)), hi = d3(fmax(hi.x, q.x), fmax(hi.y, q.y), fmax(hi.z, q.z));
        }
        loam_vec3d centre = d3_scale(d3_add(lo, hi), 0.5);
        double radius = 0.5 * d3_norm(d3_sub(hi, lo));
        for (int gi = 0; gi < m->ngeom; ++gi) {
            const mb_geom* g = mb_geom_at(m, gi);
            if (g->type == LOAM_SHAPE_MESH || g->type == LOAM_SHAPE_TUBE) continue;
            if (!((f->def.contype & g->conaffinity) || (g->contype & f->def.conaffinity))) continue;
            loam_posed P = g->body >= 0 ? pd_mul(s->xpose[g->body], g->pose) : g->pose;
            if (d3_norm(d3_sub(P.p, centre)) > radius + geom_radius(g) + margin) continue;
            for (int i = 0; i < f->def.nnode; ++i) {
                if (!p->surface[i] || p->fixed[i]) continue;
                loam_vec3d xi = d3_load(x + 3 * i), n;
                double d = geom_sdf(g, P, xi, &n);
                if (d > margin) continue;
                if (s->ncontact >= m->opt.max_contacts) {
                    ++lost;
                    continue;
                }
                loam_mb_contact* c = &s->contact[s->ncontact++];
                c->side[0] = (loam_mb_side){LOAM_MB_SIDE_FEM_NODE, fi, i}, c->side[1] = mb_body_side(g->body);
                c->body[0] = -1, c->body[1] = g->body;
                c->geom[0] = -1, c->geom[1] = gi;
                c->point = d3_sub(xi, d3_scale(n, 0.5 * d)); /* midway between the node and the surface */
                c->frame[0] = n;
                d3_tangents(n, &c->frame[1], &c->frame[2]);
                c->depth = -d;
                c->friction = sqrt(f->def.friction * g->friction);
            }
        }
    }
    return lost;
}

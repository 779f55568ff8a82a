/* Contacts between multibody geoms: dispatch by shape pair, the sphere and plane pairs, the
 * broadphase and the contact Jacobian. Boxes, capsules and cylinders against each other are in
 * collide_convex.c, spheres and capsules against signed distance grids (mesh geoms) in
 * collide_sdf.c. Spheres on bodies find each other through the spatial hash of the granular module
 * (candidates sorted, so the contact order never depends on threads); every other pair is tried
 * directly after a bounding-sphere test (world poses computed once per call). Parent-child pairs and
 * bodies joined by a model constraint are skipped, since a joint's two links (or a cable joint's two
 * segments) overlap by design, and so are pairs whose contype and conaffinity masks do not meet.
 * See loam/multibody.h. */
#include <math.h>
#include <stdlib.h>

#include "multibody/collide_internal.h"

typedef mb_sink sink;

/* A contact of geom ga (body a) with geom gb (body b); n points from b towards a. */
void mb_emit(sink* k, int ga, int gb, loam_vec3d point, loam_vec3d n, double depth) {
    if (-depth > k->m->opt.contact_margin) return;
    const mb_geom *A = mb_geom_at(k->m, ga), *B = mb_geom_at(k->m, gb);
    if (A->body < 0) { /* body[0] is never the world */
        int t = ga;
        ga = gb, gb = t;
        n = d3_neg(n);
        const mb_geom* g = A;
        A = B, B = g;
    }
    if (k->s->ncontact >= k->m->opt.max_contacts) {
        k->overflow++;
        return;
    }
    loam_mb_contact* c = &k->s->contact[k->s->ncontact++];
    c->side[0] = mb_body_side(A->body), c->side[1] = mb_body_side(B->body);
    c->body[0] = A->body, c->body[1] = B->body;
    c->geom[0] = ga, c->geom[1] = gb;
    c->point = point;
    c->frame[0] = n;
    d3_tangents(n, &c->frame[1], &c->frame[2]);
    c->depth = depth;
    c->friction = sqrt(A->friction * B->friction);
}

static int is_ball(const mb_geom* g) { return g->type == LOAM_SHAPE_SPHERE && g->body >= 0; }

/* World poses of all geoms, once per call (a geom meets many others). */
static loam_status geom_poses(const loam_mb_model* m, loam_mb_state* s, loam_error* err) {
    mb_work* w = s->work;
    if (!w->gpose && !(w->gpose = loam_ctx_malloc(m->opt.context, sizeof(loam_posed) * (size_t)(m->ngeom > 0 ? m->ngeom : 1))))
        return loam_error_set(err, LOAM_ERR_NOMEM, "multibody: collide: out of memory");
    if (!w->other) { /* the geoms that are not balls on bodies, ascending */
        if (!(w->other = loam_ctx_malloc(m->opt.context, sizeof(int) * (size_t)(m->ngeom > 0 ? m->ngeom : 1))))
            return loam_error_set(err, LOAM_ERR_NOMEM, "multibody: collide: out of memory");
        w->nother = 0;
        for (int g = 0; g < m->ngeom; ++g)
            if (!is_ball(mb_geom_at(m, g))) w->other[w->nother++] = g;
    }
    for (int g = 0; g < m->ngeom; ++g) {
        const mb_geom* G = mb_geom_at(m, g);
        w->gpose[g] = G->body < 0 ? G->pose : pd_mul(s->xpose[G->body], G->pose);
    }
    return LOAM_OK;
}

static loam_posed geom_pose(const loam_mb_state* s, int g) { return ((const mb_work*)s->work)->gpose[g]; }

/* Plane gp (normal = its local z through its origin) against a point with radius r. */
static void plane_sphere(sink* k, int gs, int gp, loam_posed P, loam_vec3d c, double r) {
    loam_vec3d n = qd_rotate(P.q, d3(0, 0, 1));
    double d = d3_dot(n, d3_sub(c, P.p)) - r;
    mb_emit(k, gs, gp, d3_sub(c, d3_scale(n, r + 0.5 * d)), n, -d);
}

static void plane_box(sink* k, int gb, int gp, loam_posed P, loam_posed B, loam_vec3d h) {
    loam_vec3d n = qd_rotate(P.q, d3(0, 0, 1));
    for (int i = 0; i < 8; ++i) {
        loam_vec3d corner = pd_apply(B, d3(i & 1 ? h.x : -h.x, i & 2 ? h.y : -h.y, i & 4 ? h.z : -h.z));
        double d = d3_dot(n, d3_sub(corner, P.p));
        mb_emit(k, gb, gp, d3_sub(corner, d3_scale(n, 0.5 * d)), n, -d);
    }
}

void mb_sphere_sphere(sink* k, int ga, int gb, loam_vec3d ca, double ra, loam_vec3d cb, double rb) {
    loam_vec3d d = d3_sub(ca, cb);
    double len = d3_norm(d);
    loam_vec3d n = len > 1e-12 ? d3_scale(d, 1.0 / len) : d3(0, 0, 1);
    double gap = len - ra - rb;
    mb_emit(k, ga, gb, d3_add(cb, d3_scale(n, rb + 0.5 * gap)), n, -gap);
}

void mb_sphere_box(sink* k, int gs, int gb, loam_vec3d c, double r, loam_posed B, loam_vec3d h) {
    loam_vec3d local = qd_rotate(qd_conj(B.q), d3_sub(c, B.p));
    loam_vec3d q = d3(fmax(-h.x, fmin(h.x, local.x)), fmax(-h.y, fmin(h.y, local.y)), fmax(-h.z, fmin(h.z, local.z)));
    loam_vec3d d = d3_sub(local, q), nl;
    double dist = d3_norm(d);
    if (dist > 1e-12) {
        nl = d3_scale(d, 1.0 / dist);
    } else { /* centre inside: leave through the nearest face */
        double best = INFINITY;
        int axis = 0;
        for (int a = 0; a < 3; ++a) {
            double room = d3_get(h, a) - fabs(d3_get(local, a));
            if (room < best) best = room, axis = a;
        }
        double sgn = d3_get(local, axis) >= 0 ? 1.0 : -1.0;
        nl = d3(axis == 0 ? sgn : 0, axis == 1 ? sgn : 0, axis == 2 ? sgn : 0);
        q = local;
        if (axis == 0) q.x = sgn * h.x;
        if (axis == 1) q.y = sgn * h.y;
        if (axis == 2) q.z = sgn * h.z;
        dist = -best;
    }
    loam_vec3d n = qd_rotate(B.q, nl), surface = pd_apply(B, q);
    double gap = dist - r;
    mb_emit(k, gs, gb, d3_add(surface, d3_scale(n, 0.5 * gap)), n, -gap);
}

/* The same body, a joint's two links, the tree's self-collision setting, excluded pairs
 * (collide_filter.c). */
static int adjacent(const loam_mb_model* m, int a, int b) { return loam_mb_bodies_skip(m, a, b); }

static int by_key(const void* a, const void* b) { return (*(const long long*)a > *(const long long*)b) - (*(const long long*)a < *(const long long*)b); }

/* Bodies joined by a model constraint (a cable's consecutive segments overlap at their joint by
 * design) are skipped like a joint's parent and child. */
static int joined(const loam_mb_model* m, mb_work* w, int a, int b) {
    if (a < 0 || b < 0 || w->njoined <= 0) return 0;
    long long key = (long long)(a < b ? a : b) * m->nbody + (a < b ? b : a);
    return bsearch(&key, w->joined, (size_t)w->njoined, sizeof key, by_key) != NULL;
}

static loam_status make_joined(const loam_mb_model* m, mb_work* w, loam_error* err) {
    if (w->joined || m->nconstraint == 0) return LOAM_OK;
    w->joined = loam_ctx_malloc(m->opt.context, sizeof(long long) * (size_t)m->nconstraint);
    if (!w->joined) return loam_error_set(err, LOAM_ERR_NOMEM, "multibody: collide: out of memory");
    int n = 0;
    for (int c = 0; c < m->nconstraint; ++c) {
        int a = mb_constraint_body(&m->constraint[c], 0), b = mb_constraint_body(&m->constraint[c], 1);
        if (a >= 0 && b >= 0) w->joined[n++] = (long long)(a < b ? a : b) * m->nbody + (a < b ? b : a);
    }
    qsort(w->joined, (size_t)n, sizeof(long long), by_key);
    w->njoined = n;
    return LOAM_OK;
}

static int filtered(const mb_geom* a, const mb_geom* b) {
    return !((a->contype & b->conaffinity) || (b->contype & a->conaffinity));
}

/* A radius that bounds the geom around its origin, or -1 for unbounded (planes, grids: tested exactly). */
static double bound_radius(const mb_geom* g) {
    switch (g->type) {
    case LOAM_SHAPE_SPHERE: return g->size.x;
    case LOAM_SHAPE_BOX: return d3_norm(g->size);
    case LOAM_SHAPE_CAPSULE: return g->size.x + g->size.z;
    case LOAM_SHAPE_CYLINDER: return sqrt(g->size.x * g->size.x + g->size.z * g->size.z);
    case LOAM_SHAPE_MESH:
        if (g->sdf) { /* the farthest corner of the grid's box less its margin: the mesh's bounds */
            const loam_sdf_grid* s = g->sdf;
            double lo[3] = {s->origin.x + s->margin, s->origin.y + s->margin, s->origin.z + s->margin};
            double hi[3] = {s->origin.x + (s->nx - 1) * (double)s->cell - s->margin, s->origin.y + (s->ny - 1) * (double)s->cell - s->margin,
                            s->origin.z + (s->nz - 1) * (double)s->cell - s->margin};
            double r2 = 0.0;
            for (int a = 0; a < 3; ++a) r2 += fmax(lo[a] * lo[a], hi[a] * hi[a]);
            return sqrt(r2);
        }
        return -1.0;
    default: return -1.0;
    }
}

static void pair(sink* k, int ga, int gb) {
    const loam_mb_model* m = k->m;
    const mb_geom *A = mb_geom_at(m, ga), *B = mb_geom_at(m, gb);
    /* Order by type so each shape pair has one handler: PLANE < BOX < SPHERE < CAPSULE < CYLINDER < MESH. */
    if (A->type > B->type) {
        int t = ga;
        ga = gb, gb = t;
        const mb_geom* g = A;
        A = B, B = g;
    }
    loam_posed PA = geom_pose(k->s, ga), PB = geom_pose(k->s, gb);
    double ra = bound_radius(A), rb = bound_radius(B);
    if (ra >= 0.0 && rb >= 0.0 && d3_norm(d3_sub(PA.p, PB.p)) > ra + rb + m->opt.contact_margin) return; /* too far apart */
    loam_shape_type ta = A->type, tb = B->type;
    if (ta == LOAM_SHAPE_PLANE) {
        if (tb == LOAM_SHAPE_SPHERE) plane_sphere(k, gb, ga, PA, PB.p, B->size.x);
        else if (tb == LOAM_SHAPE_BOX) plane_box(k, gb, ga, PA, PB, B->size);
        else if (tb == LOAM_SHAPE_CAPSULE) {
            loam_vec3d axis = qd_rotate(PB.q, d3(0, 0, B->size.z));
            plane_sphere(k, gb, ga, PA, d3_add(PB.p, axis), B->size.x);
            plane_sphere(k, gb, ga, PA, d3_sub(PB.p, axis), B->size.x);
        } else if (tb == LOAM_SHAPE_CYLINDER) mb_plane_cylinder(k, gb, ga, PA, PB, B->size.x, B->size.z);
        else if (tb == LOAM_SHAPE_MESH) mb_points_shape(k, gb, PB, B->points, B->npoints, ga, PA, A);
    } else if (ta == LOAM_SHAPE_MESH) { /* both meshes: each one's points against the other's grid */
        mb_points_shape(k, ga, PA, A->points, A->npoints, gb, PB, B);
        mb_points_shape(k, gb, PB, B->points, B->npoints, ga, PA, A);
    } else if (ta == LOAM_SHAPE_BOX) {
        if (tb == LOAM_SHAPE_MESH) mb_points_shape(k, gb, PB, B->points, B->npoints, ga, PA, A);
        if (tb == LOAM_SHAPE_BOX) mb_box_box(k, ga, PA, A->size, gb, PB, B->size);
        else if (tb == LOAM_SHAPE_SPHERE) mb_sphere_box(k, gb, ga, PB.p, B->size.x, PA, A->size);
        else if (tb == LOAM_SHAPE_CAPSULE) mb_box_capsule(k, ga, PA, A->size, gb, PB, B->size.x, B->size.z);
    } else if (ta == LOAM_SHAPE_SPHERE) {
        if (tb == LOAM_SHAPE_SPHERE) mb_sphere_sphere(k, ga, gb, PA.p, A->size.x, PB.p, B->size.x);
        else if (tb == LOAM_SHAPE_CAPSULE) {
            /* the closest point of the capsule's axis segment, then two spheres */
            loam_vec3d axis = qd_rotate(PB.q, d3(0, 0, 1));
            double t = d3_dot(d3_sub(PA.p, PB.p), axis);
            t = fmax(-B->size.z, fmin(B->size.z, t));
            mb_sphere_sphere(k, ga, gb, PA.p, A->size.x, d3_add(PB.p, d3_scale(axis, t)), B->size.x);
        } else if (tb == LOAM_SHAPE_CYLINDER) mb_sphere_cylinder(k, ga, gb, PA.p, A->size.x, PB, B->size.x, B->size.z);
        else if (tb == LOAM_SHAPE_MESH && B->sdf) mb_sphere_sdf(k, ga, PA.p, A->size.x, gb, PB, B->sdf);
    } else if (ta == LOAM_SHAPE_CAPSULE) {
        if (tb == LOAM_SHAPE_CAPSULE) mb_capsule_capsule(k, ga, PA, A->size.x, A->size.z, gb, PB, B->size.x, B->size.z);
        else if (tb == LOAM_SHAPE_MESH && B->sdf) mb_capsule_sdf(k, ga, PA, A->size.x, A->size.z, gb, PB, B->sdf);
    }
}

/* Candidates in ascending order (the contacts' order must not depend on the hash's bucket walk); a
 * ball has a few dozen of them, where insertion sort beats qsort's calls through a comparator (qsort
 * was 6% of a 100-sphere stirring step). The values are distinct, so the order is the same. */
static void sort_ascending(int* c, int n) {
    for (int i = 1; i < n; ++i) {
        int x = c[i], j = i - 1;
        for (; j >= 0 && c[j] > x; --j) c[j + 1] = c[j];
        c[j + 1] = x;
    }
}

/* Up to this many balls, every pair is tested: a hash lookup of the 27 cells around a ball cost more
 * than testing it against a hundred others (15% of a 100-sphere stirring step went to the lookups). */
enum { MB_BALLS_BY_PAIRS = 256 };

/* Whether balls i and j (radius ri) may be within the contact margin: the float centres of
 * ball_pairs, with room for their rounding, so every pair that is keeps this. */
static inline int balls_near(const loam_mb_model* m, const mb_work* w, int i, int j, float ri, float margin) {
    float dx = w->bx[i] - w->bx[j], dy = w->by[i] - w->by[j], dz = w->bz[i] - w->bz[j];
    float cut = (ri + (float)mb_geom_at(m, w->ball_geom[j])->size.x + margin) * 1.001f + 1e-6f;
    return dx * dx + dy * dy + dz * dz <= cut * cut;
}

/* Ball-ball pairs: for ball i, the balls j > i within reach, through the hash (or by testing all,
 * for few balls; the same candidates, in the same order). */
static void ball_pairs(sink* k) {
    const loam_mb_model* m = k->m;
    mb_work* w = k->s->work;
    double rmax = 0.0;
    for (int i = 0; i < w->nball; ++i) {
        loam_vec3d c = geom_pose(k->s, w->ball_geom[i]).p;
        w->bx[i] = (float)c.x, w->by[i] = (float)c.y, w->bz[i] = (float)c.z;
        rmax = fmax(rmax, mb_geom_at(m, w->ball_geom[i])->size.x);
    }
    int by_pairs = w->nball <= MB_BALLS_BY_PAIRS;
    /* a cell of twice the largest radius plus the margin (and a little for float rounding) */
    if (!by_pairs) {
        loam_hash_set_cell(&w->hash, (float)(2.0 * rmax + m->opt.contact_margin) * 1.001f + 1e-6f, -1, 0.0f, 0.0f);
        loam_hash_build(&w->hash, w->nball, w->bx, w->by, w->bz);
    }
    /* Most of the 27 cells' balls are farther than any contact (the cells' volume is over six
     * times the contact ball's): balls_near drops them before pair() poses both geoms and tests
     * exactly, which it still does for the rest. */
    float margin = (float)m->opt.contact_margin;
    for (int i = 0; i < w->nball; ++i) {
        float ri = (float)mb_geom_at(m, w->ball_geom[i])->size.x;
        int nc = 0;
        if (by_pairs) {
            for (int j = i + 1; j < w->nball; ++j) {
                w->cand[nc] = j;
                nc += balls_near(m, w, i, j, ri, margin);
            }
        } else {
            loam_hash_query near;
            loam_hash_query_point(&near, &w->hash, w->bx[i], w->by[i], w->bz[i]);
            for (int32_t j; (j = loam_hash_query_next(&near)) >= 0;)
                if (j > i && balls_near(m, w, i, j, ri, margin)) w->cand[nc++] = j;
            sort_ascending(w->cand, nc);
        }
        for (int q = 0; q < nc; ++q) {
            int ga = w->ball_geom[i], gb = w->ball_geom[w->cand[q]];
            const mb_geom *A = mb_geom_at(m, ga), *B = mb_geom_at(m, gb);
            if (adjacent(m, A->body, B->body) || filtered(A, B) || joined(m, w, A->body, B->body)) continue;
            pair(k, ga, gb);
        }
    }
}

loam_status loam_mb_collide(const loam_mb_model* m, loam_mb_state* s, loam_error* err) {
    if (!m || !s || s->nv != m->nv) return loam_error_set(err, LOAM_ERR_INPUT, "multibody: collide: null or mismatched model/state");
    sink k = {m, s, 0};
    s->ncontact = 0;
    mb_work* w = s->work;
    loam_status st = make_joined(m, w, err);
    if (st == LOAM_OK) st = geom_poses(m, s, err);
    if (st != LOAM_OK) return st;
    /* Every pair a < b in order, except ball-ball pairs (the hash finds those): a ball only walks the
     * geoms that are not balls (w->other), so a granular scene costs balls x others, not balls^2. */
    int q0 = 0;
    for (int a = 0; a < m->ngeom; ++a) {
        const mb_geom* A = mb_geom_at(m, a);
        int ball = is_ball(A);
        while (q0 < w->nother && w->other[q0] <= a) ++q0;
        int n = ball ? w->nother - q0 : m->ngeom - a - 1;
        double ra = bound_radius(A);
        for (int i = 0; i < n; ++i) {
            int b = ball ? w->other[q0 + i] : a + 1 + i;
            /* pair()'s own bounding test first (the same expression, so the same decision): most
             * geom pairs of a scene are far apart, and the checks below cost more. */
            const mb_geom* B = mb_geom_at(m, b);
            double rb = bound_radius(B);
            if (ra >= 0.0 && rb >= 0.0 && d3_norm(d3_sub(w->gpose[a].p, w->gpose[b].p)) > ra + rb + m->opt.contact_margin) continue;
            int ba = A->body, bb = B->body;
            if ((ba < 0 && bb < 0) || adjacent(m, ba, bb) || (ball && is_ball(B)) || filtered(A, B) || joined(m, w, ba, bb))
                continue;
            pair(&k, a, b);
        }
    }
    if (w->nball > 1) ball_pairs(&k);
    if (k.overflow)
        return loam_error_set(err, LOAM_ERR_INPUT, "multibody: step %lld: %d contacts, more than max_contacts = %d", (long long)s->step,
                              m->opt.max_contacts + k.overflow, m->opt.max_contacts);
    return LOAM_OK;
}

loam_status loam_mb_contact_jacobian(const loam_mb_model* m, const loam_mb_state* s, const loam_mb_contact* c, double* rows, loam_error* err) {
    if (!m || !s || !c || !rows) return loam_error_set(err, LOAM_ERR_INPUT, "multibody: contact jacobian: null argument");
    int nv = m->nv;
    for (int k = 0; k < 3 * nv; ++k) rows[k] = 0.0;
    for (int side = 0; side < 2; ++side) {
        const loam_mb_side* sd = &c->side[side];
        if (sd->kind == LOAM_MB_SIDE_FEM_NODE) {
            if (sd->index < 0 || sd->index >= m->nfem || sd->node < 0 || sd->node >= m->fem[sd->index].def.nnode)
                return loam_error_set(err, LOAM_ERR_INPUT, "multibody: contact jacobian: FEM piece %d node %d does not exist", sd->index, sd->node);
            continue; /* not a joint dof */
        }
        int body = sd->kind == LOAM_MB_SIDE_BODY ? sd->index : -1;
        if (sd->kind != LOAM_MB_SIDE_BODY && sd->kind != LOAM_MB_SIDE_WORLD)
            return loam_error_set(err, LOAM_ERR_INPUT, "multibody: contact jacobian: side %d has kind %d, expected a loam_mb_side_kind", side, sd->kind);
        if (body < -1 || body >= m->nbody || (sd->kind == LOAM_MB_SIDE_BODY && body < 0))
            return loam_error_set(err, LOAM_ERR_INPUT, "multibody: contact jacobian: body %d, expected 0 to %d", body, m->nbody - 1);
        double sign = side == 0 ? 1.0 : -1.0;
        for (int j = body; j >= 0; j = m->body[j].parent)
            for (int k = 0; k < loam_joint_nv(m->body[j].joint); ++k) {
                loam_vec3d lin, ang;
                mb_dof_column(s, j, k, c->point, &lin, &ang);
                for (int r = 0; r < 3; ++r) rows[r * nv + m->v_adr[j] + k] += sign * d3_dot(c->frame[r], lin);
            }
    }
    return LOAM_OK;
}

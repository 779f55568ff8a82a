/* The step's constraint stage: joint limits and contacts as rows of the velocity-form problem of
 * contact/cp.h over the free (dynamic) dofs, one segment per tree a row touches; prescribed dofs
 * enter the row offsets. Then the model's solver.
 *
 * Position errors become velocity offsets: a row with gap phi (>= 0 open, < 0 violated) asks for
 * w = J v + phi / h >= 0 while open (the joint or contact may close the gap in this step but not
 * pass it), and for J v >= erp |phi| / h once violated (a fraction of the violation per step). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "contact/cone.h"
#include "core/clock.h"
#include "multibody/fem.h"
#include "multibody/mb_internal.h"
#include "contact/cp.h"

static loam_status reserve(mb_work* w, int rows, int segs, size_t vals, loam_error* err) {
    if (rows > w->row_cap) {
        int cap = rows > 2 * w->row_cap ? rows : 2 * w->row_cap;
        loam_free(w->e), loam_free(w->lambda), loam_free(w->diag), loam_free(w->row_origin), loam_free(w->row_seg), loam_free(w->blocks);
        loam_free(w->pgs_scratch);
        w->e = loam_malloc(sizeof(double) * (size_t)cap);
        w->lambda = loam_malloc(sizeof(double) * (size_t)cap);
        w->diag = loam_malloc(sizeof(double) * (size_t)cap);
        w->row_origin = loam_malloc(sizeof(mb_row_origin) * (size_t)cap);
        w->row_seg = loam_malloc(sizeof(int) * ((size_t)cap + 1));
        w->blocks = loam_malloc(sizeof(cp_block) * (size_t)cap);
        w->pgs_scratch = loam_malloc(cp_pgs_scratch_bytes(cap, cap)); /* blocks <= rows */
        w->row_cap = (w->e && w->lambda && w->diag && w->row_origin && w->row_seg && w->blocks && w->pgs_scratch) ? cap : 0;
    }
    if (segs > w->seg_cap) {
        int cap = segs > 2 * w->seg_cap ? segs : 2 * w->seg_cap;
        loam_free(w->segs);
        w->segs = loam_malloc(sizeof(cp_seg) * (size_t)cap);
        w->seg_cap = w->segs ? cap : 0;
    }
    if (vals > (size_t)w->val_cap) {
        size_t cap = vals > 2 * (size_t)w->val_cap ? vals : 2 * (size_t)w->val_cap;
        if (cap > (size_t)1 << 30) cap = vals;
        loam_free(w->J), loam_free(w->AJ);
        w->J = loam_malloc(sizeof(double) * cap);
        w->AJ = loam_malloc(sizeof(double) * cap);
        w->val_cap = (w->J && w->AJ) ? (int)cap : 0;
    }
    if (rows > w->row_cap || segs > w->seg_cap || vals > (size_t)w->val_cap)
        return loam_error_set(err, LOAM_ERR_NOMEM, "multibody: out of memory for %d constraint rows", rows);
    return LOAM_OK;
}

static int anisotropic(const loam_mb_constraint_def* c) {
    return c->axis_stiffness.x > 0 || c->axis_stiffness.y > 0 || c->axis_stiffness.z > 0 || c->axis_damping.x > 0 || c->axis_damping.y > 0 ||
           c->axis_damping.z > 0;
}

static int find(int* uf, int i) {
    while (uf[i] != i) i = uf[i] = uf[uf[i]];
    return i;
}

/* SubADMM's subsystems: one per tree, or (admm_group_soft) the trees joined by soft constraints,
 * numbered in tree order. A group that is not a run of consecutive trees (the packed order is by tree)
 * stays split into its trees. Returns the count. */
static int subsystems(const loam_mb_model* m, mb_work* w) {
    int T = m->ntree;
    for (int t = 0; t < T; ++t) w->uf[t] = t;
    if (m->opt.admm_group_soft)
        for (int c = 0; c < m->nconstraint; ++c) {
            const loam_mb_constraint_def* cd = &m->constraint[c];
            int b0 = mb_constraint_body(cd, 0), b1 = mb_constraint_body(cd, 1);
            if ((cd->stiffness > 0.0 || anisotropic(cd)) && b0 >= 0 && b1 >= 0) {
                int a = find(w->uf, m->body_tree[b0]), b = find(w->uf, m->body_tree[b1]);
                if (a != b) w->uf[a > b ? a : b] = a < b ? a : b; /* the smaller tree is the root */
            }
        }
    /* consecutive check: a tree joins its root's subsystem only if the previous tree did too */
    int n = 0;
    for (int t = 0; t < T; ++t) {
        int r = find(w->uf, t);
        if (r == t || find(w->uf, t - 1) != r) w->sub_of_tree[t] = n++;
        else w->sub_of_tree[t] = w->sub_of_tree[t - 1];
    }
    for (int f = 0; f < m->nfem; ++f) w->sub_of_tree[T + f] = n++; /* each FEM piece is a subsystem */
    return n;
}

static double offset(double phi, double h, double erp) { return phi >= 0.0 ? phi / h : erp * phi / h; }

/* The group (cp_group) an endpoint moves: its body's tree (groups 0 .. ntree - 1) if that has free
 * dofs, or its FEM piece (group ntree + piece) unless the node is fixed; -1 for none (the world). */
static int endpoint_group(const loam_mb_model* m, const mb_work* w, loam_endpoint e) {
    if (e.kind == LOAM_ENDPOINT_FEM_NODE) return mb_fem_priv(&m->fem[e.index])->fixed[e.sub] ? -1 : m->ntree + e.index;
    if (e.kind != LOAM_ENDPOINT_BODY) return -1;
    int t = m->body_tree[e.index];
    return w->gfree_off[t + 1] == w->gfree_off[t] ? -1 : t;
}

/* The unknowns of group g. */
static int group_n(const loam_mb_model* m, const mb_work* w, int g) {
    return g < m->ntree ? w->gfree_off[g + 1] - w->gfree_off[g] : 3 * m->fem[g - m->ntree].def.nnode;
}

/* The groups two endpoints move (at most two; the world and prescribed dofs move none). */
static int endpoint_trees(const loam_mb_model* m, const mb_work* w, const loam_endpoint* end, int* trees) {
    int n = 0;
    for (int side = 0; side < 2; ++side) {
        int t = endpoint_group(m, w, end[side]);
        if (t < 0 || (n == 1 && trees[0] == t)) continue;
        trees[n++] = t;
    }
    return n;
}

static int contact_trees(const loam_mb_model* m, const mb_work* w, const loam_mb_contact* c, int* trees) {
    loam_endpoint end[2] = {mb_side_endpoint(c->side[0]), mb_side_endpoint(c->side[1])};
    return endpoint_trees(m, w, end, trees);
}

static int constraint_trees(const loam_mb_model* m, const mb_work* w, const loam_mb_constraint_def* c, int* trees) {
    loam_endpoint end[2] = {mb_constraint_endpoint(c, 0), mb_constraint_endpoint(c, 1)};
    return endpoint_trees(m, w, end, trees);
}

/* An endpoint's world position: an FEM node, a body's anchor, or the world point. */
static loam_vec3d endpoint_pos(const loam_mb_model* m, const loam_mb_state* s, loam_endpoint e, loam_vec3d anchor) {
    if (e.kind == LOAM_ENDPOINT_FEM_NODE) return d3_load(s->fem_x + 3 * ((size_t)m->fem[e.index].node_adr + (size_t)e.sub));
    return e.kind == LOAM_ENDPOINT_BODY ? pd_apply(s->xpose[e.index], anchor) : anchor;
}

/* Re-express a 3-row constraint along the axes of anchor frame 0 (per-axis stiffness). The rows'
 * world directions rotate with body 0, so their errors are the world error vector projected. Here and
 * for ANGULAR and NO_SLIP rows side[0] is a body: validation keeps FEM nodes and the world out of it. */
static void to_anchor_axes(const loam_mb_state* s, const loam_mb_constraint_def* c, loam_vec3d* dir, double* phi) {
    loam_quatd qa = qd_mul(s->xpose[c->side[0].index].q, qd_normalize(c->frame[0]));
    loam_vec3d e = d3(phi[0], phi[1], phi[2]);
    for (int q = 0; q < 3; ++q) {
        dir[q] = qd_rotate(qa, d3(q == 0, q == 1, q == 2));
        phi[q] = d3_dot(dir[q], e);
    }
}

/* A constraint's rows now: world anchor points, row directions, position errors; returns the count. */
static int constraint_rows(const loam_mb_model* m, const loam_mb_state* s, const loam_mb_constraint_def* c, loam_vec3d* pa, loam_vec3d* pb,
                           loam_vec3d* dir, double* phi) {
    *pa = endpoint_pos(m, s, mb_constraint_endpoint(c, 0), c->anchor[0]);
    *pb = endpoint_pos(m, s, mb_constraint_endpoint(c, 1), c->anchor[1]);
    loam_vec3d d = d3_sub(*pa, *pb);
    if (c->type == LOAM_CONSTRAINT_NO_SLIP) { /* body 1's material point at the same place; no position error */
        *pb = *pa;
        dir[0] = qd_rotate(qd_mul(s->xpose[c->side[0].index].q, qd_normalize(c->frame[0])), d3(0, 1, 0));
        phi[0] = 0.0;
        return 1;
    }
    if (c->type == LOAM_CONSTRAINT_ANGULAR) {
        /* the rotation vector taking frame b onto frame a, world axes: its rate is w_a - w_b */
        loam_quatd qa = qd_mul(s->xpose[c->side[0].index].q, qd_normalize(c->frame[0]));
        loam_quatd qb = mb_constraint_body(c, 1) >= 0 ? qd_mul(s->xpose[c->side[1].index].q, qd_normalize(c->frame[1])) : qd_normalize(c->frame[1]);
        loam_quatd r = qd_mul(qa, qd_conj(qb));
        if (r.w < 0) r = qd_make(-r.w, -r.x, -r.y, -r.z);
        double sn = sqrt(r.x * r.x + r.y * r.y + r.z * r.z), ang = 2.0 * atan2(sn, r.w), f = sn > 1e-12 ? ang / sn : 2.0;
        dir[0] = d3(1, 0, 0), dir[1] = d3(0, 1, 0), dir[2] = d3(0, 0, 1);
        phi[0] = f * r.x, phi[1] = f * r.y, phi[2] = f * r.z;
        return 3;
    }
    if (c->type == LOAM_CONSTRAINT_POINT) {
        dir[0] = d3(1, 0, 0), dir[1] = d3(0, 1, 0), dir[2] = d3(0, 0, 1);
        phi[0] = d.x, phi[1] = d.y, phi[2] = d.z;
        return 3;
    }
    double len = d3_norm(d);
    dir[0] = len > 1e-12 ? d3_scale(d, 1.0 / len) : d3(0, 0, 1);
    phi[0] = len - c->length;
    return 1;
}

/* Add an endpoint's rows along dirs (times sign: +1 side 0, -1 side 1) through its kind's Jacobian
 * op (multibody/endpoint.c: a body's or link's tree columns, an FEM node's 3 unknowns, the world's
 * nothing) into the rows' segments for its group (the tree's or piece's slot) and, for prescribed
 * dofs, into e. */
static void add_endpoint_rows(const loam_mb_model* m, const loam_mb_state* s, loam_endpoint e, loam_vec3d p, int angular, double sign,
                              const loam_vec3d* dirs, int nrow, int row0, const int* trees, size_t base[3][2]) {
    mb_work* w = s->work;
    int g = endpoint_group(m, w, e), slot = g >= 0 && trees[0] != g ? 1 : 0;
    loam_endpoint_rows rows = {nrow, dirs, sign, angular, {NULL, NULL, NULL}, {NULL, NULL, NULL}};
    for (int q = 0; q < nrow; ++q) rows.seg[q] = g >= 0 ? w->J + base[q][slot] : NULL, rows.offset[q] = w->e + row0 + q;
    mb_system sys = {m, (loam_mb_state*)s};
    double pt[3] = {p.x, p.y, p.z};
    mb_endpoint_jacobian[e.kind](&sys, e, pt, &rows);
}

static int limit_row_needed(const loam_mb_model* m, const loam_mb_state* s, int d) {
    const mb_work* w = s->work;
    const loam_mb_body_def* b = &m->body[m->dof_body[d]];
    if (!b->limited || w->free_dof[d] < 0) return 0;
    double q = s->q[m->q_adr[m->dof_body[d]]], next = q + m->opt.dt * w->x[d];
    return next > b->upper ? 2 : next < b->lower ? 1 : 0;
}

/* Warm start: the last step's contacts, sorted by geom pair (then by their order), are searched for
 * the same pair; of those, the nearest point gives its world impulse, re-expressed in the new frame
 * and put back inside the friction cone. */
static long long pair_key(const loam_mb_model* m, const loam_mb_contact* c) {
    const loam_mb_side* n = &c->side[0]; /* FEM node contacts: negative keys by global node and geom */
    if (n->kind == LOAM_MB_SIDE_FEM_NODE) return -1 - ((long long)(m->fem[n->index].node_adr + n->node) * m->ngeom + c->geom[1]);
    return (long long)c->geom[0] * m->ngeom + c->geom[1];
}

static int by_pair(const void* a, const void* b) {
    const mb_prev *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return (x->order > y->order) - (x->order < y->order);
}

static void warm_contact(const loam_mb_model* m, const mb_work* w, const loam_mb_contact* c, double* lambda) {
    long long key = pair_key(m, c);
    int lo = 0, hi = w->nprev;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (w->prev[mid].key < key) lo = mid + 1;
        else hi = mid;
    }
    int best = -1;
    double best_d = INFINITY;
    for (int i = lo; i < w->nprev && w->prev[i].key == key; ++i) {
        double d = d3_norm(d3_sub(w->prev[i].point, c->point));
        if (d < best_d) best_d = d, best = i;
    }
    if (best < 0) return;
    loam_vec3d L = w->prev[best].impulse;
    lambda[0] = fmax(0.0, d3_dot(L, c->frame[0]));
    lambda[1] = d3_dot(L, c->frame[1]), lambda[2] = d3_dot(L, c->frame[2]);
    double s = loam_disk_scale_d(lambda[1] * lambda[1] + lambda[2] * lambda[2], c->friction * lambda[0]);
    lambda[1] *= s, lambda[2] *= s;
}

/* Keep this step's contacts and impulses (world vectors) for the next warm start. */
static void remember(const loam_mb_model* m, loam_mb_state* s) {
    mb_work* w = s->work;
    for (int c = 0; c < s->ncontact; ++c) {
        const loam_mb_contact* ct = &s->contact[c];
        const double* l = s->contact_impulse + 3 * c;
        w->prev[c].key = pair_key(m, ct);
        w->prev[c].order = c;
        w->prev[c].point = ct->point;
        w->prev[c].impulse = d3_add(d3_add(d3_scale(ct->frame[0], l[0]), d3_scale(ct->frame[1], l[1])), d3_scale(ct->frame[2], l[2]));
    }
    w->nprev = s->ncontact;
    qsort(w->prev, (size_t)w->nprev, sizeof(mb_prev), by_pair);
    memcpy(w->prev_limit, s->limit_impulse, sizeof(double) * (size_t)m->nv);
    memcpy(w->prev_con, s->constraint_impulse, sizeof(double) * 3 * (size_t)m->nconstraint);
}

/* The step's stages, as Box2D v3 stages its solver: collide (contacts of this step), count and
 * assemble (rows, their segments and J), warm start, solve (the model's solver on the cp_problem),
 * scatter (velocities and impulses back). Each row remembers where it came from (mb_row_origin), so
 * warm starts and results go back to their joint limit, model constraint or contact. */

/* Collision: this step's contacts between rigid geoms and of FEM nodes, with zeroed results. */
static loam_status collide_stage(const loam_mb_model* m, loam_mb_state* s, loam_error* err) {
    for (int d = 0; d < m->nv; ++d) s->limit_impulse[d] = 0.0;
    for (int i = 0; i < 3 * m->nconstraint; ++i) s->constraint_impulse[i] = 0.0;
    s->ncontact = 0;
    loam_status st = m->ngeom > 1 ? loam_mb_collide(m, s, err) : LOAM_OK;
    if (st != LOAM_OK) return st;
    int lost = m->nfem > 0 && m->ngeom > 0 ? mb_fem_collide(m, s) : 0;
    if (lost > 0)
        return loam_error_set(err, LOAM_ERR_INPUT, "multibody: step %lld: %d more FEM node contacts than max_contacts = %d", (long long)s->step, lost,
                              m->opt.max_contacts);
    memset(&s->solver, 0, sizeof s->solver);
    for (int k = 0; k < 3 * s->ncontact; ++k) s->contact_impulse[k] = 0.0;
    return LOAM_OK;
}

typedef struct mb_sizes {
    int rows, segs;
    size_t vals;
} mb_sizes;

/* A model constraint's rows: 1 for a distance or no-slip constraint, 3 otherwise. */
static int constraint_nrows(const loam_mb_constraint_def* c) {
    return c->type == LOAM_CONSTRAINT_DISTANCE || c->type == LOAM_CONSTRAINT_NO_SLIP ? 1 : 3;
}

/* Rows, segments and J values the step's limits, constraints and contacts need. */
static mb_sizes count_rows(const loam_mb_model* m, const loam_mb_state* s) {
    const mb_work* w = s->work;
    mb_sizes z = {0, 0, 0};
    int trees[2];
    for (int d = 0; d < m->nv; ++d)
        if (limit_row_needed(m, s, d)) z.rows += 1, z.segs += 1, z.vals += (size_t)group_n(m, w, m->body_tree[m->dof_body[d]]);
    for (int ci = 0; ci < m->nconstraint; ++ci) {
        int nt = constraint_trees(m, w, &m->constraint[ci], trees), nr = constraint_nrows(&m->constraint[ci]);
        if (nt == 0) continue; /* between the world and prescribed dofs: no row */
        z.rows += nr, z.segs += nr * nt;
        for (int k = 0; k < nt; ++k) z.vals += (size_t)nr * (size_t)group_n(m, w, trees[k]);
    }
    for (int c = 0; c < s->ncontact; ++c) {
        int nt = contact_trees(m, w, &s->contact[c], trees);
        if (nt == 0) continue;
        z.rows += 3, z.segs += 3 * nt;
        for (int k = 0; k < nt; ++k) z.vals += 3 * (size_t)group_n(m, w, trees[k]);
    }
    return z;
}

/* The groups (cp_group): the trees' free dofs, then the FEM pieces, in the packed order. */
static void make_groups(const loam_mb_model* m, mb_work* w) {
    int nf = w->gfree_off[m->ntree];
    for (int t = 0; t < m->ntree; ++t)
        w->groups[t] = (cp_group){w->gfree_off[t], w->gfree_off[t + 1] - w->gfree_off[t], w->A0 + w->aoff[t], w->A + w->aoff[t], 0, CP_DENSE, NULL, NULL};
    for (int f = 0; f < m->nfem; ++f)
        w->groups[m->ntree + f] = (cp_group){nf + 3 * m->fem[f].node_adr, 3 * m->fem[f].def.nnode, w->fem_A0 + w->fem_aoff[f],
                                             w->fem_A + w->fem_aoff[f], mb_fem_bandwidth(&m->fem[f]), CP_BANDED, NULL, NULL};
}

/* Where assembly writes next: row, block, segment and J value. */
typedef struct mb_cursor {
    int r, nb, ns;
    size_t nval;
} mb_cursor;

/* Row r's segments, one per group in trees, with their J values' places in base[q]. */
static void open_row(mb_work* w, mb_cursor* at, int r, const int* trees, int nt, size_t base[2]) {
    w->row_seg[r] = at->ns;
    for (int k = 0; k < nt; ++k) {
        base[k] = at->nval;
        w->segs[at->ns++] = (cp_seg){trees[k], at->nval, 0, 0}; /* ranges: cp_seg_ranges */
        at->nval += (size_t)w->groups[trees[k]].n;
    }
}

/* A unilateral row per joint limit about to be passed; the upper limit's row is J = -e_d. */
static void assemble_limits(const loam_mb_model* m, const loam_mb_state* s, mb_cursor* at) {
    mb_work* w = s->work;
    double h = m->opt.dt;
    for (int d = 0; d < m->nv; ++d) {
        int side = limit_row_needed(m, s, d);
        if (!side) continue;
        const loam_mb_body_def* b = &m->body[m->dof_body[d]];
        int t = m->body_tree[m->dof_body[d]], upper = side == 2, r = at->r;
        double q = s->q[m->q_adr[m->dof_body[d]]];
        size_t base[2];
        open_row(w, at, r, &t, 1, base);
        w->J[base[0] + (size_t)(w->free_dof[d] - w->groups[t].off)] = upper ? -1.0 : 1.0;
        w->e[r] = offset(upper ? b->upper - q : q - b->lower, h, m->opt.limit_erp);
        w->row_origin[r] = (mb_row_origin){upper ? MB_ROW_LIMIT_UPPER : MB_ROW_LIMIT_LOWER, d};
        w->blocks[at->nb++] = (cp_block){r, CP_UNILATERAL, 0.0, 0.0};
        ++at->r;
    }
}

/* Equality rows of the model's constraints: hard, w + erp phi / h = 0; soft, w + e^ + lambda / kappa
 * = 0 (see loam/multibody.h). */
static void assemble_constraints(const loam_mb_model* m, const loam_mb_state* s, mb_cursor* at) {
    mb_work* w = s->work;
    double h = m->opt.dt;
    int trees[2];
    for (int ci = 0; ci < m->nconstraint; ++ci) {
        const loam_mb_constraint_def* cd = &m->constraint[ci];
        int nt = constraint_trees(m, w, cd, trees), r = at->r;
        if (nt == 0) continue;
        loam_vec3d pa, pb, dir[3];
        double phi[3];
        int nr = constraint_rows(m, s, cd, &pa, &pb, dir, phi);
        int aniso = anisotropic(cd);
        if (aniso) to_anchor_axes(s, cd, dir, phi);
        size_t base[3][2];
        for (int q = 0; q < nr; ++q) {
            double k = aniso ? d3_get(cd->axis_stiffness, q) : cd->stiffness, dmp = aniso ? d3_get(cd->axis_damping, q) : cd->damping;
            double kappa = h * (h * k + dmp), compliance = k > 0.0 ? 1.0 / kappa : 0.0;
            open_row(w, at, r + q, trees, nt, base[q]);
            w->e[r + q] = k > 0.0 ? k * phi[q] / (h * k + dmp) : m->opt.constraint_erp * phi[q] / h;
            w->row_origin[r + q] = (mb_row_origin){MB_ROW_CONSTRAINT, 3 * ci + q};
            w->blocks[at->nb++] = (cp_block){r + q, CP_EQUALITY, 0.0, compliance};
        }
        int angular = cd->type == LOAM_CONSTRAINT_ANGULAR;
        add_endpoint_rows(m, s, mb_constraint_endpoint(cd, 0), pa, angular, 1.0, dir, nr, r, trees, base);
        add_endpoint_rows(m, s, mb_constraint_endpoint(cd, 1), pb, angular, -1.0, dir, nr, r, trees, base);
        at->r += nr;
    }
}

/* A contact block per contact: normal and two tangent rows in its frame. */
static void assemble_contacts(const loam_mb_model* m, const loam_mb_state* s, mb_cursor* at) {
    mb_work* w = s->work;
    int trees[2];
    for (int c = 0; c < s->ncontact; ++c) {
        const loam_mb_contact* ct = &s->contact[c];
        int nt = contact_trees(m, w, ct, trees), r = at->r;
        if (nt == 0) continue;
        size_t base[3][2];
        for (int q = 0; q < 3; ++q) {
            open_row(w, at, r + q, trees, nt, base[q]);
            w->e[r + q] = q == 0 ? offset(-ct->depth, m->opt.dt, m->opt.contact_erp) : 0.0;
            w->row_origin[r + q] = (mb_row_origin){MB_ROW_CONTACT, c};
        }
        add_endpoint_rows(m, s, mb_side_endpoint(ct->side[0]), ct->point, 0, 1.0, ct->frame, 3, r, trees, base);
        add_endpoint_rows(m, s, mb_side_endpoint(ct->side[1]), ct->point, 0, -1.0, ct->frame, 3, r, trees, base);
        w->blocks[at->nb++] = (cp_block){r, CP_CONTACT, ct->friction, 0.0};
        at->r += 3;
    }
}

/* Each row's impulse from the last step, where there is one; zero elsewhere. */
static void warm_start(const loam_mb_model* m, const loam_mb_state* s, int rows) {
    mb_work* w = s->work;
    memset(w->lambda, 0, sizeof(double) * (size_t)rows);
    if (!m->opt.warm_start) return;
    for (int k = 0; k < rows; ++k) {
        mb_row_origin o = w->row_origin[k];
        switch (o.kind) {
        case MB_ROW_LIMIT_LOWER: w->lambda[k] = fmax(0.0, w->prev_limit[o.index]); break;
        case MB_ROW_LIMIT_UPPER: w->lambda[k] = fmax(0.0, -w->prev_limit[o.index]); break;
        case MB_ROW_CONSTRAINT: w->lambda[k] = w->prev_con[o.index]; break;
        case MB_ROW_CONTACT: warm_contact(m, w, &s->contact[o.index], w->lambda + k), k += 2; break;
        }
    }
}

/* The model's solver on problem p, with its statistics in s->solver. */
static loam_status solve_stage(const loam_mb_model* m, loam_mb_state* s, cp_problem* p, loam_error* err) {
    mb_work* w = s->work;
    double t0 = loam_clock_seconds();
    int admm = m->opt.solver == LOAM_MB_SOLVER_SUBADMM || m->opt.solver == LOAM_MB_SOLVER_FADMM;
    if (!admm) cp_prepare(p); /* SubADMM makes what it needs of it itself (cp.h) */
    cp_result res;
    cp_admm_settings set = {m->opt.admm_beta_scale, m->opt.admm_group_soft, m->opt.admm_adapt, m->opt.admm_relaxation,
                            m->opt.admm_accel, m->opt.admm_relaxation_rigid, m->opt.admm_penalty_rigid, s->threads};
    switch (m->opt.solver) {
    case LOAM_MB_SOLVER_PJ: res = cp_solve_pj(p, m->opt.iterations, m->opt.tolerance, m->opt.jacobi_relaxation); break;
    case LOAM_MB_SOLVER_SUBADMM: {
        int nsub = subsystems(m, w);
        res = cp_solve_admm(p, m->opt.iterations, m->opt.tolerance, w->sub_of_tree, nsub, &set, &w->admm);
        break;
    }
    case LOAM_MB_SOLVER_FADMM:
        for (int t = 0; t < p->ngroup; ++t) w->sub_of_tree[t] = 0;
        res = cp_solve_admm(p, m->opt.iterations, m->opt.tolerance, w->sub_of_tree, 1, &set, &w->admm);
        break;
    case LOAM_MB_SOLVER_NNEWTON: res = cp_solve_nnewton(p, m->opt.iterations, m->opt.tolerance); break;
    case LOAM_MB_SOLVER_PGS_CG: res = cp_solve_pgs(p, m->opt.iterations, m->opt.tolerance, 1); break;
    default: res = cp_solve_pgs(p, m->opt.iterations, m->opt.tolerance, 0); break;
    }
    if (res.iterations == CP_UNSUPPORTED_KIND) {
        int b = cp_kinds_check(p->block, p->nblock);
        return loam_error_set(err, LOAM_ERR_INPUT, "multibody: step %lld: constraint block %d is of kind '%s', reserved and not implemented by any solver",
                              (long long)s->step, b, cp_kind_name(p->block[b].kind));
    }
    if (res.iterations < 0)
        return loam_error_set(err, LOAM_ERR_NOMEM, "multibody: step %lld: the %s solver could not allocate or factorize its systems (%d rows)",
                              (long long)s->step, loam_mb_solver_name(m->opt.solver), p->m);
    s->solver.rows = p->m;
    s->solver.iterations = res.iterations;
    s->solver.error = res.error;
    s->solver.time_s = loam_clock_seconds() - t0;
    return LOAM_OK;
}

/* The free velocities and FEM node velocities packed as the problem's unknowns (pack = 1), or
 * back (pack = 0). */
static void pack_velocities(const loam_mb_model* m, mb_work* w, double* v, int pack) {
    int nf = w->gfree_off[m->ntree];
    for (int d = 0; d < m->nv; ++d)
        if (w->free_dof[d] >= 0) {
            if (pack) v[w->free_dof[d]] = w->x[d];
            else w->x[d] = v[w->free_dof[d]];
        }
    if (m->nfem > 0) {
        size_t bytes = sizeof(double) * 3 * (size_t)m->nfem_node;
        if (pack) memcpy(v + nf, w->fem_vel, bytes);
        else memcpy(w->fem_vel, v + nf, bytes);
    }
}

/* Impulses back to their limits, constraints and contacts. */
static void scatter(loam_mb_state* s, int rows) {
    mb_work* w = s->work;
    for (int k = 0; k < rows; ++k) {
        mb_row_origin o = w->row_origin[k];
        switch (o.kind) {
        case MB_ROW_LIMIT_LOWER: s->limit_impulse[o.index] = w->lambda[k]; break;
        case MB_ROW_LIMIT_UPPER: s->limit_impulse[o.index] = -w->lambda[k]; break;
        case MB_ROW_CONSTRAINT: s->constraint_impulse[o.index] = w->lambda[k]; break;
        case MB_ROW_CONTACT:
            for (int q = 0; q < 3; ++q) s->contact_impulse[3 * o.index + q] = w->lambda[k + q];
            k += 2;
            break;
        }
    }
}

loam_status mb_solve_constraints(const loam_mb_model* m, loam_mb_state* s, loam_error* err) {
    mb_work* w = s->work;
    if (m->nconstraint > w->ncon)
        return loam_error_set(err, LOAM_ERR_INPUT, "multibody: the model has %d constraints, the state was made for %d", m->nconstraint, w->ncon);
    loam_status st = collide_stage(m, s, err);
    if (st != LOAM_OK) return st;
    int nall = w->gfree_off[m->ntree] + 3 * m->nfem_node;
    mb_sizes z = count_rows(m, s);
    if (z.rows == 0 || nall == 0) {
        remember(m, s);
        return LOAM_OK;
    }
    if ((st = reserve(w, z.rows, z.segs, z.vals, err)) != LOAM_OK) return st;
    mb_world_columns(m, s);
    make_groups(m, w);
    memset(w->J, 0, sizeof(double) * z.vals);
    mb_cursor at = {0, 0, 0, 0};
    assemble_limits(m, s, &at);
    assemble_constraints(m, s, &at);
    assemble_contacts(m, s, &at);
    w->row_seg[at.r] = at.ns;
    double* v = w->tmp;
    pack_velocities(m, w, v, 1);
    warm_start(m, s, z.rows);
    cp_seg_ranges(w->segs, w->row_seg[z.rows], w->groups, w->J);
    cp_problem p = {nall, m->ntree + m->nfem, w->groups, v, z.rows, w->row_seg, w->segs, w->J, w->AJ, w->e, w->lambda, at.nb, w->blocks, w->diag,
                    w->pgs_scratch};
    if ((st = solve_stage(m, s, &p, err)) != LOAM_OK) return st;
    pack_velocities(m, w, v, 0);
    scatter(s, z.rows);
    remember(m, s);
    return LOAM_OK;
}

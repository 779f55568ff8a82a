/* Contact endpoints (contact/endpoint.h) of every kind the methods provide, checked against what
 * defines them:
 * - the identity: an impulse lambda n applied at p changes n . v(p) by lambda W(p, n), for random
 *   points, directions and impulses;
 * - W from first principles: 1/m for a particle and a soft-body mass; 1/m + (r x n)^T I^-1 (r x n)
 *   for a free rigid body; n^T J M^-1 J^T n for a link of an articulated tree, with M and J from the
 *   public dense mass matrix and Jacobian and an independent Gauss-Jordan inverse here; for an FEM
 *   node n^T (A^-1)_ii n, A the piece's step system, inverted the same way from its unfactored band;
 * - an FEM piece's clamped nodes neither move nor yield;
 * - conservation: a free body's linear momentum changes by exactly the impulse;
 * - a tree's prescribed (KINEMATIC) joint keeps its velocity, and the world endpoint does nothing;
 * - the Jacobian op (row assembly): its rows times the owner's unknowns, plus the prescribed dofs'
 *   offsets, are the velocity op's sign n . v(p), for links (free and prescribed roots) and FEM nodes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "contact/endpoint.h"
#include "core/dense.h"
#include "granular/world_internal.h"
#include "multibody/fem.h"
#include "multibody/mb_internal.h"
#include "softbody/internal.h"
#include "softbody_util.h"
#include "test_util.h"

static double uniform(unsigned* s, double lo, double hi) {
    *s = *s * 1664525u + 1013904223u;
    return lo + (hi - lo) * (double)(*s >> 8) / 16777216.0;
}

static void random_unit(unsigned* s, double n[3]) {
    double len;
    do {
        for (int k = 0; k < 3; ++k) n[k] = uniform(s, -1.0, 1.0);
        len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    } while (len < 0.2 || len > 1.0);
    for (int k = 0; k < 3; ++k) n[k] /= len;
}

static double dot3(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

/* The identity on one endpoint; returns W. tol is relative to the velocity change. */
static double check_identity(const loam_endpoint_ops* ops, void* owner, loam_endpoint e, const double p[3], unsigned* s, double tol,
                             const char* what) {
    double n[3], v0[3], v1[3], J[3];
    random_unit(s, n);
    double lambda = uniform(s, 0.01, 0.5), W = ops->delassus(owner, e, p, n);
    ops->velocity(owner, e, p, v0);
    for (int k = 0; k < 3; ++k) J[k] = lambda * n[k];
    ops->apply_impulse(owner, e, p, J);
    ops->velocity(owner, e, p, v1);
    double dv = dot3(n, v1) - dot3(n, v0), want = lambda * W;
    CHECK(isfinite(W) && W >= 0.0, "%s: W = %g", what, W); /* 0: an immovable point (a prescribed link) */
    CHECK(fabs(dv - want) <= tol * fabs(want) + 1e-12, "%s: n.dv = %.9g, lambda W = %.9g", what, dv, want);
    return W;
}

/* The Jacobian op (endpoint.h's row assembly) against the velocity op: the rows it writes for n
 * directions, applied to the owner's unknowns u (a tree's free dofs, a piece's nodal velocities),
 * plus the prescribed dofs' offsets, give sign n_q . v(p). u: the group's unknowns; nu their count. */
static void check_rows(const loam_endpoint_ops* ops, void* owner, loam_endpoint e, const double p[3], const double* u, int nu, unsigned* s,
                       const char* what) {
    loam_vec3d dir[3];
    double seg[3][64], off[3] = {0.0, 0.0, 0.0}, v[3], sign = (*s & 256u) ? 1.0 : -1.0;
    for (int q = 0; q < 3; ++q) {
        double n[3];
        random_unit(s, n);
        dir[q] = (loam_vec3d){n[0], n[1], n[2]};
        memset(seg[q], 0, sizeof seg[q]);
    }
    CHECK(nu <= 64, "%s: %d unknowns", what, nu);
    loam_endpoint_rows rows = {3, dir, sign, 0, {seg[0], seg[1], seg[2]}, {&off[0], &off[1], &off[2]}};
    mb_endpoint_jacobian[e.kind](owner, e, p, &rows);
    ops->velocity(owner, e, p, v);
    for (int q = 0; q < 3; ++q) {
        double w = off[q], want = sign * (dir[q].x * v[0] + dir[q].y * v[1] + dir[q].z * v[2]);
        for (int i = 0; i < nu; ++i) w += seg[q][i] * u[i];
        CHECK(fabs(w - want) <= 1e-12 * (1.0 + fabs(want)), "%s: row %d gives %.15g, sign n . v(p) = %.15g", what, q, w, want);
    }
}

static void particles(void) {
    loam_granular_params params = loam_granular_default_params();
    loam_world* w = loam_world_create(&params, NULL);
    float xyz[6] = {0.0f, 0.0f, 0.1f, 0.05f, 0.0f, 0.1f}, radius[2] = {0.01f, 0.02f};
    CHECK(loam_world_add_particles(w, 2, xyz, NULL, radius, 2500.0f, NULL) == LOAM_OK, "add particles");
    unsigned s = 1u;
    for (int i = 0; i < 2; ++i) {
        double m = 2500.0 * 4.0 / 3.0 * M_PI * pow(w->radius[i], 3.0), p[3] = {w->x[i], w->y[i], w->z[i]};
        for (int it = 0; it < 20; ++it) {
            double W = check_identity(&loam_particle_endpoint_ops, w, (loam_endpoint){LOAM_ENDPOINT_PARTICLE, i, 0}, p, &s, 1e-5, "particle");
            CHECK(fabs(W * m - 1.0) <= 1e-5, "particle %d: W m = %.9g, want 1", i, W * m);
        }
    }
    loam_world_destroy(w);
}

static void soft_masses(void) {
    loam_softbody_def d = loam_softbody_default_def();
    loam_softbody_materials mats = loam_softbody_default_materials(1.0f);
    loam_softbody_robot* r = box_robot(2, 2, 2, 0.01f, 22);
    loam_softbody_pop* p = one_robot_pop(&d, &mats, r);
    unsigned s = 2u;
    const sb_slot* slot = &p->slots[0];
    for (int i = 0; i < slot->nm; ++i) {
        double pos[3] = {slot->x[i], slot->y[i], slot->z[i]};
        double W = check_identity(&loam_soft_mass_endpoint_ops, p, (loam_endpoint){LOAM_ENDPOINT_SOFT_MASS, 0, i}, pos, &s, 1e-5, "soft mass");
        CHECK(fabs(W - r->inv_mass[i]) <= 1e-7 * r->inv_mass[i], "mass %d: W = %.9g, 1/m = %.9g", i, W, (double)r->inv_mass[i]);
    }
    loam_softbody_pop_destroy(p);
    loam_softbody_robot_destroy(r);
}

/* A state ready for the endpoint operations: poses and M current. */
static void refresh(mb_system* sys) {
    loam_error err;
    CHECK(loam_mb_kinematics(sys->model, sys->state, &err) == LOAM_OK, "%s", err.message);
    CHECK(loam_mb_mass_matrix(sys->model, sys->state, &err) == LOAM_OK, "%s", err.message);
}

static void free_body(void) {
    const double mass = 3.0, I[3] = {0.2, 0.5, 0.7};
    loam_mb_body_def b = loam_mb_body_default_def();
    strcpy(b.name, "brick");
    b.joint = LOAM_JOINT_FLOATING;
    b.mass = mass;
    b.com = (loam_vec3d){0.1, -0.05, 0.02};
    b.inertia[0] = I[0], b.inertia[1] = I[1], b.inertia[2] = I[2];
    loam_mb_options o = loam_mb_default_options();
    loam_mb_model* m = NULL;
    loam_mb_state* st = NULL;
    loam_error err;
    CHECK((m = loam_mb_model_create(&b, 1, NULL, 0, &o, &err)) != NULL, "%s", err.message);
    CHECK((st = loam_mb_state_create(m, &err)) != NULL, "%s", err.message);
    mb_system sys = {m, st};
    refresh(&sys);
    unsigned s = 3u;
    for (int it = 0; it < 50; ++it) {
        /* a random point near the body, and the analytic W in the body's (identity) orientation */
        double p[3] = {uniform(&s, -0.3, 0.3), uniform(&s, -0.3, 0.3), uniform(&s, -0.3, 0.3)}, n[3];
        unsigned s2 = s;
        random_unit(&s2, n); /* the direction check_identity will draw */
        loam_posed X = st->xpose[0];
        double c[3] = {X.p.x + b.com.x, X.p.y + b.com.y, X.p.z + b.com.z}, r[3] = {p[0] - c[0], p[1] - c[1], p[2] - c[2]};
        double rn[3] = {r[1] * n[2] - r[2] * n[1], r[2] * n[0] - r[0] * n[2], r[0] * n[1] - r[1] * n[0]};
        double want = 1.0 / mass + rn[0] * rn[0] / I[0] + rn[1] * rn[1] / I[1] + rn[2] * rn[2] / I[2];
        loam_vec3d P0, L0, P1, L1;
        loam_mb_momentum(m, st, &P0, &L0);
        double W = check_identity(&loam_body_endpoint_ops, &sys, (loam_endpoint){LOAM_ENDPOINT_BODY, 0, 0}, p, &s, 1e-9, "free body");
        loam_mb_momentum(m, st, &P1, &L1);
        CHECK(fabs(W - want) <= 1e-9 * want, "free body: W %.12g, analytic %.12g", W, want);
        double dP[3] = {P1.x - P0.x, P1.y - P0.y, P1.z - P0.z};
        double dPn = sqrt(dot3(dP, dP));
        CHECK(fabs(dot3(dP, n) - dPn) <= 1e-9 * dPn, "free body: momentum changed off the impulse's direction");
        /* an impulse J at p changes the angular momentum about the origin by p x J (= p x dP) */
        double dL[3] = {L1.x - L0.x, L1.y - L0.y, L1.z - L0.z}, pxJ[3] = {p[1] * dP[2] - p[2] * dP[1], p[2] * dP[0] - p[0] * dP[2], p[0] * dP[1] - p[1] * dP[0]};
        for (int k = 0; k < 3; ++k)
            CHECK(fabs(dL[k] - pxJ[k]) <= 1e-9 * (1.0 + sqrt(dot3(pxJ, pxJ))), "free body: dL %.12g, p x J %.12g", dL[k], pxJ[k]);
        memset(st->qd, 0, sizeof(double) * (size_t)m->nv); /* keep the state's velocities small */
        refresh(&sys);
    }
    loam_mb_state_destroy(st);
    loam_mb_model_destroy(m);
}

/* Gauss-Jordan inverse of an n x n matrix (n small), independent of core/dense.h. */
static void invert(double* a, int n, double* inv) {
    for (int i = 0; i < n * n; ++i) inv[i] = (i % (n + 1) == 0) ? 1.0 : 0.0;
    for (int c = 0; c < n; ++c) {
        int piv = c;
        for (int r = c + 1; r < n; ++r)
            if (fabs(a[r * n + c]) > fabs(a[piv * n + c])) piv = r;
        for (int k = 0; k < n; ++k) {
            double t = a[c * n + k];
            a[c * n + k] = a[piv * n + k], a[piv * n + k] = t;
            t = inv[c * n + k], inv[c * n + k] = inv[piv * n + k], inv[piv * n + k] = t;
        }
        double d = a[c * n + c];
        for (int k = 0; k < n; ++k) a[c * n + k] /= d, inv[c * n + k] /= d;
        for (int r = 0; r < n; ++r)
            if (r != c) {
                double f = a[r * n + c];
                for (int k = 0; k < n; ++k) a[r * n + k] -= f * a[c * n + k], inv[r * n + k] -= f * inv[c * n + k];
            }
    }
}

/* A three-link arm (revolute, revolute, prismatic); with `prescribe`, its first joint is KINEMATIC. */
static void arm(int prescribe) {
    loam_mb_body_def b[3];
    for (int i = 0; i < 3; ++i) {
        b[i] = loam_mb_body_default_def();
        snprintf(b[i].name, sizeof b[i].name, "link%d", i);
        b[i].parent = i - 1;
        b[i].joint = i == 2 ? LOAM_JOINT_PRISMATIC : LOAM_JOINT_REVOLUTE;
        b[i].mass = 1.0 + i;
        b[i].com = (loam_vec3d){0.2, 0.0, 0.0};
        b[i].inertia[0] = 0.01, b[i].inertia[1] = 0.02 + 0.01 * i, b[i].inertia[2] = 0.03;
        b[i].placement.p = (loam_vec3d){i == 0 ? 0.0 : 0.4, 0.0, 0.0};
        b[i].axis = i == 1 ? (loam_vec3d){0, 1, 0} : (loam_vec3d){0, 0, 1};
    }
    if (prescribe) b[0].motion = LOAM_MB_KINEMATIC;
    loam_mb_options o = loam_mb_default_options();
    loam_mb_model* m = NULL;
    loam_mb_state* st = NULL;
    loam_error err;
    CHECK((m = loam_mb_model_create(b, 3, NULL, 0, &o, &err)) != NULL, "%s", err.message);
    if (!m) return;
    CHECK((st = loam_mb_state_create(m, &err)) != NULL, "%s", err.message);
    int nv = m->nv;
    st->q[0] = 0.3, st->q[1] = -0.7, st->q[2] = 0.05;
    st->qd[0] = 0.4;
    mb_system sys = {m, st};
    /* one step lays out the free dofs (and their groups) as every step does; then the rows' inputs:
     * poses, the rotated columns, the prescribed dofs' known velocities */
    CHECK(loam_mb_step(m, st, 1, &err) == LOAM_OK, "%s", err.message);
    refresh(&sys);
    mb_work* wk = st->work;
    mb_world_columns(m, st);
    for (int d = 0; d < nv; ++d) wk->x[d] = st->qd[d];
    CHECK(wk->gfree_off[1] - wk->gfree_off[0] == (prescribe ? 2 : 3), "free dofs of the arm: %d", wk->gfree_off[1] - wk->gfree_off[0]);
    double* M = malloc(sizeof(double) * (size_t)(nv * nv)), *Minv = malloc(sizeof(double) * (size_t)(nv * nv));
    double* jac = malloc(sizeof(double) * 6 * (size_t)nv);
    unsigned s = 4u + (unsigned)prescribe;
    for (int body = 0; body < 3; ++body)
        for (int it = 0; it < 10; ++it) {
            double p[3] = {uniform(&s, -0.2, 1.2), uniform(&s, -0.3, 0.3), uniform(&s, -0.3, 0.3)}, n[3];
            unsigned s2 = s;
            random_unit(&s2, n);
            /* independent W: n^T J_f (M_ff)^-1 J_f^T n over the free dofs */
            loam_mb_mass_matrix_dense(m, st, M);
            CHECK(loam_mb_jacobian(m, st, body, (loam_vec3d){p[0], p[1], p[2]}, jac, &err) == LOAM_OK, "%s", err.message);
            int lo = prescribe ? 1 : 0, nf = nv - lo;
            double Mf[9], g[3];
            for (int a = 0; a < nf; ++a) {
                g[a] = 0.0;
                for (int k = 0; k < 3; ++k) g[a] += n[k] * jac[k * nv + lo + a];
                for (int c = 0; c < nf; ++c) Mf[a * nf + c] = M[(lo + a) * nv + lo + c];
            }
            invert(Mf, nf, Minv);
            double want = 0.0;
            for (int a = 0; a < nf; ++a)
                for (int c = 0; c < nf; ++c) want += g[a] * Minv[a * nf + c] * g[c];
            double u[3];
            for (int d = 0; d < nv; ++d)
                if (wk->free_dof[d] >= 0) u[wk->free_dof[d] - wk->gfree_off[0]] = st->qd[d];
            check_rows(&loam_body_endpoint_ops, &sys, (loam_endpoint){LOAM_ENDPOINT_BODY, body, 0}, p, u, wk->gfree_off[1] - wk->gfree_off[0],
                       &s2, prescribe ? "arm rows, prescribed root" : "arm rows");
            for (int d = 0; d < nv; ++d) wk->x[d] = st->qd[d];
            double qd0 = st->qd[0];
            double W = check_identity(&loam_body_endpoint_ops, &sys, (loam_endpoint){LOAM_ENDPOINT_BODY, body, 0}, p, &s, 1e-8,
                                      prescribe ? "arm, prescribed root" : "arm");
            CHECK(fabs(W - want) <= 1e-9 * want + 1e-14, "arm body %d: W %.12g, from M and J %.12g", body, W, want);
            if (prescribe) CHECK(st->qd[0] == qd0, "a KINEMATIC joint's velocity changed: %g -> %g", qd0, st->qd[0]);
        }
    free(M), free(Minv), free(jac);
    loam_mb_state_destroy(st);
    loam_mb_model_destroy(m);
}

/* A clamped FEM beam (3 x 1 x 1 cells, its x = 0 end fixed), bent out of its rest shape so that its
 * elements' rotations matter, with the step's system made (mb_fem_prepare, as every step does). */
static void fem_nodes(void) {
    loam_mb_body_def b = loam_mb_body_default_def(); /* a model needs a body; this one is far away */
    strcpy(b.name, "anchor");
    b.placement.p = (loam_vec3d){0.0, 0.0, 10.0};
    loam_mb_options o = loam_mb_default_options();
    loam_mb_model* m = NULL;
    loam_mb_state* st = NULL;
    loam_error err;
    CHECK((m = loam_mb_model_create(&b, 1, NULL, 0, &o, &err)) != NULL, "%s", err.message);
    if (!m) return;
    loam_mb_fem_beam_def bd = loam_mb_fem_beam_default_def();
    bd.nx = 3, bd.ny = 1, bd.nz = 1, bd.size = (loam_vec3d){0.3, 0.1, 0.1};
    enum { NN = 16, NT = 18, NFIX = 4 };
    int nnode, ntet, tet[4 * NT], fixed[NFIX] = {0, 1, 2, 3};
    double node[3 * NN];
    loam_mb_fem_beam_counts(&bd, &nnode, &ntet);
    CHECK(nnode == NN && ntet == NT, "beam counts %d %d", nnode, ntet);
    CHECK(loam_mb_fem_beam_build(&bd, node, tet, &err) == LOAM_OK, "%s", err.message);
    loam_mb_fem_def fd = loam_mb_fem_default_def();
    strcpy(fd.name, "beam");
    fd.nnode = NN, fd.ntet = NT, fd.node = node, fd.tet = tet, fd.nfixed = NFIX, fd.fixed = fixed;
    fd.lumped = 0, fd.stiffness_damping = 0.01; /* a consistent mass: the nodes couple through M too */
    CHECK(loam_mb_model_add_fem(m, &fd, &err) == LOAM_OK, "%s", err.message);
    CHECK((st = loam_mb_state_create(m, &err)) != NULL, "%s", err.message);
    if (!st) return;
    for (int i = NFIX; i < NN; ++i) /* bend it: the free end up by up to 2 cm */
        st->fem_x[3 * i + 2] += 0.02 * node[3 * i] / 0.3 * node[3 * i] / 0.3;
    mb_system sys = {m, st};
    CHECK(mb_fem_prepare(m, st) < 0, "the beam's system is not SPD");
    /* A as a dense matrix from its unfactored band, and its inverse */
    const mb_work* w = st->work;
    int n = 3 * NN, bw = mb_fem_bandwidth(&m->fem[0]), ld = 2 * bw + 1;
    double* A = calloc((size_t)(n * n), sizeof(double)), *Ainv = malloc(sizeof(double) * (size_t)(n * n));
    for (int r = 0; r < n; ++r)
        for (int c = r - bw > 0 ? r - bw : 0; c <= r + bw && c < n; ++c) A[r * n + c] = dense_band_row_c(w->fem_A0 + w->fem_aoff[0], bw, ld, r)[c];
    invert(A, n, Ainv);
    unsigned s = 9u;
    for (int i = 0; i < NN; ++i) {
        loam_endpoint e = {LOAM_ENDPOINT_FEM_NODE, 0, i};
        const double* p = st->fem_x + 3 * i;
        double n3[3];
        unsigned s2 = s;
        random_unit(&s2, n3); /* the direction check_identity will draw */
        double want = 0.0;
        for (int a = 0; a < 3; ++a)
            for (int c = 0; c < 3; ++c) want += n3[a] * Ainv[(3 * i + a) * n + 3 * i + c] * n3[c];
        double W = check_identity(&loam_fem_node_endpoint_ops, &sys, e, p, &s, 1e-9, i < NFIX ? "clamped FEM node" : "FEM node");
        if (i < NFIX) {
            CHECK(W == 0.0, "a clamped node yields: W = %g", W);
            check_rows(&loam_fem_node_endpoint_ops, &sys, e, p, st->fem_v, 3 * NN, &s2, "clamped FEM node rows");
            for (int j = 0; j < 3 * NN; ++j) CHECK(st->fem_v[j] == 0.0, "an impulse on a clamped node moved the piece");
            continue;
        }
        CHECK(fabs(W - want) <= 1e-9 * want, "FEM node %d: W %.12g, from the inverted system %.12g", i, W, want);
        for (int j = 0; j < 3 * NN; ++j) st->fem_v[j] = j >= 3 * NFIX ? sin(0.7 * j + i) : 0.0;
        check_rows(&loam_fem_node_endpoint_ops, &sys, e, p, st->fem_v, 3 * NN, &s2, "FEM node rows");
        memset(st->fem_v, 0, sizeof(double) * 3 * NN); /* keep the velocities small */
    }
    free(A), free(Ainv);
    loam_mb_state_destroy(st);
    loam_mb_model_destroy(m);
}

static void world(void) {
    double p[3] = {1, 2, 3}, n[3] = {0, 0, 1}, v[3] = {9, 9, 9}, J[3] = {1, 1, 1};
    loam_world_endpoint_ops.apply_impulse(NULL, (loam_endpoint){LOAM_ENDPOINT_WORLD, 0, 0}, p, J);
    loam_world_endpoint_ops.velocity(NULL, (loam_endpoint){LOAM_ENDPOINT_WORLD, 0, 0}, p, v);
    CHECK(v[0] == 0.0 && v[1] == 0.0 && v[2] == 0.0, "the world moves");
    CHECK(loam_world_endpoint_ops.delassus(NULL, (loam_endpoint){LOAM_ENDPOINT_WORLD, 0, 0}, p, n) == 0.0, "the world yields");
}

int main(void) {
    particles();
    soft_masses();
    free_body();
    arm(0);
    arm(1);
    fem_nodes();
    world();
    TEST_MAIN_END();
}

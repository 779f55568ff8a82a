/* The FEM beam insertion scene of paper 004 (see scenarios.h). The Panda's flange points straight
 * down at q0 (the stirring scene's pose, lifted); the beam hangs from it along the flange's z axis. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/dense.h"
#include "core/vecd.h"
#include "loam/urdf.h"
#include "scenarios.h"

static const double PIECE_L = 0.05, WIDTH = 0.02, CLEARANCE = 0.001, PLATE = 0.015; /* m; PLATE: half thickness */
static const int CELLS[3] = {4, 2, 2};
enum { ARM = 2, WORLD = 1 }; /* collision classes: the arm touches nothing; beam and slot meet */

/* The nodes of a beam piece's end face i (0: top, CELLS[0]: bottom). */
static int face_nodes(int i, int* out) {
    int n = 0;
    for (int j = 0; j <= CELLS[1]; ++j)
        for (int k = 0; k <= CELLS[2]; ++k) out[n++] = (i * (CELLS[1] + 1) + j) * (CELLS[2] + 1) + k;
    return n;
}

/* The flange's world pose at q0, from the arm alone. */
static loam_status flange_pose(const loam_mb_model* arm, const double* q0, int flange, loam_posed* out, loam_error* err) {
    loam_mb_state* s = loam_mb_state_create(arm, err);
    if (!s) return err ? err->status : LOAM_ERR_NOMEM;
    memcpy(s->q, q0, sizeof(double) * 7);
    loam_status st = loam_mb_kinematics(arm, s, err);
    *out = s->xpose[flange];
    loam_mb_state_destroy(s);
    return st;
}

static loam_status build(const loam_mb_model* arm, int pieces, const loam_mb_options* opt, mb_insertion* sc, loam_error* err) {
    int flange = loam_mb_body_index(arm, "panda_link8");
    if (flange < 0) return loam_error_set(err, LOAM_ERR_INPUT, "insertion: the arm has no body 'panda_link8'");
    loam_posed F;
    loam_status st = flange_pose(arm, sc->q0, flange, &F, err);
    if (st != LOAM_OK) return st;
    /* the beam hangs from the flange (which points down at q0), its x axis world down and its faces
     * square to the world axes, so that it fits the slot (the flange itself is turned 45 degrees) */
    loam_posed beam = {F.p, qd_from_axis_angle(d3(0, 1, 0), M_PI / 2)};
    double length = pieces * PIECE_L;
    loam_vec3d tip = pd_apply(beam, d3(length, 0, 0));
    sc->slot_top = tip.z - 0.01;
    sc->start = F;
    int nb = arm->nbody, ng = arm->ngeom + 2;
    loam_mb_body_def* b = loam_calloc((size_t)nb, sizeof *b);
    loam_mb_geom_def* g = loam_calloc((size_t)ng, sizeof *g);
    loam_mb_constraint_def* con = loam_calloc((size_t)pieces * 9, sizeof *con);
    loam_mb_fem_beam_def bd = loam_mb_fem_beam_default_def();
    bd.nx = CELLS[0], bd.ny = CELLS[1], bd.nz = CELLS[2], bd.tets_per_cell = 5, bd.size = d3(PIECE_L, WIDTH, WIDTH);
    int nnode, ntet;
    loam_mb_fem_beam_counts(&bd, &nnode, &ntet);
    double* node = loam_malloc(sizeof(double) * 3 * (size_t)nnode);
    int* tet = loam_malloc(sizeof(int) * 4 * (size_t)ntet);
    if (!b || !g || !con || !node || !tet) {
        st = loam_error_set(err, LOAM_ERR_NOMEM, "insertion: out of memory");
        goto done;
    }
    memcpy(b, arm->body, sizeof *b * (size_t)nb);
    memcpy(g, arm->geom, sizeof *g * (size_t)arm->ngeom);
    for (int i = 0; i < arm->ngeom; ++i) g[i].contype = ARM, g[i].conaffinity = 0;
    for (int i = 1; i <= 7; ++i) {
        b[i].control = LOAM_CONTROL_POSITION;
        b[i].kp = i <= 4 ? 600.0 : 150.0;
        b[i].kd = i <= 4 ? 40.0 : 10.0;
    }
    for (int side = 0; side < 2; ++side) { /* the slot: two boxes, their inner faces WIDTH + CLEARANCE apart along world x */
        loam_mb_geom_def* w = &g[arm->ngeom + side];
        *w = loam_mb_geom_default_def();
        w->body = -1, w->shape.type = LOAM_SHAPE_BOX, w->contype = WORLD, w->conaffinity = WORLD;
        w->shape.size = (loam_vec3){0.05f, 0.06f, (float)PLATE};
        double inner = 0.5 * (WIDTH + CLEARANCE);
        w->shape.local.p = (loam_vec3){(float)(tip.x + (side ? 1 : -1) * (inner + w->shape.size.x)), (float)tip.y, (float)(sc->slot_top - PLATE)};
    }
    loam_mb_options o = opt ? *opt : loam_mb_default_options();
    if (!opt) o.dt = 2e-3;
    if (!(sc->model = loam_mb_model_create(b, nb, g, ng, &o, err))) {
        st = err ? err->status : LOAM_ERR_INPUT;
        goto done;
    }
    int ncon = 0, top[16], bottom[16], nf = face_nodes(0, top);
    face_nodes(CELLS[0], bottom);
    loam_posed Finv = {qd_rotate(qd_conj(F.q), d3_neg(F.p)), qd_conj(F.q)};
    for (int p = 0; p < pieces; ++p) {
        bd.pose = pd_mul(beam, (loam_posed){d3(p * PIECE_L, 0, 0), qd_identity()});
        if ((st = loam_mb_fem_beam_build(&bd, node, tet, err)) != LOAM_OK) goto done;
        loam_mb_fem_def fd = loam_mb_fem_default_def();
        snprintf(fd.name, sizeof fd.name, "beam%d", p);
        fd.nnode = nnode, fd.ntet = ntet, fd.node = node, fd.tet = tet;
        fd.young = 1e7, fd.poisson = 0.3, fd.density = 1000.0, fd.mass_damping = 1.0, fd.stiffness_damping = 2e-3;
        fd.contype = fd.conaffinity = WORLD;
        if ((st = loam_mb_model_add_fem(sc->model, &fd, err)) != LOAM_OK) goto done;
        for (int k = 0; k < nf; ++k, ++ncon) { /* top face to the flange, or to the piece above's bottom face */
            con[ncon] = loam_mb_constraint_default_def();
            snprintf(con[ncon].name, sizeof con[ncon].name, "beam%d_top%d", p, k);
            con[ncon].side[0] = loam_mb_side_fem_node(p, top[k]);
            if (p == 0) con[ncon].side[1] = loam_mb_side_body(flange), con[ncon].anchor[1] = pd_apply(Finv, d3_load(node + 3 * top[k]));
            else con[ncon].side[1] = loam_mb_side_fem_node(p - 1, bottom[k]);
        }
    }
    st = loam_mb_model_set_constraints(sc->model, con, ncon, err);
done:
    loam_free(b), loam_free(g), loam_free(con), loam_free(node), loam_free(tet);
    sc->flange = flange;
    return st;
}

loam_status mb_insertion_create(const char* panda_urdf, int pieces, const loam_mb_options* opt, mb_insertion* sc, loam_error* err) {
    memset(sc, 0, sizeof *sc);
    if (pieces < 1 || pieces > 8) return loam_error_set(err, LOAM_ERR_INPUT, "insertion: %d beam pieces, expected 1 to 8", pieces);
    static const double q0[7] = {0, 0.1, 0, -2.0, 0, 2.1, 0.785};
    memcpy(sc->q0, q0, sizeof q0);
    sc->pieces = pieces, sc->hold = 0.1, sc->speed = 0.1;
    loam_error local;
    if (!err) err = &local; /* the status of a failed load is in err */
    loam_mb_model* arm = loam_urdf_load(panda_urdf, NULL, err);
    loam_status st = arm ? LOAM_OK : err->status;
    if (st == LOAM_OK) st = build(arm, pieces, opt, sc, err);
    loam_mb_model_destroy(arm);
    if (st == LOAM_OK && !(sc->state = loam_mb_state_create(sc->model, err))) st = err ? err->status : LOAM_ERR_NOMEM;
    if (st != LOAM_OK) {
        mb_insertion_destroy(sc);
        return st;
    }
    memcpy(sc->state->q, q0, sizeof q0);
    memcpy(sc->state->q_ref, q0, sizeof q0);
    return loam_mb_kinematics(sc->model, sc->state, err);
}

loam_status mb_insertion_control(const mb_insertion* sc, loam_mb_state* s, loam_error* err) {
    const loam_mb_model* m = sc->model;
    double h = m->opt.dt, t = s->time + h;
    /* resolved rate: the joint velocities that move the flange down at `speed` without turning it,
     * qd = J^T (J J^T + eps I)^-1 (v, w), integrated into the position targets; v and w also pull the
     * flange back onto its line and its orientation (gain 10/s), so the beam stays over the slot */
    double down = t > sc->hold ? sc->speed * (t - sc->hold) : 0.0;
    loam_posed F = s->xpose[sc->flange];
    loam_vec3d dp = d3_sub(d3_add(sc->start.p, d3(0, 0, -down)), F.p);
    loam_quatd dq = qd_mul(sc->start.q, qd_conj(F.q));
    if (dq.w < 0) dq = qd_make(-dq.w, -dq.x, -dq.y, -dq.z);
    double jac[6 * 7], JJ[36], rhs[6] = {10 * dp.x, 10 * dp.y, 10 * dp.z + (t > sc->hold ? -sc->speed : 0.0), 20 * dq.x, 20 * dq.y, 20 * dq.z};
    if (m->nv != 7) return loam_error_set(err, LOAM_ERR_INPUT, "insertion: the model has %d joint dofs, expected the Panda's 7", m->nv);
    loam_status st = loam_mb_jacobian(m, s, sc->flange, F.p, jac, err);
    if (st != LOAM_OK) return st;
    for (int i = 0; i < 6; ++i)
        for (int j = 0; j < 6; ++j) {
            double v = i == j ? 1e-6 : 0.0;
            for (int k = 0; k < 7; ++k) v += jac[i * 7 + k] * jac[j * 7 + k];
            JJ[i * 6 + j] = v;
        }
    if (dense_cholesky(JJ, 6) >= 0) return loam_error_set(err, LOAM_ERR_INPUT, "insertion: the arm is singular");
    dense_cholesky_solve(JJ, 6, rhs);
    for (int k = 0; k < 7; ++k) {
        double qd = 0.0;
        for (int i = 0; i < 6; ++i) qd += jac[i * 7 + k] * rhs[i];
        s->qd_ref[k] = qd;
        s->q_ref[k] += h * qd;
    }
    /* gravity compensation: the arm's bias at zero velocity */
    double saved[7];
    memcpy(saved, s->qd, sizeof saved);
    memset(s->qd, 0, sizeof saved);
    st = loam_mb_inverse_dynamics(m, s, NULL, s->tau, err);
    memcpy(s->qd, saved, sizeof saved);
    return st;
}

double mb_insertion_tip_z(const mb_insertion* sc, const loam_mb_state* s) {
    double z = INFINITY;
    for (int i = 0; i < s->nfem_node; ++i) z = fmin(z, s->fem_x[3 * i + 2]);
    (void)sc;
    return z;
}

void mb_insertion_destroy(mb_insertion* sc) {
    loam_mb_state_destroy(sc->state);
    loam_mb_model_destroy(sc->model);
    memset(sc, 0, sizeof *sc);
}

/* Multibody algorithms against each other and against definitions, on a random tree with a floating
 * base and revolute and prismatic joints about arbitrary axes:
 * - the mass matrix (composite rigid bodies) is symmetric and its columns are the inverse dynamics
 *   (Newton-Euler) of unit accelerations minus the bias;
 * - 1/2 qd^T M qd is the sum of the bodies' kinetic energies;
 * - forward dynamics undoes inverse dynamics;
 * - each Jacobian maps qd to the velocity of the body's com, and matches finite differences of the
 *   com's position along qd. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "loam/multibody.h"
#include "test_util.h"

static unsigned g_seed = 11;
static double rnd(double lo, double hi) {
    g_seed = g_seed * 1664525u + 1013904223u;
    return lo + (hi - lo) * (double)(g_seed >> 8) / 16777216.0;
}
static loam_vec3d rvec(double r) { return (loam_vec3d){rnd(-r, r), rnd(-r, r), rnd(-r, r)}; }
static loam_quatd rquat(void) {
    loam_quatd q = {rnd(-1, 1), rnd(-1, 1), rnd(-1, 1), rnd(-1, 1)};
    double n = sqrt(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z);
    return (loam_quatd){q.w / n, q.x / n, q.y / n, q.z / n};
}

enum { NB = 7 };

static loam_mb_model* make_tree(void) {
    loam_mb_body_def b[NB];
    const int parent[NB] = {-1, 0, 1, 2, 0, 4, 2};
    const loam_joint_type type[NB] = {LOAM_JOINT_FLOATING, LOAM_JOINT_REVOLUTE, LOAM_JOINT_PRISMATIC, LOAM_JOINT_REVOLUTE,
                                      LOAM_JOINT_REVOLUTE, LOAM_JOINT_FIXED, LOAM_JOINT_REVOLUTE};
    for (int i = 0; i < NB; ++i) {
        b[i] = loam_mb_body_default_def();
        snprintf(b[i].name, sizeof b[i].name, "body%d", i);
        b[i].parent = parent[i];
        b[i].joint = type[i];
        b[i].placement.p = rvec(0.4);
        b[i].placement.q = rquat();
        b[i].axis = rvec(1.0);
        b[i].mass = rnd(0.5, 3.0);
        b[i].com = rvec(0.2);
        double a = rnd(0.01, 0.1), c = rnd(0.01, 0.1), d = rnd(0.01, 0.1);
        b[i].inertia[0] = a + c, b[i].inertia[1] = a + d, b[i].inertia[2] = c + d; /* triangle-safe */
        b[i].inertia[3] = rnd(-0.004, 0.004), b[i].inertia[4] = rnd(-0.004, 0.004), b[i].inertia[5] = rnd(-0.004, 0.004);
    }
    loam_mb_model* m = NULL;
    loam_error err;
    CHECK((m = loam_mb_model_create(b, NB, NULL, 0, NULL, &err)) != NULL, "%s", err.message);
    return m;
}

static void randomize(const loam_mb_model* m, loam_mb_state* s) {
    for (int i = 0; i < m->nq; ++i) s->q[i] = rnd(-1.5, 1.5);
    loam_quatd q = rquat();
    s->q[3] = q.w, s->q[4] = q.x, s->q[5] = q.y, s->q[6] = q.z;
    for (int i = 0; i < m->nv; ++i) s->qd[i] = rnd(-2, 2);
}

static loam_vec3d com_world(const loam_mb_model* m, const loam_mb_state* s, int i) {
    loam_posed P = s->xpose[i];
    loam_vec3d c = m->body[i].com;
    /* rotate c by P.q */
    loam_quatd q = P.q;
    double tx = 2 * (q.y * c.z - q.z * c.y), ty = 2 * (q.z * c.x - q.x * c.z), tz = 2 * (q.x * c.y - q.y * c.x);
    return (loam_vec3d){P.p.x + c.x + q.w * tx + (q.y * tz - q.z * ty), P.p.y + c.y + q.w * ty + (q.z * tx - q.x * tz),
                        P.p.z + c.z + q.w * tz + (q.x * ty - q.y * tx)};
}

/* q moved by eps along qd: plain sums, and the floating root's rotation from the left. */
static void advance_q(const loam_mb_model* m, const double* q, const double* qd, double eps, double* out) {
    memcpy(out, q, sizeof(double) * (size_t)m->nq);
    for (int i = 0; i < m->nbody; ++i) {
        int a = m->q_adr[i], v = m->v_adr[i];
        if (m->body[i].joint == LOAM_JOINT_REVOLUTE || m->body[i].joint == LOAM_JOINT_PRISMATIC) out[a] += eps * qd[v];
        if (m->body[i].joint == LOAM_JOINT_FLOATING) {
            for (int k = 0; k < 3; ++k) out[a + k] += eps * qd[v + k];
            double w[3] = {qd[v + 3] * eps, qd[v + 4] * eps, qd[v + 5] * eps}, n = sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
            double sn = n > 0 ? sin(0.5 * n) / n : 0.5, r[4] = {cos(0.5 * n), w[0] * sn, w[1] * sn, w[2] * sn};
            const double* p = q + a + 3;
            out[a + 3] = r[0] * p[0] - r[1] * p[1] - r[2] * p[2] - r[3] * p[3];
            out[a + 4] = r[0] * p[1] + r[1] * p[0] + r[2] * p[3] - r[3] * p[2];
            out[a + 5] = r[0] * p[2] - r[1] * p[3] + r[2] * p[0] + r[3] * p[1];
            out[a + 6] = r[0] * p[3] + r[1] * p[2] - r[2] * p[1] + r[3] * p[0];
        }
    }
}

int main(void) {
    loam_error err;
    loam_mb_model* m = make_tree();
    loam_mb_state* s = NULL;
    CHECK((s = loam_mb_state_create(m, &err)) != NULL, "%s", err.message);
    int nv = m->nv;
    CHECK(nv == 6 + 5, "nv = %d", nv);
    double* M = malloc(sizeof(double) * (size_t)(nv * nv));
    double *bias = malloc(sizeof(double) * (size_t)nv), *col = malloc(sizeof(double) * (size_t)nv), *e = malloc(sizeof(double) * (size_t)nv);
    double* jac = malloc(sizeof(double) * 6 * (size_t)nv);
    double *q0 = malloc(sizeof(double) * (size_t)m->nq), *q1 = malloc(sizeof(double) * (size_t)m->nq);
    double worst_M = 0, worst_sym = 0, worst_T = 0, worst_fd = 0, worst_J = 0, worst_Jfd = 0;
    for (int trial = 0; trial < 20; ++trial) {
        randomize(m, s);
        CHECK(loam_mb_mass_matrix(m, s, &err) == LOAM_OK, "%s", err.message);
        loam_mb_mass_matrix_dense(m, s, M);
        double scale = 0;
        for (int k = 0; k < nv * nv; ++k) scale = fmax(scale, fabs(M[k]));
        for (int r = 0; r < nv; ++r)
            for (int c = 0; c < nv; ++c) worst_sym = fmax(worst_sym, fabs(M[r * nv + c] - M[c * nv + r]) / scale);
        CHECK(loam_mb_inverse_dynamics(m, s, NULL, bias, &err) == LOAM_OK, "%s", err.message);
        for (int c = 0; c < nv; ++c) {
            memset(e, 0, sizeof(double) * (size_t)nv);
            e[c] = 1.0;
            CHECK(loam_mb_inverse_dynamics(m, s, e, col, &err) == LOAM_OK, "%s", err.message);
            for (int r = 0; r < nv; ++r) worst_M = fmax(worst_M, fabs(col[r] - bias[r] - M[r * nv + c]) / scale);
        }
        double T, quad = 0;
        loam_mb_energy(m, s, &T, NULL);
        for (int r = 0; r < nv; ++r)
            for (int c = 0; c < nv; ++c) quad += 0.5 * s->qd[r] * M[r * nv + c] * s->qd[c];
        worst_T = fmax(worst_T, fabs(T - quad) / quad);
        /* Forward dynamics undoes inverse dynamics. */
        for (int c = 0; c < nv; ++c) e[c] = rnd(-3, 3);
        CHECK(loam_mb_inverse_dynamics(m, s, e, s->tau, &err) == LOAM_OK, "%s", err.message);
        CHECK(loam_mb_forward_dynamics(m, s, col, &err) == LOAM_OK, "%s", err.message);
        for (int c = 0; c < nv; ++c) worst_fd = fmax(worst_fd, fabs(col[c] - e[c]) / 3.0);
        memset(s->tau, 0, sizeof(double) * (size_t)nv);
        /* Jacobians at each com. */
        memcpy(q0, s->q, sizeof(double) * (size_t)m->nq);
        for (int i = 0; i < m->nbody; ++i) {
            CHECK(loam_mb_kinematics(m, s, &err) == LOAM_OK, "%s", err.message);
            loam_vec3d c = com_world(m, s, i);
            CHECK(loam_mb_jacobian(m, s, i, c, jac, &err) == LOAM_OK, "%s", err.message);
            const double* xv = s->xvel + 6 * i;
            loam_vec3d arm = {c.x - s->xpose[i].p.x, c.y - s->xpose[i].p.y, c.z - s->xpose[i].p.z};
            double vel[6] = {xv[0] + xv[4] * arm.z - xv[5] * arm.y, xv[1] + xv[5] * arm.x - xv[3] * arm.z,
                             xv[2] + xv[3] * arm.y - xv[4] * arm.x, xv[3], xv[4], xv[5]};
            double Jqd[6];
            for (int r = 0; r < 6; ++r) {
                Jqd[r] = 0;
                for (int k = 0; k < nv; ++k) Jqd[r] += jac[r * nv + k] * s->qd[k];
                worst_J = fmax(worst_J, fabs(Jqd[r] - vel[r]));
            }
            /* central differences of the com's position along qd */
            const double h = 1e-6;
            loam_vec3d cp, cm;
            advance_q(m, q0, s->qd, h, q1);
            memcpy(s->q, q1, sizeof(double) * (size_t)m->nq);
            CHECK(loam_mb_kinematics(m, s, &err) == LOAM_OK, "%s", err.message);
            cp = com_world(m, s, i);
            advance_q(m, q0, s->qd, -h, q1);
            memcpy(s->q, q1, sizeof(double) * (size_t)m->nq);
            CHECK(loam_mb_kinematics(m, s, &err) == LOAM_OK, "%s", err.message);
            cm = com_world(m, s, i);
            memcpy(s->q, q0, sizeof(double) * (size_t)m->nq);
            double fd[3] = {(cp.x - cm.x) / (2 * h), (cp.y - cm.y) / (2 * h), (cp.z - cm.z) / (2 * h)};
            for (int r = 0; r < 3; ++r) worst_Jfd = fmax(worst_Jfd, fabs(fd[r] - Jqd[r]));
        }
    }
    fprintf(stderr, "M vs RNEA %.2e, symmetry %.2e, kinetic energy %.2e, FD(ID) %.2e, J qd vs twist %.2e, J qd vs finite "
            "differences %.2e\n", worst_M, worst_sym, worst_T, worst_fd, worst_J, worst_Jfd);
    CHECK(worst_M < 1e-12, "mass matrix columns differ from inverse dynamics by %.3e (relative)", worst_M);
    CHECK(worst_sym < 1e-14, "mass matrix asymmetry %.3e", worst_sym);
    CHECK(worst_T < 1e-12, "kinetic energy differs from qd^T M qd / 2 by %.3e", worst_T);
    CHECK(worst_fd < 1e-9, "forward dynamics of inverse dynamics off by %.3e", worst_fd);
    CHECK(worst_J < 1e-12, "J qd differs from the body twist by %.3e m/s", worst_J);
    CHECK(worst_Jfd < 1e-6, "J qd differs from finite differences by %.3e m/s", worst_Jfd);

    /* Bad input names the body and the field. */
    s->q[7] = NAN;
    CHECK(loam_mb_step(m, s, 1, &err) == LOAM_ERR_INPUT && strstr(err.message, "body1") && strstr(err.message, "q[7]"), "%s", err.message);
    CHECK(loam_mb_jacobian(m, s, 99, (loam_vec3d){0, 0, 0}, jac, &err) == LOAM_ERR_INPUT && strstr(err.message, "body 99"), "%s",
          err.message);
    loam_mb_body_def bad = loam_mb_body_default_def();
    strcpy(bad.name, "lump");
    bad.joint = LOAM_JOINT_FLOATING;
    bad.mass = 1.0, bad.inertia[0] = 1.0, bad.inertia[1] = 0.1, bad.inertia[2] = 0.1;
    loam_mb_model* mb = NULL;
    CHECK((mb = loam_mb_model_create(&bad, 1, NULL, 0, NULL, &err)) == NULL && err.status == LOAM_ERR_INPUT && strstr(err.message, "lump") &&
              strstr(err.message, "triangle"), "%s", err.message);
    bad.inertia[0] = 0.1, bad.mass = -1;
    CHECK((mb = loam_mb_model_create(&bad, 1, NULL, 0, NULL, &err)) == NULL && err.status == LOAM_ERR_INPUT && strstr(err.message, "mass = -1"),
          "%s", err.message);
    CHECK(mb == NULL, "a model came back from bad input");

    free(M), free(bias), free(col), free(e), free(jac), free(q0), free(q1);
    loam_mb_state_destroy(s);
    loam_mb_model_destroy(m);
    TEST_MAIN_END();
}

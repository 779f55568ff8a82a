/* Multibody test 4: every solver (PGS, projected Jacobi, subsystem ADMM, full-system ADMM, nonsmooth
 * Newton, PGS with nonsmooth conjugate gradients), run to
 * convergence on the same small contact problem (sphere-plane, sphere-sphere and sphere-box contacts
 * between four subsystems, sliding and sticking), gives the same velocities; SubADMM's result meets the
 * constraint error tolerance; a fixed iteration budget reports iterations, time and error; and on a
 * stack of balls, where Gauss-Seidel carries the load down slowly, the conjugate gradients need fewer
 * sweeps than plain PGS to the same error; SubADMM's steps are the same bytes with one thread, two,
 * and inside a caller's parallel region. */
#include <math.h>
#include <string.h>

#include "loam/multibody.h"
#include "scenarios.h"
#include "test_util.h"

static loam_mb_body_def free_body(const char* name, double mass, double ixx, double iyy, double izz) {
    loam_mb_body_def b = loam_mb_body_default_def();
    strcpy(b.name, name);
    b.joint = LOAM_JOINT_FLOATING;
    b.mass = mass;
    b.inertia[0] = ixx, b.inertia[1] = iyy, b.inertia[2] = izz;
    return b;
}

/* Three balls and a box, four subsystems, five contacts, every one a single point (so the impulses
 * are unique; four box corners on a plane would leave the corner impulses, and with them sliding
 * friction, undetermined): ball 0 slides and spins on the plane; ball 2 rolls into its side; ball 1
 * drops onto its top; the box lands on ball 1. */
static loam_mb_model* scene(loam_mb_solver solver, int iterations, double tolerance) {
    loam_mb_body_def b[4] = {free_body("ball0", 0.5, 0.002, 0.002, 0.002), free_body("ball1", 0.5, 0.002, 0.002, 0.002),
                             free_body("ball2", 0.5, 0.002, 0.002, 0.002),
                             free_body("box", 2.0, 2.0 / 3 * (0.01 + 0.0025), 2.0 / 3 * (0.01 + 0.0025), 2.0 / 3 * 0.02)};
    loam_mb_geom_def g[5];
    for (int i = 0; i < 5; ++i) g[i] = loam_mb_geom_default_def();
    g[0].body = -1, g[0].shape.type = LOAM_SHAPE_PLANE;
    g[1].body = 0, g[1].shape.size.x = 0.1;
    g[2].body = 1, g[2].shape.size.x = 0.1;
    g[3].body = 2, g[3].shape.size.x = 0.1, g[3].shape.friction = 0.8;
    g[4].body = 3, g[4].shape.type = LOAM_SHAPE_BOX, g[4].shape.size = (loam_vec3){0.1, 0.1, 0.05};
    loam_mb_options o = loam_mb_default_options();
    o.solver = solver;
    o.iterations = iterations;
    o.tolerance = tolerance;
    loam_mb_model* m = NULL;
    loam_error err;
    CHECK((m = loam_mb_model_create(b, 4, g, 5, &o, &err)) != NULL, "%s", err.message);
    return m;
}

/* Sweeps to bring one step of a resting stack of n balls (1 kg, radius 0.1 m, on the plane, from
 * rest, impulses from zero) to a constraint error below 1e-8 m/s: the iterations the solver took
 * with that stopping tolerance on the change of impulses, then the error it reports. */
static int stack_sweeps(loam_mb_solver solver, int n, double* error) {
    loam_mb_body_def b[16];
    loam_mb_geom_def g[17];
    g[0] = loam_mb_geom_default_def(), g[0].body = -1, g[0].shape.type = LOAM_SHAPE_PLANE;
    for (int i = 0; i < n; ++i) {
        b[i] = free_body("ball", 1.0, 0.004, 0.004, 0.004);
        snprintf(b[i].name, sizeof b[i].name, "ball%d", i);
        g[i + 1] = loam_mb_geom_default_def(), g[i + 1].body = i, g[i + 1].shape.size.x = 0.1;
    }
    loam_mb_options o = loam_mb_default_options();
    o.solver = solver, o.iterations = 100000, o.tolerance = 1e-12, o.warm_start = 0;
    loam_mb_model* m = NULL;
    loam_mb_state* s = NULL;
    loam_error err;
    int its = -1;
    if ((m = loam_mb_model_create(b, n, g, n + 1, &o, &err)) != NULL && (s = loam_mb_state_create(m, &err)) != NULL) {
        for (int i = 0; i < n; ++i) {
            double* q = s->q + 7 * i;
            q[0] = q[1] = 0.0, q[2] = 0.0999 + 0.1998 * i, q[3] = 1.0, q[4] = q[5] = q[6] = 0.0;
        }
        memset(s->qd, 0, sizeof(double) * 6 * (size_t)n);
        if (loam_mb_step(m, s, 1, &err) == LOAM_OK) its = s->solver.iterations, *error = s->solver.error;
    }
    CHECK(its > 0, "stack with %s: %s", loam_mb_solver_name(solver), err.message);
    loam_mb_state_destroy(s);
    loam_mb_model_destroy(m);
    return its;
}

/* SubADMM's steps do not depend on the thread count, nor on being taken inside a caller's parallel
 * region (a batch of simulations stepped by a parallel loop): a 100-sphere bed (more than 64
 * subsystems, so each solve runs as a team of its own) steps 100 times from its lattice with one
 * thread, with two, and as two copies stepped side by side by an outer team of two; the positions
 * and velocities must be the same bytes. */
static void thread_independence(void) {
    enum { COPIES = 4, N = 100, STEPS = 100 };
    loam_mb_options o = loam_mb_default_options();
    o.solver = LOAM_MB_SOLVER_SUBADMM, o.dt = 2e-3, o.iterations = 40;
    loam_mb_model* m[COPIES] = {0};
    loam_mb_state* s[COPIES] = {0};
    loam_error err;
    int ok = 1, failed = 0;
    for (int i = 0; i < COPIES && ok; ++i) ok = mb_spheres_create(N, &o, &m[i], &s[i], &err) == LOAM_OK;
    CHECK(ok, "sphere bed: %s", err.message);
    for (int i = 0; ok && i < 2; ++i) {
        loam_set_threads(i + 1);
        for (int k = 0; k < STEPS; ++k) failed += loam_mb_step(m[i], s[i], 1, &err) != LOAM_OK;
    }
    if (ok) { /* the batch pattern: the caller's threads, one solve each (loam itself on one thread) */
        loam_set_threads(1);
#pragma omp parallel for num_threads(2) schedule(static, 1) reduction(+ : failed)
        for (int i = 2; i < COPIES; ++i) {
            loam_error e;
            for (int k = 0; k < STEPS; ++k) failed += loam_mb_step(m[i], s[i], 1, &e) != LOAM_OK;
        }
        CHECK(failed == 0, "%d failed steps", failed);
        CHECK(s[0]->ncontact > N, "the bed has %d contacts after %d steps", s[0]->ncontact, STEPS);
        for (int i = 1; i < COPIES; ++i)
            CHECK(!memcmp(s[i]->q, s[0]->q, sizeof(double) * 7 * N) && !memcmp(s[i]->qd, s[0]->qd, sizeof(double) * 6 * N),
                  "copy %d (%s) differs from the one-thread run", i, i == 1 ? "two threads" : "inside a parallel region");
    }
    for (int i = 0; i < COPIES; ++i) loam_mb_state_destroy(s[i]), loam_mb_model_destroy(m[i]);
}

enum { NQ = 28, NV = 24 };

static void start(loam_mb_state* s) {
    static const double q[NQ] = {0, 0, 0.0995, 1, 0, 0, 0, 0, 0, 0.2985, 1, 0, 0, 0, 0.1995, 0, 0.0995, 1, 0, 0, 0,
                                 0.03, -0.02, 0.448, 1, 0, 0, 0};
    static const double qd[NV] = {0.5, 0, 0, 0, 0, 1.0, 0, 0.2, -0.5, 0, 0, 0, -0.3, 0, 0, 0, -3.0, 0, 0.1, 0, -0.8, 0.5, 0, 0};
    memcpy(s->q, q, sizeof q);
    memcpy(s->qd, qd, sizeof qd);
}

int main(void) {
    enum { NSOLVER = 6 };
    static const loam_mb_solver solvers[NSOLVER] = {LOAM_MB_SOLVER_PGS,   LOAM_MB_SOLVER_PJ,      LOAM_MB_SOLVER_SUBADMM,
                                                    LOAM_MB_SOLVER_FADMM, LOAM_MB_SOLVER_NNEWTON, LOAM_MB_SOLVER_PGS_CG};
    double ref[NV], ref2[NV], impulse_ref = 0;
    loam_error err;
    for (int k = 0; k < NSOLVER; ++k) {
        loam_mb_model* m = scene(solvers[k], solvers[k] == LOAM_MB_SOLVER_NNEWTON ? 100 : 200000, 1e-14);
        loam_mb_state* s = NULL;
        if (!m || (s = loam_mb_state_create(m, &err)) == NULL) {
            CHECK(0, "setup: %s", err.message);
            loam_mb_model_destroy(m);
            continue;
        }
        start(s);
        CHECK(loam_mb_step(m, s, 1, &err) == LOAM_OK, "%s: %s", loam_mb_solver_name(solvers[k]), err.message);
        double total = 0;
        for (int c = 0; c < s->ncontact; ++c) total += s->contact_impulse[3 * c];
        fprintf(stderr, "%-8s %d contacts, %d rows: %6d iterations, %.2e s, error %.2e m/s, total normal impulse %.9f N s\n",
                loam_mb_solver_name(solvers[k]), s->ncontact, s->solver.rows, s->solver.iterations, s->solver.time_s, s->solver.error, total);
        CHECK(s->ncontact == 5, "%d contacts: two balls on the plane, two on ball 0, the box on ball 1", s->ncontact);
        if (k == 0) {
            memcpy(ref, s->qd, sizeof ref);
            impulse_ref = total;
        } else {
            double worst = 0;
            for (int i = 0; i < NV; ++i) worst = fmax(worst, fabs(s->qd[i] - ref[i]));
            CHECK(worst < 1e-6, "%s: velocities differ from PGS by %.3e", loam_mb_solver_name(solvers[k]), worst);
            CHECK(fabs(total - impulse_ref) < 1e-6, "%s: total normal impulse %.9f, PGS %.9f", loam_mb_solver_name(solvers[k]), total, impulse_ref);
        }
        if (solvers[k] == LOAM_MB_SOLVER_SUBADMM) CHECK(s->solver.error < 1e-8, "SubADMM error %.3e m/s (tolerance 1e-8)", s->solver.error);
        /* a second step, warm-started from the first: still the same answer everywhere */
        CHECK(loam_mb_step(m, s, 1, &err) == LOAM_OK, "%s: %s", loam_mb_solver_name(solvers[k]), err.message);
        if (k == 0) memcpy(ref2, s->qd, sizeof ref2);
        else {
            double worst = 0;
            for (int i = 0; i < NV; ++i) worst = fmax(worst, fabs(s->qd[i] - ref2[i]));
            CHECK(worst < 1e-6, "%s, warm-started second step: velocities differ from PGS by %.3e", loam_mb_solver_name(solvers[k]), worst);
        }
        loam_mb_state_destroy(s);
        loam_mb_model_destroy(m);
    }
    /* SubADMM's options change the path, not the answer: the paper's plain iteration (penalty scale 1,
     * no balancing, no relaxation, the subsystem's penalty on every constraint) and the over-relaxed,
     * balanced ones reach PGS's velocities too. */
    /* {scale, adapt, relaxation, acceleration, rigid relaxation, rigid per-constraint penalty}: rows 4
     * and 5 Nesterov and Anderson; the last two the per-constraint penalty without and with relaxation */
    static const double variants[7][6] = {{1.0, 0, 1.0, 0, 1.0, 0.0}, {10.0, 1, 1.5, 0, 1.5, 0.0}, {3.0, 1, 1.9, 0, 1.9, 0.0}, {10.0, 1, 1.0, 1, 1.5, 5.0},
                                          {10.0, 1, 1.0, 2, 1.5, 5.0}, {10.0, 1, 1.0, 0, 1.0, 5.0}, {10.0, 0, 1.0, 0, 1.9, 0.5}};
    for (int v = 0; v < 7; ++v) {
        loam_mb_model* m = scene(LOAM_MB_SOLVER_SUBADMM, 20000, 1e-14);
        loam_mb_state* s = NULL;
        if (!m) continue;
        m->opt.admm_beta_scale = variants[v][0], m->opt.admm_adapt = (int)variants[v][1], m->opt.admm_relaxation = variants[v][2];
        m->opt.admm_accel = (int)variants[v][3], m->opt.admm_relaxation_rigid = variants[v][4], m->opt.admm_penalty_rigid = variants[v][5];
        CHECK((s = loam_mb_state_create(m, &err)) != NULL, "%s", err.message);
        start(s);
        CHECK(loam_mb_step(m, s, 1, &err) == LOAM_OK, "%s", err.message);
        double worst = 0;
        for (int i = 0; i < NV; ++i) worst = fmax(worst, fabs(s->qd[i] - ref[i]));
        fprintf(stderr,
                "subadmm scale %g adapt %d relaxation %g accel %d rigid relaxation %g rigid penalty %g: %d iterations, error %.2e m/s, "
                "velocities within %.2e of PGS\n",
                variants[v][0], (int)variants[v][1], variants[v][2], (int)variants[v][3], variants[v][4], variants[v][5], s->solver.iterations,
                s->solver.error, worst);
        CHECK(worst < 1e-6, "SubADMM (scale %g, adapt %d, relaxation %g, rigid %g / %g): velocities differ from PGS by %.3e", variants[v][0],
              (int)variants[v][1], variants[v][2], variants[v][4], variants[v][5], worst);
        loam_mb_state_destroy(s);
        loam_mb_model_destroy(m);
    }
    /* the default acceleration (-1, automatic) is none on rigid bodies: the bytes of admm_accel 0 */
    {
        double q[2][NV];
        for (int v = 0; v < 2; ++v) {
            loam_mb_model* m = scene(LOAM_MB_SOLVER_SUBADMM, 30, 1e-14);
            loam_mb_state* s = NULL;
            if (!m) continue;
            CHECK(m->opt.admm_accel == -1, "default admm_accel %d", m->opt.admm_accel);
            m->opt.admm_accel = v ? 0 : -1;
            CHECK((s = loam_mb_state_create(m, &err)) != NULL, "%s", err.message);
            start(s);
            CHECK(loam_mb_step(m, s, 1, &err) == LOAM_OK, "%s", err.message);
            memcpy(q[v], s->qd, sizeof q[v]);
            loam_mb_state_destroy(s);
            loam_mb_model_destroy(m);
        }
        CHECK(!memcmp(q[0], q[1], sizeof q[0]), "automatic acceleration differs from none on rigid bodies");
    }
    /* the options are checked */
    {
        loam_mb_options o = loam_mb_default_options();
        loam_mb_body_def b = free_body("b", 1, 0.1, 0.1, 0.1);
        loam_mb_model* m = NULL;
        o.admm_relaxation = 2.0;
        CHECK((m = loam_mb_model_create(&b, 1, NULL, 0, &o, &err)) == NULL && strstr(err.message, "admm_relaxation"), "admm_relaxation 2 accepted");
        loam_mb_model_destroy(m);
        for (int bad = -2; bad <= 3; bad += 5) {
            o = loam_mb_default_options(), o.admm_accel = bad, m = NULL;
            CHECK((m = loam_mb_model_create(&b, 1, NULL, 0, &o, &err)) == NULL && strstr(err.message, "admm_accel"), "admm_accel %d accepted", bad);
            loam_mb_model_destroy(m);
        }
        o = loam_mb_default_options(), o.admm_relaxation_rigid = 0.0, m = NULL;
        CHECK((m = loam_mb_model_create(&b, 1, NULL, 0, &o, &err)) == NULL && strstr(err.message, "admm_relaxation_rigid"),
              "admm_relaxation_rigid 0 accepted");
        loam_mb_model_destroy(m);
        o = loam_mb_default_options(), o.admm_penalty_rigid = -1.0, m = NULL;
        CHECK((m = loam_mb_model_create(&b, 1, NULL, 0, &o, &err)) == NULL && strstr(err.message, "admm_penalty_rigid"),
              "admm_penalty_rigid -1 accepted");
        loam_mb_model_destroy(m);
        o = loam_mb_default_options(), o.admm_adapt = 2, m = NULL;
        CHECK((m = loam_mb_model_create(&b, 1, NULL, 0, &o, &err)) == NULL && strstr(err.message, "admm_adapt"), "admm_adapt 2 accepted");
        loam_mb_model_destroy(m);
    }
    /* A fixed budget (the paper's 30 iterations, 3 for Newton): every solver reports what it did. */
    for (int k = 0; k < NSOLVER; ++k) {
        int budget = solvers[k] == LOAM_MB_SOLVER_NNEWTON ? 3 : 30;
        loam_mb_model* m = scene(solvers[k], budget, 0.0);
        loam_mb_state* s = NULL;
        if (!m || (s = loam_mb_state_create(m, &err)) == NULL) continue;
        start(s);
        CHECK(loam_mb_step(m, s, 1, &err) == LOAM_OK, "%s", err.message);
        CHECK(s->solver.iterations == budget && s->solver.time_s > 0 && isfinite(s->solver.error) && s->solver.error >= 0,
              "%s: %d iterations, %g s, error %g", loam_mb_solver_name(solvers[k]), s->solver.iterations, s->solver.time_s, s->solver.error);
        fprintf(stderr, "%-8s %2d iterations: error %.2e m/s\n", loam_mb_solver_name(solvers[k]), budget, s->solver.error);
        loam_mb_state_destroy(s);
        loam_mb_model_destroy(m);
    }
    /* The conjugate gradients' point: fewer sweeps where Gauss-Seidel is slow (a stack's load travels
     * down one ball per sweep), to the same tolerance and error. */
    double e_pgs = 0, e_cg = 0;
    int pgs = stack_sweeps(LOAM_MB_SOLVER_PGS, 12, &e_pgs), cg = stack_sweeps(LOAM_MB_SOLVER_PGS_CG, 12, &e_cg);
    fprintf(stderr, "stack of 12 balls: pgs %d sweeps (error %.2e m/s), pgs_cg %d (error %.2e m/s)\n", pgs, e_pgs, cg, e_cg);
    CHECK(e_pgs < 1e-8 && e_cg < 1e-8, "stack: errors %.3e (pgs), %.3e (pgs_cg) m/s", e_pgs, e_cg);
    CHECK(cg > 0 && 2 * cg < pgs, "stack: pgs_cg took %d sweeps, pgs %d: expected under half", cg, pgs);
    thread_independence();
    TEST_MAIN_END();
}

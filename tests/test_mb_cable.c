/* A cable of rigid segments (loam_mb_cable_build) clamped at one end as a cantilever sags under its
 * weight by Euler-Bernoulli's w L^4 / (8 E I) (within 1% with 20 segments; the clamp is a half-segment
 * spring, 2 E I / l, which makes the discrete sag the trapezoid rule of the continuous one). Solved
 * with nonsmooth Newton; with SubADMM at the paper's 30 iterations (the cable is one subsystem, its
 * bending springs folded into it, paper 004 Remark 1); and with PGS given 2000 iterations: the chain
 * of light, stiff segments is the hard case for Gauss-Seidel (at 30 iterations it blows up). With the
 * Cosserat stiffnesses (soft stretch and shear, twist G J / l) the sag is the same, and a torque at
 * the tip twists the cable by T (L - l/2) / (G J).
 *
 * Nonsmooth Newton on the draping cable (60 segments lying on the floor: redundant contacts, hard
 * joints, friction), one step from the same settled state at 3, 6, 9 and 30 iterations: the error
 * does not grow with the iterations and at 30 is below 1e-3 m/s (it stalled at about 1e-2 m/s before
 * the solver was damped and regularized, see src/contact/nnewton.c).
 * The short run (LOAM_TEST_SHORT, the sanitizer builds) steps each cantilever 20 times instead of 1000
 * and lets the draping cable fall 75 steps instead of settling for 250 (it lands after about 45, so
 * Newton's step still has its contacts) and takes only the 3-iteration step from there (with its 70-odd
 * contacts the four steps cost most of the test); it leaves the checks of the settled sag and of the
 * error sequence to the Release build. */
#include <math.h>
#include <string.h>

#include "loam/multibody.h"
#include "scenarios.h"
#include "test_util.h"

enum { N = 20 };

/* The cantilever's tip sag (gravity) or, with `torque`, the last segment's twist about the cable under
 * that torque at the tip (no gravity). */
static double run(loam_mb_solver solver, int iterations, int cosserat, double torque, double* expect) {
    loam_mb_cable_def cd = loam_mb_cable_default_def();
    cd.cosserat = cosserat;
    cd.segments = N, cd.length = 1.0, cd.radius = 0.01, cd.density = 1000.0;
    double I = M_PI * pow(cd.radius, 4) / 4.0, w = cd.density * M_PI * cd.radius * cd.radius * 9.81;
    double EI = w / (8.0 * 0.01); /* a 1 cm sag on 1 m: small deflection */
    cd.young = EI / I;
    cd.damping = 0.02 * EI / (cd.length / N); /* to settle within the run */
    cd.start.p = (loam_vec3d){0, 0, 1};
    loam_mb_body_def b[N];
    loam_mb_geom_def g[N];
    loam_mb_constraint_def c[2 * N];
    loam_error err;
    CHECK(loam_mb_cable_build(&cd, 0, b, g, c, &err) == LOAM_OK, "%s", err.message);
    /* the clamp: the first segment's start held to the world, its bending spring a half segment's */
    int nc = 2 * (N - 1);
    c[nc] = loam_mb_constraint_default_def();
    strcpy(c[nc].name, "clamp");
    c[nc].side[0] = loam_mb_side_body(0), c[nc].side[1] = loam_mb_side_world();
    c[nc].anchor[0] = (loam_vec3d){-0.5 * cd.length / N, 0, 0}, c[nc].anchor[1] = cd.start.p;
    c[nc + 1] = c[nc];
    strcpy(c[nc + 1].name, "clamp_bend");
    c[nc + 1].type = LOAM_CONSTRAINT_ANGULAR;
    double G = cd.young / (2.0 * (1.0 + cd.poisson)), GJ = G * 2.0 * I, l = cd.length / N;
    if (cosserat) /* the clamp's half-segment springs, per axis like the cable's */
        c[nc + 1].axis_stiffness = (loam_vec3d){2.0 * GJ / l, 2.0 * EI / l, 2.0 * EI / l},
        c[nc + 1].axis_damping = (loam_vec3d){cd.damping, cd.damping, cd.damping};
    else
        c[nc + 1].stiffness = 2.0 * EI / l, c[nc + 1].damping = cd.damping;
    loam_mb_options o = loam_mb_default_options();
    o.dt = 2e-3, o.solver = solver, o.iterations = iterations, o.tolerance = 1e-9;
    if (torque != 0.0) o.gravity = (loam_vec3d){0, 0, 0};
    loam_mb_model* m = NULL;
    loam_mb_state* s = NULL;
    CHECK((m = loam_mb_model_create(b, N, g, N, &o, &err)) != NULL, "%s", err.message);
    CHECK(m && loam_mb_model_set_constraints(m, c, nc + 2, &err) == LOAM_OK, "%s", err.message);
    CHECK(m && (s = loam_mb_state_create(m, &err)) != NULL, "%s", err.message);
    double tip = NAN;
    if (s) {
        s->xfrc[6 * (N - 1) + 3] = torque; /* about x, the cable's axis */
        for (int k = 0; k < (test_short() ? 20 : 1000); ++k)
            if (loam_mb_step(m, s, 1, &err) != LOAM_OK) {
                CHECK(0, "%s", err.message);
                break;
            }
        loam_posed P = s->xpose[N - 1];
        /* the tip: the last segment's end, (l/2, 0, 0) in its frame */
        tip = torque != 0.0 ? 2.0 * atan2(P.q.x, P.q.w) : 1.0 - (P.p.z + 2.0 * (P.q.x * P.q.z - P.q.w * P.q.y) * 0.5 * l);
    }
    /* twist: every joint carries the torque; the clamp's half spring and N - 1 full ones turn the last
     * segment by T (L - l/2) / (G J), the continuous rod's twist at that segment's centre */
    *expect = torque != 0.0 ? torque * (cd.length - 0.5 * l) / GJ : w * pow(cd.length, 4) / (8.0 * EI);
    loam_mb_state_destroy(s);
    loam_mb_model_destroy(m);
    return tip;
}

static double sag(loam_mb_solver solver, int iterations, double* expect) { return run(solver, iterations, 0, 0.0, expect); }

static void newton_on_draping_cable(void) {
    loam_mb_model* m = NULL;
    loam_mb_state *base = NULL, *s = NULL;
    loam_error err;
    loam_mb_options o = loam_mb_default_options();
    o.dt = 2e-3, o.solver = LOAM_MB_SOLVER_SUBADMM, o.iterations = 50, o.tolerance = 1e-10;
    CHECK(mb_cable_scene_create(60, &o, &m, &base, &err) == LOAM_OK, "%s", err.message);
    if (!base) return;
    for (int k = 0; k < (test_short() ? 75 : 250); ++k) CHECK(loam_mb_step(m, base, 1, &err) == LOAM_OK, "settling: %s", err.message);
    CHECK((s = loam_mb_state_create(m, &err)) != NULL, "%s", err.message);
    static const int budget[4] = {3, 6, 9, 30};
    double e[4] = {0};
    m->opt.solver = LOAM_MB_SOLVER_NNEWTON, m->opt.tolerance = 0.0;
    for (int i = 0; i < (test_short() ? 1 : 4) && s; ++i) {
        m->opt.iterations = budget[i];
        CHECK(loam_mb_state_copy(m, s, base, &err) == LOAM_OK, "%s", err.message);
        CHECK(loam_mb_step(m, s, 1, &err) == LOAM_OK, "%s", err.message);
        e[i] = s->solver.error;
    }
    fprintf(stderr, "draping cable, 60 segments, %d contacts, nonsmooth Newton, one step: error %.3e / %.3e / %.3e / %.3e m/s at 3 / 6 / 9 / 30 "
            "iterations\n", s ? s->ncontact : 0, e[0], e[1], e[2], e[3]);
    CHECK(s && s->ncontact > 0, "the draping cable has no contacts: Newton's step solved no contact rows");
    CHECK_FULL(e[1] <= e[0] * 1.0001 && e[2] <= e[1] * 1.0001 && e[3] <= e[2] * 1.0001, "the error grows with the iterations: %.3e %.3e %.3e %.3e", e[0], e[1],
          e[2], e[3]);
    CHECK_FULL(e[3] < 1e-3, "nonsmooth Newton at 30 iterations: error %.3e m/s", e[3]);
    loam_mb_state_destroy(s);
    loam_mb_state_destroy(base);
    loam_mb_model_destroy(m);
}

int main(void) {
    newton_on_draping_cable();
    double expect, got = sag(LOAM_MB_SOLVER_NNEWTON, 30, &expect);
    fprintf(stderr, "cantilever cable, %d segments, nonsmooth Newton: tip sag %.6f m, Euler-Bernoulli %.6f m (%+.2f%%)\n", N, got, expect,
            100 * (got / expect - 1));
    CHECK_FULL(fabs(got / expect - 1) < 0.01, "sag %.6f m, Euler-Bernoulli %.6f m", got, expect);
    got = sag(LOAM_MB_SOLVER_SUBADMM, 30, &expect);
    fprintf(stderr, "cantilever cable, %d segments, SubADMM (30 iterations): tip sag %.6f m (%+.2f%%)\n", N, got, 100 * (got / expect - 1));
    CHECK_FULL(fabs(got / expect - 1) < 0.01, "SubADMM: sag %.6f m, Euler-Bernoulli %.6f m", got, expect);
    /* the Cosserat rod: soft stretch and shear barely change the sag of a slender rod; twist is G J / l */
    got = run(LOAM_MB_SOLVER_SUBADMM, 30, 1, 0.0, &expect);
    fprintf(stderr, "Cosserat cable, SubADMM (30 iterations): tip sag %.6f m (%+.2f%%)\n", got, 100 * (got / expect - 1));
    CHECK_FULL(fabs(got / expect - 1) < 0.01, "Cosserat: sag %.6f m, Euler-Bernoulli %.6f m", got, expect);
    got = run(LOAM_MB_SOLVER_SUBADMM, 30, 1, 0.1, &expect);
    fprintf(stderr, "Cosserat cable, SubADMM (30 iterations): twist %.6e rad under 0.1 N m at the tip, T (L - l/2) / (G J) = %.6e rad\n", got,
            expect);
    CHECK_FULL(fabs(got / expect - 1) < 0.01, "Cosserat twist %.6f rad, expected %.6f", got, expect);
    got = sag(LOAM_MB_SOLVER_PGS, 2000, &expect);
    fprintf(stderr, "cantilever cable, %d segments, PGS (2000 iterations): tip sag %.6f m (%+.2f%%)\n", N, got, 100 * (got / expect - 1));
    CHECK_FULL(fabs(got / expect - 1) < 0.01, "PGS: sag %.6f m, Euler-Bernoulli %.6f m", got, expect);
    TEST_MAIN_END();
}

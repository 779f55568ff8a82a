/* A cable of rigid segments (loam_mb_cable_build) clamped at one end as a cantilever sags under its
 * weight by Euler-Bernoulli's w L^4 / (8 E I) (within 1% with 20 segments; the clamp is a half-segment
 * spring, 2 E I / l, which makes the discrete sag the trapezoid rule of the continuous one). Solved
 * with nonsmooth Newton; with SubADMM at the paper's 30 iterations (the cable is one subsystem, its
 * bending springs folded into it, paper 004 Remark 1); and with PGS given 2000 iterations: the chain
 * of light, stiff segments is the hard case for Gauss-Seidel (at 30 iterations it blows up). */
#include <math.h>
#include <string.h>

#include "loam/multibody.h"
#include "test_util.h"

enum { N = 20 };

static double sag(loam_mb_solver solver, int iterations, double* expect) {
    loam_mb_cable_def cd = loam_mb_default_cable_def();
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
    c[nc] = loam_mb_default_constraint_def();
    strcpy(c[nc].name, "clamp");
    c[nc].body[0] = 0, c[nc].body[1] = -1;
    c[nc].anchor[0] = (loam_vec3d){-0.5 * cd.length / N, 0, 0}, c[nc].anchor[1] = cd.start.p;
    c[nc + 1] = c[nc];
    strcpy(c[nc + 1].name, "clamp_bend");
    c[nc + 1].type = LOAM_CONSTRAINT_ANGULAR, c[nc + 1].stiffness = 2.0 * EI / (cd.length / N), c[nc + 1].damping = cd.damping;
    loam_mb_options o = loam_mb_default_options();
    o.dt = 2e-3, o.solver = solver, o.iterations = iterations, o.tolerance = 1e-9;
    loam_mb_model* m = NULL;
    loam_mb_state* s = NULL;
    CHECK(loam_mb_model_create(b, N, g, N, &o, &m, &err) == LOAM_OK, "%s", err.message);
    CHECK(m && loam_mb_model_set_constraints(m, c, nc + 2, &err) == LOAM_OK, "%s", err.message);
    CHECK(m && loam_mb_state_create(m, &s, &err) == LOAM_OK, "%s", err.message);
    double tip = NAN;
    if (s) {
        for (int k = 0; k < 1000; ++k)
            if (loam_mb_step(m, s, &err) != LOAM_OK) {
                CHECK(0, "%s", err.message);
                break;
            }
        loam_posed P = s->xpose[N - 1];
        double l = cd.length / N; /* the tip: the last segment's end, (l/2, 0, 0) in its frame */
        tip = P.p.z + 2.0 * (P.q.x * P.q.z - P.q.w * P.q.y) * 0.5 * l;
    }
    *expect = w * pow(cd.length, 4) / (8.0 * EI);
    loam_mb_state_destroy(s);
    loam_mb_model_destroy(m);
    return 1.0 - tip;
}

int main(void) {
    double expect, got = sag(LOAM_SOLVER_NNEWTON, 30, &expect);
    fprintf(stderr, "cantilever cable, %d segments, nonsmooth Newton: tip sag %.6f m, Euler-Bernoulli %.6f m (%+.2f%%)\n", N, got, expect,
            100 * (got / expect - 1));
    CHECK(fabs(got / expect - 1) < 0.01, "sag %.6f m, Euler-Bernoulli %.6f m", got, expect);
    got = sag(LOAM_SOLVER_SUBADMM, 30, &expect);
    fprintf(stderr, "cantilever cable, %d segments, SubADMM (30 iterations): tip sag %.6f m (%+.2f%%)\n", N, got, 100 * (got / expect - 1));
    CHECK(fabs(got / expect - 1) < 0.01, "SubADMM: sag %.6f m, Euler-Bernoulli %.6f m", got, expect);
    got = sag(LOAM_SOLVER_PGS, 2000, &expect);
    fprintf(stderr, "cantilever cable, %d segments, PGS (2000 iterations): tip sag %.6f m (%+.2f%%)\n", N, got, 100 * (got / expect - 1));
    CHECK(fabs(got / expect - 1) < 0.01, "PGS: sag %.6f m, Euler-Bernoulli %.6f m", got, expect);
    TEST_MAIN_END();
}

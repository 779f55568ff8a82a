/* A single particle against a plane: at rest it stays put (paper-free physics: the velocity-level
 * contact must neither drift nor sink); on an incline it sticks when tan(theta) <= mu and otherwise
 * slides with a = g (sin theta - mu cos theta) (particles carry no spin in this model). Both
 * solvers: Gauss-Seidel (default) and the paper's projected Jacobi. */
#include <math.h>

#include "loam/granular.h"
#include "test_util.h"

static loam_granular_solver g_solver = LOAM_GRANULAR_SOLVER_GAUSS_SEIDEL;

static loam_world* one_particle_on(float theta, float mu, float r) {
    loam_granular_params p = loam_granular_default_params();
    p.solver = g_solver;
    loam_error err;
    loam_world* w = loam_world_create(&p, &err);
    loam_body_def plane = loam_body_default_def();
    snprintf(plane.name, sizeof plane.name, "ground");
    plane.shape_count = 1;
    plane.shapes[0].type = LOAM_SHAPE_PLANE;
    plane.shapes[0].local = loam_pose_identity();
    plane.shapes[0].friction = mu;
    /* Tilt the plane about y by theta: its normal becomes (sin theta, 0, cos theta). */
    plane.pose.q = loam_quat_from_axis_angle((loam_vec3){0, 1, 0}, theta);
    CHECK(loam_world_add_body(w, &plane, &err) == 0, "%s", err.message);
    /* Place the particle touching the plane at the origin, along the plane normal. */
    float nx = sinf(theta), nz = cosf(theta);
    float xyz[3] = {r * nx, 0.0f, r * nz};
    CHECK(loam_world_add_particles(w, 1, xyz, NULL, &r, 2500.0f, &err) == LOAM_OK, "%s", err.message);
    return w;
}

static void test_rest(void) {
    float r = 0.01f;
    loam_world* w = one_particle_on(0.0f, 0.5f, r);
    loam_error err;
    int steps = 10000; /* 10 s */
    float worst_pen = 0.0f;
    for (int k = 0; k < steps; ++k) {
        CHECK(loam_world_step(w, 1, &err) == LOAM_OK, "%s", err.message);
        loam_particles ps = loam_world_particles(w);
        float pen = r - ps.z[0];
        if (pen > worst_pen) worst_pen = pen;
    }
    loam_particles ps = loam_world_particles(w);
    float drift = sqrtf(ps.x[0] * ps.x[0] + ps.y[0] * ps.y[0] + (ps.z[0] - r) * (ps.z[0] - r));
    CHECK(drift / 10.0f < 1e-4f * r, "drift %g m over 10 s (limit %g m/s)", drift, 1e-4f * r);
    CHECK(worst_pen < 0.01f * r, "penetration %g m (limit %g)", worst_pen, 0.01f * r);
    loam_world_destroy(w);
}

/* Distance travelled along the slope after t seconds, from a start at rest. */
static double slide(float theta_deg, float mu, double t) {
    float theta = theta_deg * (float)(3.14159265358979 / 180.0);
    float r = 0.01f;
    loam_world* w = one_particle_on(theta, mu, r);
    loam_error err;
    int steps = (int)(t / 1e-3 + 0.5);
    for (int k = 0; k < steps; ++k) CHECK(loam_world_step(w, 1, &err) == LOAM_OK, "%s", err.message);
    loam_particles ps = loam_world_particles(w);
    /* The plane is tilted about y, normal (sin, 0, cos): downhill is (cos theta, 0, -sin theta). */
    double dx = ps.x[0] - r * sinf(theta), dz = ps.z[0] - r * cosf(theta);
    double along = dx * cos(theta) - dz * sin(theta);
    loam_world_destroy(w);
    return along;
}

static void test_incline(void) {
    const double g = 9.81, t = 1.0;
    struct { float deg, mu; } cases[] = {{20, 0.5f}, {26, 0.5f}, {30, 0.5f}, {40, 0.3f}, {15, 0.0f}, {45, 0.9f}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        double th = cases[c].deg * 3.14159265358979 / 180.0;
        double s = slide(cases[c].deg, cases[c].mu, t);
        if (tan(th) <= cases[c].mu) {
            CHECK(fabs(s) < 1e-5, "theta %g mu %g should stick, moved %g m", cases[c].deg, cases[c].mu, s);
        } else {
            double a = g * (sin(th) - cases[c].mu * cos(th));
            /* Symplectic Euler from rest: s_N = a dt^2 N(N+1)/2 = a t^2/2 + a t dt/2. */
            double expect = 0.5 * a * t * t + 0.5 * a * t * 1e-3;
            CHECK(fabs(s - expect) < 0.01 * expect, "theta %g mu %g: slid %g m, expected %g m (a = %g)", cases[c].deg,
                  cases[c].mu, s, expect, a);
        }
    }
}

int main(void) {
    loam_granular_solver solvers[] = {LOAM_GRANULAR_SOLVER_GAUSS_SEIDEL, LOAM_GRANULAR_SOLVER_JACOBI};
    for (int k = 0; k < 2; ++k) {
        g_solver = solvers[k];
        int before = g_test_failures;
        test_rest();
        test_incline();
        if (g_test_failures > before) fprintf(stderr, "  (solver %s)\n", k ? "jacobi" : "gs");
    }
    TEST_MAIN_END();
}

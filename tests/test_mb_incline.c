/* Multibody test 3: a box (a floating body with a box geom) on a plane and on an incline, contacts
 * solved by projected Gauss-Seidel with the exact Coulomb disk:
 * - on a flat plane it stays put, and the normal impulses per step sum to m g dt;
 * - below the friction angle (tan theta < mu) it does not creep;
 * - above it, it slides with a = g (sin theta - mu cos theta), without tipping;
 * - at rest, the warm start (last step's impulses) leaves PGS almost nothing to do. */
#include <math.h>
#include <string.h>

#include "loam/multibody.h"
#include "test_util.h"

static const double MASS = 2.0, HX = 0.1, HY = 0.08, HZ = 0.05, G = 9.81, MU = 0.5, DT = 1e-3;

typedef struct scene { loam_mb_model* m; loam_mb_state* s; } scene;

static scene make(double theta) {
    scene sc = {NULL, NULL};
    loam_mb_body_def b = loam_mb_body_default_def();
    strcpy(b.name, "box");
    b.joint = LOAM_JOINT_FLOATING;
    b.mass = MASS;
    b.inertia[0] = MASS / 3.0 * (HY * HY + HZ * HZ), b.inertia[1] = MASS / 3.0 * (HX * HX + HZ * HZ), b.inertia[2] = MASS / 3.0 * (HX * HX + HY * HY);
    loam_mb_geom_def g[2] = {loam_mb_geom_default_def(), loam_mb_geom_default_def()};
    loam_quatd tilt = {cos(0.5 * theta), 0, sin(0.5 * theta), 0}; /* about y */
    g[0].body = -1, g[0].shape.type = LOAM_SHAPE_PLANE, g[0].shape.local = loam_pose_from_posed((loam_posed){{0, 0, 0}, tilt}), g[0].shape.friction = MU;
    g[1].body = 0, g[1].shape.type = LOAM_SHAPE_BOX, g[1].shape.size = (loam_vec3){HX, HY, HZ}, g[1].shape.friction = MU;
    loam_mb_options o = loam_mb_default_options();
    o.dt = DT;
    loam_error err;
    CHECK((sc.m = loam_mb_model_create(&b, 1, g, 2, &o, &err)) != NULL, "%s", err.message);
    if (!sc.m) return sc;
    CHECK((sc.s = loam_mb_state_create(sc.m, &err)) != NULL, "%s", err.message);
    /* resting on the plane: turned with it, its centre HZ along the normal */
    double q0[7] = {HZ * sin(theta), 0, HZ * cos(theta), tilt.w, tilt.x, tilt.y, tilt.z};
    memcpy(sc.s->q, q0, sizeof q0);
    CHECK(loam_mb_kinematics(sc.m, sc.s, &err) == LOAM_OK, "%s", err.message);
    return sc;
}

static void destroy(scene sc) {
    loam_mb_state_destroy(sc.s);
    loam_mb_model_destroy(sc.m);
}

static void flat(void) {
    scene sc = make(0.0);
    if (!sc.s) return;
    loam_error err;
    double worst_sum = 0, worst_depth = 0, worst_err = 0;
    for (int n = 0; n < 1000; ++n) {
        CHECK(loam_mb_step(sc.m, sc.s, 1, &err) == LOAM_OK, "%s", err.message);
        double sum = 0;
        for (int c = 0; c < sc.s->ncontact; ++c) sum += sc.s->contact_impulse[3 * c], worst_depth = fmax(worst_depth, sc.s->contact[c].depth);
        if (n > 10) worst_sum = fmax(worst_sum, fabs(sum - MASS * G * DT) / (MASS * G * DT));
        worst_err = fmax(worst_err, sc.s->solver.error);
    }
    double drift = fabs(sc.s->q[0]) + fabs(sc.s->q[1]) + fabs(sc.s->q[2] - HZ);
    fprintf(stderr, "flat: %d contacts, drift %.2e m, normal impulse sum off by %.2e, deepest %.2e m, solver error %.2e m/s, %d iterations\n",
            sc.s->ncontact, drift, worst_sum, worst_depth, worst_err, sc.s->solver.iterations);
    CHECK(sc.s->ncontact == 4, "%d contacts, expected the 4 bottom corners", sc.s->ncontact);
    CHECK(drift < 1e-5, "the box moved %.3e m", drift);
    CHECK(worst_sum < 1e-6, "normal impulses sum to m g dt within %.3e (tolerance 1e-6)", worst_sum);
    CHECK(worst_depth < 1e-5, "penetration reached %.3e m", worst_depth);
    CHECK(sc.s->solver.iterations <= 3, "warm-started at rest, PGS still took %d iterations", sc.s->solver.iterations);
    destroy(sc);
}

static void incline(double theta_deg) {
    double th = theta_deg * M_PI / 180.0;
    scene sc = make(th);
    if (!sc.s) return;
    loam_error err;
    loam_vec3d down = {cos(th), 0, -sin(th)}; /* downhill, in the plane */
    double p0 = sc.s->q[0] * down.x + sc.s->q[2] * down.z, v_half = 0, t_half = 0;
    for (int n = 0; n < 1000; ++n) {
        CHECK(loam_mb_step(sc.m, sc.s, 1, &err) == LOAM_OK, "%s", err.message);
        if (n == 499) v_half = sc.s->xvel[0] * down.x + sc.s->xvel[2] * down.z, t_half = sc.s->time;
    }
    double v = sc.s->xvel[0] * down.x + sc.s->xvel[2] * down.z, moved = sc.s->q[0] * down.x + sc.s->q[2] * down.z - p0;
    double spin = sqrt(sc.s->xvel[3] * sc.s->xvel[3] + sc.s->xvel[4] * sc.s->xvel[4] + sc.s->xvel[5] * sc.s->xvel[5]);
    if (tan(th) < MU) {
        fprintf(stderr, "incline %g deg (below the friction angle %.1f deg): moved %.2e m\n", theta_deg, atan(MU) * 180 / M_PI, moved);
        CHECK(fabs(moved) < 1e-5 && fabs(v) < 1e-6, "the box crept %.3e m (speed %.3e m/s) below the friction angle", moved, v);
    } else {
        double a = (v - v_half) / (sc.s->time - t_half), expect = G * (sin(th) - MU * cos(th));
        fprintf(stderr, "incline %g deg: a = %.6f m/s^2, g (sin - mu cos) = %.6f m/s^2 (%.2e relative)\n", theta_deg, a, expect,
                fabs(a - expect) / expect);
        CHECK(fabs(a - expect) < 0.01 * expect, "sliding acceleration %.6f m/s^2, expected %.6f (1%%)", a, expect);
        CHECK(spin < 1e-3, "the sliding box turns at %.3e rad/s", spin);
    }
    destroy(sc);
}

int main(void) {
    flat();
    incline(15.0);
    incline(26.0);
    incline(35.0);
    incline(50.0);
    TEST_MAIN_END();
}

/* Issue 5 test 4: in water a plate moving face-on feels more drag than edge-on, in the ratio
 * equation 1 gives, and a tilted plate feels equation 1's drag and lift; linear drag is F = -c v. */
#include <math.h>
#include <string.h>

#include "softbody_util.h"
#include "test_util.h"

static const double rho = 1000.0, cd = 1.2, cl = 0.3, W = 0.4, T = 0.1;

/* Force on a rigidly moving robot from one step: v' = v + dt F / m with zeta = 1, springs at rest. */
static void measured_force(loam_softbody_env env, const double v[3], double f[3]) {
    loam_softbody_robot* r = box_robot(4, 4, 1, 0.1f, LOAM_SB_BONE);
    loam_softbody_def d = loam_softbody_default_def();
    d.env = env, d.zeta = 1.0f, d.rho = (float)rho, d.drag_coefficient = (float)cd, d.lift_coefficient = (float)cl;
    d.linear_drag = 0.5f;
    loam_softbody_materials m = loam_softbody_default_materials(1.0f);
    loam_softbody_pop* p = one_robot_pop(&d, &m, r);
    loam_softbody_state s;
    loam_softbody_pop_state(p, 0, &s, NULL);
    for (int i = 0; i < s.mass_count; ++i) s.vx[i] = (float)v[0], s.vy[i] = (float)v[1], s.vz[i] = (float)v[2];
    step_or_die(p, 1);
    f[0] = f[1] = f[2] = 0.0;
    for (int i = 0; i < s.mass_count; ++i) {
        f[0] += (s.vx[i] - v[0]) / d.dt;
        f[1] += (s.vy[i] - v[1]) / d.dt;
        f[2] += (s.vz[i] - v[2]) / d.dt;
    }
    loam_softbody_pop_destroy(p);
    loam_softbody_robot_destroy(r);
}

/* Equation 1 summed over the six sides of a W x W x T plate (normal z), written out here from the
 * box's geometry rather than from the robot's triangles. */
static void eq1_plate(const double v[3], double f[3]) {
    const double normals[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    const double areas[3] = {W * T, W * T, W * W};
    double v2 = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
    f[0] = f[1] = f[2] = 0.0;
    for (int a = 0; a < 3; ++a)
        for (int side = -1; side <= 1; side += 2) {
            double n[3] = {side * normals[a][0], side * normals[a][1], side * normals[a][2]};
            double vn = v[0] * n[0] + v[1] * n[1] + v[2] * n[2];
            if (vn < 0.0) n[0] = -n[0], n[1] = -n[1], n[2] = -n[2], vn = -vn; /* n along v */
            for (int k = 0; k < 3; ++k) f[k] -= 0.5 * rho * areas[a] * ((cd - cl) * vn * v[k] + cl * v2 * n[k]);
        }
}

static double norm(const double f[3]) { return sqrt(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]); }

int main(void) {
    const double face_on[3] = {0, 0, -1}, edge_on[3] = {-1, 0, 0};
    double ff[3], fe[3], pf[3], pe[3];
    measured_force(LOAM_SB_WATER, face_on, ff);
    measured_force(LOAM_SB_WATER, edge_on, fe);
    eq1_plate(face_on, pf);
    eq1_plate(edge_on, pe);
    /* Face-on: 2 faces of W^2 at C_D; edge-on: 2 of W T; the sides' lift cancels: ratio W / T = 4. */
    double ratio = norm(ff) / norm(fe);
    fprintf(stderr, "plate in water: face-on / edge-on drag %.6g, equation 1 gives %.6g\n", ratio, W / T);
    CHECK(fabs(ratio - W / T) < 1e-3 * (W / T), "face-on / edge-on drag %g, equation 1 gives %g", ratio, W / T);
    CHECK(fabs(ff[2] - pf[2]) < 1e-3 * norm(pf) && fabs(ff[0]) < 1e-3 * norm(pf), "face-on force (%g, %g, %g), eq. 1 %g",
          ff[0], ff[1], ff[2], pf[2]);
    CHECK(fabs(fe[0] - pe[0]) < 1e-3 * norm(pe) && fabs(fe[2]) < 1e-3 * norm(pe), "edge-on force (%g, %g, %g), eq. 1 %g",
          fe[0], fe[1], fe[2], pe[0]);
    /* Tilted 30 degrees: drag along -v and lift across it, both from equation 1. */
    const double th = M_PI / 6.0, tilted[3] = {2.0 * sin(th), 0.0, -2.0 * cos(th)};
    double ft[3], pt[3];
    measured_force(LOAM_SB_WATER, tilted, ft);
    eq1_plate(tilted, pt);
    for (int k = 0; k < 3; ++k)
        CHECK(fabs(ft[k] - pt[k]) < 2e-3 * norm(pt), "tilted plate force[%d] %g, eq. 1 %g", k, ft[k], pt[k]);
    double along = (ft[0] * tilted[0] + ft[2] * tilted[2]) / 2.0;
    double across = ft[0] * cos(th) + ft[2] * sin(th);
    CHECK(along < 0.0 && fabs(across) > 0.05 * fabs(along), "tilted plate: drag %g, lift %g", along, across);

    /* Linear drag: F = -c v on each of the 50 masses. */
    double fl[3];
    measured_force(LOAM_SB_LINEAR_DRAG, tilted, fl);
    for (int k = 0; k < 3; ++k)
        CHECK(fabs(fl[k] + 0.5 * 50 * tilted[k]) < 1e-3 * 50.0,  "linear drag force[%d] %g, expected %g", k, fl[k],
              -0.5 * 50 * tilted[k]);
    TEST_MAIN_END();
}

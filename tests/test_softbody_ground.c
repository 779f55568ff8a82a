/* Soft robots on any ground shape (issue 24): the default floor and a plane shape at the same height
 * give the same bits; the general shape rule on a flat box top follows the floor rule (a different
 * code path); a voxel cube dropped on a tilted plane and on the same plane written as a height
 * field rests on it with no mass below the surface; on a shallow slope (tan theta < mu_s) it sticks
 * and on a steep one it slides at the rate Coulomb's law gives, with gravity vertical. The default
 * floor is also checked bit for bit against the old floor rule reimplemented here. */
#include <math.h>
#include <string.h>

#include "softbody_util.h"
#include "test_util.h"

static loam_shape shape_of(loam_shape_type type) {
    loam_shape s;
    memset(&s, 0, sizeof s);
    s.type = type;
    s.local = loam_pose_identity();
    return s;
}

/* A 2x2x2 cube thrown sideways onto the ground from 5 cm: it lands, slides and stops. */
static void trajectory(const loam_softbody_def* d, int steps, float* out) {
    loam_softbody_robot* r = box_robot(2, 2, 2, 0.05f, LOAM_SB_BONE);
    for (int i = 0; i < r->mass_count; ++i) r->z[i] += 0.05f;
    loam_softbody_materials mats = loam_softbody_default_materials(1.0f);
    mats.m[LOAM_SB_BONE].k = 5e3f;
    loam_softbody_pop* p = one_robot_pop(d, &mats, r);
    loam_softbody_state s;
    loam_softbody_pop_state(p, 0, &s, NULL);
    for (int i = 0; i < s.mass_count; ++i) s.vx[i] = 0.7f, s.vy[i] = 0.2f;
    int n = s.mass_count;
    for (int k = 0; k < steps; ++k) {
        step_or_die(p, 1);
        for (int i = 0; i < n; ++i) {
            float* o = out + 3 * ((size_t)k * n + i);
            o[0] = s.x[i], o[1] = s.y[i], o[2] = s.z[i];
        }
    }
    loam_softbody_pop_destroy(p);
    loam_softbody_robot_destroy(r);
}

static void default_floor_unchanged(loam_softbody_solver solver) {
    enum { STEPS = 600, MASSES = 27 };
    static float a[STEPS * MASSES * 3], b[STEPS * MASSES * 3], c[STEPS * MASSES * 3];
    loam_softbody_def d = loam_softbody_default_def();
    d.env = LOAM_SB_LAND, d.solver = solver, d.iterations = 10, d.floor_z = 0.01f;
    trajectory(&d, STEPS, a);
    loam_shape plane = shape_of(LOAM_SHAPE_PLANE);
    plane.local.p.z = 0.01f;
    d.floor_z = -5.0f; /* unused once there is a ground list */
    d.ground_count = 1, d.ground = &plane;
    trajectory(&d, STEPS, b);
    CHECK(memcmp(a, b, sizeof a) == 0, "solver %d: a plane shape at z = floor_z does not repeat the floor's bits", (int)solver);
    /* The general rule (box SDF, normal e_z over the top face): the same motion to rounding. */
    loam_shape box = shape_of(LOAM_SHAPE_BOX);
    box.size = (loam_vec3){10.0f, 10.0f, 1.0f};
    box.local.p.z = 0.01f - 1.0f;
    d.ground = &box;
    trajectory(&d, STEPS, c);
    double worst = 0.0, slid = 0.0;
    for (int k = 0; k < STEPS * MASSES * 3; ++k) worst = fmax(worst, fabs((double)a[k] - c[k]));
    slid = a[(STEPS - 1) * MASSES * 3] - a[0];
    fprintf(stderr, "solver %d: floor rule vs box ground: largest difference %.3g m over a %.3g m slide\n", (int)solver, worst,
            slid);
    CHECK(slid > 0.005, "solver %d: the thrown cube slid only %g m (the test needs sliding)", (int)solver, slid);
    CHECK(worst < 1e-4, "solver %d: box ground differs from the floor rule by %g m", (int)solver, worst);
}

/* The floor rule as it stood before ground shapes, reimplemented here on free masses (no springs,
 * so a step is: predict, floor, finish), must give the library's default land bits. Masses are
 * thrown down at the floor with tangential speeds that stick (small) and slide (large). */
static void default_floor_reference(loam_softbody_solver solver) {
    enum { N = 6, STEPS = 300 };
    const float vx0[N] = {0.0f, 0.01f, 0.3f, -1.5f, 2.0f, 0.05f}, vz0[N] = {-0.5f, -1.0f, -0.2f, -2.0f, -0.7f, 0.0f};
    loam_softbody_robot* r = loam_softbody_robot_alloc(N, 0, 0, NULL);
    for (int i = 0; i < N; ++i) r->x[i] = 0.1f * (float)i, r->y[i] = 0.0f, r->z[i] = 0.012f + 0.001f * (float)i;
    loam_softbody_def d = loam_softbody_default_def();
    d.env = LOAM_SB_LAND, d.solver = solver, d.collisions = 0, d.floor_z = 0.01f;
    loam_softbody_materials mats = loam_softbody_default_materials(1.0f);
    loam_softbody_pop* p = one_robot_pop(&d, &mats, r);
    loam_softbody_state s;
    loam_softbody_pop_state(p, 0, &s, NULL);
    float x[N], y[N], z[N], vx[N], vy[N], vz[N];
    for (int i = 0; i < N; ++i) {
        s.vx[i] = vx[i] = vx0[i], s.vy[i] = vy[i] = 0.5f * vx0[i], s.vz[i] = vz[i] = vz0[i];
        x[i] = r->x[i], y[i] = r->y[i], z[i] = r->z[i];
    }
    const float dt = (float)d.dt, zeta = d.zeta, fz = d.floor_z, ms = d.mu_static, mk = d.mu_kinetic;
    const float g[3] = {d.gravity.x, d.gravity.y, d.gravity.z};
    int differ = 0, touched = 0, slid = 0;
    for (int k = 0; k < STEPS; ++k) {
        step_or_die(p, 1);
        for (int i = 0; i < N; ++i) {
            float px = x[i], py = y[i], pz = z[i];
            vx[i] = vx[i] + dt * (0.0f + g[0]), vy[i] = vy[i] + dt * (0.0f + g[1]), vz[i] = vz[i] + dt * (0.0f + g[2]);
            x[i] = px + dt * vx[i], y[i] = py + dt * vy[i], z[i] = pz + dt * vz[i];
            float depth = fz - z[i];
            if (depth > 0.0f) {
                ++touched;
                z[i] = fz;
                float tx = x[i] - px, ty = y[i] - py, t = sqrtf(tx * tx + ty * ty);
                if (t <= ms * depth) {
                    x[i] = px, y[i] = py;
                } else {
                    ++slid;
                    float keep = 1.0f - mk * depth / t;
                    x[i] = px + keep * tx, y[i] = py + keep * ty;
                }
            }
            if (solver == LOAM_SB_FORCE) {
                float q = 1.0f / dt;
                vx[i] = zeta * (vx[i] + q * (x[i] - (px + dt * vx[i])));
                vy[i] = zeta * (vy[i] + q * (y[i] - (py + dt * vy[i])));
                vz[i] = zeta * (vz[i] + q * (z[i] - (pz + dt * vz[i])));
            } else {
                float q = zeta / dt;
                vx[i] = q * (x[i] - px), vy[i] = q * (y[i] - py), vz[i] = q * (z[i] - pz);
            }
            differ += memcmp(&x[i], &s.x[i], 4) || memcmp(&y[i], &s.y[i], 4) || memcmp(&z[i], &s.z[i], 4) ||
                      memcmp(&vx[i], &s.vx[i], 4) || memcmp(&vz[i], &s.vz[i], 4);
        }
    }
    CHECK(touched > 100 && slid > 10, "solver %d: the reference run needs contacts (%d) and slides (%d)", (int)solver, touched,
          slid);
    CHECK(differ == 0, "solver %d: the default floor differs from the reference rule in %d mass-steps", (int)solver, differ);
    loam_softbody_pop_destroy(p);
    loam_softbody_robot_destroy(r);
}

/* Heights of the plane through the origin with normal (sin t, 0, cos t): z = -x tan t. */
static void slope_field(double theta, int n, float dx, loam_heightfield* hf) {
    float h[41 * 41];
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) h[j * n + i] = (float)(-(i * dx - 0.5 * (n - 1) * dx) * tan(theta));
    loam_error err;
    CHECK(loam_heightfield_create(n, n, dx, dx, h, hf, &err) == LOAM_OK, "%s", err.message);
}

/* Coulomb on the integrator (as test_softbody_land.c): per step the move is dt v + dt^2 g (sin -
 * mu_k cos), and v' = zeta move / dt. */
static double predicted_slide(double theta, double mu_k, double zeta, double dt, int from, int to) {
    double v = 0.0, x = 0.0, x_from = 0.0, a = 9.81 * (sin(theta) - mu_k * cos(theta));
    for (int n = 0; n < to; ++n) {
        if (n == from) x_from = x;
        double move = dt * v + dt * dt * a;
        x += move;
        v = zeta * move / dt;
    }
    return x - x_from;
}

/* A block of 2x2x1 voxels (edge h) placed on the slope at rest or dropped onto it, gravity vertical. ground 0: a plane
 * shape rotated by theta about y; 1: the same plane as a height field. Returns the distance the
 * centre of mass moved down the slope between steps `from` and `to`, and checks that no mass is
 * below the surface and the block's centre rests at its half height above it. */
static double on_slope(loam_softbody_solver solver, double theta, double mu_s, double mu_k, int field, double drop, int from,
                       int to) {
    const float h = 0.1f;
    const double dt = 1e-3;
    loam_softbody_robot* r = box_robot(2, 2, 1, h, LOAM_SB_BONE);
    double n[3] = {sin(theta), 0.0, cos(theta)}, t[3] = {cos(theta), 0.0, -sin(theta)}; /* normal, downhill */
    for (int i = 0; i < r->mass_count; ++i) { /* rotate the rest shape onto the slope, centred at x = -0.6 m */
        double x = r->x[i] - h, z = r->z[i];
        z += drop; /* dropped from `drop` above the slope, along its normal */
        r->x[i] = (float)(x * cos(theta) + z * sin(theta) - 0.6), r->z[i] = (float)(-x * sin(theta) + z * cos(theta) + 0.6 * tan(theta));
    }
    loam_softbody_def d = loam_softbody_default_def();
    d.env = LOAM_SB_LAND, d.solver = solver, d.iterations = 20, d.dt = dt;
    d.mu_static = (float)mu_s, d.mu_kinetic = (float)mu_k;
    loam_shape g = shape_of(field ? LOAM_SHAPE_HEIGHTFIELD : LOAM_SHAPE_PLANE);
    loam_heightfield hf;
    memset(&hf, 0, sizeof hf);
    if (field) {
        slope_field(theta, 41, 0.05f, &hf);
        g.heightfield = &hf;
    } else {
        g.local.q = loam_quat_from_axis_angle((loam_vec3){0, 1, 0}, (float)theta);
    }
    d.ground_count = 1, d.ground = &g;
    loam_softbody_materials mats = loam_softbody_default_materials(1.0f);
    mats.m[LOAM_SB_BONE].k = 1e4f;
    loam_softbody_pop* p = one_robot_pop(&d, &mats, r);
    loam_softbody_state s;
    loam_softbody_pop_state(p, 0, &s, NULL);
    double deepest = 0.0;
    loam_vec3 c0 = {0, 0, 0};
    for (int k = 0; k < to; ++k) {
        if (k == from) c0 = loam_softbody_pop_com(p, 0);
        step_or_die(p, 1);
        for (int i = 0; i < s.mass_count; ++i) deepest = fmin(deepest, n[0] * s.x[i] + n[2] * s.z[i]);
    }
    loam_vec3 c1 = loam_softbody_pop_com(p, 0);
    double height = n[0] * c1.x + n[2] * c1.z;
    CHECK(deepest > -1e-5, "solver %d, %s: a mass went %g m below the slope", (int)solver, field ? "height field" : "plane",
          -deepest);
    /* sag of a 1e4 N/m cube under its own weight is under 1 mm (test_softbody_land.c's formula) */
    CHECK(fabs(height - 0.5 * h) < 0.01 * h, "solver %d, %s: centre %g m above the slope, half height %g m", (int)solver,
          field ? "height field" : "plane", height, 0.5 * h);
    loam_softbody_pop_destroy(p);
    loam_softbody_robot_destroy(r);
    loam_heightfield_destroy(&hf);
    return t[0] * (c1.x - c0.x) + t[2] * (c1.z - c0.z);
}

/* A 2x2x2 cube dropped from 10 cm onto rolling terrain (a height field of sines, 1 cm high): no
 * mass ever gets below the surface by more than the first-order distance's error, and it settles. */
static void drop_on_terrain(loam_softbody_solver solver) {
    enum { N = 41 };
    static float h[N * N];
    const float dx = 0.02f;
    for (int j = 0; j < N; ++j)
        for (int i = 0; i < N; ++i) {
            double x = (i - 0.5 * (N - 1)) * dx, y = (j - 0.5 * (N - 1)) * dx;
            h[j * N + i] = (float)(0.01 * sin(2 * 3.14159265358979 * x / 0.3) * cos(2 * 3.14159265358979 * y / 0.3));
        }
    loam_heightfield hf;
    loam_error err;
    CHECK(loam_heightfield_create(N, N, dx, dx, h, &hf, &err) == LOAM_OK, "%s", err.message);
    loam_shape g = shape_of(LOAM_SHAPE_HEIGHTFIELD);
    g.heightfield = &hf;
    g.local.p.z = 0.05f; /* the field's frame sits 5 cm up: poses apply */
    loam_softbody_robot* r = box_robot(2, 2, 2, 0.05f, LOAM_SB_BONE);
    for (int i = 0; i < r->mass_count; ++i) r->x[i] -= 0.03f, r->z[i] += 0.15f;
    loam_softbody_def d = loam_softbody_default_def();
    d.env = LOAM_SB_LAND, d.solver = solver, d.iterations = 20;
    d.ground_count = 1, d.ground = &g;
    loam_softbody_materials mats = loam_softbody_default_materials(1.0f);
    mats.m[LOAM_SB_BONE].k = 1e4f;
    loam_softbody_pop* p = one_robot_pop(&d, &mats, r);
    loam_softbody_state s;
    loam_softbody_pop_state(p, 0, &s, NULL);
    float deepest = 0.0f;
    for (int k = 0; k < 2000; ++k) {
        step_or_die(p, 1);
        for (int i = 0; i < s.mass_count; ++i)
            deepest = fminf(deepest, loam_shape_sdf(&g, (loam_vec3){s.x[i], s.y[i], s.z[i] - 0.05f}, NULL));
    }
    double speed = 0.0;
    for (int i = 0; i < s.mass_count; ++i) speed = fmax(speed, sqrt((double)s.vx[i] * s.vx[i] + (double)s.vz[i] * s.vz[i]));
    fprintf(stderr, "solver %d: cube dropped on terrain: deepest %.3g m below, speed at 2 s %.3g m/s\n", (int)solver,
            (double)-deepest, speed);
    CHECK(deepest > -1e-4f, "solver %d: a mass went %g m below the terrain", (int)solver, (double)-deepest);
    CHECK(speed < 1e-2, "solver %d: the cube is still moving at %g m/s", (int)solver, speed);
    float cz = loam_softbody_pop_com(p, 0).z; /* landed: its centre within a cube's height of the terrain */
    CHECK(cz > 0.05f && cz < 0.05f + 0.01f + 0.05f, "solver %d: centre at z = %g m after the drop", (int)solver, (double)cz);
    loam_softbody_pop_destroy(p);
    loam_softbody_robot_destroy(r);
    loam_heightfield_destroy(&hf);
}

static void slopes(loam_softbody_solver solver) {
    const double mu_s = 0.5, mu_k = 0.4;
    /* sticking: after the elastic shear has settled (about 0.8 s at k = 1e4 N/m); sliding: early,
     * while the block is still on the 2 m field */
    const int settled = 1500, from = 300, to = 800;
    for (int field = 0; field < 2; ++field) {
        const char* what = field ? "height field" : "tilted plane";
        double stick = on_slope(solver, atan(0.8 * mu_s), mu_s, mu_k, field, 0.02, settled, 2 * settled);
        CHECK(fabs(stick) < 1e-5, "solver %d, %s: tan theta = 0.8 mu_s, yet the block moved %g m", (int)solver, what, stick);
        double theta = atan(1.5 * mu_s);
        double slid = on_slope(solver, theta, mu_s, mu_k, field, 0.0, from, to);
        double expect = predicted_slide(theta, mu_k, 0.99, 1e-3, from, to);
        fprintf(stderr, "solver %d, %s: stuck (moved %.2g m) at tan = 0.8 mu_s; slid %.4g m at 1.5 mu_s, Coulomb %.4g m\n",
                (int)solver, what, stick, slid, expect);
        CHECK(fabs(slid - expect) < 0.1 * expect, "solver %d, %s: slid %g m, Coulomb %g m", (int)solver, what, slid, expect);
    }
}

static void bad_ground(void) {
    loam_softbody_def d = loam_softbody_default_def();
    loam_error err;
    d.ground_count = 1;
    CHECK(loam_softbody_def_validate(&d, &err) == LOAM_ERR_INPUT && strstr(err.message, "ground"), "%s", err.message);
    loam_shape g = shape_of(LOAM_SHAPE_HEIGHTFIELD);
    d.ground = &g;
    CHECK(loam_softbody_def_validate(&d, &err) == LOAM_ERR_INPUT && strstr(err.message, "ground[0]"), "%s", err.message);
    d.ground_count = LOAM_SB_MAX_GROUND + 1;
    CHECK(loam_softbody_def_validate(&d, &err) == LOAM_ERR_INPUT && strstr(err.message, "ground_count"), "%s", err.message);
}

int main(void) {
    bad_ground();
    default_floor_reference(LOAM_SB_FORCE);
    default_floor_reference(LOAM_SB_XPBD_GS);
    default_floor_unchanged(LOAM_SB_FORCE);
    default_floor_unchanged(LOAM_SB_XPBD_GS);
    slopes(LOAM_SB_FORCE);
    drop_on_terrain(LOAM_SB_FORCE);
    drop_on_terrain(LOAM_SB_XPBD_GS);
    slopes(LOAM_SB_XPBD_JACOBI);
    TEST_MAIN_END();
}

/* The force that particles exert on a kinematic tool (loam_body_state.force, .torque).
 *
 * 1. Statics, exact: spheres resting on a fixed block press on it with their weight, F = -sum m g z,
 *    and the torque about the body origin is sum (p_k - o) x F_k with the contact points on the top face.
 * 2. A vertical plate pushed slowly (constant twist, 5 cm/s) through a settled bed is resisted: the force
 *    on it points against the motion and grows with the depth of the plate's lower edge below the surface
 *    (earth pressure: the pressure on the face grows with depth, F ~ gamma d^2 w K_p for a wall of width w,
 *    so deeper is strictly larger and more than proportionally). Its centre of pressure lies on the
 *    immersed part of the front face, in its lower part (the pressure grows with depth).
 * 3. The same plate moving through the air above the bed feels exactly nothing: no contact, F = 0, T = 0. */
#include <math.h>
#include <stdlib.h>

#include "loam/granular.h"
#include "test_scenes.h"
#include "test_util.h"

#define R 0.005f           /* particle radius, m */
#define RHO 2500.0f        /* kg/m^3 */
#define BED_HX 0.10f       /* bed box inner half extents, m */
#define BED_HY 0.05f
#define BED_N 1200
#define PLATE_HX 0.005f    /* plate: 1 cm thick (x), 4 cm wide (y), 10 cm tall (z) */
#define PLATE_HY 0.02f
#define PLATE_HZ 0.05f
#define SPEED 0.05f        /* m/s along +x */

static loam_shape box_shape(loam_vec3 center, loam_vec3 half, float friction) {
    loam_shape s;
    memset(&s, 0, sizeof s);
    s.type = LOAM_SHAPE_BOX;
    s.local = loam_pose_identity();
    s.local.p = center;
    s.size = half;
    s.friction = friction;
    return s;
}

static void add_bed_box(loam_world* w) {
    loam_shape pieces[5];
    int n = loam_open_box_pieces((loam_vec3){BED_HX, BED_HY, 0.06f}, 4.0f * R, 0.5f, pieces);
    ts_add_fixed(w, "bed", pieces, n);
}

/* ---- 1. statics ----------------------------------------------------------------------------- */

static void test_static_torque(void) {
    loam_granular_params p = loam_granular_default_params();
    loam_error err;
    loam_world* w = loam_world_create(&p, &err);
    /* A block whose top face is at z = 0.02, its body origin off to the side of it, so every lever arm
     * is non-trivial: origin o = (0.03, -0.02, 0.005), block centred at o + (-0.03, 0.02, 0.005) =
     * (0, 0, 0.01) with half extents (0.1, 0.1, 0.01). */
    loam_body_def d = loam_body_default_def();
    snprintf(d.name, sizeof d.name, "block");
    d.pose.p = (loam_vec3){0.03f, -0.02f, 0.005f};
    d.shape_count = 1;
    d.shapes[0] = box_shape((loam_vec3){-0.03f, 0.02f, 0.005f}, (loam_vec3){0.1f, 0.1f, 0.01f}, 0.5f);
    int b = loam_world_add_body(w, &d, &err);
    CHECK(b == 0, "%s", err.message);
    /* Three spheres of different sizes resting on the top face (not touching each other). */
    float rad[3] = {0.005f, 0.008f, 0.004f};
    float xyz[9] = {0.05f, 0.04f, 0.02f + 0.005f, -0.06f, 0.01f, 0.02f + 0.008f, 0.01f, -0.07f, 0.02f + 0.004f};
    for (int k = 0; k < 3; ++k) {
        loam_status st = loam_world_add_particles(w, 1, &xyz[3 * k], NULL, &rad[k], RHO, &err);
        CHECK(st == LOAM_OK, "%s", err.message);
    }
    ts_steps(w, 200);
    const loam_body_state* s = loam_world_body_state(w, b);
    double g = -(double)p.gravity.z, fz = 0.0, tx = 0.0, ty = 0.0;
    for (int k = 0; k < 3; ++k) {
        double m = RHO * 4.0 / 3.0 * TS_PI * pow(rad[k], 3.0);
        /* Contact point (x_k, y_k, 0.02), force (0, 0, -m g); r = point - origin. */
        double rx = xyz[3 * k] - d.pose.p.x, ry = xyz[3 * k + 1] - d.pose.p.y;
        fz -= m * g;
        tx += ry * (-m * g);  /* (r x F)_x = r_y F_z - r_z F_y */
        ty -= rx * (-m * g);  /* (r x F)_y = r_z F_x - r_x F_z */
    }
    fprintf(stderr,
            "static: F = (%.3e, %.3e, %.6e) N (expected (0, 0, %.6e)), T = (%.6e, %.6e, %.3e) N m (expected "
            "(%.6e, %.6e, 0)), %d contacts\n",
            s->force.x, s->force.y, s->force.z, fz, s->torque.x, s->torque.y, s->torque.z, tx, ty, s->contacts);
    CHECK(s->contacts == 3, "%d contacts, expected 3", s->contacts);
    CHECK(fabs(s->force.z - fz) < 1e-3 * fabs(fz), "F_z %.6e, weight %.6e", s->force.z, fz);
    CHECK(fabs(s->force.x) < 1e-6 * fabs(fz) && fabs(s->force.y) < 1e-6 * fabs(fz), "sideways force (%g, %g)",
          s->force.x, s->force.y);
    double tscale = fabs(fz) * 0.1;
    CHECK(fabs(s->torque.x - tx) < 1e-3 * tscale, "T_x %.6e, expected %.6e", s->torque.x, tx);
    CHECK(fabs(s->torque.y - ty) < 1e-3 * tscale, "T_y %.6e, expected %.6e", s->torque.y, ty);
    CHECK(fabs(s->torque.z) < 1e-6 * tscale, "T_z %.6e, expected 0", s->torque.z);
    loam_world_destroy(w);
}

/* ---- 2 and 3. a plate through a bed ------------------------------------------------------------ */

typedef struct bed {
    int n;
    float xyz[3 * BED_N], vel[3 * BED_N], rad[BED_N];
    float surface;  /* mean height of the bed's top over its middle, m */
    float top;      /* highest particle top, m */
} bed;

static void settle_bed(bed* out) {
    loam_granular_params p = loam_granular_default_params();
    loam_error err;
    loam_world* w = loam_world_create(&p, &err);
    /* A loose random start (packing fraction ~0.3) that settles into a disordered bed ~5 cm deep. */
    float lo[3] = {-BED_HX + 1.1f * R, -BED_HY + 1.1f * R, 1.1f * R};
    float hi[3] = {BED_HX - 1.1f * R, BED_HY - 1.1f * R, 0.0f};
    hi[2] = lo[2] + (float)(BED_N * 4.0 / 3.0 * TS_PI * R * R * R / 0.3) / ((hi[0] - lo[0]) * (hi[1] - lo[1]));
    int n = ts_random_pack(BED_N, R, lo, hi, 0, 2024, out->xyz);
    CHECK(n == BED_N, "placed %d of %d particles", n, BED_N);
    for (int i = 0; i < n; ++i) out->rad[i] = R;
    CHECK(loam_world_add_particles(w, n, out->xyz, NULL, out->rad, RHO, &err) == LOAM_OK, "%s", err.message);
    add_bed_box(w);
    ts_steps(w, 800);
    loam_particles ps = loam_world_particles(w);
    out->n = ps.count;
    /* Surface: the highest particle top in each 2 cm x 2 cm column of the middle, averaged. */
    enum { NX = 8, NY = 3 };
    float col[NX][NY];
    for (int a = 0; a < NX; ++a)
        for (int c = 0; c < NY; ++c) col[a][c] = 0.0f;
    out->top = 0.0f;
    for (int i = 0; i < ps.count; ++i) {
        out->xyz[3 * i] = ps.x[i];
        out->xyz[3 * i + 1] = ps.y[i];
        out->xyz[3 * i + 2] = ps.z[i];
        out->vel[3 * i] = ps.vx[i];
        out->vel[3 * i + 1] = ps.vy[i];
        out->vel[3 * i + 2] = ps.vz[i];
        if (ps.z[i] + R > out->top) out->top = ps.z[i] + R;
        int a = (int)floorf((ps.x[i] + 0.08f) / 0.02f), c = (int)floorf((ps.y[i] + 0.03f) / 0.02f);
        if (a >= 0 && a < NX && c >= 0 && c < NY && ps.z[i] + R > col[a][c]) col[a][c] = ps.z[i] + R;
    }
    double sum = 0.0;
    for (int a = 0; a < NX; ++a)
        for (int c = 0; c < NY; ++c) sum += col[a][c];
    out->surface = (float)(sum / (NX * NY));
    fprintf(stderr, "bed: %d particles, surface %.4f m, highest top %.4f m, KE/particle %.2e m g r\n", out->n,
            out->surface, out->top, ts_ke_per_particle(w) / (RHO * 4.0 / 3.0 * TS_PI * R * R * R * TS_G * R));
    loam_world_destroy(w);
}

typedef struct push_result {
    double fx, fy, fz, tx, ty, tz; /* means over the measured travel */
    double contacts;
    int nonzero_steps;             /* steps with any force, torque or contact */
    double z_bottom;               /* plate lower edge, m */
} push_result;

#define PUSH_STEPS 1000            /* 1 s: 5 cm of travel */
#define MEASURE_FROM 200           /* average over travel 1 cm .. 5 cm */

/* Push the plate with its lower edge at z_bottom from x = -0.06 for PUSH_STEPS steps. Particles the
 * plate would start inside of are left out, so it starts in a snug cavity, not overlapping anything. */
static push_result push(const bed* b, float z_bottom) {
    push_result res;
    memset(&res, 0, sizeof res);
    res.z_bottom = z_bottom;
    loam_granular_params p = loam_granular_default_params();
    loam_error err;
    loam_world* w = loam_world_create(&p, &err);
    loam_body_def d = loam_body_default_def();
    snprintf(d.name, sizeof d.name, "plate");
    d.motion = LOAM_MOTION_TWIST;
    d.pose.p = (loam_vec3){-0.06f, 0.0f, z_bottom + PLATE_HZ};
    d.twist.v = (loam_vec3){SPEED, 0.0f, 0.0f};
    d.shape_count = 1;
    d.shapes[0] = box_shape((loam_vec3){0, 0, 0}, (loam_vec3){PLATE_HX, PLATE_HY, PLATE_HZ}, 0.5f);
    static float xyz[3 * BED_N], vel[3 * BED_N];
    int n = 0;
    for (int i = 0; i < b->n; ++i) {
        loam_vec3 local = {b->xyz[3 * i] - d.pose.p.x, b->xyz[3 * i + 1] - d.pose.p.y, b->xyz[3 * i + 2] - d.pose.p.z};
        if (loam_shape_sdf(&d.shapes[0], local, NULL) < b->rad[i]) continue;
        for (int k = 0; k < 3; ++k) {
            xyz[3 * n + k] = b->xyz[3 * i + k];
            vel[3 * n + k] = b->vel[3 * i + k];
        }
        ++n;
    }
    CHECK(loam_world_add_particles(w, n, xyz, vel, b->rad, RHO, &err) == LOAM_OK, "%s", err.message);
    add_bed_box(w);
    int plate = loam_world_add_body(w, &d, &err);
    CHECK(plate >= 0, "%s", err.message);
    int counted = 0;
    for (int k = 0; k < PUSH_STEPS; ++k) {
        if (!ts_steps(w, 1)) break;
        const loam_body_state* s = loam_world_body_state(w, plate);
        if (s->contacts != 0 || s->force.x != 0.0f || s->force.y != 0.0f || s->force.z != 0.0f ||
            s->torque.x != 0.0f || s->torque.y != 0.0f || s->torque.z != 0.0f)
            ++res.nonzero_steps;
        if (k < MEASURE_FROM) continue;
        res.fx += s->force.x;
        res.fy += s->force.y;
        res.fz += s->force.z;
        res.tx += s->torque.x;
        res.ty += s->torque.y;
        res.tz += s->torque.z;
        res.contacts += s->contacts;
        ++counted;
    }
    if (counted) {
        res.fx /= counted;
        res.fy /= counted;
        res.fz /= counted;
        res.tx /= counted;
        res.ty /= counted;
        res.tz /= counted;
        res.contacts /= counted;
    }
    loam_world_destroy(w);
    return res;
}

int main(void) {
    double t0 = ts_now();
    test_static_torque();

    static bed b;
    settle_bed(&b);
    const float depths[3] = {0.01f, 0.02f, 0.03f};
    push_result r[3];
    for (int k = 0; k < 3; ++k) {
        r[k] = push(&b, b.surface - depths[k]);
        /* Centre of pressure height on the front face x = +hx (relative to the body origin): for forces on
         * that face, T_y = sum(r_z F_x) - hx sum(F_z), so z_cp = (T_y + hx F_z) / F_x. */
        double z_cp = r[k].fx != 0.0 ? (r[k].ty + PLATE_HX * r[k].fz) / r[k].fx : NAN;
        double z_bottom_rel = -PLATE_HZ;
        fprintf(stderr,
                "depth %.3f m: mean F = (%.4f, %.4f, %.4f) N, T = (%.5f, %.5f, %.5f) N m, %.1f contacts; centre of "
                "pressure %.4f m above the lower edge (immersed depth %.3f m), %.4f m off the mid-line\n",
                depths[k], r[k].fx, r[k].fy, r[k].fz, r[k].tx, r[k].ty, r[k].tz, r[k].contacts, z_cp - z_bottom_rel,
                depths[k], (PLATE_HX * r[k].fy - r[k].tz) / r[k].fx);
        CHECK(r[k].fx < 0.0, "depth %.3f: mean F_x = %g N should resist the +x motion", depths[k], r[k].fx);
        /* Sideways: the set-up is symmetric in y, so F_y is small beside F_x. */
        CHECK(fabs(r[k].fy) < 0.2 * fabs(r[k].fx), "depth %.3f: F_y %g N against F_x %g N", depths[k], r[k].fy,
              r[k].fx);
        /* Yaw: on the front face T_z = hx F_y - y_cp F_x, so the centre of pressure across the plate is
         * y_cp = (hx F_y - T_z) / F_x. With a handful of grains on the face at a time it wanders (a few mm
         * over this travel), but it must stay on the plate, well inside its edges at +-hy. */
        double y_cp = (PLATE_HX * r[k].fy - r[k].tz) / r[k].fx;
        CHECK(fabs(y_cp) < 0.75 * PLATE_HY, "depth %.3f: centre of pressure %g m off the plate's mid-line (T_z %g N m)",
              depths[k], y_cp, r[k].tz);
        /* Torque consistent with the force acting on the immersed face, in its lower half. */
        CHECK(z_cp > z_bottom_rel - 0.1 * depths[k] && z_cp < z_bottom_rel + 0.5 * depths[k] + R,
              "depth %.3f: centre of pressure %g m above the lower edge, outside its lower half (depth %g)", depths[k],
              z_cp - z_bottom_rel, depths[k]);
    }
    CHECK(-r[0].fx < -r[1].fx && -r[1].fx < -r[2].fx, "resistance does not grow with depth: %g, %g, %g N", -r[0].fx,
          -r[1].fx, -r[2].fx);
    /* More than proportional to depth (F ~ d^2 for earth pressure on a wall). */
    CHECK(r[2].fx / r[0].fx > depths[2] / depths[0], "F(3 cm) / F(1 cm) = %g, not more than the depth ratio %g",
          r[2].fx / r[0].fx, depths[2] / depths[0]);

    /* In the air, 2 cm above the highest particle: no contact, and exactly zero force and torque at every
     * step, not merely small. */
    push_result air = push(&b, b.top + 0.02f);
    fprintf(stderr, "air: %d of %d steps had a contact, force or torque\n", air.nonzero_steps, PUSH_STEPS);
    CHECK(air.nonzero_steps == 0, "in air the plate felt something in %d steps", air.nonzero_steps);
    CHECK(air.fx == 0.0 && air.fy == 0.0 && air.fz == 0.0, "in air mean F = (%g, %g, %g)", air.fx, air.fy, air.fz);
    fprintf(stderr, "%.1f s\n", ts_now() - t0);
    TEST_MAIN_END();
}

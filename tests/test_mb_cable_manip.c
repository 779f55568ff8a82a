/* The cable-manipulation scene (paper 004, Sec. IV-A2) runs stably: two mobile manipulators carrying a
 * 40-segment Cosserat cable settle for 0.3 s and then orbit each other for 1.7 s (about 0.75 rad of
 * orbit), with SubADMM at the paper's 30 iterations. Checked over every step of the run:
 * - no divergence (every step returns LOAM_OK);
 * - the bases obey no-slip: the sideways speed at the wheel axle, along the heading each step starts
 *   from (where the row holds it), stays below 1e-5 m/s; along the heading at the step's end it is
 *   about v w dt (the turn during the step) and stays below 1e-3 m/s;
 * - the cable ends stay at their grip points within 5 mm (hard constraints with 20% of the drift
 *   removed per step);
 * - no cable contact with the floor is deeper than 2 mm, and no segment's centre drops below the
 *   floor;
 * - the bases really orbit: each turns by at least half the commanded angle, and the cable touches
 *   the floor (the winding part of the scene).
 * Bad definitions are errors naming the field. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/vecd.h"
#include "scenarios.h"
#include "test_util.h"

int main(int argc, char** argv) {
    mb_cable_manip sc;
    loam_error err;
    loam_mb_options o = loam_mb_default_options();
    o.dt = 2e-3, o.solver = LOAM_MB_SOLVER_SUBADMM, o.iterations = 30;
    mb_cable_manip_def d = mb_cable_manip_default_def();
    /* optional: seconds to run, then the solver (loam_mb_solver number) and its iterations */
    double T = argc > 1 ? atof(argv[1]) : 2.0;
    if (argc > 2) o.solver = (loam_mb_solver)atoi(argv[2]);
    if (argc > 3) o.iterations = atoi(argv[3]);
    /* bad definitions are errors naming the field and value */
    const char* base = LOAM_SOURCE_DIR "/urdf/mobile_base.urdf";
    const char* panda = LOAM_SOURCE_DIR "/urdf/panda.urdf";
    mb_cable_manip_def bad = d;
    bad.orbit_radius = 0.1;
    CHECK(mb_cable_manip_create(base, panda, &bad, &o, &sc, &err) == LOAM_ERR_INPUT && strstr(err.message, "orbit_radius = 0.1"), "%s", err.message);
    bad = d, bad.cable_length = 1.0; /* cannot reach the floor from both grips */
    CHECK(mb_cable_manip_create(base, panda, &bad, &o, &sc, &err) == LOAM_ERR_INPUT && strstr(err.message, "cable_length = 1 m"), "%s", err.message);
    bad = d, bad.segments = 1;
    CHECK(mb_cable_manip_create(base, panda, &bad, &o, &sc, &err) == LOAM_ERR_INPUT && strstr(err.message, "segments = 1"), "%s", err.message);
    CHECK(mb_cable_manip_create(base, panda, &d, &o, &sc, &err) == LOAM_OK, "%s", err.message);
    if (!sc.model) TEST_MAIN_END();
    const loam_mb_model* m = sc.model;
    loam_mb_state* s = sc.state;
    const double hold = 0.3;
    double lateral = 0, held = 0, gap = 0, deepest = 0, lowest = INFINITY, yaw0[2], turned[2] = {0, 0}, worst_err = 0;
    int floor_contacts = 0, steps = (int)lround(T / o.dt);
    for (int r = 0; r < 2; ++r)
        fprintf(stderr, "robot %d: base (%.3f %.3f %.3f), grip gap %.3e m, flange (%.3f %.3f %.3f)\n", r, s->xpose[sc.base[r]].p.x, s->xpose[sc.base[r]].p.y,
                s->xpose[sc.base[r]].p.z, mb_cable_manip_grip_gap(&sc, s, r), s->xpose[sc.flange[r]].p.x, s->xpose[sc.flange[r]].p.y, s->xpose[sc.flange[r]].p.z);
    for (int r = 0; r < 2; ++r) yaw0[r] = 2 * atan2(s->xpose[sc.base[r]].q.z, s->xpose[sc.base[r]].q.w);
    for (int n = 0; n < steps; ++n) {
        CHECK(mb_cable_manip_control(&sc, s, hold, &err) == LOAM_OK, "%s", err.message);
        loam_posed start[2] = {s->xpose[sc.base[0]], s->xpose[sc.base[1]]};
        loam_status st = loam_mb_step(m, s, 1, &err);
        CHECK(st == LOAM_OK, "step %d: %s", n, err.message);
        if (st != LOAM_OK) break;
        for (int r = 0; r < 2; ++r) {
            lateral = fmax(lateral, fabs(mb_cable_manip_lateral_speed(&sc, s, r)));
            /* the row's own measure: the new velocity of the axle point, at the step's starting pose */
            const double* v = s->qd + m->v_adr[sc.base[r]];
            loam_vec3d arm = qd_rotate(start[r].q, (loam_vec3d){0.1, 0, 0}), y = qd_rotate(start[r].q, (loam_vec3d){0, 1, 0});
            loam_vec3d w = {v[3], v[4], v[5]};
            loam_vec3d va = {v[0] + w.y * arm.z - w.z * arm.y, v[1] + w.z * arm.x - w.x * arm.z, v[2] + w.x * arm.y - w.y * arm.x};
            held = fmax(held, fabs(va.x * y.x + va.y * y.y + va.z * y.z));
            gap = fmax(gap, mb_cable_manip_grip_gap(&sc, s, r));
        }
        worst_err = fmax(worst_err, s->solver.error);
        for (int c = 0; c < s->ncontact; ++c)
            if (s->contact[c].body[0] >= sc.first_segment) deepest = fmax(deepest, s->contact[c].depth), floor_contacts += s->contact[c].depth > -1e-3;
        for (int i = 0; i < sc.segments; ++i) lowest = fmin(lowest, s->xpose[sc.first_segment + i].p.z);
        if (n % 100 == 99) {
            double rate, speed;
            mb_cable_manip_drive(&sc, s->time, hold, &rate, &speed);
            fprintf(stderr, "t %.2f s: orbit rate %.3f rad/s, lateral <= %.2e m/s, grip gap <= %.2e m, deepest %.2e m, solver error %.2e m/s, "
                    "%d contacts\n", s->time, rate, lateral, gap, deepest, s->solver.error, s->ncontact);
        }
    }
    double commanded = 0; /* the integral of the commanded rate */
    for (int n = 0; n < steps; ++n) {
        double rate, speed;
        mb_cable_manip_drive(&sc, (n + 1) * o.dt, hold, &rate, &speed);
        commanded += rate * o.dt;
    }
    for (int r = 0; r < 2; ++r) {
        double yaw = 2 * atan2(s->xpose[sc.base[r]].q.z, s->xpose[sc.base[r]].q.w);
        turned[r] = remainder(yaw - yaw0[r], 2 * M_PI);
    }
    fprintf(stderr, "cable manipulation, %d segments, SubADMM 30 it, %.2f s: base sideways speed <= %.2e m/s at the step's starting heading, "
            "%.2e m/s at its end, cable ends within %.2e m of the "
            "grips, deepest cable-floor contact %.2e m, lowest segment centre %.4f m, bases turned %.3f and %.3f rad (commanded %.3f), "
            "%d cable-floor contacts over the run, largest solver error %.2e m/s\n",
            sc.segments, s->time, held, lateral, gap, deepest, lowest, turned[0], turned[1], commanded, floor_contacts, worst_err);
    CHECK(held < 1e-5, "a base slid sideways at %.3e m/s (at the step's starting heading)", held);
    CHECK(lateral < 1e-3, "a base slid sideways at %.3e m/s", lateral);
    CHECK(gap < 5e-3, "a cable end drifted %.3e m from its grip", gap);
    CHECK(deepest < 2e-3, "a cable contact reached %.3e m deep", deepest);
    CHECK(lowest > 0.0, "a segment's centre is %.3e m below the floor", lowest);
    CHECK(turned[0] > 0.5 * commanded && turned[1] > 0.5 * commanded, "bases turned %.3f, %.3f rad, commanded %.3f", turned[0], turned[1], commanded);
    CHECK(floor_contacts > 100, "only %d cable-floor contacts: the cable does not lie on the floor", floor_contacts);
    mb_cable_manip_destroy(&sc);
    TEST_MAIN_END();
}

/* The granular stirring scene (paper 004, Sec. V-A) holds together: 120 spheres settle in the box and
 * are stirred by the PD-controlled Panda for 0.7 s without divergence; no sphere leaves the box or
 * sinks into the floor by more than 1 mm; no contact is deeper than 1.5 mm; the stirrer follows its
 * sweep (joint 1 within 0.05 rad of the target) while it ploughs through the bed; the spheres
 * actually touch the arm; and once warmed up, no step allocates (loam_alloc_count; only the rare,
 * doubling growth of the constraint arrays when the contacts outgrow them). */
#include <math.h>
#include <string.h>

#include "scenarios.h"
#include "test_util.h"

int main(void) {
    mb_stirring sc;
    loam_error err;
    loam_mb_options o = loam_mb_default_options();
    o.dt = 2e-3;
    o.iterations = 50; /* a modest budget: the test checks robustness, not accuracy */
    CHECK(mb_stirring_create(LOAM_SOURCE_DIR "/urdf/panda.urdf", 120, &o, &sc, &err) == LOAM_OK, "%s", err.message);
    if (!sc.model) TEST_MAIN_END();
    const loam_mb_model* m = sc.model;
    loam_mb_state* s = sc.state;
    double worst_track = 0, deepest = 0, outside = 0;
    int arm_contacts = 0;
    const double hold = 0.2;
    uint64_t allocs_warm = 0;
    for (int n = 0; n < 450; ++n) {
        if (n == 300) allocs_warm = loam_alloc_count();
        CHECK(mb_stirring_control(&sc, s, hold, &err) == LOAM_OK, "%s", err.message);
        loam_status st = loam_mb_step(m, s, 1, &err);
        CHECK(st == LOAM_OK, "step %d: %s", n, err.message);
        if (st != LOAM_OK) break;
        if (s->time > hold + 0.1) worst_track = fmax(worst_track, fabs(s->q[0] - s->q_ref[0]));
        for (int c = 0; c < s->ncontact; ++c) {
            deepest = fmax(deepest, s->contact[c].depth);
            arm_contacts += s->contact[c].body[0] < sc.first_ball || (s->contact[c].body[1] >= 0 && s->contact[c].body[1] < sc.first_ball);
        }
    }
    uint64_t allocs = loam_alloc_count() - allocs_warm;
    for (int i = 0; i < sc.nballs; ++i) {
        const double* q = s->q + m->q_adr[sc.first_ball + i];
        outside = fmax(outside, fmax(fabs(q[0] - 0.58) - 0.12 + 0.01, fabs(q[1]) - 0.12 + 0.01));
        outside = fmax(outside, 0.01 - q[2]);
    }
    fprintf(stderr, "stirring 120 spheres for %.1f s: joint 1 within %.3e rad of its target, deepest contact %.2e m, spheres at most "
            "%.2e m past a wall or the floor, %d arm-sphere contacts\n", s->time, worst_track, deepest, outside, arm_contacts);
    CHECK(worst_track < 0.05, "joint 1 strays %.3e rad from its sweep", worst_track);
    CHECK(deepest < 1.5e-3, "a contact reached %.3e m deep (tolerance 1.5 mm, 15%% of a radius)", deepest);
    CHECK(outside < 1e-3, "a sphere is %.3e m outside the box", outside);
    CHECK(allocs < 15, "%llu allocations in the last 150 steps: something allocates every step", (unsigned long long)allocs);
    CHECK(arm_contacts > 50, "only %d arm-sphere contacts: the stirrer misses the bed", arm_contacts);
    mb_stirring_destroy(&sc);
    TEST_MAIN_END();
}

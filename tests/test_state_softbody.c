/* Soft-body population state copy, save and load (docs/state-files.md): robots stepped on from a
 * copied or loaded state reach the same bytes as never stopping, on land (where the Verlet pair
 * list of mass-mass contact must travel) and in water with XPBD; truncated or corrupted files are
 * clean errors naming the file. */
#include <string.h>

#include "loam/softbody.h"
#include "softbody_util.h"
#include "state_test_util.h"

static int same_robots(loam_softbody_pop* a, loam_softbody_pop* b) {
    int same = loam_softbody_pop_count(a) == loam_softbody_pop_count(b) && loam_softbody_pop_time(a) == loam_softbody_pop_time(b);
    for (int r = 0; same && r < loam_softbody_pop_count(a); ++r) {
        loam_softbody_state s, t;
        loam_softbody_pop_state(a, r, &s, NULL);
        loam_softbody_pop_state(b, r, &t, NULL);
        size_t n = sizeof(float) * (size_t)s.mass_count;
        same = s.mass_count == t.mass_count && !memcmp(s.x, t.x, n) && !memcmp(s.y, t.y, n) && !memcmp(s.z, t.z, n) &&
               !memcmp(s.vx, t.vx, n) && !memcmp(s.vy, t.vy, n) && !memcmp(s.vz, t.vz, n);
    }
    return same;
}

static loam_softbody_pop* make(const loam_softbody_def* d, loam_softbody_robot* const* robots, int count) {
    loam_error err;
    loam_softbody_materials mats = loam_softbody_default_materials(20.0f);
    loam_softbody_pop* p = loam_softbody_pop_create(d, &mats, (const loam_softbody_robot* const*)robots, count, &err);
    CHECK(p, "%s", err.message);
    return p;
}

static loam_status pop_load(void* ctx, const char* path, loam_error* err) { return loam_softbody_pop_load(ctx, path, err); }

static void round_trip(const char* name, const loam_softbody_def* d, loam_softbody_robot* const* robots, int count, int before, int after) {
    loam_error err;
    char path[256], bad[256];
    snprintf(path, sizeof path, "test_state_softbody_%s.state", name);
    snprintf(bad, sizeof bad, "test_state_softbody_%s.bad", name);
    loam_softbody_pop *p = make(d, robots, count), *copy = make(d, robots, count), *loaded = make(d, robots, count);
    if (!p || !copy || !loaded) return;
    step_or_die(p, before);
    CHECK(loam_softbody_pop_save(p, path, &err) == LOAM_OK, "%s", err.message);
    CHECK(loam_softbody_pop_copy_state(copy, p, &err) == LOAM_OK, "%s", err.message);
    step_or_die(p, after); /* the reference: never stopped */
    step_or_die(loaded, 7); /* a state of its own (and its own pair lists), which the load replaces */
    CHECK(loam_softbody_pop_load(loaded, path, &err) == LOAM_OK, "%s: %s", name, err.message);
    step_or_die(loaded, after);
    step_or_die(copy, after);
    CHECK(same_robots(p, loaded), "%s: a loaded population steps to other bytes than never stopping", name);
    CHECK(same_robots(p, copy), "%s: a copied population steps to other bytes than never stopping", name);
    /* and the check can fail: one step more is other bytes */
    step_or_die(copy, 1);
    CHECK(!same_robots(p, copy), "%s: the comparison cannot tell states apart", name);
    loam_softbody_state s;
    loam_softbody_pop_state(loaded, 0, &s, NULL);
    float x0 = s.x[0];
    state_check_bad_files(path, bad, pop_load, loaded);
    CHECK(s.x[0] == x0, "%s: a failed load changed the population", name);
    /* A population of other robots refuses the file. */
    loam_softbody_pop* other = make(d, robots, 1);
    if (count > 1 && other) {
        loam_status st = loam_softbody_pop_load(other, path, &err);
        CHECK(st == LOAM_ERR_INPUT && strstr(err.message, path) && strstr(err.message, "robots"), "another population: %s", err.message);
    }
    loam_softbody_pop_destroy(other);
    loam_softbody_pop_destroy(p);
    loam_softbody_pop_destroy(copy);
    loam_softbody_pop_destroy(loaded);
    remove(path);
}

int main(void) {
    /* Two actuated robots (muscle and bone layers) dropped onto land: they bounce, rock and rebuild
     * their pair lists. */
    loam_softbody_robot* robots[2] = {box_robot(3, 2, 2, 0.04f, LOAM_SB_MUSCLE_FIRST), box_robot(2, 2, 3, 0.05f, LOAM_SB_MUSCLE_FIRST + 3)};
    loam_softbody_def d = loam_softbody_default_def();
    d.env = LOAM_SB_LAND;
    d.floor_z = -0.02f;
    round_trip("land", &d, robots, 2, 150, 120);
    d = loam_softbody_default_def();
    d.solver = LOAM_SB_XPBD_GS;
    round_trip("water_xpbd", &d, robots, 2, 60, 60);
    d.solver = LOAM_SB_XPBD_JACOBI;
    d.env = LOAM_SB_LAND;
    d.floor_z = -0.02f;
    round_trip("land_jacobi", &d, robots, 2, 80, 80);
    loam_softbody_robot_destroy(robots[0]);
    loam_softbody_robot_destroy(robots[1]);
    TEST_MAIN_END();
}

/* Granular world clone, copy, save and load (docs/state-files.md): a bed poured into a box with a
 * blade moving through it, renumbered every 10 steps, partly asleep, stepped on from a clone, a
 * copy and a loaded file reaches the same bytes as the world that never stopped (positions,
 * velocities, slot order, the blade's force), with Gauss-Seidel and with Jacobi. (Leaving out any
 * cache, the warm start or the colours say, gives other bytes: tried by hand.) Truncated and
 * corrupted files are clean errors naming the file; a world of other particles refuses the file. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "loam/granular.h"
#include "state_test_util.h"

static const float HALF = 0.08f;

static loam_world* make_world(loam_granular_solver solver, float sleep_speed) {
    loam_granular_params p = loam_granular_default_params();
    p.solver = solver;
    p.sleep_speed = sleep_speed;
    loam_error err;
    loam_world* w = loam_world_create(&p, &err);
    CHECK(w != NULL, "%s", err.message);
    if (!w) return NULL;
    loam_body_def box = loam_body_default_def();
    snprintf(box.name, sizeof box.name, "box");
    box.shape_count = loam_open_box_pieces((loam_vec3){HALF, HALF, 0.3f}, 0.02f, 0.5f, box.shapes);
    CHECK(loam_world_add_body(w, &box, &err) == 0, "%s", err.message);
    loam_body_def blade = loam_body_default_def();
    snprintf(blade.name, sizeof blade.name, "blade");
    blade.motion = LOAM_MOTION_TWIST;
    blade.pose.p = (loam_vec3){-0.06f, 0.0f, 0.03f};
    blade.twist.v = (loam_vec3){0.3f, 0.0f, 0.0f};
    blade.shape_count = 1;
    blade.shapes[0].type = LOAM_SHAPE_BOX;
    blade.shapes[0].local = loam_pose_identity();
    blade.shapes[0].size = (loam_vec3){0.005f, 0.05f, 0.02f};
    blade.shapes[0].friction = 0.5f;
    CHECK(loam_world_add_body(w, &blade, &err) == 1, "%s", err.message);
    /* 16 x 16 x 9 polydisperse particles: 2304, three blocks of 1024, falling into the box */
    int nx = 16, nz = 9, n = nx * nx * nz, k = 0;
    float* xyz = malloc(sizeof(float) * 3 * (size_t)n);
    float* rad = malloc(sizeof(float) * (size_t)n);
    for (int l = 0; l < nz; ++l)
        for (int a = 0; a < nx; ++a)
            for (int b = 0; b < nx; ++b, ++k) {
                rad[k] = 0.004f + 0.0005f * (float)((k * 7919) % 5);
                xyz[3 * k] = -HALF + 0.005f + 0.0098f * (float)a + 1e-4f * (float)((k * 31) % 7 - 3);
                xyz[3 * k + 1] = -HALF + 0.005f + 0.0098f * (float)b;
                xyz[3 * k + 2] = 0.006f + 0.0105f * (float)l;
            }
    CHECK(loam_world_add_particles(w, n, xyz, NULL, rad, 2500.0f, &err) == LOAM_OK, "%s", err.message);
    free(xyz);
    free(rad);
    return w;
}

static int run(loam_world* w, int steps) {
    loam_error err;
    for (int s = 0; s < steps; ++s)
        if (loam_world_step(w, 1, &err) != LOAM_OK) {
            CHECK(0, "step %d: %s", s, err.message);
            return 0;
        }
    return 1;
}

static int same_world(loam_world* a, loam_world* b) {
    loam_particles p = loam_world_particles(a), q = loam_world_particles(b);
    if (p.count != q.count || loam_world_step_index(a) != loam_world_step_index(b) || loam_world_time(a) != loam_world_time(b)) return 0;
    size_t n = sizeof(float) * (size_t)p.count;
    int same = !memcmp(p.x, q.x, n) && !memcmp(p.y, q.y, n) && !memcmp(p.z, q.z, n) && !memcmp(p.vx, q.vx, n) && !memcmp(p.vy, q.vy, n) &&
               !memcmp(p.vz, q.vz, n) && !memcmp(p.id, q.id, sizeof(int32_t) * (size_t)p.count);
    for (int k = 0; same && k < loam_world_body_count(a); ++k) {
        const loam_body_state *s = loam_world_body_state(a, k), *t = loam_world_body_state(b, k);
        same = !memcmp(&s->pose, &t->pose, sizeof s->pose) && !memcmp(&s->force, &t->force, sizeof s->force) &&
               !memcmp(&s->torque, &t->torque, sizeof s->torque) && s->contacts == t->contacts;
    }
    return same;
}

static loam_status world_load(void* ctx, const char* path, loam_error* err) { return loam_world_load(ctx, path, err); }

static void round_trip(const char* name, loam_granular_solver solver, float sleep_speed, int before, int after) {
    loam_error err;
    char path[256], bad[256];
    snprintf(path, sizeof path, "test_state_granular_%s.state", name);
    snprintf(bad, sizeof bad, "test_state_granular_%s.bad", name);
    loam_world *w = make_world(solver, sleep_speed), *copy = make_world(solver, sleep_speed), *loaded = make_world(solver, sleep_speed);
    if (!w || !copy || !loaded || !run(w, before)) return;
    CHECK(run(copy, 13), "the copy's own steps"); /* caches of its own, which the copy replaces */
    CHECK(loam_world_save(w, path, &err) == LOAM_OK, "%s", err.message);
    CHECK(loam_world_copy_state(copy, w, &err) == LOAM_OK, "%s", err.message);
    loam_world* clone = loam_world_clone(w, &err);
    CHECK(clone, "%s", err.message);
    loam_step_stats stats = loam_world_last_stats(w);
    if (!run(w, after)) return; /* the reference: never stopped */
    CHECK(stats.contacts > 1000 && loam_world_body_state(w, 1)->contacts > 0, "%s: %d contacts, %d on the blade: a scene with warm starts",
          name, stats.contacts, loam_world_body_state(w, 1)->contacts);
    if (sleep_speed > 0.0f) CHECK(stats.sleeping > 0, "%s: nobody sleeps at the save", name);
    CHECK(loam_world_load(loaded, path, &err) == LOAM_OK, "%s: %s", name, err.message);
    run(loaded, after), run(copy, after), run(clone, after);
    CHECK(same_world(w, loaded), "%s: a loaded world steps to other bytes than never stopping", name);
    CHECK(same_world(w, copy), "%s: a copied world steps to other bytes than never stopping", name);
    CHECK(clone && same_world(w, clone), "%s: a clone steps to other bytes than never stopping", name);
    /* bad files; and a world of other particles refuses the good one */
    loam_particles before_bad = loam_world_particles(loaded);
    float x0 = before_bad.x[0];
    state_check_bad_files(path, bad, world_load, loaded);
    CHECK(loam_world_particles(loaded).x[0] == x0, "%s: a failed load changed the world", name);
    loam_granular_params p = loam_granular_default_params();
    loam_world* other = loam_world_create(&p, &err);
    float xyz[3] = {0, 0, 0.1f}, r = 0.01f;
    loam_world_add_particles(other, 1, xyz, NULL, &r, 1000.0f, &err);
    loam_status st = loam_world_load(other, path, &err);
    CHECK(st == LOAM_ERR_INPUT && strstr(err.message, path) && strstr(err.message, "particles"), "another world: %s", err.message);
    CHECK(loam_world_copy_state(other, w, &err) == LOAM_ERR_INPUT, "a copy into another world: %s", err.message);
    loam_world_destroy(other);
    loam_world_destroy(w);
    loam_world_destroy(copy);
    loam_world_destroy(loaded);
    loam_world_destroy(clone);
    remove(path);
}

int main(void) {
    round_trip("gauss_seidel", LOAM_GRANULAR_SOLVER_GAUSS_SEIDEL, 0.05f, 250, 40);
    round_trip("jacobi", LOAM_GRANULAR_SOLVER_JACOBI, 0.0f, 120, 30);
    TEST_MAIN_END();
}

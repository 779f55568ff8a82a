/* Thread counts as per-object settings: a soft-body population and a granular world give the same
 * bytes whatever their own count, also when it changes between steps (no process-wide setting is
 * touched); bad counts are refused with a message naming the field, in every module. */
#include <string.h>

#include "loam/granular.h"
#include "loam/multibody.h"
#include "softbody_util.h"
#include "test_util.h"

enum { ROBOTS = 6 };

static int same_pop(loam_softbody_pop* a, loam_softbody_pop* b) {
    for (int r = 0; r < ROBOTS; ++r) {
        loam_softbody_state sa, sb;
        loam_softbody_pop_state(a, r, &sa, NULL);
        loam_softbody_pop_state(b, r, &sb, NULL);
        size_t n = sizeof(float) * (size_t)sa.mass_count;
        if (sa.mass_count != sb.mass_count || memcmp(sa.x, sb.x, n) || memcmp(sa.y, sb.y, n) || memcmp(sa.z, sb.z, n) ||
            memcmp(sa.vx, sb.vx, n) || memcmp(sa.vy, sb.vy, n) || memcmp(sa.vz, sb.vz, n))
            return 0;
    }
    return 1;
}

static void test_softbody(void) {
    loam_softbody_robot* robot = box_robot(3, 3, 2, 0.05f, LOAM_SB_MUSCLE_FIRST);
    const loam_softbody_robot* rs[ROBOTS];
    for (int r = 0; r < ROBOTS; ++r) rs[r] = robot;
    loam_softbody_materials m = loam_softbody_default_materials(100.0f);
    loam_softbody_def d = loam_softbody_default_def();
    d.env = LOAM_SB_LAND; /* gravity, floor and mass-mass contacts: every stage */
    loam_error err;
    d.threads = 1;
    loam_softbody_pop* one = loam_softbody_pop_create(&d, &m, rs, ROBOTS, &err);
    d.threads = 3;
    loam_softbody_pop* three = loam_softbody_pop_create(&d, &m, rs, ROBOTS, &err);
    CHECK(one && three, "population: %s", err.message);
    if (!one || !three) exit(1);
    step_or_die(one, 200);
    step_or_die(three, 100);
    CHECK(loam_softbody_pop_set_threads(three, 2, &err) == LOAM_OK, "%s", err.message);
    step_or_die(three, 100);
    CHECK(same_pop(one, three), "one thread and three-then-two threads differ");
    loam_softbody_state s;
    loam_softbody_pop_state(one, 0, &s, NULL);
    CHECK(s.vz[0] != 0.0f || s.vx[0] != 0.0f, "nothing moved: the comparison would prove nothing");
    CHECK(loam_softbody_pop_set_threads(three, 5000, &err) == LOAM_ERR_INPUT && strstr(err.message, "threads = 5000"),
          "%s", err.message);
    d.threads = -1;
    CHECK(!loam_softbody_pop_create(&d, &m, rs, ROBOTS, &err) && strstr(err.message, "threads = -1"), "%s", err.message);
    loam_softbody_pop_destroy(one);
    loam_softbody_pop_destroy(three);
    loam_softbody_robot_destroy(robot);
}

static loam_world* column(int threads) {
    loam_granular_params p = loam_granular_default_params();
    p.threads = threads;
    loam_world* w = loam_world_create(&p, NULL);
    loam_body_def floor = loam_body_default_def();
    floor.shape_count = 1;
    floor.shapes[0] = (loam_shape){.type = LOAM_SHAPE_PLANE, .local = loam_pose_identity(), .friction = 0.5f};
    loam_world_add_body(w, &floor, NULL);
    enum { N = 2000 };
    static float xyz[3 * N], r[N];
    for (int i = 0; i < N; ++i) {
        xyz[3 * i] = 0.021f * (float)(i % 8) + 0.001f * (float)(i % 3);
        xyz[3 * i + 1] = 0.021f * (float)((i / 8) % 8);
        xyz[3 * i + 2] = 0.011f + 0.021f * (float)(i / 64);
        r[i] = 0.01f;
    }
    loam_world_add_particles(w, N, xyz, NULL, r, 2500.0f, NULL);
    return w;
}

static void test_granular(void) {
    loam_error err;
    loam_world* one = column(1);
    loam_world* other = column(3);
    for (int s = 0; s < 200; ++s) {
        if (s == 100) CHECK(loam_world_set_threads(other, 2, &err) == LOAM_OK, "%s", err.message);
        CHECK(loam_world_step(one, 1, &err) == LOAM_OK && loam_world_step(other, 1, &err) == LOAM_OK, "%s", err.message);
    }
    loam_particles a = loam_world_particles(one), b = loam_world_particles(other);
    size_t n = sizeof(float) * (size_t)a.count;
    CHECK(a.count == b.count && !memcmp(a.x, b.x, n) && !memcmp(a.z, b.z, n) && !memcmp(a.vz, b.vz, n) && !memcmp(a.id, b.id, n),
          "one thread and three-then-two threads differ");
    CHECK(loam_world_params(other)->threads == 2, "threads %d", loam_world_params(other)->threads);
    CHECK(loam_world_set_threads(other, -2, &err) == LOAM_ERR_INPUT && strstr(err.message, "threads = -2"), "%s", err.message);
    loam_granular_params p = loam_granular_default_params();
    p.threads = 9999;
    CHECK(!loam_world_create(&p, &err) && strstr(err.message, "threads = 9999"), "%s", err.message);
    loam_world_destroy(one);
    loam_world_destroy(other);
}

static void test_multibody(void) {
    loam_mb_body_def b = loam_mb_body_default_def();
    strcpy(b.name, "ball");
    b.joint = LOAM_JOINT_FLOATING;
    b.mass = 1.0;
    b.inertia[0] = b.inertia[1] = b.inertia[2] = 0.01;
    loam_mb_options o = loam_mb_default_options();
    CHECK(o.threads == 0, "default threads %d", o.threads);
    loam_mb_model* m = NULL;
    loam_error err;
    o.threads = -1;
    CHECK((m = loam_mb_model_create(&b, 1, NULL, 0, &o, &err)) == NULL && err.status == LOAM_ERR_INPUT && strstr(err.message, "threads = -1"), "%s",
          err.message);
    o.threads = 3;
    CHECK((m = loam_mb_model_create(&b, 1, NULL, 0, &o, &err)) != NULL, "%s", err.message);
    if (!m) return;
    loam_mb_state* s = NULL;
    CHECK((s = loam_mb_state_create(m, &err)) != NULL, "%s", err.message);
    if (!s) return;
    CHECK(s->threads == 3, "a state starts with the model's count, not %d", s->threads);
    CHECK(loam_mb_step(m, s, 1, &err) == LOAM_OK, "%s", err.message);
    s->threads = -4;
    CHECK(loam_mb_step(m, s, 1, &err) == LOAM_ERR_INPUT && strstr(err.message, "threads = -4"), "%s", err.message);
    loam_mb_state_destroy(s);
    loam_mb_model_destroy(m);
}

int main(void) {
    test_softbody();
    test_granular();
    test_multibody();
    TEST_MAIN_END();
}

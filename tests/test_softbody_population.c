/* Issue 5 test 6: a robot's result is bit-identical whatever the population size B, its place in the
 * population and the thread count; a diverging robot is reported with its step and mass. */
#include <math.h>
#include <string.h>

#include "softbody_util.h"
#include "test_util.h"

enum { B = 5, STEPS = 150 };

typedef struct snapshot { int n; float* v[6]; } snapshot;

static void take(loam_softbody_pop* p, int b, snapshot* out) {
    loam_softbody_state s;
    loam_softbody_pop_state(p, b, &s, NULL);
    const float* src[6] = {s.x, s.y, s.z, s.vx, s.vy, s.vz};
    out->n = s.mass_count;
    for (int k = 0; k < 6; ++k) {
        out->v[k] = malloc(sizeof(float) * (size_t)s.mass_count);
        memcpy(out->v[k], src[k], sizeof(float) * (size_t)s.mass_count);
    }
}

static int same(const snapshot* a, const snapshot* b) {
    if (a->n != b->n) return 0;
    for (int k = 0; k < 6; ++k)
        if (memcmp(a->v[k], b->v[k], sizeof(float) * (size_t)a->n)) return 0;
    return 1;
}

static void drop(snapshot* s) {
    for (int k = 0; k < 6; ++k) free(s->v[k]);
}

static void run(const loam_softbody_def* d, const loam_softbody_materials* m, const loam_softbody_robot* const* rs,
                int count, int threads, snapshot* out) {
    loam_set_threads(threads);
    loam_error err;
    loam_softbody_pop* p = loam_softbody_pop_create(d, m, rs, count, &err);
    CHECK(p, "population: %s", err.message);
    if (!p) exit(1);
    /* uneven chunks: the split of steps into calls must not matter either */
    step_or_die(p, 37);
    step_or_die(p, STEPS - 37);
    for (int b = 0; b < count; ++b) take(p, b, &out[b]);
    loam_softbody_pop_destroy(p);
}

static void check_config(const char* name, const loam_softbody_def* d, const loam_softbody_materials* m,
                         loam_softbody_robot* const* robots) {
    const loam_softbody_robot* rs[B], *rev[B];
    for (int b = 0; b < B; ++b) rs[b] = robots[b], rev[b] = robots[B - 1 - b];
    snapshot one[B], all1[B], all2[B], back[B];
    for (int b = 0; b < B; ++b) run(d, m, &rs[b], 1, 1, &one[b]);
    run(d, m, rs, B, 1, all1);
    run(d, m, rs, B, 2, all2);
    run(d, m, rev, B, 2, back);
    int moved = 0;
    for (int b = 0; b < B; ++b) {
        CHECK(same(&one[b], &all1[b]), "%s: robot %d alone differs from B = %d", name, b, B);
        CHECK(same(&all1[b], &all2[b]), "%s: robot %d differs between 1 and 2 threads", name, b);
        CHECK(same(&all1[b], &back[B - 1 - b]), "%s: robot %d differs at another place in the population", name, b);
        for (int i = 0; i < one[b].n; ++i) moved |= one[b].v[3][i] != 0.0f;
    }
    CHECK(moved, "%s: nothing moved, the test would prove nothing", name);
    for (int b = 0; b < B; ++b) drop(&one[b]), drop(&all1[b]), drop(&all2[b]), drop(&back[b]);
}

/* The same box numbered on its lattice (offset rows, contiguous loads) and with its masses shuffled
 * (the gather table) agree: both sum a mass's springs in the same order, so even bit for bit. */
static void two_paths_agree(void) {
    loam_softbody_robot* a = box_robot(3, 3, 2, 0.05f, LOAM_SB_MUSCLE_FIRST);
    loam_softbody_robot* b = loam_softbody_robot_copy(a, NULL);
    int n = a->mass_count, *perm = malloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; ++i) perm[i] = (i * 17 + 5) % n; /* 17 is prime to 48 */
    for (int i = 0; i < n; ++i) b->x[perm[i]] = a->x[i], b->y[perm[i]] = a->y[i], b->z[perm[i]] = a->z[i];
    for (int k = 0; k < a->spring_count; ++k) b->s0[k] = perm[a->s0[k]], b->s1[k] = perm[a->s1[k]];
    for (int k = 0; k < 3 * a->face_count; ++k) b->face[k] = perm[a->face[k]];
    loam_softbody_materials m = loam_softbody_default_materials(100.0f);
    loam_softbody_def d = loam_softbody_default_def();
    loam_softbody_pop* pa = one_robot_pop(&d, &m, a);
    loam_softbody_pop* pb = one_robot_pop(&d, &m, b);
    step_or_die(pa, 500);
    step_or_die(pb, 500);
    loam_softbody_state sa, sb;
    loam_softbody_pop_state(pa, 0, &sa, NULL);
    loam_softbody_pop_state(pb, 0, &sb, NULL);
    double worst = 0.0, moved = 0.0;
    for (int i = 0; i < n; ++i) {
        int j = perm[i];
        worst = fmax(worst, fabs(sa.x[i] - sb.x[j]) + fabs(sa.y[i] - sb.y[j]) + fabs(sa.z[i] - sb.z[j]));
        moved = fmax(moved, fabs(sa.x[i] - a->x[i]) + fabs(sa.y[i] - a->y[i]) + fabs(sa.z[i] - a->z[i]));
    }
    CHECK(moved > 1e-5 && worst <= 1e-5 * moved, "offset rows vs gather table: %g m apart after moving %g m", worst,
          moved);
    loam_softbody_pop_destroy(pa);
    loam_softbody_pop_destroy(pb);
    loam_softbody_robot_destroy(a);
    loam_softbody_robot_destroy(b);
    free(perm);
}

int main(void) {
    two_paths_agree();
    loam_softbody_robot* robots[B];
    loam_softbody_voxel_def vd = loam_softbody_voxel_default_def();
    vd.nx = 4, vd.ny = 3, vd.nz = 3, vd.size = 0.05f;
    for (int b = 0; b < B; ++b) {
        uint8_t v[36];
        loam_softbody_random_voxels(&vd, 100 + (uint64_t)b, 0.3f, v, NULL);
        robots[b] = loam_softbody_voxel_robot(&vd, v, NULL);
        if (!robots[b]) return 1;
    }
    loam_softbody_materials m = loam_softbody_default_materials(1.0f);
    loam_softbody_def d = loam_softbody_default_def();
    check_config("water, force", &d, &m, robots);
    d.env = LOAM_SB_LINEAR_DRAG, d.solver = LOAM_SB_XPBD_JACOBI;
    check_config("linear drag, xpbd jacobi", &d, &m, robots);
    loam_softbody_materials stiff = loam_softbody_default_materials(100.0f);
    d.env = LOAM_SB_LAND, d.solver = LOAM_SB_XPBD_GS;
    check_config("land, xpbd gs", &d, &stiff, robots);
    d.solver = LOAM_SB_FORCE;
    d.contact_radius = 0.026f; /* 2 r = 5.2 cm > the 5 cm lattice: every neighbour is in contact */
    check_config("land, force, contacts", &d, &stiff, robots);

    /* Divergence: k = 1e9 N/m on 1 kg at dt 1e-3 is far past the explicit limit. */
    loam_softbody_materials wild = loam_softbody_default_materials(1e7f);
    d = loam_softbody_default_def();
    loam_error err;
    const loam_softbody_robot* rs[2] = {robots[0], robots[1]};
    loam_softbody_pop* p = loam_softbody_pop_create(&d, &wild, rs, 2, &err);
    CHECK(p, "population: %s", err.message);
    loam_status st = loam_softbody_pop_step(p, 1000, &err);
    CHECK(st == LOAM_ERR_DIVERGED && strstr(err.message, "robot 0") && strstr(err.message, "step") &&
              strstr(err.message, "mass"), "divergence report: %s", err.message);
    loam_softbody_pop_destroy(p);

    /* Bad arguments are refused, not crashed on. */
    CHECK(loam_softbody_pop_step(NULL, 1, &err) == LOAM_ERR_INPUT, "NULL population");
    CHECK(!loam_softbody_pop_create(&d, &m, rs, 0, &err), "zero robots");
    d.dt = -1.0;
    CHECK(!loam_softbody_pop_create(&d, &m, rs, 2, &err) && strstr(err.message, "dt"), "bad dt: %s", err.message);
    d = loam_softbody_default_def();
    d.mu_kinetic = 2.0f;
    CHECK(!loam_softbody_pop_create(&d, &m, rs, 2, &err) && strstr(err.message, "mu_kinetic"), "%s", err.message);
    m.m[5].k = -1.0f;
    d = loam_softbody_default_def();
    CHECK(!loam_softbody_pop_create(&d, &m, rs, 2, &err) && strstr(err.message, "material 5"), "%s", err.message);
    for (int b = 0; b < B; ++b) loam_softbody_robot_destroy(robots[b]);
    TEST_MAIN_END();
}

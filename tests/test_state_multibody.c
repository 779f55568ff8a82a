/* Multibody state copy, save and load (docs/state-files.md): stepping on from a copied or loaded
 * state gives the same bytes as never stopping, with the warm start (contacts, limits, constraints)
 * and SubADMM's adapted penalty carried over; a truncated or corrupted file is a clean error naming
 * the file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loam/multibody.h"
#include "scenarios.h"
#include "state_test_util.h"

static int step(const loam_mb_model* m, loam_mb_state* s, int n) {
    loam_error err;
    for (int i = 0; i < n; ++i)
        if (loam_mb_step(m, s, 1, &err) != LOAM_OK) {
            CHECK(0, "step %d: %s", i, err.message);
            return 0;
        }
    return 1;
}

/* Bytes of everything a step writes that the host reads. */
static int same_state(const loam_mb_model* m, const loam_mb_state* a, const loam_mb_state* b) {
    size_t nv = (size_t)m->nv, nfd = 3 * (size_t)m->nfem_node;
    return a->time == b->time && a->step == b->step && !memcmp(a->q, b->q, sizeof(double) * (size_t)m->nq) &&
           !memcmp(a->qd, b->qd, sizeof(double) * nv) && !memcmp(a->fem_x, b->fem_x, sizeof(double) * nfd) &&
           !memcmp(a->fem_v, b->fem_v, sizeof(double) * nfd) && a->ncontact == b->ncontact &&
           !memcmp(a->contact_impulse, b->contact_impulse, sizeof(double) * 3 * (size_t)a->ncontact);
}

static void round_trip(const char* name, loam_mb_model* m, loam_mb_state* s, int before, int after) {
    loam_error err;
    char path[256];
    snprintf(path, sizeof path, "test_state_multibody_%s.state", name);
    if (!step(m, s, before)) return;
    loam_mb_state *copy = NULL, *loaded = NULL;
    CHECK(loam_mb_state_save(m, s, path, &err) == LOAM_OK, "%s", err.message);
    CHECK((copy = loam_mb_state_create(m, &err)) != NULL && loam_mb_state_copy(m, copy, s, &err) == LOAM_OK, "%s", err.message);
    if (!step(m, s, after)) return; /* the reference: never stopped */
    CHECK((loaded = loam_mb_state_create(m, &err)) != NULL, "%s", err.message);
    CHECK(step(m, loaded, 3), "a fresh state steps"); /* it holds a warm start of its own, which the load must replace */
    CHECK(loam_mb_state_load(m, loaded, path, &err) == LOAM_OK, "%s: %s", name, err.message);
    if (step(m, loaded, after) && step(m, copy, after)) {
        CHECK(s->ncontact > 0, "%s: the scene has contacts to warm-start", name);
        CHECK(same_state(m, loaded, s), "%s: a loaded state steps to other bytes than never stopping", name);
        CHECK(same_state(m, copy, s), "%s: a copied state steps to other bytes than never stopping", name);
    }
    loam_mb_state_destroy(copy);
    loam_mb_state_destroy(loaded);
    remove(path);
}

struct mb_ctx {
    loam_mb_model* m;
    loam_mb_state* s;
};
static loam_status mb_load(void* ctx, const char* path, loam_error* err) {
    struct mb_ctx* c = ctx;
    return loam_mb_state_load(c->m, c->s, path, err);
}

/* Truncated, corrupted, wrong-model files: LOAM_ERR_INPUT naming the file, the state untouched. */
static void bad_files(loam_mb_model* m, loam_mb_state* s, loam_mb_model* other) {
    loam_error err;
    const char* good = "test_state_multibody_good.state";
    const char* bad = "test_state_multibody_bad.state";
    CHECK(loam_mb_state_save(m, s, good, &err) == LOAM_OK, "%s", err.message);
    double q0 = s->q[0];
    struct mb_ctx c = {m, s};
    state_check_bad_files(good, bad, mb_load, &c);
    CHECK(s->q[0] == q0, "a failed load changed the state");
    loam_mb_state* o = NULL;
    if ((o = loam_mb_state_create(other, &err)) != NULL) {
        loam_status st = loam_mb_state_load(other, o, good, &err);
        CHECK(st == LOAM_ERR_INPUT && strstr(err.message, good) && strstr(err.message, "another model"), "another model: %s", err.message);
        loam_mb_state_destroy(o);
    }
    CHECK(loam_mb_state_load(m, s, "no/such/dir/x.state", &err) != LOAM_OK && strstr(err.message, "no/such/dir/x.state"), "%s",
          err.message);
    remove(good);
}

int main(void) {
    loam_error err;
    loam_mb_options o = loam_mb_default_options();
    o.solver = LOAM_MB_SOLVER_SUBADMM; /* adapts its penalty, which must travel */
    loam_mb_model *spheres = NULL, *cable = NULL;
    loam_mb_state *ss = NULL, *cs = NULL;
    CHECK(mb_spheres_create(27, &o, &spheres, &ss, &err) == LOAM_OK, "%s", err.message);
    o.solver = LOAM_MB_SOLVER_PGS;
    o.dt = 2e-3; /* the scene's own */
    CHECK(mb_cable_scene_create(40, &o, &cable, &cs, &err) == LOAM_OK, "%s", err.message);
    if (spheres && cable) {
        round_trip("spheres", spheres, ss, 150, 40);
        round_trip("cable", cable, cs, 120, 40);
        bad_files(spheres, ss, cable);
    }
    loam_mb_state_destroy(ss);
    loam_mb_state_destroy(cs);
    loam_mb_model_destroy(spheres);
    loam_mb_model_destroy(cable);
    TEST_MAIN_END();
}

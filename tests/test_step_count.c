/* Step counts (docs/api.md, "The shape"): loam_world_step(w, n) and loam_mb_step(m, s, n) give the
 * same bytes as n calls of one step (a granular bed poured into a box with a blade through it,
 * renumbered every 10 steps; multibody spheres under SubADMM and a cable under PGS, with contacts
 * and warm starts); 0 steps changes nothing; a negative count is LOAM_ERR_INPUT naming the value
 * and changes nothing; a run that diverges stops at the same step, with the same message, as single
 * steps do. */
#include <stdlib.h>
#include <string.h>

#include "loam/granular.h"
#include "loam/multibody.h"
#include "scenarios.h"
#include "test_util.h"

/* ---- granular ------------------------------------------------------------------------------- */

static loam_world* make_bed(void) {
    loam_granular_params p = loam_granular_default_params();
    p.reorder_interval = 10; /* renumbering inside a multi-step call */
    loam_error err;
    loam_world* w = loam_world_create(&p, &err);
    CHECK(w != NULL, "%s", err.message);
    if (!w) return NULL;
    const float half = 0.05f;
    loam_body_def box = loam_body_default_def();
    box.shape_count = loam_open_box_pieces((loam_vec3){half, half, 0.3f}, 0.02f, 0.5f, box.shapes);
    CHECK(loam_world_add_body(w, &box, &err) == 0, "%s", err.message);
    loam_body_def blade = loam_body_default_def();
    blade.motion = LOAM_MOTION_TWIST;
    blade.pose.p = (loam_vec3){-0.04f, 0.0f, 0.02f};
    blade.twist.v = (loam_vec3){0.3f, 0.0f, 0.0f};
    blade.shape_count = 1;
    blade.shapes[0].type = LOAM_SHAPE_BOX;
    blade.shapes[0].local = loam_pose_identity();
    blade.shapes[0].size = (loam_vec3){0.004f, 0.03f, 0.015f};
    blade.shapes[0].friction = 0.5f;
    CHECK(loam_world_add_body(w, &blade, &err) == 1, "%s", err.message);
    int nx = 10, nz = 6, n = nx * nx * nz, k = 0;
    float* xyz = malloc(sizeof(float) * 3 * (size_t)n);
    float* rad = malloc(sizeof(float) * (size_t)n);
    for (int l = 0; l < nz; ++l)
        for (int a = 0; a < nx; ++a)
            for (int b = 0; b < nx; ++b, ++k) {
                rad[k] = 0.004f + 0.0005f * (float)((k * 7919) % 3);
                xyz[3 * k] = -half + 0.006f + 0.0098f * (float)a + 1e-4f * (float)((k * 31) % 7 - 3);
                xyz[3 * k + 1] = -half + 0.006f + 0.0098f * (float)b;
                xyz[3 * k + 2] = 0.006f + 0.0105f * (float)l;
            }
    CHECK(loam_world_add_particles(w, n, xyz, NULL, rad, 2500.0f, &err) == LOAM_OK, "%s", err.message);
    free(xyz);
    free(rad);
    return w;
}

/* Positions, velocities, slot order, time and the bodies' poses and forces, to the byte. */
static int same_world(loam_world* a, loam_world* b) {
    loam_particles pa = loam_world_particles(a), pb = loam_world_particles(b);
    size_t n = sizeof(float) * (size_t)pa.count;
    int same = pa.count == pb.count && loam_world_step_index(a) == loam_world_step_index(b) && loam_world_time(a) == loam_world_time(b) &&
               !memcmp(pa.id, pb.id, sizeof(int32_t) * (size_t)pa.count) && !memcmp(pa.x, pb.x, n) && !memcmp(pa.y, pb.y, n) &&
               !memcmp(pa.z, pb.z, n) && !memcmp(pa.vx, pb.vx, n) && !memcmp(pa.vy, pb.vy, n) && !memcmp(pa.vz, pb.vz, n);
    for (int i = 0; same && i < loam_world_body_count(a); ++i)
        same = !memcmp(loam_world_body_state(a, i), loam_world_body_state(b, i), sizeof(loam_body_state));
    return same;
}

static void granular_counts(void) {
    loam_world* one = make_bed();
    loam_world* many = make_bed();
    loam_world* split = make_bed();
    if (!one || !many || !split) goto done;
    loam_error err;
    const int n = 150;
    for (int k = 0; k < n; ++k)
        if (loam_world_step(one, 1, &err) != LOAM_OK) {
            CHECK(0, "single step %d: %s", k, err.message);
            goto done;
        }
    CHECK(loam_world_step(many, n, &err) == LOAM_OK, "%s", err.message);
    CHECK(loam_world_step(split, 0, &err) == LOAM_OK && loam_world_step_index(split) == 0, "0 steps: %s", err.message);
    CHECK(loam_world_step(split, 67, &err) == LOAM_OK && loam_world_step(split, n - 67, &err) == LOAM_OK, "%s", err.message);
    CHECK(loam_world_step_index(many) == n, "%d steps in one call made %lld", n, (long long)loam_world_step_index(many));
    CHECK(same_world(one, many), "%d steps in one call differ from %d single steps", n, n);
    CHECK(same_world(one, split), "67 + %d steps differ from %d single steps", n - 67, n);
    CHECK(loam_world_step(many, 0, &err) == LOAM_OK && same_world(one, many), "0 steps changed the world");
    loam_error_clear(&err);
    CHECK(loam_world_step(many, -3, &err) == LOAM_ERR_INPUT && err.status == LOAM_ERR_INPUT && strstr(err.message, "steps = -3"),
          "-3 steps: status %d, '%s'", (int)err.status, err.message);
    CHECK(same_world(one, many), "a negative count changed the world");
    CHECK(loam_world_step(NULL, 1, &err) == LOAM_ERR_INPUT, "a NULL world stepped");
done:
    loam_world_destroy(one);
    loam_world_destroy(many);
    loam_world_destroy(split);
}

/* A particle thrown down at 10 m/s leaves a 0.3 m bound after about 30 steps: one call of 1000
 * stops at the step where single steps fail, with their message, the state of the step before. */
static loam_world* make_thrown(void) {
    loam_granular_params p = loam_granular_default_params();
    p.bound = 0.3f;
    loam_world* w = loam_world_create(&p, NULL);
    float xyz[3] = {0.0f, 0.0f, 0.0f}, vel[3] = {0.0f, 0.0f, -10.0f}, r = 0.01f;
    if (w && loam_world_add_particles(w, 1, xyz, vel, &r, 2500.0f, NULL) != LOAM_OK) {
        loam_world_destroy(w);
        w = NULL;
    }
    CHECK(w != NULL, "the thrown particle's world");
    return w;
}

static void granular_divergence(void) {
    loam_world* one = make_thrown();
    loam_world* many = make_thrown();
    if (!one || !many) goto done;
    loam_error e1, e2;
    loam_status st = LOAM_OK;
    int k = 0;
    for (; k < 1000 && (st = loam_world_step(one, 1, &e1)) == LOAM_OK; ++k) {
    }
    CHECK(st == LOAM_ERR_DIVERGED && k > 5 && k < 100, "single steps: status %d after %d steps", (int)st, k);
    CHECK(loam_world_step(many, 1000, &e2) == LOAM_ERR_DIVERGED, "1000 steps in one call did not diverge");
    CHECK(strcmp(e1.message, e2.message) == 0, "messages differ:\n  single: %s\n  one call: %s", e1.message, e2.message);
    char at[64];
    snprintf(at, sizeof at, "step %d ", k + 1); /* every module's messages count steps from 1 */
    CHECK(strstr(e2.message, at) != NULL, "the message does not name %s: %s", at, e2.message);
    CHECK(loam_world_step_index(many) == k && same_world(one, many), "stopped at step %lld, expected %d, or other bytes",
          (long long)loam_world_step_index(many), k);
done:
    loam_world_destroy(one);
    loam_world_destroy(many);
}

/* ---- multibody ------------------------------------------------------------------------------ */

static int same_mb(const loam_mb_model* m, const loam_mb_state* a, const loam_mb_state* b) {
    size_t nv = (size_t)m->nv, nfd = 3 * (size_t)m->nfem_node;
    return a->time == b->time && a->step == b->step && !memcmp(a->q, b->q, sizeof(double) * (size_t)m->nq) &&
           !memcmp(a->qd, b->qd, sizeof(double) * nv) && !memcmp(a->fem_x, b->fem_x, sizeof(double) * nfd) &&
           !memcmp(a->fem_v, b->fem_v, sizeof(double) * nfd) && a->ncontact == b->ncontact &&
           !memcmp(a->contact_impulse, b->contact_impulse, sizeof(double) * 3 * (size_t)a->ncontact) &&
           !memcmp(a->xpose, b->xpose, sizeof(loam_posed) * (size_t)m->nbody) && !memcmp(a->xvel, b->xvel, sizeof(double) * 6 * (size_t)m->nbody);
}

static void mb_counts(const char* name, loam_mb_model* m, loam_mb_state* one, int n) {
    loam_error err;
    loam_mb_state* many = loam_mb_state_create(m, &err);
    CHECK(many != NULL, "%s", err.message);
    if (!many) return;
    CHECK(loam_mb_state_copy(m, many, one, &err) == LOAM_OK, "%s", err.message);
    for (int k = 0; k < n; ++k)
        if (loam_mb_step(m, one, 1, &err) != LOAM_OK) {
            CHECK(0, "%s: single step %d: %s", name, k, err.message);
            loam_mb_state_destroy(many);
            return;
        }
    CHECK(loam_mb_step(m, many, n, &err) == LOAM_OK, "%s: %s", name, err.message);
    CHECK(one->ncontact > 0, "%s: the scene has contacts", name);
    CHECK(many->step == one->step && same_mb(m, one, many), "%s: %d steps in one call differ from %d single steps", name, n, n);
    CHECK(loam_mb_step(m, many, 0, &err) == LOAM_OK && same_mb(m, one, many), "%s: 0 steps changed the state", name);
    CHECK(loam_mb_step(m, many, -1, &err) == LOAM_ERR_INPUT && err.status == LOAM_ERR_INPUT && strstr(err.message, "steps = -1"),
          "%s: -1 steps: '%s'", name, err.message);
    CHECK(same_mb(m, one, many), "%s: a negative count changed the state", name);
    loam_mb_state_destroy(many);
}

/* A slider pushed by 1e11 N on 1 kg passes 1e9 m/s (the divergence check) within a few steps. */
static void mb_divergence(void) {
    loam_error err;
    loam_mb_body_def b = loam_mb_body_default_def();
    snprintf(b.name, sizeof b.name, "slider");
    b.joint = LOAM_JOINT_PRISMATIC;
    b.axis = (loam_vec3d){1, 0, 0};
    b.mass = 1.0;
    b.inertia[0] = b.inertia[1] = b.inertia[2] = 0.01;
    loam_mb_model* m = loam_mb_model_create(&b, 1, NULL, 0, NULL, &err);
    CHECK(m != NULL, "%s", err.message);
    if (!m) return;
    loam_mb_state* one = loam_mb_state_create(m, &err);
    loam_mb_state* many = loam_mb_state_create(m, &err);
    CHECK(one && many, "%s", err.message);
    if (one && many) {
        one->tau[0] = many->tau[0] = 1e11;
        loam_error e1, e2;
        loam_status st = LOAM_OK;
        int k = 0;
        for (; k < 1000 && (st = loam_mb_step(m, one, 1, &e1)) == LOAM_OK; ++k) {
        }
        CHECK(st == LOAM_ERR_DIVERGED && k > 1 && k < 100, "single steps: status %d after %d steps", (int)st, k);
        CHECK(loam_mb_step(m, many, 1000, &e2) == LOAM_ERR_DIVERGED, "1000 steps in one call did not diverge");
        CHECK(strcmp(e1.message, e2.message) == 0, "messages differ:\n  single: %s\n  one call: %s", e1.message, e2.message);
        char at[64];
        snprintf(at, sizeof at, "step %d ", k + 1); /* every module's messages count steps from 1 */
        CHECK(strstr(e2.message, at) != NULL, "the message does not name %s: %s", at, e2.message);
        CHECK(many->step == k && one->step == k, "stopped at step %lld, expected %d", (long long)many->step, k);
    }
    CHECK(loam_mb_step(NULL, one, 1, &err) == LOAM_ERR_INPUT, "a NULL model stepped");
    loam_mb_state_destroy(one);
    loam_mb_state_destroy(many);
    loam_mb_model_destroy(m);
}

int main(void) {
    granular_counts();
    granular_divergence();
    loam_error err;
    loam_mb_options o = loam_mb_default_options();
    o.solver = LOAM_MB_SOLVER_SUBADMM;
    loam_mb_model *spheres = NULL, *cable = NULL;
    loam_mb_state *ss = NULL, *cs = NULL;
    CHECK(mb_spheres_create(27, &o, &spheres, &ss, &err) == LOAM_OK, "%s", err.message);
    o.solver = LOAM_MB_SOLVER_PGS;
    o.dt = 2e-3;
    CHECK(mb_cable_scene_create(40, &o, &cable, &cs, &err) == LOAM_OK, "%s", err.message);
    if (spheres) mb_counts("spheres", spheres, ss, 150);
    if (cable) mb_counts("cable", cable, cs, 120);
    mb_divergence();
    loam_mb_state_destroy(ss);
    loam_mb_state_destroy(cs);
    loam_mb_model_destroy(spheres);
    loam_mb_model_destroy(cable);
    TEST_MAIN_END();
}

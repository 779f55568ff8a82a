/* Contexts (loam/core.h): a population and a multibody model with its states, given a context with
 * a counting allocator, put every block there. The allocator sees each byte come back (its count
 * returns to the context's own bytes after the objects go, and to zero after the context), and
 * the process default context's counts do not move while the objects are created, stepped, copied,
 * saved, loaded and destroyed. An allocator that fails after k calls makes every creation fail
 * cleanly (LOAM_ERR_NOMEM, nothing left allocated) for every k until creation needs no more. Two
 * host threads stepping objects of two contexts at once get the bits each gets alone, and each
 * context's counts agree exactly with what its allocator saw. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "loam/multibody.h"
#include "core/context.h"
#include "loam/softbody.h"
#include "loam/urdf.h"
#include "test_counting_context.h"
#include "test_util.h"

/* Softbody: two box robots on land with mass-mass contact (the spatial hash, pair lists). */
static loam_softbody_robot* g_robots[2];

static loam_softbody_pop* make_pop(loam_context* ctx, int threads, loam_error* err) {
    loam_softbody_def d = loam_softbody_default_def();
    d.env = LOAM_SB_LAND;
    d.solver = LOAM_SB_XPBD_GS;
    d.context = ctx;
    d.threads = threads;
    loam_softbody_materials m = loam_softbody_default_materials(1.0f);
    const loam_softbody_robot* rs[2] = {g_robots[0], g_robots[1]};
    return loam_softbody_pop_create(&d, &m, rs, 2, err);
}

static uint64_t pop_digest(loam_softbody_pop* p) {
    uint64_t h = TEST_DIGEST_SEED;
    for (int b = 0; b < loam_softbody_pop_count(p); ++b) {
        loam_softbody_state s;
        if (loam_softbody_pop_state(p, b, &s, NULL)) return 0;
        size_t n = sizeof(float) * (size_t)s.mass_count;
        h = test_digest(test_digest(test_digest(h, s.x, n), s.y, n), s.z, n);
    }
    return h;
}

/* Multibody: a two-link arm over a plane, and four free balls and boxes falling on it. */
static loam_mb_model* make_model(loam_context* ctx, loam_mb_solver solver, loam_error* err) {
    enum { NB = 6 };
    loam_mb_body_def b[NB];
    loam_mb_geom_def g[NB + 1];
    for (int i = 0; i < NB; ++i) {
        b[i] = loam_mb_body_default_def();
        b[i].mass = 1.0;
        b[i].inertia[0] = b[i].inertia[1] = b[i].inertia[2] = 0.01;
        g[i] = loam_mb_geom_default_def();
        g[i].body = i;
        if (i < 2) {
            b[i].parent = i - 1;
            b[i].joint = LOAM_JOINT_REVOLUTE;
            b[i].axis = (loam_vec3d){0, 1, 0};
            b[i].placement.p = (loam_vec3d){i ? 0.3 : 0.0, 0.0, i ? 0.0 : 0.6};
            g[i].shape.type = LOAM_SHAPE_CAPSULE;
            g[i].shape.size = (loam_vec3){0.04f, 0.15f, 0};
        } else {
            b[i].parent = -1;
            b[i].joint = LOAM_JOINT_FLOATING;
            b[i].placement.p = (loam_vec3d){0.25 * (i - 2) - 0.3, 0.4, 0.12 + 0.05 * i};
            g[i].shape.type = i % 2 ? LOAM_SHAPE_BOX : LOAM_SHAPE_SPHERE;
            g[i].shape.size = (loam_vec3){0.1f, 0.1f, 0.1f};
        }
    }
    g[NB] = loam_mb_geom_default_def();
    g[NB].body = -1;
    g[NB].shape.type = LOAM_SHAPE_PLANE;
    loam_mb_options o = loam_mb_default_options();
    o.solver = solver;
    o.context = ctx;
    o.iterations = 40;
    return loam_mb_model_create(b, NB, g, NB + 1, &o, err);
}

static uint64_t state_digest(const loam_mb_state* s) {
    uint64_t h = test_digest(TEST_DIGEST_SEED, s->q, sizeof(double) * (size_t)s->nq);
    return test_digest(h, s->qd, sizeof(double) * (size_t)s->nv);
}

static char g_dir[64];

/* Everything an object does, in ctx: create, step, copy, save, load, destroy. */
static void softbody_life(loam_context* ctx) {
    loam_error err;
    loam_softbody_pop* p = make_pop(ctx, 0, &err);
    loam_softbody_pop* q = make_pop(ctx, 0, &err);
    CHECK(p && q, "population: %s", err.message);
    if (!p || !q) return;
    CHECK(loam_softbody_pop_step(p, 200, &err) == LOAM_OK, "step: %s", err.message);
    CHECK(loam_softbody_pop_copy_state(q, p, &err) == LOAM_OK, "copy: %s", err.message);
    char path[128];
    snprintf(path, sizeof path, "%s/pop.state", g_dir);
    CHECK(loam_softbody_pop_save(p, path, &err) == LOAM_OK, "save: %s", err.message);
    CHECK(loam_softbody_pop_load(q, path, &err) == LOAM_OK, "load: %s", err.message);
    CHECK(loam_softbody_pop_step(q, 50, &err) == LOAM_OK, "step: %s", err.message);
    loam_softbody_pop_destroy(p);
    loam_softbody_pop_destroy(q);
}

static void multibody_life(loam_context* ctx, loam_mb_solver solver) {
    loam_error err;
    loam_mb_model* m = make_model(ctx, solver, &err);
    CHECK(m != NULL, "model: %s", err.message);
    if (!m) return;
    CHECK(m->opt.context == ctx, "the model keeps its context");
    loam_mb_state* s = loam_mb_state_create(m, &err);
    loam_mb_state* t = loam_mb_state_create(m, &err);
    CHECK(s && t, "state: %s", err.message);
    if (s && t) {
        CHECK(loam_mb_step(m, s, 300, &err) == LOAM_OK, "step (solver %d): %s", (int)solver, err.message);
        CHECK(s->ncontact > 0, "the bodies rest on the plane (solver %d): %d contacts", (int)solver, s->ncontact);
        CHECK(loam_mb_state_copy(m, t, s, &err) == LOAM_OK, "copy: %s", err.message);
        char path[128];
        snprintf(path, sizeof path, "%s/mb.state", g_dir);
        CHECK(loam_mb_state_save(m, s, path, &err) == LOAM_OK, "save: %s", err.message);
        CHECK(loam_mb_state_load(m, t, path, &err) == LOAM_OK, "load: %s", err.message);
        CHECK(loam_mb_step(m, t, 20, &err) == LOAM_OK, "step: %s", err.message);
    }
    loam_mb_state_destroy(s);
    loam_mb_state_destroy(t);
    loam_mb_model_destroy(m);
}

static const loam_mb_solver g_solvers[] = {LOAM_MB_SOLVER_PGS, LOAM_MB_SOLVER_PJ, LOAM_MB_SOLVER_SUBADMM, LOAM_MB_SOLVER_FADMM,
                                            LOAM_MB_SOLVER_NNEWTON, LOAM_MB_SOLVER_PGS_CG};

/* Case 0 a population, case k a multibody model with solver k - 1. */
static void life(loam_context* ctx, int which) {
    if (which == 0) softbody_life(ctx);
    else multibody_life(ctx, g_solvers[which - 1]);
}

static void check_counted(void) {
    for (int which = 0; which < 1 + (int)(sizeof g_solvers / sizeof g_solvers[0]); ++which) check_counted_life(life, which, 2);
}

/* Blocks of a host's allocator: 64-byte aligned, grown within their context, never released to the
 * kernel by loam (the pages are the host's: their bytes stay). */
static void check_blocks(void) {
    counter c;
    loam_context* ctx = counted_context(&c, 0);
    if (!ctx) return;
    enum { BIG = 1 << 20 };
    unsigned char* p = loam_ctx_malloc(ctx, 100);
    CHECK(p && (uintptr_t)p % 64 == 0 && loam_block_context(p) == ctx, "a small block, aligned, in its context");
    unsigned char* q = p ? loam_realloc(p, BIG) : NULL;
    CHECK(q && (uintptr_t)q % 64 == 0 && loam_block_context(q) == ctx && loam_context_bytes_in_use(ctx) == BIG,
          "grown: in its context, %zu bytes", loam_context_bytes_in_use(ctx));
    if (q) {
        memset(q, 7, BIG);
        loam_release(q, 0, BIG);
        int kept = 1;
        for (size_t k = 0; k < BIG; ++k) kept &= q[k] == 7;
        CHECK(kept, "loam_release changed a host allocator's block");
    }
    loam_free(q);
    CHECK(loam_context_bytes_in_use(ctx) == 0 && c.live == 1, "all back: %zu bytes, %ld blocks", loam_context_bytes_in_use(ctx), c.live);
    loam_context_destroy(ctx);
}

/* URDF models: the loader's scratch, the model, its mesh's grid and points, and its states, all in
 * the options' context. */
static void check_urdf(void) {
    static const char* const files[] = {"urdf/panda.urdf", "tests/data/urdf_wild/elsewhere.urdf"};
    for (int f = 0; f < 2; ++f) {
        counter c;
        loam_context* ctx = counted_context(&c, 1);
        if (!ctx) return;
        uint64_t count0 = loam_alloc_count();
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", LOAM_SOURCE_DIR, files[f]);
        loam_urdf_options o = loam_urdf_default_options();
        o.package_path = LOAM_SOURCE_DIR "/tests/data/urdf_wild/pkg/my_robot";
        o.floating_base = f == 0; /* the mesh cube has no inertia: welded */
        o.mb.context = ctx;
        loam_error err;
        loam_mb_model* m = loam_urdf_load(path, &o, &err);
        CHECK(m != NULL, "%s: %s", files[f], err.message);
        if (m && f == 1) CHECK(m->ngeom == 1 && m->geom[0].shape.grid, "the mesh has its grid");
        loam_mb_state* s = m ? loam_mb_state_create(m, &err) : NULL;
        if (s) CHECK(loam_mb_step(m, s, 20, &err) == LOAM_OK, "%s: step: %s", files[f], err.message);
        loam_mb_state_destroy(s);
        loam_mb_model_destroy(m);
        CHECK(loam_alloc_count() == count0, "%s: the default context allocated %llu blocks", files[f],
              (unsigned long long)(loam_alloc_count() - count0));
        CHECK(loam_context_alloc_count(ctx) > 5 && loam_context_bytes_in_use(ctx) == 0 && c.live == 1,
              "%s: %llu blocks counted, %zu bytes and %ld blocks left", files[f], (unsigned long long)loam_context_alloc_count(ctx),
              loam_context_bytes_in_use(ctx), c.live);
        loam_context_destroy(ctx);
        CHECK(c.live == 0 && c.bad_sizes == 0, "%s: %ld blocks after the context", files[f], c.live);
    }
}

/* A context destroyed while it holds a block lives on until the block is freed. */
static void check_deferred_destroy(void) {
    counter c;
    loam_context* ctx = counted_context(&c, 0);
    if (!ctx) return;
    loam_error err;
    loam_mb_model* m = make_model(ctx, LOAM_MB_SOLVER_PGS, &err);
    CHECK(m != NULL, "model: %s", err.message);
    loam_context_destroy(ctx);
    CHECK(c.live > 1, "the context is kept while its model lives (%ld blocks)", c.live);
    loam_mb_model_destroy(m);
    CHECK(c.live == 0 && c.bytes == 0, "freed with its last block: %ld blocks, %ld bytes", c.live, c.bytes);
}

/* Every k until creation succeeds: the k+1st allocation fails. */
static void check_failing(void) {
    int kinds_done = 0;
    for (int kind = 0; kind < 3; ++kind) {
        int succeeded = 0;
        for (long k = 0; k < 2000 && !succeeded; ++k) {
            counter c;
            loam_context* ctx = counted_context(&c, 1);
            if (!ctx) return;
            c.fail_after = c.calls + k;
            loam_error err = {LOAM_OK, ""};
            int ok;
            if (kind == 0) {
                loam_softbody_pop* p = make_pop(ctx, 1, &err);
                ok = p != NULL;
                loam_softbody_pop_destroy(p);
            } else {
                loam_mb_model* m = make_model(ctx, kind == 1 ? LOAM_MB_SOLVER_PGS : LOAM_MB_SOLVER_SUBADMM, &err);
                loam_mb_state* s = m ? loam_mb_state_create(m, &err) : NULL;
                /* A step's first solve grows the workspace: a failure there is an error too. */
                loam_status st = s ? loam_mb_step(m, s, 5, &err) : LOAM_ERR_NOMEM;
                ok = st == LOAM_OK;
                if (s && !ok) CHECK(st == LOAM_ERR_NOMEM, "kind %d, k = %ld: a step failed with %d: %s", kind, k, (int)st, err.message);
                loam_mb_state_destroy(s);
                loam_mb_model_destroy(m);
            }
            if (!ok) CHECK(err.status == LOAM_ERR_NOMEM, "kind %d, k = %ld: status %d (%s), expected LOAM_ERR_NOMEM", kind, k,
                           (int)err.status, err.message);
            CHECK(loam_context_bytes_in_use(ctx) == 0 && c.live == 1, "kind %d, k = %ld: %zu bytes, %ld blocks left", kind, k,
                  loam_context_bytes_in_use(ctx), c.live);
            succeeded = ok;
            loam_context_destroy(ctx);
            CHECK(c.live == 0, "kind %d, k = %ld: %ld blocks after the context", kind, k, c.live);
            if (ok) CHECK(k > 5, "kind %d: creation needed only %ld allocations", kind, k);
        }
        CHECK(succeeded, "kind %d never succeeded", kind);
        fprintf(stderr, "kind %d: every failing allocation up to the last of creation and the first steps failed cleanly\n", kind);
        kinds_done += succeeded;
    }
    CHECK(kinds_done == 3, "%d of 3 kinds", kinds_done);
}

/* Two host threads, each with its own context and two OpenMP threads, at once. */
typedef struct job {
    int kind;
    counter c;
    uint64_t digest;
    long live_after, calls;
    uint64_t counted;
    int failed;
} job;

static void* run_job(void* arg) {
    job* j = arg;
    loam_context* ctx = counted_context(&j->c, 2);
    if (!ctx) return j->failed = 1, NULL;
    loam_error err;
    if (j->kind == 0) {
        loam_softbody_pop* p = make_pop(ctx, 0, &err);
        if (!p || loam_softbody_pop_step(p, 300, &err)) j->failed = 1;
        else j->digest = pop_digest(p);
        loam_softbody_pop_destroy(p);
    } else {
        loam_mb_model* m = make_model(ctx, LOAM_MB_SOLVER_SUBADMM, &err);
        loam_mb_state* s = m ? loam_mb_state_create(m, &err) : NULL;
        if (!s || loam_mb_step(m, s, 300, &err)) j->failed = 1;
        else j->digest = state_digest(s);
        loam_mb_state_destroy(s);
        loam_mb_model_destroy(m);
    }
    j->counted = loam_context_alloc_count(ctx);
    j->calls = j->c.calls - 1;
    j->live_after = j->c.live - 1;
    if (loam_context_bytes_in_use(ctx)) j->failed = 1;
    loam_context_destroy(ctx);
    return NULL;
}

static void check_host_threads(void) {
    job alone[2] = {{.kind = 0}, {.kind = 1}};
    for (int k = 0; k < 2; ++k) run_job(&alone[k]);
    job a[4] = {{.kind = 0}, {.kind = 1}, {.kind = 0}, {.kind = 1}};
    pthread_t t[4];
    uint64_t count0 = loam_alloc_count();
    for (int k = 0; k < 4; ++k) pthread_create(&t[k], NULL, run_job, &a[k]);
    for (int k = 0; k < 4; ++k) pthread_join(t[k], NULL);
    CHECK(loam_alloc_count() == count0, "the default context allocated %llu blocks", (unsigned long long)(loam_alloc_count() - count0));
    for (int k = 0; k < 4; ++k) {
        CHECK(!a[k].failed && !alone[k % 2].failed, "job %d failed", k);
        CHECK(a[k].digest == alone[k % 2].digest, "job %d: the bits differ from the run alone", k);
        CHECK(a[k].counted == alone[k % 2].counted, "job %d: %llu blocks, alone %llu", k, (unsigned long long)a[k].counted,
              (unsigned long long)alone[k % 2].counted);
        CHECK((long)a[k].counted == a[k].calls && a[k].live_after == 0 && a[k].c.live == 0,
              "job %d: the context counted %llu, the allocator %ld calls, %ld left", k, (unsigned long long)a[k].counted, a[k].calls,
              a[k].live_after);
    }
}

static void check_api(void) {
    loam_error err;
    loam_context_def d = loam_context_default_def();
    d.allocator.alloc = count_alloc;
    CHECK(loam_context_create(&d, &err) == NULL && err.status == LOAM_ERR_INPUT, "alloc without free is refused");
    d = loam_context_default_def();
    d.threads = -1;
    CHECK(loam_context_create(&d, &err) == NULL && err.status == LOAM_ERR_INPUT, "negative threads are refused");
    CHECK(loam_context_default() != NULL && loam_context_bytes_in_use(NULL) == loam_bytes_in_use(), "NULL is the default");
    loam_context* own = loam_context_create(NULL, &err); /* loam's own allocator, its own counts */
    CHECK(own != NULL, "a context with loam's allocator: %s", err.message);
    if (own) {
        loam_mb_model* m = make_model(own, LOAM_MB_SOLVER_PGS, &err);
        CHECK(m && loam_context_bytes_in_use(own) > 0, "the model counts in its context");
        loam_mb_model_destroy(m);
        CHECK(loam_context_bytes_in_use(own) == 0, "and leaves it empty");
        CHECK(loam_context_set_threads(own, 3, &err) == LOAM_OK && loam_context_threads(own) == 3, "threads settable");
        loam_context_destroy(own);
    }
    loam_context_destroy(NULL);
    loam_context_destroy(loam_context_default()); /* never freed */
    void* p = loam_malloc(100);
    CHECK(p && (uintptr_t)p % 64 == 0, "the default context still allocates");
    loam_free(p);
}

int main(void) {
    snprintf(g_dir, sizeof g_dir, "/tmp/loam_context_%d", (int)getpid());
    char cmd[128];
    snprintf(cmd, sizeof cmd, "mkdir -p %s", g_dir);
    if (system(cmd) != 0) return 1;
    loam_error err;
    loam_softbody_voxel_def vd = loam_softbody_voxel_default_def();
    vd.nx = 3, vd.ny = 2, vd.nz = 2;
    uint8_t vox[12];
    for (int k = 0; k < 2; ++k) {
        for (int i = 0; i < 12; ++i) vox[i] = (uint8_t)(1 + (i + k) % 3);
        g_robots[k] = loam_softbody_voxel_robot(&vd, vox, &err);
        if (!g_robots[k]) return fprintf(stderr, "robot: %s\n", err.message), 1;
    }
    check_api();
    check_blocks();
    check_counted();
    check_urdf();
    check_deferred_destroy();
    check_failing();
    check_host_threads();
    loam_softbody_robot_destroy(g_robots[0]);
    loam_softbody_robot_destroy(g_robots[1]);
    snprintf(cmd, sizeof cmd, "rm -rf %s", g_dir);
    if (system(cmd) != 0) return 1;
    TEST_MAIN_END();
}

/* Detection's skipped scans (src/granular/detect.c, scan_rule; neighbors.c, rebasing): a particle
 * whose listed non-contacts were far enough from its margin at its last scan keeps last step's pairs
 * without a scan. Checked here: in a bed settling and then at rest, every pair closer than the base
 * margin is a contact (brute force over all pairs), with both solvers' detection paths; at rest most
 * particles do skip their scan (else the optimisation is dead code); and a particle moved between
 * steps through the particle arrays, as the Python views allow, finds its new contact at once. */
#include <math.h>
#include <stdlib.h>

#include "granular/world_internal.h"
#include "loam/core.h"
#include "loam/geom.h"
#include "loam/granular.h"
#include "test_util.h"

static const float R = 0.005f;  /* particle radius, m */
static const float HALF = 0.06f; /* half width of the box, m */

static loam_world* make_bed(int layers, loam_granular_solver solver, float skin, float damping) {
    loam_granular_params p = loam_granular_default_params();
    p.solver = solver;
    p.skin = skin;
    p.damping = damping;
    loam_error err;
    loam_world* w = loam_world_create(&p, &err);
    CHECK(w != NULL, "%s", err.message);
    loam_body_def box = loam_body_default_def();
    box.shape_count = loam_open_box_pieces((loam_vec3){HALF, HALF, 0.2f}, 0.02f, 0.5f, box.shapes);
    CHECK(loam_world_add_body(w, &box, &err) == 0, "%s", err.message);
    int side = 11, n = side * side * layers, k = 0;
    float* xyz = malloc(sizeof(float) * 3 * (size_t)n);
    float* rad = malloc(sizeof(float) * (size_t)n);
    for (int l = 0; l < layers; ++l)
        for (int a = 0; a < side; ++a)
            for (int b = 0; b < side; ++b, ++k) {
                float jitter = 2e-4f * (float)((k * 7919) % 13 - 6) / 6.0f;
                xyz[3 * k] = -HALF + R * (1.2f + 2.15f * (float)a) + jitter;
                xyz[3 * k + 1] = -HALF + R * (1.2f + 2.15f * (float)b) - jitter;
                xyz[3 * k + 2] = R * (1.1f + 2.2f * (float)l);
                rad[k] = R * (1.0f - 0.1f * (float)((k * 31) % 7) / 6.0f); /* polydisperse: 0.9-1 R */
            }
    CHECK(loam_world_add_particles(w, n, xyz, NULL, rad, 2500.0f, &err) == LOAM_OK, "%s", err.message);
    free(xyz);
    free(rad);
    return w;
}

static float pair_gap(const loam_world* w, int i, int j) {
    float dx = w->x[i] - w->x[j], dy = w->y[i] - w->y[j], dz = w->z[i] - w->z[j];
    return sqrtf(dx * dx + dy * dy + dz * dz) - w->radius[i] - w->radius[j];
}

static int is_contact(const loam_world* w, int i, int j) {
    int lo = i < j ? i : j, hi = i < j ? j : i;
    const loam_contacts* c = &w->contacts;
    for (int k = loam_pairs_begin(c, lo), k_end = loam_pairs_end(c, lo); k < k_end; ++k)
        if (c->pair_j[k] == hi) return 1;
    return 0;
}

/* Pairs that were within the base margin at this step's detection (the positions before the step:
 * the caller keeps them) and are no contact. */
static int missed_pairs(const loam_world* w, const float* x0, const float* y0, const float* z0) {
    float margin = w->params.margin * w->max_radius;
    int missed = 0;
    for (int i = 0; i < w->count; ++i)
        for (int j = i + 1; j < w->count; ++j) {
            float dx = x0[i] - x0[j], dy = y0[i] - y0[j], dz = z0[i] - z0[j];
            float gap = sqrtf(dx * dx + dy * dy + dz * dz) - w->radius[i] - w->radius[j];
            if (gap < 0.999f * margin && !is_contact(w, i, j)) {
                if (missed < 3) fprintf(stderr, "  step %lld: pair %d-%d at gap %g m is no contact\n", (long long)w->step, i, j, gap);
                ++missed;
            }
        }
    return missed;
}

/* Steps, checking every `every` steps that no pair within the margin was missed. */
static int step_checking(loam_world* w, int steps, int every) {
    int n = w->count, missed = 0;
    float* old = malloc(sizeof(float) * 3 * (size_t)n);
    loam_error err;
    for (int s = 0; s < steps; ++s) {
        int check = s % every == every - 1;
        for (int i = 0; check && i < n; ++i) {
            old[i] = w->x[i];
            old[n + i] = w->y[i];
            old[2 * n + i] = w->z[i];
        }
        CHECK(loam_world_step(w, 1, &err) == LOAM_OK, "%s", err.message);
        /* A step may renumber (reorder.c) before detecting: then the saved positions mean other
         * particles; such steps are skipped (they rebuild the list and scan every particle). */
        if (check && !w->stats.list_rebuilt) missed += missed_pairs(w, old, old + n, old + 2 * n);
    }
    free(old);
    return missed;
}

static void test_no_pair_missed(loam_granular_solver solver) {
    loam_world* w = make_bed(20, solver, loam_granular_default_params().skin, 0.0f); /* 2420 particles: three blocks */
    int missed = step_checking(w, 700, 7);
    CHECK(missed == 0, "%s: %d pair(s) within the margin were no contact", solver == LOAM_GRANULAR_SOLVER_JACOBI ? "jacobi" : "gs",
          missed);
    loam_world_destroy(w);
}

static void test_rest_skips_and_edits(void) {
    /* A wide skin, so that the edit below keeps the list (the test is about the skipped scans);
     * damping brings the bed to rest sooner. */
    loam_world* w = make_bed(20, LOAM_GRANULAR_SOLVER_GAUSS_SEIDEL, 1.0f, 20.0f);
    CHECK(step_checking(w, 1200, 12) == 0, "settling missed a pair");
    /* At rest: most particles skipped their scan in the last step. */
    const loam_neighbor_list* nl = &w->neighbors;
    int scanned = 0;
    for (int b = 0; b < loam_block_count(w->count); ++b) scanned += w->block_info[b].scanned;
    CHECK(scanned < w->count / 10, "at rest %d of %d particles were scanned in a step", scanned, w->count);
    /* A particle that will skip next step: the gap its code promises at least (detect.c,
     * slack_code) against the bed's spread bound alone (detection's bound is at most this). */
    float base = w->params.margin * w->max_radius, span = nl->reach - base;
    float need = w->pair_margin + 2.0f * nl->moved_spread;
#define SKIPS(i) (base + span * (nl->slack[i] / 255.0f) * (nl->slack[i] / 255.0f) > need)

    /* Move a skipping particle of a listed non-contact pair (gap 1.1-1.5 margins) towards its
     * partner by writing the arrays between steps, as a user's numpy view would. */
    float margin = w->params.margin * w->max_radius;
    int pi = -1, pj = -1;
    for (int i = 0, start = 0; i < w->count && pi < 0; start += nl->count[i++]) {
        if (i % LOAM_BLOCK == 0) start = (i / LOAM_BLOCK) * nl->block_capacity; /* lists per block */
        if (!SKIPS(i)) continue;
        int32_t partners[1536];
        int np = loam_list_partners(i, &nl->j[start], nl->count[i], partners);
        for (int k = 0; k < np; ++k) {
            int j = partners[k];
            float g = pair_gap(w, i, j);
            if (g > 1.1f * margin && g < 1.5f * margin && !is_contact(w, i, j)) {
                pi = i;
                pj = j;
                break;
            }
        }
    }
    CHECK(pi >= 0, "no skipping particle with a listed non-contact 1.1-1.5 margins away");
    if (pi >= 0) {
        float g = pair_gap(w, pi, pj), d[3] = {w->x[pj] - w->x[pi], w->y[pj] - w->y[pi], w->z[pj] - w->z[pi]};
        float len = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]), move = g - 0.3f * margin;
        w->x[pi] += d[0] / len * move;
        w->y[pi] += d[1] / len * move;
        w->z[pi] += d[2] / len * move;
        loam_error err;
        CHECK(loam_world_step(w, 1, &err) == LOAM_OK, "%s", err.message);
        CHECK(!w->stats.list_rebuilt, "the edit rebuilt the list (the skipped scans went untested)");
        CHECK(is_contact(w, pi, pj), "pair %d-%d moved to gap %g m between steps is no contact", pi, pj, 0.3f * margin);
    }
    CHECK(step_checking(w, 60, 3) == 0, "after the edit a pair was missed");
    loam_world_destroy(w);
}

int main(void) {
    test_no_pair_missed(LOAM_GRANULAR_SOLVER_GAUSS_SEIDEL);
    test_no_pair_missed(LOAM_GRANULAR_SOLVER_JACOBI);
    test_rest_skips_and_edits();
    TEST_MAIN_END();
}

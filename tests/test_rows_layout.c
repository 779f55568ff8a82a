/* The contact rows' layout (src/granular/color.c): when the contact set changes, only the blocks of
 * particles whose contacts changed are listed anew, in place; the others keep their rows and the
 * impulses in them. Checked on a pile poured into a box (contacts change in some blocks and not in
 * others), with both solvers:
 *   1. after every step, each pair contact's ref names a row of its own two particles, in its
 *      block's region and in the group of its colour (inner or crossing), no row twice, and each
 *      block's rows are exactly its contacts;
 *   2. the run gives the same bits as a twin run whose every colouring lays all regions out anew
 *      (so the kept rows and the carried impulses are exactly what a full listing gives);
 *   3. the run did keep blocks (some steps listed some blocks anew but not all). */
#include <stdlib.h>
#include <string.h>

#include "granular/world_internal.h"
#include "loam/core.h"
#include "loam/geom.h"
#include "loam/granular.h"
#include "test_scenes.h"

enum { SIDE = 12, LAYERS = 36, N = SIDE * SIDE * LAYERS, STEPS = 260 };
static const float R = 0.004f; /* m */

static loam_world* make_pile(loam_granular_solver solver) {
    loam_granular_params p = loam_granular_default_params();
    p.solver = solver;
    p.reorder_interval = 0; /* renumbering lays every region out anew: keep it out of the comparison */
    loam_error err;
    loam_world* w = loam_world_create(&p, &err);
    CHECK(w != NULL, "%s", err.message);
    CHECK(ts_add_open_box(w, (loam_vec3){0.06f, 0.06f, 0.5f}, 0.02f, 0.5f) == 0, "box");
    static float xyz[3 * N], rad[N];
    for (int k = 0; k < N; ++k) {
        int a = k % SIDE, b = k / SIDE % SIDE, l = k / (SIDE * SIDE);
        xyz[3 * k] = -0.05f + 2.2f * R * (float)a + 2e-4f * (float)(l % 4);
        xyz[3 * k + 1] = -0.05f + 2.2f * R * (float)b + 1e-4f * (float)(l % 3);
        xyz[3 * k + 2] = R * (1.1f + 2.1f * (float)l);
        rad[k] = R * (0.9f + 0.2f * (float)((k * 7919) % 11) / 10.0f);
    }
    CHECK(loam_world_add_particles(w, N, xyz, NULL, rad, 2500.0f, &err) == LOAM_OK, "%s", err.message);
    return w;
}

/* Check 1 on w's rows; returns the number of failed checks. */
static int check_layout(const loam_world* w, int step) {
    const loam_contacts* c = &w->contacts;
    const loam_coloring* k = &w->coloring;
    const loam_rows* r = &k->rows;
    int blocks = loam_block_count(w->count), bad = 0;
    static uint8_t seen[64 * N];
    if (k->region[blocks] > (int)sizeof seen) {
        fprintf(stderr, "step %d: %d rows, more than this check holds\n", step, k->region[blocks]);
        return 1;
    }
    memset(seen, 0, (size_t)k->region[blocks]);
    for (int b = 0; b < blocks; ++b) {
        const int32_t* marks = loam_block_marks(k, b);
        int rows = 0;
        for (int i = b * LOAM_BLOCK; i < loam_block_end(w, b); ++i) {
            rows += loam_pairs_count(c, i) + loam_bodies_count(c, i);
            for (int s = loam_pairs_begin(c, i), s_end = loam_pairs_end(c, i); s < s_end; ++s) {
                int q = c->pair_ref[s], j = c->pair_j[s], col = c->pair_color[s];
                int inner = j / LOAM_BLOCK == b;
                int lo = inner ? marks[2 * col] : marks[2 * LOAM_COLOR_SLOTS + col];
                int hi = inner ? marks[2 * col + 1] : marks[2 * LOAM_COLOR_SLOTS + col + 1];
                int ok = q >= lo && q < hi && b * LOAM_BLOCK + r->i[q] == i && r->j[q] == j && !seen[q];
                if (!ok && bad++ < 3)
                    fprintf(stderr, "step %d: pair (%d, %d) colour %d: ref %d (group [%d, %d)) holds (%d, %d)\n", step, i,
                            j, col, q, lo, hi, q >= 0 ? b * LOAM_BLOCK + r->i[q] : -1, q >= 0 ? r->j[q] : -1);
                if (q >= 0) seen[q] = 1;
            }
        }
        if (marks[3 * LOAM_COLOR_SLOTS] - k->region[b] != rows && bad++ < 3)
            fprintf(stderr, "step %d: block %d has %d rows for %d contacts\n", step, b, marks[3 * LOAM_COLOR_SLOTS] - k->region[b],
                    rows);
        if (marks[3 * LOAM_COLOR_SLOTS] > k->region[b + 1] && bad++ < 3)
            fprintf(stderr, "step %d: block %d's rows overrun its region\n", step, b);
    }
    return bad;
}

static void check_solver(loam_granular_solver solver) {
    const char* name = solver == LOAM_GRANULAR_SOLVER_JACOBI ? "jacobi" : "gauss_seidel";
    loam_world* kept = make_pile(solver);
    loam_world* relaid = make_pile(solver);
    loam_error err;
    int blocks = loam_block_count(N), partial = 0, bad = 0, differ = -1;
    for (int s = 0; s < STEPS; ++s) {
        relaid->coloring.colored_layout = -1; /* its colourings lay every region out anew */
        CHECK(loam_world_step(kept, 1, &err) == LOAM_OK, "%s", err.message);
        CHECK(loam_world_step(relaid, 1, &err) == LOAM_OK, "%s", err.message);
        int listed = loam_world_last_stats(kept).blocks_relisted;
        partial += listed > 0 && listed < blocks;
        bad += check_layout(kept, s);
        loam_particles a = loam_world_particles(kept), b = loam_world_particles(relaid);
        size_t bytes = sizeof(float) * N;
        int same = !memcmp(a.x, b.x, bytes) && !memcmp(a.y, b.y, bytes) && !memcmp(a.z, b.z, bytes) &&
                   !memcmp(a.vx, b.vx, bytes) && !memcmp(a.vy, b.vy, bytes) && !memcmp(a.vz, b.vz, bytes);
        if (!same && differ < 0) differ = s;
    }
    CHECK(bad == 0, "%s: %d layout errors", name, bad);
    CHECK(differ < 0, "%s: kept rows and a full relisting differ from step %d", name, differ);
    /* Else the comparison saw no kept block at all. */
    CHECK(partial > 20, "%s: only %d of %d steps listed some blocks but not all (%d blocks)", name, partial, STEPS, blocks);
    fprintf(stderr, "%s: %d steps listed some of %d blocks anew\n", name, partial, blocks);
    loam_world_destroy(kept);
    loam_world_destroy(relaid);
}

int main(void) {
    check_solver(LOAM_GRANULAR_SOLVER_GAUSS_SEIDEL);
    check_solver(LOAM_GRANULAR_SOLVER_JACOBI);
    TEST_MAIN_END();
}

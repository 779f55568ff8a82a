/* A renumbering (src/granular/reorder.c) moves every contact to its new owner and keeps its impulse:
 * both solvers keep pair impulses only in the rows, and each contact slot a ref to its row, which
 * names the row's impulse negated when the pair changed owner (the lower of its two new numbers).
 * Checked here on a pile added in a scrambled order (so the Morton
 * renumbering really permutes it), in mid-fall: every pair's impulse, keyed by the two particles'
 * ids, is the same, bit for bit, before and after the renumbering, and some pairs did change owner. */
#include <stdlib.h>
#include <string.h>

#include "granular/world_internal.h"
#include "loam/core.h"
#include "loam/geom.h"
#include "loam/granular.h"
#include "test_scenes.h"

enum { SIDE = 10, LAYERS = 12, N = SIDE * SIDE * LAYERS };
static const float R = 0.004f; /* m */

typedef struct {
    int lo, hi;     /* ids, lo < hi */
    float l[3];     /* impulse on particle lo, N s */
    int owner;      /* id of the particle whose slot holds the pair */
} pair_impulse;

static int by_ids(const void* a, const void* b) {
    const pair_impulse *p = a, *q = b;
    if (p->lo != q->lo) return p->lo < q->lo ? -1 : 1;
    return p->hi < q->hi ? -1 : p->hi > q->hi;
}

/* Every pair contact's impulse, from where the solver keeps it, sorted by ids; returns the count. */
static int impulses(const loam_world* w, pair_impulse* out) {
    const loam_contacts* c = &w->contacts;
    const loam_rows* r = &w->coloring.rows;
    int m = 0;
    for (int i = 0; i < w->count; ++i)
        for (int s = loam_pairs_begin(c, i), s_end = loam_pairs_end(c, i); s < s_end; ++s) {
            int j = c->pair_j[s];
            float l[3];
            loam_ref_impulse(r->lx, r->ly, r->lz, c->pair_ref[s], l);
            int flip = w->id[i] > w->id[j];
            pair_impulse* p = &out[m++];
            p->lo = flip ? w->id[j] : w->id[i];
            p->hi = flip ? w->id[i] : w->id[j];
            for (int k = 0; k < 3; ++k) p->l[k] = flip ? -l[k] : l[k];
            p->owner = w->id[i];
        }
    qsort(out, (size_t)m, sizeof *out, by_ids);
    return m;
}

static void check_solver(loam_granular_solver solver) {
    loam_granular_params p = loam_granular_default_params();
    p.solver = solver;
    p.reorder_interval = 0; /* the test renumbers by hand */
    loam_error err;
    loam_world* w = loam_world_create(&p, &err);
    CHECK(w != NULL, "%s", err.message);
    CHECK(ts_add_open_box(w, (loam_vec3){0.05f, 0.05f, 0.3f}, 0.02f, 0.5f) == 0, "box");
    /* A loose lattice, in a shuffled order. */
    static float xyz[3 * N], rad[N];
    static int order[N];
    for (int k = 0; k < N; ++k) order[k] = k;
    unsigned seed = 12345u;
    for (int k = N - 1; k > 0; --k) {
        seed = seed * 1664525u + 1013904223u;
        int m = (int)(seed >> 8) % (k + 1), t = order[k];
        order[k] = order[m];
        order[m] = t;
    }
    for (int k = 0; k < N; ++k) {
        int c = order[k], a = c % SIDE, b = c / SIDE % SIDE, l = c / (SIDE * SIDE);
        xyz[3 * k] = -0.04f + 2.3f * R * (float)a + 1e-4f * (float)(l % 3);
        xyz[3 * k + 1] = -0.04f + 2.3f * R * (float)b;
        xyz[3 * k + 2] = R * (1.2f + 2.3f * (float)l);
        rad[k] = R;
    }
    CHECK(loam_world_add_particles(w, N, xyz, NULL, rad, 2500.0f, &err) == LOAM_OK, "%s", err.message);
    for (int s = 0; s < 120; ++s) CHECK(loam_world_step(w, 1, &err) == LOAM_OK, "%s", err.message);
    CHECK(w->contacts.pair_region != NULL, "no contacts were stored");
    static pair_impulse before[20 * N], after[20 * N];
    int m0 = impulses(w, before);
    CHECK(loam_granular_reorder(w), "renumbering ran out of memory");
    int m1 = impulses(w, after);
    CHECK(m0 == m1 && m0 > N / 2, "%d pairs before the renumbering, %d after", m0, m1);
    int same = 0, moved = 0, carrying = 0;
    for (int k = 0; k < m0 && m0 == m1; ++k) {
        same += before[k].lo == after[k].lo && before[k].hi == after[k].hi &&
                memcmp(before[k].l, after[k].l, sizeof before[k].l) == 0;
        if (before[k].owner != after[k].owner) {
            ++moved;
            carrying += before[k].l[0] != 0.0f || before[k].l[1] != 0.0f || before[k].l[2] != 0.0f;
        }
    }
    CHECK(same == m0, "solver %d: %d of %d pairs kept their impulse", (int)solver, same, m0);
    /* Else the test could not tell a sign error from a right answer. */
    CHECK(carrying > 20, "solver %d: only %d pairs with an impulse changed owner (%d in all)", (int)solver, carrying, moved);
    fprintf(stderr, "solver %d: %d pairs, %d changed owner (%d with an impulse)\n", (int)solver, m0, moved, carrying);
    loam_world_destroy(w);
}

int main(void) {
    check_solver(LOAM_GRANULAR_SOLVER_GAUSS_SEIDEL);
    check_solver(LOAM_GRANULAR_SOLVER_JACOBI);
    TEST_MAIN_END();
}

/* The storages of a group's matrix (contact/cp.h's cp_storage): one small problem on a lumped mass
 * (three particles of different masses: one group of 9 unknowns, or one group per particle) stored
 * DENSE (with its Cholesky factor), DIAGONAL (its entries) and MATRIX_FREE (A^-1 applied by a
 * callback), or mixed (one particle each way), gives the same Delassus diagonal (cp_prepare's and
 * SubADMM's cp_prepare_diag) and the same impulses and velocities within the solvers' tolerance:
 * from PGS and PJ, and from full ADMM (one subsystem) and SubADMM (one subsystem per particle, the
 * pair contact spanning two), whose diagonal and matrix-free subsystems take the Woodbury form
 * (contact/admm.c) where dense ones are assembled and factorized. The problem: two particles on the
 * ground (contacts), the two touching each other along a slanted normal (a contact), the third held
 * by a soft equality. A larger one (make_grid: two subsystems of 60 unknowns, 13 rows) puts dense
 * storage on SubADMM's band path against the Woodbury form. */
#include <math.h>
#include <string.h>

#include "contact/cp.h"
#include "core/dense.h"
#include "test_util.h"

enum { N = 9, M = 10, NB = 4, MIXED = 4 };
static const double MASS[3] = {1.0, 2.5, 0.4};

/* The matrix-free storage's A^-1: the masses of the group's particles, from ctx. */
static void lumped_solve(const void* ctx, int n, double* x) {
    const double* mass = ctx;
    for (int i = 0; i < n; ++i) x[i] /= mass[i / 3];
}

typedef struct run {
    double A[3][N * N], L[3][N * N], diagA[N], v[N], Jd[M * N], J[2 * M * N], AJ[2 * M * N], e[M], lambda[M], diag[M];
    int row_seg[M + 1], ngroup;
    cp_seg seg[2 * M];
    cp_group group[3];
    cp_block block[NB];
    cp_problem p;
} run;

/* Group g's storage: `storage`, or with MIXED dense, diagonal and matrix-free by particle. */
static cp_storage storage_of(int storage, int g) { return storage == MIXED ? (cp_storage[]){CP_DENSE, CP_DIAGONAL, CP_MATRIX_FREE}[g] : (cp_storage)storage; }

/* split: one group per particle, else one group for all three. */
static void make(run* r, int storage, int split) {
    memset(r, 0, sizeof *r);
    static const double v0[N] = {0.3, -0.2, -1.0, -0.4, 0.1, -0.5, 0.2, 0.0, 0.7};
    memcpy(r->v, v0, sizeof r->v);
    /* rows: 0-2 particle 0 on the ground (normal z), 3-5 particle 1 on the ground, 6-8 particle 0
     * against particle 1 along n (from 1 to 0), 9 particle 2's z held softly at 0 velocity */
    double n[3] = {-0.6, 0.0, 0.8}, t1[3] = {0.8, 0.0, 0.6}, t2[3] = {0.0, 1.0, 0.0};
    const double* fr[3] = {n, t1, t2};
    for (int q = 0; q < 3; ++q) {
        int axis = q == 0 ? 2 : q - 1; /* ground frame: z, x, y */
        r->Jd[q * N + axis] = 1.0;
        r->Jd[(3 + q) * N + 3 + axis] = 1.0;
        for (int k = 0; k < 3; ++k) r->Jd[(6 + q) * N + k] = fr[q][k], r->Jd[(6 + q) * N + 3 + k] = -fr[q][k];
    }
    r->Jd[9 * N + 8] = 1.0;
    r->e[6] = -0.05; /* the pair slightly overlapping */
    r->ngroup = split ? 3 : 1;
    int gn = N / r->ngroup;
    for (int i = 0; i < N; ++i) r->diagA[i] = MASS[i / 3];
    for (int g = 0; g < r->ngroup; ++g) {
        for (int i = 0; i < gn; ++i) r->A[g][i * gn + i] = MASS[(g * gn + i) / 3];
        memcpy(r->L[g], r->A[g], sizeof r->A[g]);
        dense_cholesky(r->L[g], gn);
        cp_storage st = storage_of(storage, g);
        r->group[g] = (cp_group){g * gn, gn, st == CP_DIAGONAL ? r->diagA + g * gn : r->A[g], r->L[g], 0, st,
                                 st == CP_MATRIX_FREE ? lumped_solve : NULL, MASS + g * gn / 3};
    }
    /* each row's segments: the groups it touches (all of its one group's unknowns, unsplit) */
    int ns = 0;
    size_t val = 0;
    for (int k = 0; k < M; ++k) {
        r->row_seg[k] = ns;
        for (int g = 0; g < r->ngroup; ++g) {
            int any = !split;
            for (int i = 0; i < gn; ++i) any |= r->Jd[k * N + g * gn + i] != 0.0;
            if (!any) continue;
            memcpy(r->J + val, r->Jd + k * N + g * gn, sizeof(double) * (size_t)gn);
            r->seg[ns++] = (cp_seg){g, val, 0, 0};
            val += (size_t)gn;
        }
    }
    r->row_seg[M] = ns;
    cp_seg_ranges(r->seg, ns, r->group, r->J);
    r->block[0] = (cp_block){0, CP_CONTACT, 0.4, 0.0};
    r->block[1] = (cp_block){3, CP_CONTACT, 0.8, 0.0};
    r->block[2] = (cp_block){6, CP_CONTACT, 0.3, 0.0};
    r->block[3] = (cp_block){9, CP_EQUALITY, 0.0, 0.05};
    r->p = (cp_problem){N, r->ngroup, r->group, r->v, M, r->row_seg, r->seg, r->J, r->AJ, r->e, r->lambda, NB, r->block, r->diag, NULL};
}

/* A larger problem, where the subsystems have far more unknowns than rows (the case the Woodbury
 * form is for: lumped grid nodes): two groups of GN nodes (3 unknowns each, masses 0.5 + 0.1 i),
 * each its own subsystem; three nodes on the ground, one node of each group against the other
 * (a contact spanning both subsystems), one node held by a soft equality. Dense storage makes each
 * subsystem a large one (the band path); diagonal and matrix-free ones the Woodbury form. */
enum { GN = 20, GU = 3 * GN, GM = 13 };
typedef struct grid {
    double A[2][GU * GU], L[2][GU * GU], diagA[2 * GU], mass[2 * GN], v[2 * GU], J[2 * GM * GU], AJ[2 * GM * GU], e[GM], lambda[GM], diag[GM];
    int row_seg[GM + 1];
    cp_seg seg[2 * GM];
    cp_group group[2];
    cp_block block[5];
    cp_problem p;
} grid;

static void make_grid(grid* r, cp_storage storage) {
    memset(r, 0, sizeof *r);
    for (int i = 0; i < 2 * GN; ++i) r->mass[i] = 0.5 + 0.1 * i;
    for (int i = 0; i < 2 * GU; ++i) r->diagA[i] = r->mass[i / 3], r->v[i] = 0.3 * sin(1.7 * i) - (i % 3 == 2 ? 0.8 : 0.0);
    for (int g = 0; g < 2; ++g) {
        for (int i = 0; i < GU; ++i) r->A[g][i * GU + i] = r->diagA[g * GU + i];
        memcpy(r->L[g], r->A[g], sizeof r->A[g]);
        dense_cholesky(r->L[g], GU);
        r->group[g] = (cp_group){g * GU, GU, storage == CP_DIAGONAL ? r->diagA + g * GU : r->A[g], r->L[g], 0, storage,
                                 storage == CP_MATRIX_FREE ? lumped_solve : NULL, r->mass + g * GN};
    }
    /* (group, node) of the ground contacts; the pair; the held node */
    static const int ground[3][2] = {{0, 3}, {0, 17}, {1, 5}};
    double n[3] = {-0.6, 0.0, 0.8}, t1[3] = {0.8, 0.0, 0.6}, t2[3] = {0.0, 1.0, 0.0};
    const double* fr[3] = {n, t1, t2};
    int ns = 0, row = 0;
    size_t val = 0;
    for (int c = 0; c < 3; ++c)
        for (int q = 0; q < 3; ++q, ++row) {
            r->row_seg[row] = ns;
            r->seg[ns++] = (cp_seg){ground[c][0], val, 0, 0};
            r->J[val + 3 * (size_t)ground[c][1] + (q == 0 ? 2 : q - 1)] = 1.0;
            val += GU;
        }
    for (int q = 0; q < 3; ++q, ++row) { /* group 0's node 10 against group 1's node 12 */
        r->row_seg[row] = ns;
        for (int g = 0; g < 2; ++g) {
            r->seg[ns++] = (cp_seg){g, val, 0, 0};
            for (int k = 0; k < 3; ++k) r->J[val + 3 * (size_t)(g ? 12 : 10) + k] = g ? -fr[q][k] : fr[q][k];
            val += GU;
        }
    }
    r->e[9] = -0.02;
    r->row_seg[row] = ns;
    r->seg[ns++] = (cp_seg){1, val, 0, 0};
    r->J[val + 3 * 19 + 2] = 1.0;
    r->row_seg[GM] = ns;
    cp_seg_ranges(r->seg, ns, r->group, r->J);
    r->block[0] = (cp_block){0, CP_CONTACT, 0.4, 0.0};
    r->block[1] = (cp_block){3, CP_CONTACT, 0.6, 0.0};
    r->block[2] = (cp_block){6, CP_CONTACT, 0.8, 0.0};
    r->block[3] = (cp_block){9, CP_CONTACT, 0.3, 0.0};
    r->block[4] = (cp_block){12, CP_EQUALITY, 0.0, 0.05};
    r->p = (cp_problem){2 * GU, 2, r->group, r->v, GM, r->row_seg, r->seg, r->J, r->AJ, r->e, r->lambda, 5, r->block, r->diag, NULL};
}

static const char* NAME[5] = {"dense", "banded", "diagonal", "matrix-free", "mixed"};

/* r's impulses, velocities and (if diag) Delassus diagonal are ref's within tol. */
static void same(const run* r, const run* ref, double tol, int diag, const char* who, int storage) {
    for (int i = 0; i < M; ++i) {
        CHECK(fabs(r->lambda[i] - ref->lambda[i]) <= tol * (1.0 + fabs(ref->lambda[i])), "%s, %s: lambda[%d] = %.15g; dense: %.15g", who, NAME[storage], i,
              r->lambda[i], ref->lambda[i]);
        if (diag)
            CHECK(fabs(r->diag[i] - ref->diag[i]) <= 1e-14 * ref->diag[i], "%s, %s: diag[%d] = %.15g; dense: %.15g", who, NAME[storage], i, r->diag[i],
                  ref->diag[i]);
    }
    for (int i = 0; i < N; ++i)
        CHECK(fabs(r->v[i] - ref->v[i]) <= tol * (1.0 + fabs(ref->v[i])), "%s, %s: v[%d] = %.15g, dense %.15g", who, NAME[storage], i, r->v[i], ref->v[i]);
}

int main(void) {
    static run ref, r;
    int kinds[4] = {CP_DENSE, CP_DIAGONAL, CP_MATRIX_FREE, MIXED};
    for (int solver = 0; solver < 2; ++solver) {
        for (int k = 0; k < 4; ++k) {
            make(&r, kinds[k], k == 3);
            cp_prepare(&r.p);
            cp_result res = solver == 0 ? cp_solve_pgs(&r.p, 500, 1e-13, 0) : cp_solve_pj(&r.p, 5000, 1e-13, 0.5);
            const char* who = solver == 0 ? "pgs" : "pj";
            CHECK(res.iterations > 0 && res.error <= 1e-9, "%s, %s: %d iterations, error %.3e", who, NAME[kinds[k]], res.iterations, res.error);
            if (k == 0) {
                ref = r;
                CHECK(ref.lambda[0] > 0.0 && ref.lambda[3] > 0.0 && ref.lambda[6] > 0.0 && ref.lambda[9] != 0.0,
                      "%s: every block is active (%g %g %g %g)", who, ref.lambda[0], ref.lambda[3], ref.lambda[6], ref.lambda[9]);
                continue;
            }
            same(&r, &ref, 1e-9, 1, who, kinds[k]);
        }
    }
    /* SubADMM's preparation gives the same diagonal for every storage */
    for (int k = 0; k < 4; ++k) {
        double segd[2 * M], t[N];
        make(&r, kinds[k], k == 3);
        cp_prepare_diag(&r.p, segd, t);
        make(&ref, CP_DENSE, 0);
        cp_prepare(&ref.p);
        for (int i = 0; i < M; ++i)
            CHECK(fabs(r.diag[i] - ref.diag[i]) <= 1e-14 * ref.diag[i], "%s: cp_prepare_diag's diag[%d] %.15g, cp_prepare's %.15g", NAME[kinds[k]], i,
                  r.diag[i], ref.diag[i]);
    }
    /* full ADMM (one subsystem) and SubADMM (one per particle): every storage gives dense storage's
     * impulses, with the paper's penalty and with per-constraint penalties, residual balancing and
     * over-relaxation; and from a warm start (the dense solution, perturbed) the same again */
    static const cp_admm_settings SET[2] = {{1.0, 0, 0, 1.0, 0, 1.0, 0.0, 1}, {1.0, 0, 1, 1.0, 0, 1.5, 1.0, 1}};
    for (int split = 0; split < 2; ++split)
        for (int c = 0; c < 2; ++c)
            for (int warm = 0; warm < 2; ++warm) {
                double start[M];
                for (int i = 0; i < M; ++i) start[i] = warm ? 0.9 * ref.lambda[i] : 0.0;
                for (int k = 0; k < 4; ++k) {
                    /* full ADMM with mixed storage: three groups (a dense one among them) in one subsystem */
                    int sub[3] = {0, split, 2 * split}, nsub = split ? 3 : 1, groups = split || kinds[k] == MIXED;
                    const char* who = split ? "subadmm" : "fadmm";
                    make(&r, kinds[k], groups);
                    memcpy(r.lambda, start, sizeof start);
                    cp_result res = cp_solve_admm(&r.p, 20000, 1e-13, sub, nsub, &SET[c], NULL);
                    CHECK(res.iterations > 0 && res.iterations < 20000 && res.error <= 1e-9, "%s, %s, settings %d: %d iterations, error %.3e", who,
                          NAME[kinds[k]], c, res.iterations, res.error);
                    if (k == 0) {
                        ref = r;
                        continue;
                    }
                    same(&r, &ref, 1e-9, 0, who, kinds[k]);
                }
            }
    /* the grid: SubADMM (two subsystems) and full ADMM (one), dense storage (the band path) against
     * diagonal and matrix-free (the Woodbury form) */
    static grid gref, gr;
    cp_storage gkinds[3] = {CP_DENSE, CP_DIAGONAL, CP_MATRIX_FREE};
    for (int split = 0; split < 2; ++split)
        for (int c = 0; c < 2; ++c)
            for (int k = 0; k < 3; ++k) {
                int sub[2] = {0, split};
                const char* who = split ? "subadmm, grid" : "fadmm, grid";
                make_grid(&gr, gkinds[k]);
                cp_result res = cp_solve_admm(&gr.p, 20000, 1e-13, sub, 1 + split, &SET[c], NULL);
                CHECK(res.iterations > 0 && res.iterations < 20000 && res.error <= 1e-9, "%s, %s, settings %d: %d iterations, error %.3e", who,
                      NAME[gkinds[k]], c, res.iterations, res.error);
                if (k == 0) {
                    gref = gr;
                    CHECK(gref.lambda[0] > 0.0 && gref.lambda[3] > 0.0 && gref.lambda[6] > 0.0 && gref.lambda[9] > 0.0 && gref.lambda[12] != 0.0,
                          "%s: every block is active (%g %g %g %g %g)", who, gref.lambda[0], gref.lambda[3], gref.lambda[6], gref.lambda[9], gref.lambda[12]);
                    continue;
                }
                for (int i = 0; i < GM; ++i)
                    CHECK(fabs(gr.lambda[i] - gref.lambda[i]) <= 1e-9 * (1.0 + fabs(gref.lambda[i])), "%s, %s: lambda[%d] = %.15g; dense: %.15g", who,
                          NAME[gkinds[k]], i, gr.lambda[i], gref.lambda[i]);
                for (int i = 0; i < 2 * GU; ++i)
                    CHECK(fabs(gr.v[i] - gref.v[i]) <= 1e-9 * (1.0 + fabs(gref.v[i])), "%s, %s: v[%d] = %.15g; dense: %.15g", who, NAME[gkinds[k]], i,
                          gr.v[i], gref.v[i]);
            }
    TEST_MAIN_END();
}

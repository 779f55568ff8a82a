/* The storages of a group's matrix (contact/cp.h's cp_storage): one small problem on a lumped mass
 * (three particles of different masses: one group of 9 unknowns, or one group per particle) stored
 * DENSE (with its Cholesky factor), DIAGONAL (its entries) and MATRIX_FREE (A^-1 applied by a
 * callback), or mixed (one particle each way), gives the same Delassus diagonal (cp_prepare's and
 * SubADMM's cp_prepare_diag) and the same impulses and velocities within the solvers' tolerance:
 * from PGS and PJ, and from full ADMM (one subsystem) and SubADMM (one subsystem per particle, the
 * pair contact spanning two), whose diagonal and matrix-free subsystems take the Woodbury form
 * (contact/admm.c) where dense ones are assembled and factorized. The problem: two particles on the
 * ground (contacts), the two touching each other along a slanted normal (a contact), the third held
 * by a soft equality. */
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
    TEST_MAIN_END();
}
